package graph_test

import (
	"context"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// TestVersionDurable: every visible write raises the store's version, a
// reader carries its snapshot's version, and the version survives closing
// and reopening the store, so answers cached by version hold across
// processes.
func TestVersionDurable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v0 := st.Version()
	gw, err := st.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := gw.PutDocument(ctx, graph.DocumentFacts{Document: graph.Document{Path: "a.go", Language: "go"}}); err != nil {
		t.Fatal(err)
	}
	if err := gw.Commit(ctx, graph.Manifest{Tool: "test", Commit: "c1"}); err != nil {
		t.Fatal(err)
	}
	v1 := st.Version()
	if v1 <= v0 {
		t.Errorf("version after a base generation = %d; want more than %d", v1, v0)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	if r.Version() != v1 {
		t.Errorf("reader version = %d; want %d", r.Version(), v1)
	}
	if err := st.SetManifest(ctx, graph.Manifest{Layer: graph.Live, Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	if st.Version() != v1+1 || r.Version() != v1 {
		t.Errorf("after a live write: store %d, old reader %d; want %d and %d", st.Version(), r.Version(), v1+1, v1)
	}
	r.Close()
	if err := st.ClearLayer(ctx, graph.Live); err != nil {
		t.Fatal(err)
	}
	v3 := st.Version()
	if v3 != v1+2 {
		t.Errorf("after clearing the live layer: %d; want %d", v3, v1+2)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = graph.Open(dir, graph.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err = st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if st.Version() != v3 || r.Version() != v3 {
		t.Errorf("reopened: store %d, reader %d; want %d", st.Version(), r.Version(), v3)
	}
}
