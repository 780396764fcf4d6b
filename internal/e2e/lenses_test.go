package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// codeLens is an LSP CodeLens as the tests read it.
type codeLens struct {
	Range struct {
		Start pos `json:"start"`
	} `json:"range"`
	Command *struct {
		Title     string            `json:"title"`
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	} `json:"command"`
	Data json.RawMessage `json:"data"`
	raw  json.RawMessage
}

// ours reports whether the lens is the proxy's (data.lspgraph).
func (l codeLens) ours() bool {
	var d struct {
		Lspgraph bool `json:"lspgraph"`
	}
	return json.Unmarshal(l.Data, &d) == nil && d.Lspgraph
}

func decodeLenses(t testing.TB, raw json.RawMessage) []codeLens {
	t.Helper()
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatalf("decoding codeLens answer %.500s: %v", raw, err)
	}
	out := make([]codeLens, len(items))
	for i, it := range items {
		if err := json.Unmarshal(it, &out[i]); err != nil {
			t.Fatalf("decoding lens %s: %v", it, err)
		}
		out[i].raw = it
	}
	return out
}

// split returns the server's lenses and the proxy's, failing the test
// when a server lens follows one of the proxy's.
func splitLenses(t testing.TB, lenses []codeLens) (server, ours []codeLens) {
	t.Helper()
	for _, l := range lenses {
		if l.ours() {
			ours = append(ours, l)
			continue
		}
		if len(ours) > 0 {
			t.Errorf("a server lens %s after the proxy's", l.raw)
		}
		server = append(server, l)
	}
	return server, ours
}

// askLenses sends textDocument/codeLens for rel.
func (c *lspClient) askLenses(rel string) json.RawMessage {
	c.t.Helper()
	return c.mustCall("textDocument/codeLens", map[string]any{"textDocument": map[string]string{"uri": c.uri(rel)}})
}

