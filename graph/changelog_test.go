package graph_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// pathDoc is a document with a path and nothing else.
func pathDoc(p string) graph.DocumentFacts {
	return graph.DocumentFacts{Document: graph.Document{Path: p, Language: "go"}}
}

// changeChecks returns checks of what changedSince tells a reader of
// *st (the store st points to then): since expects the paths listed,
// unknown expects no answer.
func changeChecks(t *testing.T, st **graph.Store, changedSince func(*graph.Reader, uint64) ([]string, bool)) (since func(what string, v uint64, want ...string), unknown func(what string, v uint64)) {
	changed := func(v uint64) ([]string, bool) {
		t.Helper()
		r, err := (*st).Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, ok := changedSince(r, v)
		if got == nil {
			got = []string{}
		}
		return got, ok
	}
	since = func(what string, v uint64, want ...string) {
		t.Helper()
		if want == nil {
			want = []string{}
		}
		if got, ok := changed(v); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: changed since %d = %q, %v; want %q, true", what, v, got, ok, want)
		}
	}
	unknown = func(what string, v uint64) {
		t.Helper()
		if got, ok := changed(v); ok {
			t.Errorf("%s: changed since %d = %q, true; want it unknown", what, v, got)
		}
	}
	return since, unknown
}

// TestLiveChangedSince: a reader lists the live documents changed after a
// version (written, replaced, deleted, renamed from and to), not those
// changed before it nor base writes, and says it cannot tell for a
// version before the store was opened or the live layer cleared.
func TestLiveChangedSince(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	since, unknown := changeChecks(t, &st, (*graph.Reader).LiveChangedSince)
	v0 := st.Version()
	since("nothing written", v0)
	for _, p := range []string{"a.go", "b.go", "c.go"} {
		if err := st.PutDocument(ctx, graph.Live, pathDoc(p)); err != nil {
			t.Fatal(err)
		}
	}
	v1 := st.Version()
	since("three written", v0, "a.go", "b.go", "c.go")
	since("none after", v1)
	if err := st.PutDocument(ctx, graph.Live, pathDoc("a.go")); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteDocument(ctx, graph.Live, "b.go"); err != nil {
		t.Fatal(err)
	}
	if err := st.RenameDocument(ctx, graph.Live, "c.go", "d.go"); err != nil {
		t.Fatal(err)
	}
	if err := st.PutDocument(ctx, graph.Base, pathDoc("base.go")); err != nil {
		t.Fatal(err)
	}
	v2 := st.Version()
	since("replaced, deleted, renamed; a base write", v1, "a.go", "b.go", "c.go", "d.go")
	since("from the start", v0, "a.go", "b.go", "c.go", "d.go")
	if err := st.PutDocument(ctx, graph.Live, pathDoc("e.go")); err != nil {
		t.Fatal(err)
	}
	since("one more", v2, "e.go")
	v3 := st.Version()
	if err := st.ClearLayer(ctx, graph.Live); err != nil {
		t.Fatal(err)
	}
	unknown("cleared after", v3)
	v4 := st.Version()
	since("since the clear", v4)
	if err := st.PutDocument(ctx, graph.Live, pathDoc("f.go")); err != nil {
		t.Fatal(err)
	}
	since("written after the clear", v4, "f.go")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err = graph.Open(dir, graph.Options{}); err != nil {
		t.Fatal(err)
	}
	// Another process (the store reopened) reads the writes' records.
	since("reopened", v4, "f.go")
	unknown("reopened, cleared after", v3)
	since("since reopening", st.Version())
}

// TestBaseChangedSince: a reader lists the base documents changed in
// place after a version (written to the base layer, put or deleted by a
// patch), not live writes, and says it cannot tell for a version before
// the current base generation began.
func TestBaseChangedSince(t *testing.T) {
	ctx := context.Background()
	st, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	since, unknown := changeChecks(t, &st, (*graph.Reader).BaseChangedSince)
	v0 := st.Version()
	if err := st.PutDocument(ctx, graph.Base, pathDoc("a.go")); err != nil {
		t.Fatal(err)
	}
	unknown("a base generation begun", v0)
	v1 := st.Version()
	since("none after", v1)
	if err := st.PutDocument(ctx, graph.Base, pathDoc("c.go")); err != nil {
		t.Fatal(err)
	}
	since("a base write", v1, "c.go")
	p, err := st.BeginPatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.PutDocument(ctx, pathDoc("b.go")); err != nil {
		t.Fatal(err)
	}
	if err := p.DeleteDocument(ctx, "a.go"); err != nil {
		t.Fatal(err)
	}
	v2 := st.Version()
	since("a patch not committed", v2)
	if err := p.Commit(ctx, graph.Manifest{}); err != nil {
		t.Fatal(err)
	}
	since("a patch: one put, one deleted", v2, "a.go", "b.go")
	since("everything since the generation began", v1, "a.go", "b.go", "c.go")
	v3 := st.Version()
	if err := st.PutDocument(ctx, graph.Live, pathDoc("b.go")); err != nil {
		t.Fatal(err)
	}
	since("a live write", v3)
	g, err := st.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.PutDocument(ctx, pathDoc("d.go")); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(ctx, graph.Manifest{}); err != nil {
		t.Fatal(err)
	}
	unknown("a new generation", v3)
	since("since the new generation", st.Version())
}
