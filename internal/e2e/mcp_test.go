package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// mcpSDKPath returns the global node_modules holding the official MCP
// TypeScript SDK. When it is missing the test skips, or fails when
// LSPGRAPH_E2E=1.
func mcpSDKPath(t *testing.T) string {
	t.Helper()
	needTool(t, "npm")
	out, err := exec.Command("npm", "root", "-g").Output()
	dir := strings.TrimSpace(string(out))
	if err == nil {
		if _, err = os.Stat(filepath.Join(dir, "@modelcontextprotocol", "sdk", "package.json")); err == nil {
			return dir
		}
	}
	msg := "@modelcontextprotocol/sdk is not installed globally (install it with .ci/install-tools)"
	if os.Getenv("LSPGRAPH_E2E") == "1" {
		t.Fatal(msg + "; LSPGRAPH_E2E=1 requires it")
	}
	t.Skip(msg)
	return ""
}

// TestMCPTypeScriptClient drives `lspgraph mcp` over stdio with the
// official TypeScript SDK client (testdata/mcp_client.cjs): initialize,
// tools/list with the schemas, every tool on the goapp fixture, an
// unknown target, bad arguments, a cancelled call and the size cap.
func TestMCPTypeScriptClient(t *testing.T) {
	t.Parallel()
	runMCPClient(t, "goapp", "goapp.scip", "mcp_client.cjs")
}

// TestMCPTypeScriptClientTSFixture runs every tool through the same client
// SDK on the tsworkspace fixture with its scip-typescript dump
// (testdata/mcp_ts_client.cjs): the answers name its TypeScript symbols
// (Order.linePrice's callers up to checkout and the test, pricing's quote
// called across packages, the ambiguous quote, a function added since the
// base).
func TestMCPTypeScriptClientTSFixture(t *testing.T) {
	t.Parallel()
	runMCPClient(t, "tsworkspace", "tsworkspace.scip", "mcp_ts_client.cjs")
}

// runMCPClient imports the fixture's dump at its base commit and runs the
// node client script against `lspgraph mcp` on it.
func runMCPClient(t *testing.T, name, dumpName, scriptName string) {
	node := needTool(t, "node")
	modules := mcpSDKPath(t)
	root := fixture(t, name)
	// A repository, so that changes have a base commit to diff against.
	head := gitRepo(t, root)
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := lspgraphBin(t)
	store := filepath.Join(t.TempDir(), "store")
	dump := filepath.Join(mod, "testdata", "scip", dumpName)
	if out, err := exec.Command(bin, "scip", "import", "--store", store, "--root", root, "--commit", head, dump).CombinedOutput(); err != nil {
		t.Fatalf("lspgraph scip import: %v\n%s", err, out)
	}
	script, err := filepath.Abs(filepath.Join("testdata", scriptName))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, bin, root, store)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.CombinedOutput()
	t.Logf("%s:\n%s", scriptName, out)
	if err != nil {
		t.Fatalf("the TypeScript client's checks failed: %v", err)
	}
	if !strings.Contains(string(out), "all checks passed") {
		t.Fatal("the TypeScript client did not finish its checks")
	}
}