// waitLenses asks for rel's lenses until ok accepts them (the server may
// still be loading, the session opening its store), at most d.
func waitLenses(t testing.TB, c *lspClient, rel string, d time.Duration, ok func(server, ours []codeLens) bool) (server, ours []codeLens) {
	t.Helper()
	deadline := time.Now().Add(d)
	var raw json.RawMessage
	for {
		raw = c.askLenses(rel)
		server, ours = splitLenses(t, decodeLenses(t, raw))
		if ok(server, ours) {
			return server, ours
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: codeLens on %s never had what the test waits for within %v; last answer: %.2000s", c.name, rel, d, raw)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// lensTitle is a lens title; "≥ " before the level marks a lower bound.
var lensTitle = regexp.MustCompile(`^(\d+) callers? · (\d+) tests? · risk (≥ )?(\w+)$`)

// checkLensCounts runs `lspgraph impact --json --depth 1` (through the
// running session) on the symbol of each of the proxy's lenses and checks
// that the lens's title has its d=1 and test counts and its risk.
func checkLensCounts(t *testing.T, store, root string, lenses []codeLens) {
	t.Helper()
	for _, l := range lenses {
		if l.Command == nil || l.Command.Command != "lspgraph.impact" || len(l.Command.Arguments) != 1 {
			t.Errorf("lens %s: want an lspgraph.impact command with one argument", l.raw)
			continue
		}
		var target string
		if err := json.Unmarshal(l.Command.Arguments[0], &target); err != nil {
			t.Errorf("lens %s: argument is not a target string", l.raw)
			continue
		}
		out, err := exec.Command(lspgraphBin(t), "impact", "--store", store, "--root", root, "--json", "--depth", "1", target).Output()
		if err != nil {
			t.Errorf("lspgraph impact --depth 1 %q: %v", target, err)
			continue
		}
		var a struct {
			Depths []struct {
				Depth      int               `json:"depth"`
				Dependents []json.RawMessage `json:"dependents"`
			} `json:"depths"`
			Tests []json.RawMessage `json:"tests"`
			Risk  struct {
				Level   string `json:"level"`
				AtLeast bool   `json:"atLeast"`
			} `json:"risk"`
		}
		if err := json.Unmarshal(out, &a); err != nil {
			t.Errorf("lspgraph impact --json %q: %v in %.300s", target, err, out)
			continue
		}
		callers := 0
		for _, g := range a.Depths {
			if g.Depth == 1 {
				callers = len(g.Dependents)
			}
		}
		title := l.Command.Title
		if a.Risk.Level == "UNKNOWN" {
			if title != "callers unknown" {
				t.Errorf("lens of %s at line %d: %q; lspgraph impact says risk UNKNOWN, so want \"callers unknown\"", target, l.Range.Start.Line+1, title)
			}
			continue
		}
		m := lensTitle.FindStringSubmatch(title)
		if m == nil {
			t.Errorf("lens of %s at line %d: title %q is not \"N callers · M tests · risk R\"", target, l.Range.Start.Line+1, title)
			continue
		}
		n, _ := strconv.Atoi(m[1])
		k, _ := strconv.Atoi(m[2])
		if n != callers || k != len(a.Tests) || m[4] != a.Risk.Level || (m[3] != "") != a.Risk.AtLeast {
			t.Errorf("lens of %s at line %d: %q; lspgraph impact --depth 1: %d d=1 dependents, %d tests, risk %s (at least: %v)", target, l.Range.Start.Line+1, title, callers, len(a.Tests), a.Risk.Level, a.Risk.AtLeast)
		}
	}
}

// resolveUnchanged checks that codeLens/resolve of one of the proxy's
// lenses comes back unchanged.
func resolveUnchanged(t *testing.T, c *lspClient, l codeLens) {
	t.Helper()
	got := c.mustCall("codeLens/resolve", l.raw)
	var a, b any
	json.Unmarshal(got, &a)
	json.Unmarshal(l.raw, &b)
	ga, _ := json.Marshal(a)
	gb, _ := json.Marshal(b)
	if string(ga) != string(gb) {
		t.Errorf("codeLens/resolve changed the proxy's lens: %s -> %s", l.raw, got)
	}
}

// lensLatency times n codeLens requests for rel, alternating between the
// server alone and the proxy in front of another instance of it, and
// reports p50 and p99 of each and how many of the proxy's answers carried
// its lenses.
func lensLatency(t *testing.T, direct, proxied *lspClient, rel string) {
	t.Helper()
	n := 40
	if s := os.Getenv("LSPGRAPH_LENS_SAMPLES"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			n = v
		}
	}
	var d, p, own []time.Duration
	withOurs := 0
	lensesCmd := map[string]any{"command": "lspgraph.lenses", "arguments": []any{map[string]string{"uri": proxied.uri(rel)}}}
	for i := 0; i < n; i++ {
		start := time.Now()
		direct.askLenses(rel)
		d = append(d, time.Since(start))
		start = time.Now()
		raw := proxied.askLenses(rel)
		p = append(p, time.Since(start))
		if _, ours := splitLenses(t, decodeLenses(t, raw)); len(ours) > 0 {
			withOurs++
		}
		// The proxy's lenses computed anew, without the server or the
		// cache: what a codeLens answer waits for when nothing is cached.
		start = time.Now()
		proxied.mustCall("workspace/executeCommand", lensesCmd)
		own = append(own, time.Since(start))
	}
	t.Logf("codeLens latency on %s, %d requests each: %s alone p50 %v p99 %v; through lspgraph proxy p50 %v p99 %v (%d of %d answers carried the proxy's lenses); computing the proxy's lenses (lspgraph.lenses) p50 %v p99 %v",
		rel, n, direct.name, percentile(d, 50), percentile(d, 99), percentile(p, 50), percentile(p, 99), withOurs, n, percentile(own, 50), percentile(own, 99))
}

// percentile returns the p-th percentile (nearest rank) of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	if i < 1 {
		i = 1
	}
	return s[i-1].Round(10 * time.Microsecond)
}

