package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// nvimRequest is one request the Lua client sends from the opened buffer.
type nvimRequest struct {
	Name   string `json:"name"`
	Method string `json:"method,omitempty"`
	Params any    `json:"params,omitempty"`
	// Edit inserts Text before Line (1-based) without saving.
	Edit *nvimEdit `json:"edit,omitempty"`
	// Shell runs a command while the editor stays attached.
	Shell []string `json:"shell,omitempty"`
	// WaitFile waits (bounded) until the file exists.
	WaitFile string `json:"wait_file,omitempty"`
	// Lua runs a chunk in the opened buffer and records its messages.
	Lua string `json:"lua,omitempty"`
}

// nvimEdit is an unsaved insertion into the opened buffer.
type nvimEdit struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// shellResult is a shell step's result.
type shellResult struct {
	Out  string `json:"out"`
	Code int    `json:"code"`
}

// nvimResult is what testdata/nvim_client.lua writes.
type nvimResult struct {
	OK       bool     `json:"ok"`
	Error    string   `json:"error"`
	Commands []string `json:"commands"`
	Stopped  bool     `json:"stopped"`
	StopMS   float64  `json:"stop_ms"`
	Messages string   `json:"messages"`
	Steps    map[string]struct {
		Result json.RawMessage `json:"result"`
		MS     float64         `json:"ms"`
		Error  json.RawMessage `json:"error"`
	} `json:"steps"`
}

// runNvim starts headless Neovim with testdata/nvim_client.lua, which
// starts cmd as the language server of root, opens file, sends the
// requests and stops the server. Every wait is bounded; on failure the
// test log gets Neovim's messages, output and LSP log.
func runNvim(t *testing.T, cmd []string, root, file string, requests []nvimRequest) nvimResult {
	t.Helper()
	return startNvim(t, cmd, root, file, requests)()
}

// startNvim starts Neovim as runNvim does and returns a function that
// waits for it and returns its result.
func startNvim(t *testing.T, cmd []string, root, file string, requests []nvimRequest) func() nvimResult {
	t.Helper()
	nvim := needTool(t, "nvim")
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "result.json")
	const timeout = 60 * time.Second
	cfg, err := json.Marshal(map[string]any{
		"cmd": cmd, "root": root, "file": filepath.Join(root, file),
		"timeout_ms": timeout.Milliseconds(), "out": out, "requests": requests,
	})
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(mod, "internal", "e2e", "testdata", "nvim_client.lua")

	// Every wait inside is bounded by timeout; a run of several slow steps
	// gets more before Neovim is killed.
	const limit = timeout + 90*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	c := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-u", "NONE", "-c", "luafile "+script)
	c.Dir = root
	// Keep Neovim's state (the LSP log among it) inside the test. The cache
	// (gopls's among it) is outside TempDir: a gopls whose proxy was killed
	// may still write there after the test, and TempDir's cleanup would
	// fail on it.
	cache, err := os.MkdirTemp("", "lspgraph-nvim-cache-")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { removeEventually(t, cache) })
	c.Env = append(os.Environ(), "LSPGRAPH_E2E_CONFIG="+cfgPath,
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CACHE_HOME="+cache)
	var output bytes.Buffer
	c.Stdout, c.Stderr = &output, &output
	c.WaitDelay = 5 * time.Second
	if err := c.Start(); err != nil {
		cancel()
		t.Fatalf("starting nvim: %v", err)
	}
	return func() nvimResult {
		t.Helper()
		defer cancel()
		runErr := c.Wait()

		var res nvimResult
		data, readErr := os.ReadFile(out)
		if readErr == nil {
			if readErr = json.Unmarshal(data, &res); readErr != nil {
				readErr = fmt.Errorf("%w in %s", readErr, data)
			}
		}
		t.Cleanup(func() {
			if !t.Failed() {
				return
			}
			t.Logf("nvim output:\n%s", tail(output.String(), 4000))
			t.Logf("nvim messages:\n%s", res.Messages)
			if log, err := os.ReadFile(filepath.Join(cache, "nvim", "lsp.log")); err == nil {
				t.Logf("nvim lsp.log (last 6000 bytes):\n%s", tail(string(log), 6000))
			}
		})
		switch {
		case ctx.Err() != nil:
			t.Fatalf("nvim did not finish within %s (killed)", limit)
		case runErr != nil:
			t.Fatalf("nvim: %v", runErr)
		case readErr != nil:
			t.Fatalf("nvim wrote no result: %v", readErr)
		case !res.OK:
			t.Fatalf("the Neovim client failed: %s", res.Error)
		case !res.Stopped:
			t.Errorf("Neovim's client.stop() did not stop the server within %s", timeout)
		}
		return res
	}
}

