package graph_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
)

// A Reader reads its snapshot's manifests once: later calls answer the
// same, a generation committed meanwhile does not change them, a caller
// changing what it got changes nothing for the next, and a closed Reader
// fails.
func TestReaderManifestIsTheSnapshots(t *testing.T) {
	ctx := context.Background()
	s := graphtest.Open(t)
	commit := func(tag string) {
		t.Helper()
		g, err := s.BeginGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Commit(ctx, graph.Manifest{Commit: tag, Extra: map[string]int{"n": 1}}); err != nil {
			t.Fatal(err)
		}
	}
	commit("first")
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	m, ok, err := r.Manifest(graph.Base)
	if err != nil || !ok || m.Commit != "first" {
		t.Fatalf("manifest = %+v, %v, %v", m, ok, err)
	}
	m.Extra["n"] = 99
	commit("second")
	again, ok, err := r.Manifest(graph.Base)
	if err != nil || !ok || again.Commit != "first" || again.Extra["n"] != 1 {
		t.Errorf("the reader's manifest after a commit and a caller's change = %+v, %v, %v", again, ok, err)
	}
	if v, ok, err := r.BaseView().Manifest(graph.Base); err != nil || !ok || v.Commit != "first" {
		t.Errorf("the base view's manifest = %+v, %v, %v", v, ok, err)
	}
	if _, ok, err := r.Manifest(graph.Live); err != nil || ok {
		t.Errorf("live manifest of a store without one: %v, %v", ok, err)
	}
	r2, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if m2, _, err := r2.Manifest(graph.Base); err != nil || m2.Commit != "second" {
		t.Errorf("a new reader's manifest = %+v, %v", m2, err)
	}
	r.Close()
	if _, _, err := r.Manifest(graph.Base); !errors.Is(err, graph.ErrClosed) {
		t.Errorf("manifest of a closed reader: %v", err)
	}
}
