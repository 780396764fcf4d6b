package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProxyLensesWithGopls asks textDocument/codeLens through `lspgraph
// proxy -- gopls` on the imported goapp fixture: gopls's own lenses come
// first and unchanged, the proxy's follow, among them one above Save
// (called by Import alone), and resolve of ours comes back unchanged.
func TestProxyLensesWithGopls(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	importSCIP(t, store, root, "goapp.scip")

	const cat = "service/catalog.go"
	c := startClient(t, "lspgraph proxy -- gopls", root, proxyArgv(t, store, logFile, []string{gopls})...)
	init := c.initialize(nil)
	var caps struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(init, &caps); err != nil || caps.Capabilities["codeLensProvider"] == nil {
		t.Fatalf("initialize through the proxy has no codeLensProvider (gopls's or the proxy's): %s", init)
	}
	c.open(cat, "go")
	savePos := posOf(t, root, cat, 29, "Save")

	type lens struct {
		Range struct {
			Start struct{ Line, Character int } `json:"start"`
		} `json:"range"`
		Command *struct {
			Title, Command string
		} `json:"command"`
		Data json.RawMessage `json:"data"`
	}
	var lenses []lens
	var raw []json.RawMessage
	// The first answers may come before the session has opened the store
	// (the lenses then miss the budget and gopls's answer goes alone).
	deadline := time.Now().Add(30 * time.Second)
	var save *lens
	for save == nil && time.Now().Before(deadline) {
		res := c.mustCall("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": c.uri(cat)}})
		lenses, raw = nil, nil
		if err := json.Unmarshal(res, &raw); err != nil {
			t.Fatalf("codeLens answer %s: %v", res, err)
		}
		json.Unmarshal(res, &lenses)
		for i := range lenses {
			l := &lenses[i]
			if strings.Contains(string(l.Data), `"lspgraph":true`) && l.Range.Start.Line == savePos.Line {
				save = l
			}
		}
		if save == nil {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if save == nil {
		t.Fatalf("no lspgraph lens on line %d (Save) in %s", savePos.Line, raw)
	}
	if save.Command == nil || !strings.HasPrefix(save.Command.Title, "1 caller · ") || save.Command.Command != "lspgraph.impact" {
		t.Errorf("Save's lens: %+v, want a title starting with \"1 caller · \" running lspgraph.impact", save.Command)
	}
	// gopls's lenses, if any, come before ours.
	ours := false
	nGopls := 0
	for _, l := range lenses {
		mine := strings.Contains(string(l.Data), `"lspgraph":true`)
		if !mine {
			nGopls++
			if ours {
				t.Errorf("a gopls lens after the proxy's: %s", raw)
			}
		}
		ours = ours || mine
	}
	t.Logf("codeLens on %s: %d from gopls (codeLensProvider %s), %d from the proxy; Save: %q", cat, nGopls, caps.Capabilities["codeLensProvider"], len(lenses)-nGopls, save.Command.Title)

	// Resolve of ours is answered by the proxy with the lens unchanged.
	for _, r := range raw {
		if strings.Contains(string(r), `"lspgraph":true`) {
			got := c.mustCall("codeLens/resolve", r)
			var a, b any
			json.Unmarshal(got, &a)
			json.Unmarshal(r, &b)
			if ga, _ := json.Marshal(a); string(ga) != func() string { gb, _ := json.Marshal(b); return string(gb) }() {
				t.Errorf("codeLens/resolve changed our lens: %s -> %s", r, got)
			}
			break
		}
	}
	c.shutdown()
}