// TestNeovimMCP: Neovim holds `lspgraph proxy -- gopls` with an unsaved
// edit (a new caller of Catalog.Save). While the editor stays attached, the
// TypeScript SDK client (testdata/mcp_impact.cjs) calls the impact tool of
// `lspgraph mcp` in another process: the answer comes from the editor's
// session, lists the unsaved caller at d=1, carries gopls's verification
// marks, and no second gopls runs for the workspace, although the MCP
// server is given `-- gopls` to start when no session serves it.
func TestNeovimMCP(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	needTool(t, "nvim")
	node := needTool(t, "node")
	modules := mcpSDKPath(t)
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	// A repository, so that changes have a base commit to diff against.
	head := gitRepo(t, root)
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := lspgraphBin(t)
	dump := filepath.Join(mod, "testdata", "scip", "goapp.scip")
	if out, err := exec.Command(bin, "scip", "import", "--store", store, "--root", root, "--commit", head, dump).CombinedOutput(); err != nil {
		t.Fatalf("lspgraph scip import: %v\n%s", err, out)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "mcp_impact.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	const cat = "service/catalog.go"
	refs := map[string]any{"textDocument": map[string]string{"uri": "$URI"}, "position": posOf(t, root, cat, 29, "Save"),
		"context": map[string]bool{"includeDeclaration": true}}
	res := runNvim(t, proxyArgv(t, store, logFile, []string{gopls}), root, cat, []nvimRequest{
		// Answered once gopls has loaded the module, so that it can verify.
		{Name: "references", Method: "textDocument/references", Params: refs},
		// Before line 36 ("// Import saves…"): a new method calling Save.
		{Name: "edit", Edit: &nvimEdit{Line: 36, Text: "// SaveDefault saves a product under its SKU.\nfunc (c *Catalog) SaveDefault(sku string) error {\n\treturn c.Save(sku, sku)\n}\n"}},
		// With a server to start: the editor's session is there, so none is.
		{Name: "mcp impact", Shell: []string{"env", "NODE_PATH=" + modules, node, script, bin, root, store, "Catalog.Save", "--", gopls}},
	})
	var edit struct{ Modified bool }
	if json.Unmarshal(res.step(t, "edit"), &edit); !edit.Modified {
		t.Fatalf("the buffer is not modified after the edit")
	}
	var sh shellResult
	if err := json.Unmarshal(res.step(t, "mcp impact"), &sh); err != nil {
		t.Fatal(err)
	}
	line := ""
	for _, l := range strings.Split(sh.Out, "\n") {
		if rest, ok := strings.CutPrefix(l, "RESULT "); ok {
			line = rest
		}
	}
	if sh.Code != 0 || line == "" {
		t.Fatalf("mcp_impact.cjs exited %d:\n%s", sh.Code, sh.Out)
	}
	var r struct {
		Before, Connected, After, Exited []proc
		During                           int
		MS                               float64
		IsError                          bool
		Text                             string
		Status                           struct {
			Session struct {
				PID        int      `json:"pid"`
				LiveServer bool     `json:"liveServer"`
				Clients    []string `json:"clients"`
			} `json:"session"`
		}
		Impact struct {
			Depths []struct {
				Depth      int `json:"depth"`
				Dependents []struct {
					Name         string `json:"name"`
					Verification string `json:"verification"`
				} `json:"dependents"`
			} `json:"depths"`
			Verification string `json:"verification"`
			Freshness    struct {
				Dirty []string `json:"dirty"`
			} `json:"freshness"`
		}
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("decoding mcp_impact.cjs's result: %v\n%s", err, line)
	}
	t.Logf("MCP impact in %.1f ms:\n%s", r.MS, r.Text)
	if r.IsError {
		t.Fatalf("the impact tool answered an error:\n%s", r.Text)
	}
	// The answering session is the editor's proxy, with gopls, and lists
	// this MCP server among its clients.
	if s := r.Status.Session; s.PID == 0 || !s.LiveServer || !slices.Contains(s.Clients, "mcp") {
		t.Errorf("status through MCP: session %+v; want the proxy's session with its live server and an mcp client", s)
	}
	if !slices.Contains(r.Impact.Freshness.Dirty, cat) {
		t.Errorf("impact through MCP: dirty %v; want %s", r.Impact.Freshness.Dirty, cat)
	}
	if len(r.Impact.Depths) == 0 || r.Impact.Depths[0].Depth != 1 {
		t.Fatalf("impact through MCP has no d=1: %+v", r.Impact.Depths)
	}
	marks := map[string]string{}
	for _, d := range r.Impact.Depths[0].Dependents {
		marks[d.Name] = d.Verification
		if !slices.Contains([]string{"verified", "graph-only", "live-only"}, d.Verification) {
			t.Errorf("impact through MCP: d=1 %s has verification %q; want verified, graph-only or live-only", d.Name, d.Verification)
		}
	}
	// gopls sees the unsaved buffer too, so it confirms the new caller.
	if marks["Catalog.SaveDefault"] != "verified" || marks["Catalog.Import"] != "verified" {
		t.Errorf("impact through MCP: d=1 marks %v; want the unsaved Catalog.SaveDefault and Catalog.Import verified", marks)
	}
	if !strings.Contains(r.Impact.Verification, "checked against the live server") {
		t.Errorf("impact through MCP: verification %q; want d=1 checked against the live server", r.Impact.Verification)
	}
	// One gopls for the workspace, the editor's, before, during and after.
	count := func(ps []proc) int { return workspaceGopls(t, ps, " proxy ", "the editor's lspgraph proxy") }
	b, c, d, a, x := count(r.Before), count(r.Connected), r.During, count(r.After), count(r.Exited)
	t.Logf("gopls processes in the workspace: %d before, %d connected, %d during, %d after, %d once mcp exited (%d on the machine)", b, c, d, a, x, len(r.After))
	if b != 1 || c != 1 || d != 1 || a != 1 || x != 1 {
		t.Errorf("gopls processes in the workspace: %d before, %d with lspgraph mcp connected, at most %d during the call, %d after, %d once it exited; want exactly 1 throughout\n%+v", b, c, d, a, x, r.After)
	}
}

// TestMCPStartsServer: with no editor's session for the workspace,
// `lspgraph mcp -- gopls` starts gopls itself and serves the session with
// it: impact's d=1 dependents carry gopls's verification marks (a caller
// added to the work tree after the base included), and once the MCP
// client closes, no gopls is left running in the workspace.
func TestMCPStartsServer(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	node := needTool(t, "node")
	modules := mcpSDKPath(t)
	root, store, bin := goappWithCaller(t)
	script, err := filepath.Abs(filepath.Join("testdata", "mcp_impact.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, bin, root, store, "Catalog.Save", "--", gopls)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	line := ""
	for _, l := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, "RESULT "); ok {
			line = rest
		}
	}
	if err != nil || line == "" {
		t.Fatalf("mcp_impact.cjs: %v\n%s", err, out)
	}
	var r struct {
		Before, Connected, After, Exited []proc
		During                           int
		IsError                          bool
		Text                             string
		Status                           struct {
			Session struct {
				PID        int  `json:"pid"`
				LiveServer bool `json:"liveServer"`
			} `json:"session"`
		}
		Impact struct {
			Depths []struct {
				Depth      int `json:"depth"`
				Dependents []struct {
					Name         string `json:"name"`
					Verification string `json:"verification"`
				} `json:"dependents"`
			} `json:"depths"`
			Verification string `json:"verification"`
		}
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("decoding mcp_impact.cjs's result: %v\n%s", err, line)
	}
	t.Logf("MCP impact:\n%s", r.Text)
	if r.IsError {
		t.Fatalf("the impact tool answered an error:\n%s", r.Text)
	}
	if s := r.Status.Session; s.PID == 0 || !s.LiveServer {
		t.Errorf("status through MCP: session %+v; want the MCP server's own session with its live server", s)
	}
	if len(r.Impact.Depths) == 0 || r.Impact.Depths[0].Depth != 1 {
		t.Fatalf("impact through MCP has no d=1: %+v", r.Impact.Depths)
	}
	marks := map[string]string{}
	for _, d := range r.Impact.Depths[0].Dependents {
		marks[d.Name] = d.Verification
	}
	if len(marks) != 2 || marks["Catalog.SaveDefault"] != "verified" || marks["Catalog.Import"] != "verified" {
		t.Errorf("impact through MCP: d=1 marks %v; want Catalog.Import and the work tree's Catalog.SaveDefault, both verified", marks)
	}
	if !strings.Contains(r.Impact.Verification, "checked against the live server") {
		t.Errorf("impact through MCP: verification %q; want d=1 checked against the live server", r.Impact.Verification)
	}
	count := func(ps []proc) int { return workspaceGopls(t, ps, " mcp ", "lspgraph mcp") }
	b, c, a, x := count(r.Before), count(r.Connected), count(r.After), count(r.Exited)
	t.Logf("gopls processes in the workspace: %d before, %d connected, %d during, %d after, %d once mcp exited", b, c, r.During, a, x)
	if b != 0 || c != 1 || r.During != 1 || a != 1 || x != 0 {
		t.Errorf("gopls processes in the workspace: %d before, %d with lspgraph mcp connected, %d during the call, %d after, %d once it exited; want 0, 1, 1, 1, 0\n%+v", b, c, r.During, a, x, r.Exited)
	}
}

// proc is a gopls process as testdata/mcp_impact.cjs lists it.
type proc struct {
	PID       int    `json:"pid"`
	Parent    string `json:"parent"`
	Workspace bool   `json:"workspace"`
}

// workspaceGopls counts the gopls processes running in the workspace and
// checks that each one's parent command line holds parent (described as
// want in errors).
func workspaceGopls(t *testing.T, ps []proc, parent, want string) (n int) {
	t.Helper()
	for _, p := range ps {
		if p.Workspace {
			n++
			if !strings.Contains(p.Parent, parent) {
				t.Errorf("gopls %d runs under %q; want %s", p.PID, p.Parent, want)
			}
		}
	}
	return n
}

// TestMCPHeadlessGivesWay: `lspgraph mcp` with no language server serves
// the workspace's session itself, headless; an editor's proxy started
// afterwards (`lspgraph proxy -- gopls`) asks it to give way and takes the
// session over with its server; the MCP server's next calls are answered
// by the proxy's session (its live server, the work tree's new caller at
// d=1), through the official TypeScript SDK client (testdata/mcp_handover.cjs).
func TestMCPHeadlessGivesWay(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	node := needTool(t, "node")
	modules := mcpSDKPath(t)
	root, store, bin := goappWithCaller(t)
	script, err := filepath.Abs(filepath.Join("testdata", "mcp_handover.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, bin, root, store, "Catalog.Save")
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Dir = root
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close()
		cmd.Wait()
		if t.Failed() {
			t.Logf("mcp_handover.cjs stderr:\n%s", tail(stderr.String(), 4000))
		}
	}()
	lines := bufio.NewScanner(outPipe)
	lines.Buffer(nil, 1<<22)
	next := func(prefix string) string {
		t.Helper()
		for lines.Scan() {
			if rest, ok := strings.CutPrefix(lines.Text(), prefix); ok {
				return rest
			}
			t.Logf("mcp_handover.cjs: %s", lines.Text())
		}
		t.Fatalf("mcp_handover.cjs ended before %q: %v", prefix, lines.Err())
		return ""
	}
	var before sessionStatus
	if err := json.Unmarshal([]byte(next("BEFORE ")), &before); err != nil {
		t.Fatal(err)
	}
	if before.Session.PID == 0 || before.Session.LiveServer {
		t.Fatalf("status before the proxy: session %+v; want the MCP server's headless session", before.Session)
	}
	next("READY")

	proxy := startClient(t, "proxy", root, bin, "proxy", "--store", store, "--root", root, "--", gopls)
	proxy.initialize(nil)
	defer proxy.shutdown()
	// The proxy takes the session over once the MCP server has closed it.
	var now sessionStatus
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, err := exec.Command(bin, "status", "--store", store, "--root", root, "--json").Output()
		if err == nil && json.Unmarshal(out, &now) == nil && now.Session.PID != 0 && now.Session.PID != before.Session.PID && now.Session.LiveServer {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy did not take the session over from pid %d: %s (%v)", before.Session.PID, out, err)
		}
	}
	if _, err := io.WriteString(in, "go\n"); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Status  sessionStatus
		IsError bool
		Text    string
		Impact  struct {
			Depths []struct {
				Depth      int `json:"depth"`
				Dependents []struct {
					Name         string `json:"name"`
					Verification string `json:"verification"`
				} `json:"dependents"`
			} `json:"depths"`
		}
	}
	if err := json.Unmarshal([]byte(next("RESULT ")), &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("MCP impact after the handover:\n%s", r.Text)
	if r.Status.Session.PID != now.Session.PID || !r.Status.Session.LiveServer {
		t.Errorf("status through MCP after the handover: session %+v; want the proxy's (pid %d) with its live server", r.Status.Session, now.Session.PID)
	}
	if r.IsError || len(r.Impact.Depths) == 0 || r.Impact.Depths[0].Depth != 1 {
		t.Fatalf("impact through MCP after the handover: %+v", r.Impact)
	}
	names := map[string]bool{}
	for _, d := range r.Impact.Depths[0].Dependents {
		names[d.Name] = true
	}
	if !names["Catalog.SaveDefault"] || !names["Catalog.Import"] {
		t.Errorf("impact through MCP after the handover: d=1 %v; want Catalog.Import and the work tree's Catalog.SaveDefault", names)
	}
}

// goappWithCaller imports the goapp fixture's dump at its base commit into
// a new store, then adds a caller of Catalog.Save to the work tree
// (Catalog.SaveDefault, not in the base), and returns the root, the store
// and the lspgraph binary.
func goappWithCaller(t *testing.T) (root, store, bin string) {
	t.Helper()
	root = fixture(t, "goapp")
	head := gitRepo(t, root)
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin = lspgraphBin(t)
	store = filepath.Join(t.TempDir(), "store")
	dump := filepath.Join(mod, "testdata", "scip", "goapp.scip")
	if out, err := exec.Command(bin, "scip", "import", "--store", store, "--root", root, "--commit", head, dump).CombinedOutput(); err != nil {
		t.Fatalf("lspgraph scip import: %v\n%s", err, out)
	}
	cat := filepath.Join(root, "service", "catalog.go")
	src, err := os.ReadFile(cat)
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, "\n// SaveDefault saves a product under its SKU.\nfunc (c *Catalog) SaveDefault(sku string) error {\n\treturn c.Save(sku, sku)\n}\n"...)
	if err := os.WriteFile(cat, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return root, store, bin
}
