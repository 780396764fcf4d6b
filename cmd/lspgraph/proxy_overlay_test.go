package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

// overlayBound bounds each wait for the live overlay to reflect an edit
// (the debounce, then extraction); answers normally come at once.
const overlayBound = 10 * time.Second

// proxyFixtureRepo copies testdata/goapp into a fresh git repository, builds the
// base of a new store for its commit (scip: imports testdata/scip/goapp.scip;
// else `lspgraph index`), and returns the root and the store directory.
func proxyFixtureRepo(t *testing.T, scip bool) (root, store string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root = copyGoapp(t)
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base"},
	} {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	store = filepath.Join(t.TempDir(), "store")
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	dump, err := filepath.Abs(filepath.Join("..", "..", "testdata", "scip", "goapp.scip"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"index", "--store", store, "--root", root}
	if scip {
		args = []string{"scip", "import", "--store", store, "--root", root, dump}
	}
	if code := run(context.Background(), e, args); code != 0 {
		t.Fatalf("%v exited %d: %s%s", args, code, stdout.String(), stderr.String())
	}
	return root, store
}

// overlaySession starts `lspgraph proxy -- gopls` on a copy of goapp with a
// base (see proxyFixtureRepo) and initializes it.
func overlaySession(t *testing.T, scip bool) (*lsptest.Endpoint, string, string) {
	t.Helper()
	gopls := proxyServer(t, "gopls")
	root, store := proxyFixtureRepo(t, scip)
	ed, code, _ := startProxy(t, "--store", store, "--root", root, "--", gopls)
	t.Cleanup(func() {
		call(t, ed, 9999, "shutdown", "null")
		ed.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
		if c := code(); c != 0 {
			t.Errorf("proxy exit code %d after shutdown and exit", c)
		}
	})
	callServer(t, ed, 1, "initialize", fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{}}`, fileURI(root)))
	ed.Send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	return ed, root, store
}

func didOpen(t *testing.T, ed *lsptest.Endpoint, file string) {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tj, _ := json.Marshal(string(text))
	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"go","version":1,"text":%s}}}`, fileURI(file), tj))
}

// didInsert sends an incremental didChange inserting text at the start of
// line (0-based).
func didInsert(t *testing.T, ed *lsptest.Endpoint, file string, version, line int, text string) {
	t.Helper()
	tj, _ := json.Marshal(text)
	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":0}},"text":%s}]}}`,
		fileURI(file), version, line, line, tj))
}

// execCommand runs a workspace/executeCommand and returns its result, failing
// on an error answer.
func execCommand(t *testing.T, ed *lsptest.Endpoint, id int, name, args string) map[string]any {
	t.Helper()
	ans := call(t, ed, id, "workspace/executeCommand", fmt.Sprintf(`{"command":%q,"arguments":%s}`, name, args))
	if ans["error"] != nil {
		t.Fatalf("%s %s: %v", name, args, ans["error"])
	}
	res, ok := ans["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s %s: result %v", name, args, ans["result"])
	}
	return res
}

// dependentNames lists the names of an impact answer's depth-group
// dependents.
func dependentNames(a map[string]any) []string {
	var out []string
	depths, _ := a["depths"].([]any)
	for _, d := range depths {
		deps, _ := d.(map[string]any)["dependents"].([]any)
		for _, x := range deps {
			out = append(out, fmt.Sprint(x.(map[string]any)["name"]))
		}
	}
	return out
}

func dirtyOf(a map[string]any) []string {
	f, _ := a["freshness"].(map[string]any)
	dirty, _ := f["dirty"].([]any)
	var out []string
	for _, p := range dirty {
		out = append(out, fmt.Sprint(p))
	}
	return out
}

