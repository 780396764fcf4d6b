package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEmacsEglot: Emacs 28 with eglot 1.9 (Debian's emacs-nox and
// elpa-eglot), in batch mode, uses `lspgraph proxy -- gopls` as its Go
// server: definition is forwarded to gopls, and lspgraph.impact and
// lspgraph.status are answered by the proxy over the fixture's SCIP base.
func TestEmacsEglot(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	emacs := needTool(t, "emacs")
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	root := fixture(t, "goapp")
	gitRepo(t, root) // eglot's project is the repository
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	importSCIP(t, store, root, "goapp.scip")
	out := filepath.Join(dir, "out.json")
	cfg, err := json.Marshal(map[string]any{
		"cmd": proxyArgv(t, store, logFile, []string{gopls}), "file": filepath.Join(root, "service", "catalog.go"),
		"line": 30, "needle": "Put", "out": out,
	})
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, emacs, "--batch", "-l", filepath.Join(mod, "internal", "e2e", "testdata", "eglot_client.el"))
	c.Dir = root
	c.Env = append(os.Environ(), "LSPGRAPH_E2E_CONFIG="+cfgPath, "HOME="+dir)
	output, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("emacs: %v\n%s", err, tail(string(output), 4000))
	}
	var res struct {
		Connected  bool            `json:"connected"`
		Definition json.RawMessage `json:"definition"`
		Impact     impactAnswer    `json:"impact"`
		Status     proxyStatus     `json:"status"`
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("emacs wrote no result: %v\n%s", err, tail(string(output), 4000))
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("%v in %.500s", err, data)
	}
	if !res.Connected {
		t.Fatalf("eglot did not connect:\n%s", tail(string(output), 4000))
	}
	// c.st.Put is store.Store's Put (store/store.go:17).
	wantSites(t, "definition of c.st.Put from eglot", sites(root, locations(t, res.Definition)), "store/store.go:17")
	if !dependsOn(res.Impact, "Catalog.Import") {
		t.Errorf("lspgraph.impact Catalog.Save from eglot: d=1 %v; want Catalog.Import", names(res.Impact))
	}
	var store2 struct {
		Root string `json:"root"`
	}
	_ = json.Unmarshal(res.Status.Store, &store2)
	if res.Status.Proxy.Server != "gopls" || store2.Root != root {
		t.Errorf("lspgraph.status from eglot: server %q, root %q; want gopls and %s", res.Status.Proxy.Server, store2.Root, root)
	}
	if !strings.Contains(string(output), "Connected!") {
		t.Logf("emacs output:\n%s", tail(string(output), 2000))
	}
}