// TestProxyLenses: through `lspgraph proxy`, textDocument/codeLens answers
// hold the server's own lenses, unchanged and first, and the proxy's after
// them, for gopls on goapp (its test lenses turned on through
// initializationOptions) and typescript-language-server on tsworkspace
// (its references and implementations lenses turned on through
// workspace/didChangeConfiguration). codeLens/resolve of the server's
// lenses reaches the server (answered as the server alone answers it), of
// the proxy's is answered by the proxy. Each of the proxy's lenses counts
// what `lspgraph impact --depth 1` counts for its symbol. The latency of
// codeLens through the proxy is logged beside the server's own, measured
// in the same run.
func TestProxyLenses(t *testing.T) {
	t.Parallel()
	t.Run("gopls", func(t *testing.T) {
		gopls := goplsPath(t)
		// gopls's test lenses are off by default; its other Go lenses
		// need //go:generate or import "C", which the fixture has not.
		opts := map[string]any{"codelenses": map[string]bool{"test": true}}
		testLensesMerged(t, lensCase{
			fixture: "goapp", base: "goapp.scip", language: "go", server: []string{gopls}, initOptions: opts,
			serverFile: "service/catalog_test.go", otherFiles: []string{"service/catalog.go"},
			check: func(t *testing.T, root string, server, ours map[string][]codeLens) {
				// gopls: run test above TestImport; the proxy: no callers
				// of TestImport, which a graph of a checkout outside git
				// cannot vouch for.
				if !slices.ContainsFunc(server["service/catalog_test.go"], func(l codeLens) bool {
					return l.Command != nil && l.Command.Command == "gopls.run_tests"
				}) {
					t.Errorf("no gopls.run_tests lens from gopls on catalog_test.go: %v", server["service/catalog_test.go"])
				}
				wantLens(t, ours["service/catalog.go"], posOf(t, root, "service/catalog.go", 29, "Save").Line, "1 caller · 0 tests")
				wantLens(t, ours["service/catalog_test.go"], posOf(t, root, "service/catalog_test.go", 9, "TestImport").Line, "callers unknown")
			},
		})
	})
	t.Run("typescript", func(t *testing.T) {
		tsls := needTool(t, "typescript-language-server")
		settings := map[string]any{"typescript": map[string]any{
			"referencesCodeLens":      map[string]any{"enabled": true, "showOnAllFunctions": true},
			"implementationsCodeLens": map[string]any{"enabled": true},
		}}
		const pricing, order = "packages/pricing/src/index.ts", "packages/order/src/index.ts"
		testLensesMerged(t, lensCase{
			fixture: "tsworkspace", base: "tsworkspace.scip", language: "typescript", server: []string{tsls, "--stdio"},
			configure: func(c *lspClient) {
				c.notify("workspace/didChangeConfiguration", map[string]any{"settings": settings})
			},
			serverFile: pricing, otherFiles: []string{order},
			check: func(t *testing.T, root string, server, ours map[string][]codeLens) {
				// quote is called by Order.linePrice alone.
				wantLens(t, ours[pricing], posOf(t, root, pricing, 7, "quote").Line, "1 caller · ")
			},
		})
	})
}

// lensCase is one server's part of TestProxyLenses.
type lensCase struct {
	fixture, base, language string
	server                  []string
	initOptions             any
	configure               func(c *lspClient) // after initialize
	// serverFile is a file the server has lenses for; otherFiles get the
	// proxy's lenses counted too.
	serverFile string
	otherFiles []string
	check      func(t *testing.T, root string, server, ours map[string][]codeLens)
}

