package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/lspproxy"
)

// TestAnswerCache: asked twice in the same state, impact is computed once;
// an editor's buffer edit (or any write to the store) computes it again,
// and the new answer sees the edit.
func TestAnswerCache(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	s := openSession(t, root, dir)
	ask := func() []string { return willBreak(t, s, "Catalog.Save") }
	first := ask()
	second := ask()
	if hits, misses := s.cache.stats(); hits != 1 || misses != 1 {
		t.Errorf("after two identical asks: %d cached, %d computed; want 1 and 1", hits, misses)
	}
	if fmt.Sprint(first) != fmt.Sprint(second) {
		t.Errorf("the cached answer differs: %v vs %v", first, second)
	}
	// An unsaved caller in the editor.
	path := filepath.Join(root, "service", "catalog.go")
	text, err := readInRoot(root, "service/catalog.go")
	if err != nil {
		t.Fatal(err)
	}
	edited := string(text) + "\nfunc (c *Catalog) SaveTwice(sku string) error { return c.Save(sku, sku) }\n"
	open, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": fileURI(path), "text": edited, "version": 1}})
	s.Document(lspproxy.DocumentEvent{Method: "textDocument/didOpen", Params: open})
	third := ask()
	if hits, misses := s.cache.stats(); hits != 1 || misses != 2 {
		t.Errorf("after a buffer edit: %d cached, %d computed; want 1 and 2", hits, misses)
	}
	found := false
	for _, n := range third {
		found = found || n == "Catalog.SaveTwice"
	}
	if !found {
		t.Errorf("d=1 after the edit = %v; want the unsaved caller Catalog.SaveTwice", third)
	}
}

// TestAnswerCacheDurable: a session that opens the store after another
// closed it reuses the answer the first kept on disk while nothing changed,
// and computes it again once the store changes.
func TestAnswerCacheDurable(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	ctx := context.Background()
	args := Call{Args: []json.RawMessage{json.RawMessage(`"Catalog.Save"`)}}
	answer := func() (string, int, int) {
		t.Helper()
		s, err := Open(Options{Root: root, StoreDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.Command(ctx, CommandImpact, args)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		hits, misses := s.cache.stats()
		return string(b), hits, misses
	}
	first, hits, misses := answer()
	if hits != 0 || misses != 1 {
		t.Errorf("first process: %d cached, %d computed; want 0 and 1", hits, misses)
	}
	second, hits, misses := answer()
	if hits != 1 || misses != 0 {
		t.Errorf("second process, nothing changed: %d cached, %d computed; want 1 and 0", hits, misses)
	}
	if first != second {
		t.Errorf("the answer kept on disk differs from the one computed")
	}
	// Any write to the store moves its version.
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetManifest(ctx, graph.Manifest{Layer: graph.Live, Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, hits, misses = answer(); hits != 0 || misses != 1 {
		t.Errorf("after a write to the store: %d cached, %d computed; want 0 and 1", hits, misses)
	}
}

// TestCachedReadOnly: the answer a session kept on disk is found without
// opening the store for writing, equal to the one computed, and not after
// the store changed.
func TestCachedReadOnly(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	ctx := context.Background()
	args := []json.RawMessage{json.RawMessage(`{"target":"Catalog.Save","depth":3}`)}
	if _, ok := Cached(ctx, root, dir, args); ok {
		t.Fatalf("an answer kept before any was computed")
	}
	s, err := Open(Options{Root: root, StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Command(ctx, CommandImpact, Call{Args: args})
	if err != nil {
		t.Fatal(err)
	}
	computed, _ := json.Marshal(res)
	s.Close()
	kept, ok := Cached(ctx, root, dir, args)
	if !ok {
		t.Fatalf("no answer kept on disk after a session computed one")
	}
	var a, b bytes.Buffer
	json.Compact(&a, computed)
	json.Compact(&b, kept)
	if a.String() != b.String() {
		t.Errorf("the kept answer differs from the computed one")
	}
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetManifest(ctx, graph.Manifest{Layer: graph.Live, Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, ok := Cached(ctx, root, dir, args); ok {
		t.Errorf("an answer kept across a write to the store")
	}
}