// TestProxyOverlayBufferImpact: a call to Catalog.Save added in an unsaved
// buffer of another package is a caller of Save from the live overlay, with
// the buffer listed as dirty; after didClose the file's on-disk text
// answers again and the caller is gone. The base is a syntax index: over a
// SCIP base the syntax layer binds a method call from another file only by
// its unique global name (confidence 0.6, below impact's default 0.7).
func TestProxyOverlayBufferImpact(t *testing.T) {
	ed, root, _ := overlaySession(t, false)
	catalog := filepath.Join(root, "service", "catalog.go")
	mainGo := filepath.Join(root, "cmd", "goapp", "main.go")
	// "func (c *Catalog) Save": the name is at line 28, character 19.
	// Without verification: the overlay alone must bring the buffer's caller.
	saveAt := fmt.Sprintf(`[{"textDocument":{"uri":%q},"position":{"line":28,"character":19},"verify":false}]`, fileURI(catalog))

	before := execCommand(t, ed, 2, "lspgraph.impact", saveAt)
	if names := dependentNames(before); !strings.Contains(fmt.Sprint(names), "Import") || strings.Contains(fmt.Sprint(names), "saveDefault") {
		t.Fatalf("impact of Save before the edit: dependents %v, want Import and no saveDefault", names)
	}
	if d := dirtyOf(before); len(d) != 0 {
		t.Errorf("dirty buffers before any edit = %v", d)
	}

	didOpen(t, ed, mainGo)
	didInsert(t, ed, mainGo, 2, 27, "\nfunc saveDefault(c *service.Catalog) error {\n\treturn c.Save(\"default\", \"Default\")\n}\n")
	var after map[string]any
	deadline := time.Now().Add(overlayBound)
	for id := 10; ; id++ {
		after = execCommand(t, ed, id, "lspgraph.impact", saveAt)
		if strings.Contains(fmt.Sprint(dependentNames(after)), "saveDefault") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("impact of Save never showed the unsaved caller saveDefault: dependents %v, freshness %v", dependentNames(after), after["freshness"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := dirtyOf(after); fmt.Sprint(d) != "[cmd/goapp/main.go]" {
		t.Errorf("freshness dirty = %v, want [cmd/goapp/main.go]", d)
	}
	if !strings.Contains(fmt.Sprint(dependentNames(after)), "Import") {
		t.Errorf("impact of Save with the buffer lost the base caller Import: %v", dependentNames(after))
	}

	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":%q}}}`, fileURI(mainGo)))
	deadline = time.Now().Add(overlayBound)
	for id := 500; ; id++ {
		after = execCommand(t, ed, id, "lspgraph.impact", saveAt)
		if !strings.Contains(fmt.Sprint(dependentNames(after)), "saveDefault") && len(dirtyOf(after)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after didClose impact of Save still shows saveDefault or a dirty buffer: dependents %v, dirty %v", dependentNames(after), dirtyOf(after))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(fmt.Sprint(dependentNames(after)), "Import") {
		t.Errorf("impact of Save after didClose lost Import: %v", dependentNames(after))
	}
}

// TestProxyContextArguments: lspgraph.context takes the editor's budget and
// a position counted in the unsaved buffer: eight lines inserted above Save
// put its name where Import's is on disk.
func TestProxyContextArguments(t *testing.T) {
	ed, root, _ := overlaySession(t, true)
	catalog := filepath.Join(root, "service", "catalog.go")
	didOpen(t, ed, catalog)
	didInsert(t, ed, catalog, 2, 10, strings.Repeat("// a comment line\n", 8))
	// The budget counts the whole answer, its freshness block included.
	const budget = 600
	args := fmt.Sprintf(`[{"textDocument":{"uri":%q},"position":{"line":36,"character":19},"budget":%d,"scope":"repo"}]`, fileURI(catalog), budget)
	var pack map[string]any
	deadline := time.Now().Add(overlayBound)
	for id := 2; ; id++ {
		pack = execCommand(t, ed, id, "lspgraph.context", args)
		if !strings.HasSuffix(fmt.Sprint(pack["target"].(map[string]any)["name"]), "Import") || time.Now().After(deadline) {
			break // Import: the position was read against the file, or the buffer is not extracted yet
		}
		time.Sleep(50 * time.Millisecond)
	}
	if name := fmt.Sprint(pack["target"].(map[string]any)["name"]); !strings.HasSuffix(name, "Save") {
		t.Errorf("context target at the buffer's line 37 = %s, want Catalog.Save", name)
	}
	if pack["budget"] != float64(budget) {
		t.Errorf("pack budget = %v, want %d (the argument)", pack["budget"], budget)
	}
	tokens, _ := pack["tokens"].(float64)
	if tokens <= 0 || tokens > budget {
		t.Errorf("pack tokens = %v, want within (0, %d]", pack["tokens"], budget)
	}
	if spec := pack["scope"].(map[string]any)["spec"]; spec != "repo" {
		t.Errorf("pack scope = %v, want repo (the argument)", spec)
	}
	if d := dirtyOf(pack); fmt.Sprint(d) != "[service/catalog.go]" {
		t.Errorf("freshness dirty = %v, want [service/catalog.go]", d)
	}
}

// TestProxyChangesBuffer: an unsaved edit inside Lookup makes
// lspgraph.changes report Lookup as modified (and nothing else changed on
// disk), with the buffer listed as dirty.
func TestProxyChangesBuffer(t *testing.T) {
	ed, root, _ := overlaySession(t, true)
	catalog := filepath.Join(root, "service", "catalog.go")

	clean := execCommand(t, ed, 2, "lspgraph.changes", `[]`)
	if ch, _ := clean["changes"].([]any); len(ch) != 0 {
		t.Fatalf("changes on a clean tree = %v, want none", ch)
	}

	didOpen(t, ed, catalog)
	// A line inside Lookup's body (line 54 is "return c.st.Get(sku)"), then
	// two comment lines at line 3: the new line is line 56 of the buffer,
	// which on disk is the blank line after Lookup.
	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":2},"contentChanges":[`+
		`{"range":{"start":{"line":53,"character":0},"end":{"line":53,"character":0}},"text":"\tsku = strings.TrimSpace(sku)\n"},`+
		`{"range":{"start":{"line":2,"character":0},"end":{"line":2,"character":0}},"text":"// one\n// two\n"}]}}`, fileURI(catalog)))
	var a map[string]any
	var got []string
	deadline := time.Now().Add(overlayBound)
	for id := 3; len(got) == 0 && time.Now().Before(deadline); id++ {
		if id > 3 {
			time.Sleep(50 * time.Millisecond) // the observer has not seen the edit yet
		}
		a = execCommand(t, ed, id, "lspgraph.changes", `[]`)
		ch, _ := a["changes"].([]any)
		for _, c := range ch {
			m := c.(map[string]any)
			got = append(got, fmt.Sprintf("%s %s", m["change"], m["name"]))
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "modified ") || !strings.HasSuffix(got[0], "Lookup") {
		t.Errorf("changed symbols = %q, want Lookup modified only", got)
	}
	if files := fmt.Sprint(a["files"]); !strings.Contains(files, "added:[map[end:4 start:3] map[end:56 start:56]]") || !strings.Contains(files, "path:service/catalog.go") {
		t.Errorf("changed files = %s, want service/catalog.go with lines 3-4 and 56 added", files)
	}
	if d := dirtyOf(a); fmt.Sprint(d) != "[service/catalog.go]" {
		t.Errorf("freshness dirty = %v, want [service/catalog.go]", d)
	}
	// The overlay had the edit before the answer was computed.
	if live := fmt.Sprint(a["freshness"].(map[string]any)["live"]); live != "[service/catalog.go]" {
		t.Errorf("freshness live = %s, want [service/catalog.go] (the buffer extracted by the overlay)", live)
	}
}

// TestProxyLSPFactsPrecedence: a call to Catalog.Save added in an unsaved
// buffer is a caller from syntax facts (when the syntax layer binds it with
// enough confidence). Once gopls answers references of Save for that very
// text, the server's facts answer for the buffer and the caller comes from
// them; when the buffer changes again, syntax re-extraction replaces them.
func TestProxyLSPFactsPrecedence(t *testing.T) {
	ed, root, _ := overlaySession(t, true)
	catalog := filepath.Join(root, "service", "catalog.go")
	mainGo := filepath.Join(root, "cmd", "goapp", "main.go")
	// Without verification: its answers would be learned as well, and
	// this follows the facts the editor's own requests bring.
	saveAt := fmt.Sprintf(`[{"textDocument":{"uri":%q},"position":{"line":28,"character":19},"verify":false}]`, fileURI(catalog))
	// source returns where saveDefault's edge to Save comes from ("" when
	// it is no caller).
	source := func(id int) (map[string]any, string) {
		a := execCommand(t, ed, id, "lspgraph.impact", saveAt)
		depths, _ := a["depths"].([]any)
		for _, d := range depths {
			deps, _ := d.(map[string]any)["dependents"].([]any)
			for _, x := range deps {
				if m := x.(map[string]any); m["name"] == "saveDefault" {
					return a, fmt.Sprint(m["via"].(map[string]any)["source"])
				}
			}
		}
		return a, ""
	}
	poll := func(first int, what string, done func(a map[string]any, src string) bool) map[string]any {
		t.Helper()
		deadline := time.Now().Add(overlayBound)
		for id := first; ; id++ {
			a, src := source(id)
			if done(a, src) {
				return a
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: saveDefault's edge source %q, freshness %v", what, src, a["freshness"])
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	live := func(a map[string]any) bool {
		return strings.Contains(fmt.Sprint(a["freshness"].(map[string]any)["live"]), "cmd/goapp/main.go")
	}

	didOpen(t, ed, mainGo)
	didInsert(t, ed, mainGo, 2, 27, "\nfunc saveDefault(c *service.Catalog) error {\n\treturn c.Save(\"default\", \"Default\")\n}\n")
	poll(10, "the overlay never extracted the buffer", func(a map[string]any, src string) bool {
		if src != "" && src != "syntax" {
			t.Fatalf("before the server answered for the buffer, saveDefault's edge comes from %q", src)
		}
		return live(a)
	})

	refs := callServer(t, ed, 100, "textDocument/references", fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":28,"character":19},"context":{"includeDeclaration":false}}`, fileURI(catalog)))
	if !strings.Contains(fmt.Sprint(refs["result"]), "main.go") {
		t.Fatalf("gopls references of Save lack the buffer's call: %v", refs["result"])
	}
	a := poll(200, "gopls's references never answered for the buffer", func(_ map[string]any, src string) bool { return src == "lsp" })
	if d := dirtyOf(a); fmt.Sprint(d) != "[cmd/goapp/main.go]" {
		t.Errorf("freshness dirty while the server's facts answer for the buffer = %v, want [cmd/goapp/main.go]", d)
	}

	didInsert(t, ed, mainGo, 3, 31, "// edited again\n")
	poll(400, "after another edit the server's facts for the older text still answer", func(_ map[string]any, src string) bool { return src != "lsp" })
}

// TestProxyImpactVerify: the d=1 set of Save is checked against gopls
// unless the argument says "verify": false.
func TestProxyImpactVerify(t *testing.T) {
	ed, root, _ := overlaySession(t, true)
	catalog := filepath.Join(root, "service", "catalog.go")
	didOpen(t, ed, catalog)
	pos := fmt.Sprintf(`"textDocument":{"uri":%q},"position":{"line":28,"character":19}`, fileURI(catalog))
	a := execCommand(t, ed, 2, "lspgraph.impact", "[{"+pos+"}]")
	v, _ := a["verification"].(map[string]any)
	if v == nil || v["ran"] != true || v["verified"].(float64) < 1 {
		t.Errorf("verification by default = %v, want a run with Import verified", v)
	}
	off := execCommand(t, ed, 3, "lspgraph.impact", "[{"+pos+`,"verify":false}]`)
	if off["verification"] != nil {
		t.Errorf("verification with \"verify\": false = %v, want none", off["verification"])
	}
}

// TestProxyChangesBufferDeleted: deleting Describe in an unsaved buffer
// makes lspgraph.changes report it deleted, read from the base symbols of
// the document the live layer now owns.
func TestProxyChangesBufferDeleted(t *testing.T) {
	ed, root, _ := overlaySession(t, true)
	catalog := filepath.Join(root, "service", "catalog.go")
	didOpen(t, ed, catalog)
	// Lines 57-60: Describe's comment and body.
	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":2},"contentChanges":[`+
		`{"range":{"start":{"line":56,"character":0},"end":{"line":60,"character":0}},"text":""}]}}`, fileURI(catalog)))
	var a map[string]any
	var got []string
	deadline := time.Now().Add(overlayBound)
	for id := 2; len(got) == 0 && time.Now().Before(deadline); id++ {
		if id > 2 {
			time.Sleep(50 * time.Millisecond)
		}
		a = execCommand(t, ed, id, "lspgraph.changes", `[]`)
		ch, _ := a["changes"].([]any)
		for _, c := range ch {
			m := c.(map[string]any)
			got = append(got, fmt.Sprintf("%s %s %v", m["change"], m["name"], m["oldLocation"].(map[string]any)["line"]))
		}
	}
	if fmt.Sprint(got) != "[deleted Describe 58]" {
		t.Errorf("changed symbols = %q, want [deleted Describe 58]", got)
	}
	if reasons := fmt.Sprint(a["partialReasons"]); strings.Contains(reasons, "hidden") {
		t.Errorf("partial reasons still say the base symbols are hidden: %s", reasons)
	}
}

// TestProxyOverlaySavedBuffer: a buffer saved and closed leaves its file
// changed on disk; the overlay lists it among the work tree's changes (the
// save starts a sync, and every answer syncs first), so the caller it adds
// stays in the live layer, now from the file.
func TestProxyOverlaySavedBuffer(t *testing.T) {
	ed, root, _ := overlaySession(t, false)
	catalog := filepath.Join(root, "service", "catalog.go")
	mainGo := filepath.Join(root, "cmd", "goapp", "main.go")
	// Without verification: the overlay alone must bring the buffer's caller.
	saveAt := fmt.Sprintf(`[{"textDocument":{"uri":%q},"position":{"line":28,"character":19},"verify":false}]`, fileURI(catalog))
	const added = "\nfunc saveDefault(c *service.Catalog) error {\n\treturn c.Save(\"default\", \"Default\")\n}\n"

	didOpen(t, ed, mainGo)
	didInsert(t, ed, mainGo, 2, 27, added)
	text, err := os.ReadFile(mainGo)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mainGo, append(text, added...), 0o644); err != nil {
		t.Fatal(err)
	}
	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didSave","params":{"textDocument":{"uri":%q}}}`, fileURI(mainGo)))
	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":%q}}}`, fileURI(mainGo)))
	var a map[string]any
	deadline := time.Now().Add(overlayBound)
	for id := 10; ; id++ {
		a = execCommand(t, ed, id, "lspgraph.impact", saveAt)
		f := a["freshness"].(map[string]any)
		if strings.Contains(fmt.Sprint(dependentNames(a)), "saveDefault") && fmt.Sprint(f["changed"]) == "[cmd/goapp/main.go]" && len(dirtyOf(a)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after save and close: dependents %v, freshness %v; want saveDefault from the saved file, no dirty buffer", dependentNames(a), f)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