func testLensesMerged(t *testing.T, lc lensCase) {
	root := fixture(t, lc.fixture)
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	importSCIP(t, store, root, lc.base)
	name := filepath.Base(lc.server[0])

	direct := startClient(t, name, root, lc.server...)
	proxied := startClient(t, "lspgraph proxy -- "+name, root, proxyArgv(t, store, logFile, lc.server)...)
	files := append([]string{lc.serverFile}, lc.otherFiles...)
	for _, c := range []*lspClient{direct, proxied} {
		c.lenses = true
		c.initialize(lc.initOptions)
		if lc.configure != nil {
			lc.configure(c)
		}
		for _, f := range files {
			c.open(f, lc.language)
		}
	}

	// The server alone has lenses for serverFile (once it has loaded).
	directServer, _ := waitLenses(t, direct, lc.serverFile, 90*time.Second, func(server, ours []codeLens) bool {
		if len(ours) > 0 {
			t.Fatalf("%s alone answered lenses tagged as lspgraph's: %v", name, ours)
		}
		return len(server) > 0
	})
	// Through the proxy: the server's and the proxy's.
	server, ours := map[string][]codeLens{}, map[string][]codeLens{}
	for _, f := range files {
		server[f], ours[f] = waitLenses(t, proxied, f, 90*time.Second, func(s, o []codeLens) bool {
			return len(o) > 0 && (f != lc.serverFile || len(s) > 0)
		})
		t.Logf("%s: %d lenses from %s, %d from the proxy: %s", f, len(server[f]), name, len(ours[f]), titles(ours[f]))
	}
	// The server's lenses pass unchanged: the same as the server alone
	// sends for the same file (unresolved ones carry data only).
	if a, b := lensSet(directServer), lensSet(server[lc.serverFile]); !slices.Equal(a, b) {
		t.Errorf("%s's lenses on %s: alone %v, through the proxy %v", name, lc.serverFile, a, b)
	}
	lc.check(t, root, server, ours)
	for _, f := range files {
		checkLensCounts(t, store, root, ours[f])
	}

	// Resolve: the proxy's comes back unchanged; the server's is answered
	// by the server, as the server alone answers it.
	resolveUnchanged(t, proxied, ours[lc.serverFile][0])
	sl := server[lc.serverFile][0]
	d, derr := direct.call("codeLens/resolve", sl.raw)
	p, perr := proxied.call("codeLens/resolve", sl.raw)
	switch {
	case (derr == nil) != (perr == nil):
		t.Errorf("codeLens/resolve of %s's lens %s: alone %s (err %v), through the proxy %s (err %v)", name, sl.raw, d, derr, p, perr)
	case derr != nil:
		// The same error, from the server: strip each client's name.
		de := strings.TrimPrefix(derr.Error(), direct.name+": ")
		pe := strings.TrimPrefix(perr.Error(), proxied.name+": ")
		if de != pe {
			t.Errorf("codeLens/resolve of %s's lens: alone %q, through the proxy %q", name, de, pe)
		}
		t.Logf("codeLens/resolve of %s's lens: the server's error alone and through the proxy (%s)", name, pe)
	default:
		if a, b := lensSet(decodeLenses(t, json.RawMessage("["+string(d)+"]"))), lensSet(decodeLenses(t, json.RawMessage("["+string(p)+"]"))); !slices.Equal(a, b) {
			t.Errorf("codeLens/resolve of %s's lens %s: alone %s, through the proxy %s", name, sl.raw, d, p)
		} else {
			t.Logf("codeLens/resolve of %s's lens through the proxy: %s", name, p)
		}
	}

	for _, f := range files {
		lensLatency(t, direct, proxied, f)
	}
	if slices.Contains(proxied.requestsFromServer(), "workspace/codeLens/refresh") {
		t.Logf("the proxy sent workspace/codeLens/refresh (lenses that missed their budget came later)")
	}
	checkStatus(t, proxied.mustCall("workspace/executeCommand", map[string]any{"command": "lspgraph.status"}), name)
	direct.shutdown()
	proxied.shutdown()
}

// wantLens checks that the proxy has a lens on 0-based line whose title
// starts with prefix.
func wantLens(t *testing.T, lenses []codeLens, line int, prefix string) {
	t.Helper()
	for _, l := range lenses {
		if l.Range.Start.Line == line && l.Command != nil && strings.HasPrefix(l.Command.Title, prefix) {
			return
		}
	}
	t.Errorf("no lens of the proxy on line %d titled %q…; lenses: %s", line+1, prefix, titles(lenses))
}

// titles lists lenses as "LINE: title".
func titles(lenses []codeLens) string {
	var out []string
	for _, l := range lenses {
		title := "(unresolved)"
		if l.Command != nil {
			title = l.Command.Title
		}
		out = append(out, fmt.Sprintf("%d: %s", l.Range.Start.Line+1, title))
	}
	return strings.Join(out, "; ")
}

