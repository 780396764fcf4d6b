package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEmacsEglot: Emacs 28 with eglot 1.9 (Debian's emacs-nox and
// elpa-eglot), in batch mode, uses `lspgraph proxy -- gopls` as its Go
// server: definition and references (through xref) are forwarded to
// gopls; lspgraph.impact and lspgraph.status are answered by the proxy
// over the fixture's SCIP base; textDocument/codeLens holds the proxy's
// lens above Save, and running its command answers Save's dependents.
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
		"line": 30, "needle": "Put", "refs_line": 29, "refs_needle": "Save", "out": out,
		"readme_lens": readmeBlock(t, "(eq (plist-get (plist-get l :data) :lspgraph) t)"),
	})
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second) // connect (60 s), lenses (90 s), requests
	defer cancel()
	c := exec.CommandContext(ctx, emacs, "--batch", "-l", filepath.Join(mod, "internal", "e2e", "testdata", "eglot_client.el"))
	c.Dir = root
	// gopls's cache outside TempDir, which a late gopls could still write.
	cache, err := os.MkdirTemp("", "lspgraph-eglot-cache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeEventually(t, cache) })
	c.Env = append(os.Environ(), "LSPGRAPH_E2E_CONFIG="+cfgPath, "HOME="+dir, "XDG_CACHE_HOME="+cache)
	output, err := c.CombinedOutput()
	if err != nil {
		// Batch Emacs prints the error first, then a long backtrace.
		t.Fatalf("emacs: %v\n%s\n%s", err, head(string(output), 2000), tail(string(output), 3000))
	}
	var res struct {
		Connected  bool            `json:"connected"`
		Definition json.RawMessage `json:"definition"`
		References []struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"references"`
		Lenses     json.RawMessage `json:"lenses"`
		LensImpact *impactAnswer   `json:"lens_impact"`
		READMELens *impactAnswer   `json:"readme_lens"`
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
	// References of Save through xref: its declaration and its call in
	// Import.
	var refs []string
	for _, r := range res.References {
		refs = append(refs, fmt.Sprintf("%s:%d", relPath(root, fileURI(r.File)), r.Line))
	}
	sortStrings(refs)
	wantSites(t, "xref references of Save from eglot", refs, "service/catalog.go:29", "service/catalog.go:44")
	// The proxy's lens above Save, and its command run by eglot.
	_, ours := splitLenses(t, decodeLenses(t, res.Lenses))
	save := posOf(t, root, "service/catalog.go", 29, "Save").Line
	wantLens(t, ours, save, "1 caller · 0 tests")
	t.Logf("eglot: xref references %v; the proxy's lenses %s", refs, titles(ours))
	if res.LensImpact == nil {
		t.Errorf("eglot ran no lens of the proxy on Save's line; lenses: %s", res.Lenses)
	} else {
		wantSites(t, "d=1 of the lens on Save run from eglot", res.LensImpact.depth(1, false), "Catalog.Import service/catalog.go:37")
	}
	// The README's snippet, as written, on Save's line.
	if res.READMELens == nil {
		t.Errorf("the README's eglot lens snippet answered nothing on Save's line")
	} else {
		wantSites(t, "d=1 of the README's eglot lens snippet on Save", res.READMELens.depth(1, false), "Catalog.Import service/catalog.go:37")
	}
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
