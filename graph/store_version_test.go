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

// TestBaseVersion: a reader's BaseVersion moves with every write that
// changes what it sees of the base layer (a generation, a patch, a base
// document) and with none of the live layer's, and survives reopening.
func TestBaseVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	baseVersion := func() (base, all uint64) {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return r.BaseVersion(), r.Version()
	}
	if b, _ := baseVersion(); b != 0 {
		t.Fatalf("a new store's base version = %d; want 0", b)
	}
	doc := func(p string) graph.DocumentFacts {
		return graph.DocumentFacts{Document: graph.Document{Path: p, Language: "go"}}
	}
	gw, err := st.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := gw.PutDocument(ctx, doc("a.go")); err != nil {
		t.Fatal(err)
	}
	if b, _ := baseVersion(); b != 0 {
		t.Errorf("base version %d while a generation is written; want 0 until it commits", b)
	}
	if err := gw.Commit(ctx, graph.Manifest{Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	b1, v1 := baseVersion()
	if b1 == 0 || b1 != v1 {
		t.Fatalf("after a generation: base version %d, version %d; want both the same, not 0", b1, v1)
	}
	for _, live := range []func() error{
		func() error { return st.PutDocument(ctx, graph.Live, doc("b.go")) },
		func() error { return st.DeleteDocument(ctx, graph.Live, "b.go") },
		func() error { return st.SetManifest(ctx, graph.Manifest{Layer: graph.Live, Tool: "t"}) },
		func() error { return st.ClearLayer(ctx, graph.Live) },
	} {
		if err := live(); err != nil {
			t.Fatal(err)
		}
	}
	if b, v := baseVersion(); b != b1 || v != v1+4 {
		t.Errorf("after four live writes: base version %d, version %d; want %d and %d", b, v, b1, v1+4)
	}
	p, err := st.BeginPatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.PutDocument(ctx, doc("c.go")); err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(ctx, graph.Manifest{Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	b2, v2 := baseVersion()
	if b2 != v2 || b2 <= b1 {
		t.Errorf("after a patch: base version %d, version %d; want the version, above %d", b2, v2, b1)
	}
	if err := st.PutDocument(ctx, graph.Base, doc("d.go")); err != nil {
		t.Fatal(err)
	}
	b3, v3 := baseVersion()
	if b3 != v3 || b3 <= b2 {
		t.Errorf("after a base document: base version %d, version %d; want the version, above %d", b3, v3, b2)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err = graph.Open(dir, graph.Options{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if b, _ := baseVersion(); b != b3 {
		t.Errorf("reopened: base version %d; want %d", b, b3)
	}
}