// lensSet is the lenses as sorted canonical JSON with file URIs made
// relative (the two servers run on the same root).
func lensSet(lenses []codeLens) []string {
	var out []string
	for _, l := range lenses {
		var v any
		json.Unmarshal(l.raw, &v)
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

// readmeBlock returns the fenced code block of README.md that contains
// needle, as written there (without its fences).
func readmeBlock(t *testing.T, needle string) string {
	t.Helper()
	s := readmeText(t)
	i := strings.Index(s, needle)
	if i < 0 {
		t.Fatalf("README.md has no %q", needle)
	}
	start := strings.LastIndex(s[:i], "```")
	end := strings.Index(s[i:], "```")
	if start < 0 || end < 0 {
		t.Fatalf("README.md's %q is not inside a code block", needle)
	}
	block := s[start : i+end]
	return block[strings.Index(block, "\n")+1:]
}

// readmeText returns README.md of the module.
func readmeText(t *testing.T) string {
	t.Helper()
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(mod, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(readme)
}

// nvimLuaStep is what a "lua" step of the Neovim client records.
type nvimLuaStep struct {
	OK       bool            `json:"ok"`
	Err      string          `json:"err"`
	Value    json.RawMessage `json:"value"`
	Messages string          `json:"messages"`
}

func luaStep(t *testing.T, res nvimResult, name string, value any) nvimLuaStep {
	t.Helper()
	var s nvimLuaStep
	if err := json.Unmarshal(res.step(t, name), &s); err != nil {
		t.Fatal(err)
	}
	if !s.OK {
		t.Fatalf("Neovim step %s failed: %s\nmessages:\n%s", name, s.Err, s.Messages)
	}
	if err := json.Unmarshal(s.Value, value); err != nil {
		t.Fatalf("Neovim step %s returned %s: %v", name, s.Value, err)
	}
	return s
}

// TestNeovimLenses: Neovim 0.7 with `lspgraph proxy -- gopls` and the
// README's lens snippet, run as written: after vim.lsp.codelens.refresh(),
// vim.lsp.codelens.get shows gopls's lenses and the proxy's, both drawn
// as virtual text; vim.lsp.codelens.run() on Save's line runs the proxy's
// lens through the README's vim.lsp.commands["lspgraph.impact"], which
// fills the quickfix list with Save's dependents.
func TestNeovimLenses(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	needTool(t, "nvim")
	snippet := readmeBlock(t, `vim.lsp.commands["lspgraph.impact"]`)
	root := fixture(t, "goapp")
	const cat = "service/catalog.go"
	// A //go:generate line at the end of catalog.go (so the positions of
	// the SCIP base stay true) gives gopls lenses of its own there.
	f, err := os.OpenFile(filepath.Join(root, cat), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n//go:generate echo lspgraph\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	importSCIP(t, store, root, "goapp.scip")
	save := posOf(t, root, cat, 29, "Save")

	show := snippet + `
local buf = vim.api.nvim_get_current_buf()
local client = vim.lsp.buf_get_clients(buf)
local id = next(client)
local function kinds()
  local ours, theirs = 0, 0
  for _, l in ipairs(vim.lsp.codelens.get(buf)) do
    if l.data and l.data.lspgraph then ours = ours + 1 else theirs = theirs + 1 end
  end
  return ours, theirs
end
-- The first answers may come before gopls has loaded or before the
-- proxy's session has its store; ask again until both kinds show.
local ready = vim.wait(60000, function()
  local ours, theirs = kinds()
  if ours > 0 and theirs > 0 then return true end
  vim.lsp.codelens.refresh()
  return false
end, 500)
-- Drawn once every lens is resolved.
vim.wait(10000, function()
  return #vim.api.nvim_buf_get_extmarks(buf, vim.lsp.codelens.__namespaces[id], 0, -1, {}) > 0
end, 50)
local lenses, drawn = {}, {}
for _, l in ipairs(vim.lsp.codelens.get(buf)) do
  table.insert(lenses, { line = l.range.start.line, title = l.command and l.command.title or "",
    command = l.command and l.command.command or "", ours = (l.data and l.data.lspgraph) == true })
end
for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, vim.lsp.codelens.__namespaces[id], 0, -1, { details = true })) do
  local text = ""
  for _, chunk in ipairs(m[4].virt_text or {}) do text = text .. chunk[1] end
  table.insert(drawn, { line = m[2], text = text })
end
return { ready = ready, lenses = lenses, drawn = drawn }
`
	run := fmt.Sprintf(`
vim.fn.setqflist({}, "r")
vim.api.nvim_win_set_cursor(0, { %d, 0 })
vim.lsp.codelens.run()
local ok = vim.wait(30000, function() return #vim.fn.getqflist() > 0 end, 50)
local items = {}
for _, it in ipairs(vim.fn.getqflist()) do
  table.insert(items, { file = vim.api.nvim_buf_get_name(it.bufnr), lnum = it.lnum, col = it.col, text = it.text })
end
return { ok = ok, title = vim.fn.getqflist({ title = 1 }).title, items = items }
`, save.Line+1)
	res := runNvim(t, proxyArgv(t, store, logFile, []string{gopls}), root, cat, []nvimRequest{
		{Name: "show", Lua: show},
		{Name: "run", Lua: run},
	})

	var shown struct {
		Ready  bool `json:"ready"`
		Lenses []struct {
			Line           int
			Title, Command string
			Ours           bool
		} `json:"lenses"`
		Drawn []struct {
			Line int
			Text string
		} `json:"drawn"`
	}
	luaStep(t, res, "show", &shown)
	if !shown.Ready {
		t.Fatalf("vim.lsp.codelens.get never held both gopls's lenses and the proxy's: %+v", shown.Lenses)
	}
	saveTitle, generate := "", false
	for _, l := range shown.Lenses {
		if l.Ours && l.Line == save.Line {
			saveTitle = l.Title
		}
		generate = generate || !l.Ours && l.Command == "gopls.generate"
	}
	if !strings.HasPrefix(saveTitle, "1 caller · 0 tests") || !generate {
		t.Errorf("vim.lsp.codelens.get: the proxy's lens on Save %q (want \"1 caller · 0 tests…\"), gopls's generate lens %v; all: %+v", saveTitle, generate, shown.Lenses)
	}
	drawnSave := false
	for _, d := range shown.Drawn {
		drawnSave = drawnSave || d.Line == save.Line && strings.Contains(d.Text, saveTitle)
	}
	if !drawnSave {
		t.Errorf("the proxy's lens on Save is not drawn as virtual text on line %d: %+v", save.Line+1, shown.Drawn)
	}

	var ran struct {
		OK    bool   `json:"ok"`
		Title string `json:"title"`
		Items []struct {
			File string `json:"file"`
			Lnum int    `json:"lnum"`
			Col  int    `json:"col"`
			Text string `json:"text"`
		} `json:"items"`
	}
	luaStep(t, res, "run", &ran)
	var items []string
	for _, it := range ran.Items {
		items = append(items, fmt.Sprintf("%s:%d %s", relPath(root, fileURI(it.File)), it.Lnum, it.Text))
	}
	sortStrings(items)
	want := []string{
		"cmd/goapp/main.go:12 d=3 main (calls)",
		"cmd/goapp/main.go:19 d=2 run (calls)",
		"service/catalog.go:37 d=1 Catalog.Import (calls)",
		"service/catalog_test.go:9 d=2 TestImport (calls)",
	}
	t.Logf("Neovim: lenses %+v; drawn %+v; quickfix %q %q", shown.Lenses, shown.Drawn, ran.Title, items)
	if !ran.OK || ran.Title != "lspgraph.impact Catalog.Save" || !slices.Equal(items, want) {
		t.Errorf("vim.lsp.codelens.run() on Save's lens: quickfix %q %q; want %q", ran.Title, items, want)
	}
}

// TestProxyLensesLarge times codeLens through the proxy on a large real
// file, net/http/server.go of GOROOT (about 130 KB, over 200 functions
// and methods, so the proxy's lenses stop at their cap of 200), over a
// syntax index of GOROOT/src, beside gopls alone on the same file. It
// indexes GOROOT/src first (a minute or two), so it runs only with
// LSPGRAPH_LENS_LARGE=1.
func TestProxyLensesLarge(t *testing.T) {
	t.Parallel()
	if os.Getenv("LSPGRAPH_LENS_LARGE") != "1" {
		t.Skip("set LSPGRAPH_LENS_LARGE=1 to index GOROOT/src and time code lenses on net/http/server.go")
	}
	gopls := goplsPath(t)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(filepath.Join(strings.TrimSpace(string(out)), "src"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	start := time.Now()
	if out, err := exec.Command(lspgraphBin(t), "index", "--store", store, "--root", root, root).CombinedOutput(); err != nil {
		t.Fatalf("lspgraph index %s: %v\n%s", root, err, tail(string(out), 2000))
	}
	t.Logf("indexed %s in %v", root, time.Since(start).Round(time.Second))
	const file = "net/http/server.go"
	direct := startClient(t, "gopls", root, gopls)
	proxied := startClient(t, "lspgraph proxy -- gopls", root, proxyArgv(t, store, logFile, []string{gopls})...)
	for _, c := range []*lspClient{direct, proxied} {
		c.lenses = true
		c.initialize(nil)
		c.open(file, "go")
	}
	// Warm: the proxy's lenses once (the session opens its store, gopls
	// loads the package).
	_, ours := waitLenses(t, proxied, file, 180*time.Second, func(_, o []codeLens) bool { return len(o) > 0 })
	t.Logf("%s: %d lenses from the proxy", file, len(ours))
	lensLatency(t, direct, proxied, file)
	// gopls on all of std may take longer to exit than the client waits;
	// the cleanup stops it.
	proxied.shutdown()
}