// step returns a request's result, failing the test when it has none.
func (r nvimResult) step(t *testing.T, name string) json.RawMessage {
	t.Helper()
	s, ok := r.Steps[name]
	switch {
	case !ok:
		t.Fatalf("Neovim recorded no answer to %s", name)
	case len(s.Error) > 0 && string(s.Error) != "null":
		t.Fatalf("Neovim's %s failed: %s", name, s.Error)
	}
	if len(s.Result) == 0 {
		return json.RawMessage("null")
	}
	return s.Result
}

// TestNeovimProxyGopls runs Neovim with `lspgraph proxy -- gopls` as the Go
// language server of testdata/goapp, whose store holds the fixture's SCIP
// dump as its base: definition and references from the buffer of
// service/catalog.go, then lspgraph.status and lspgraph.impact on
// (*Catalog).Save.
func TestNeovimProxyGopls(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	needTool(t, "nvim")
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	importSCIP(t, store, root, "goapp.scip")
	const cat = "service/catalog.go"
	at := func(line int, needle string) map[string]any {
		return map[string]any{"textDocument": map[string]string{"uri": "$URI"}, "position": posOf(t, root, cat, line, needle)}
	}
	verify := func(arg map[string]any) map[string]any {
		arg["verify"] = true // check d=1 against gopls
		return arg
	}
	refs := at(29, "Save")
	// As vim.lsp.buf.references() asks. (Without the declaration the proxy
	// cannot tell which symbol the sites belong to unless the graph already
	// knows the definition, and records nothing.)
	refs["context"] = map[string]bool{"includeDeclaration": true}
	res := runNvim(t, proxyArgv(t, store, logFile, []string{gopls}), root, cat, []nvimRequest{
		{Name: "definition", Method: "textDocument/definition", Params: at(30, "Put")},
		{Name: "references", Method: "textDocument/references", Params: refs},
		{Name: "status", Method: "workspace/executeCommand", Params: map[string]any{"command": "lspgraph.status"}},
		{Name: "impact", Method: "workspace/executeCommand", Params: map[string]any{"command": "lspgraph.impact", "arguments": []any{verify(at(29, "Save"))}}},
		// Version after "café ☕ 𝄞 ": UTF-16 column 30, UTF-8 byte 35.
		{Name: "impact Version", Method: "workspace/executeCommand", Params: map[string]any{"command": "lspgraph.impact", "arguments": []any{at(16, "Version")}}},
		{Name: "context", Method: "workspace/executeCommand", Params: map[string]any{"command": "lspgraph.context", "arguments": []any{at(29, "Save")}}},
	})

	for _, c := range []string{"lspgraph.status", "gopls.tidy"} {
		if !contains(res.Commands, c) {
			t.Errorf("Neovim's client saw executeCommandProvider.commands without %s: %v", c, res.Commands)
		}
	}
	// c.st.Put is store.Store's Put (store/store.go:17).
	wantSites(t, "definition of c.st.Put from Neovim", sites(root, locations(t, res.step(t, "definition"))), "store/store.go:17")
	// Save's declaration and its one call site, in Import.
	wantSites(t, "references of Catalog.Save from Neovim", sites(root, locations(t, res.step(t, "references"))),
		"service/catalog.go:29", "service/catalog.go:44")

	st := checkStatus(t, res.step(t, "status"), "gopls")
	if st.Proxy.Server != "gopls" || len(st.Proxy.ServerArgs) == 0 || st.Proxy.ServerArgs[0] != gopls {
		t.Errorf("lspgraph.status names server %q with args %v; want gopls, %s", st.Proxy.Server, st.Proxy.ServerArgs, gopls)
	}
	// The store reports the SCIP base imported before the session.
	var layers struct {
		Layers []struct {
			Layer, Tool, Commit, State string
			Documents                  int
		} `json:"layers"`
	}
	if err := json.Unmarshal(st.Store, &layers); err != nil {
		t.Fatalf("decoding lspgraph.status's store: %v", err)
	}
	base := false
	for _, l := range layers.Layers {
		base = base || l.Layer == "base" && l.Tool == "scip-go" && l.Commit == "fixture" && l.State == "complete" && l.Documents >= 7
	}
	if !base {
		t.Errorf("lspgraph.status shows no complete scip-go base of commit fixture with the fixture's 7 documents: %s", st.Store)
	}
	// Neovim sent at least initialize, initialized, didOpen, the two
	// requests and the command; the server answered at least the requests.
	if st.Proxy.Stats.FromEditor < 5 || st.Proxy.Stats.FromServer < 3 {
		t.Errorf("lspgraph.status counts %d frames from Neovim and %d from gopls; want at least 5 and 3",
			st.Proxy.Stats.FromEditor, st.Proxy.Stats.FromServer)
	}

	// Save is called by Import (catalog.go:37), which run (main.go:19) and
	// TestImport (catalog_test.go:9) call.
	imp := decodeImpact(t, res.step(t, "impact"))
	if imp.Target == nil || imp.Target.Name != "Catalog.Save" {
		t.Errorf("lspgraph.impact at Save answered for target %+v", imp.Target)
	}
	wantSites(t, "impact d=1 of Save", imp.depth(1, false), "Catalog.Import service/catalog.go:37")
	wantSites(t, "impact d=2 of Save", imp.depth(2, false), "TestImport service/catalog_test.go:9", "run cmd/goapp/main.go:19")
	wantSites(t, "impact d=3 of Save", imp.depth(3, false), "main cmd/goapp/main.go:12")
	// gopls confirms Import, the one caller.
	if v := imp.Verification; v == nil || !v.Ran || v.Error != "" || v.Verified != 1 || v.LiveOnly != 0 || v.GraphOnly != 0 {
		t.Errorf("lspgraph.impact with verify from Neovim: verification %+v; want it run, with 1 verified, none graph- or live-only", v)
	}
	wantSites(t, "impact d=1 of Save, verified", imp.depth(1, true), "Catalog.Import service/catalog.go:37 /verified")

	// The position after non-ASCII text, in Neovim's UTF-16 columns, lands
	// on Version; Banner uses it, run prints Banner, main calls run.
	v := decodeImpact(t, res.step(t, "impact Version"))
	if v.Target == nil || v.Target.Name != "Version" {
		t.Errorf("lspgraph.impact at Version (line 16, UTF-16 column 30) answered for target %+v", v.Target)
	}
	wantSites(t, "impact d=1 of Version", v.depth(1, false), "Banner service/catalog.go:16")
	wantSites(t, "impact d=2 of Version", v.depth(2, false), "run cmd/goapp/main.go:19")

	// The context of Save: itself, its caller Import, its callee Store.Put.
	var pack struct {
		Files []struct {
			Path  string `json:"path"`
			Items []struct {
				Role string `json:"role"`
				Name string `json:"name"`
				Line int    `json:"line"`
			} `json:"items"`
		} `json:"files"`
	}
	if err := json.Unmarshal(res.step(t, "context"), &pack); err != nil {
		t.Fatalf("decoding lspgraph.context's answer: %v", err)
	}
	var items []string
	for _, f := range pack.Files {
		for _, it := range f.Items {
			items = append(items, fmt.Sprintf("%s %s %s:%d", it.Role, it.Name, f.Path, it.Line))
		}
	}
	for _, want := range []string{"definition Catalog.Save service/catalog.go:29", "caller Catalog.Import service/catalog.go:37", "callee Store.Put store/store.go:17"} {
		if !contains(items, want) {
			t.Errorf("lspgraph.context of Save lacks %q; items: %v", want, items)
		}
	}

	// What the proxy observed is in the graph once it has exited.
	r := reader(t, store)
	sym, got := liveReferences(t, r, root, cat, 29, "Save")
	wantSites(t, "graph references of "+sym+" after the Neovim session", got, "service/catalog.go:44")
}
