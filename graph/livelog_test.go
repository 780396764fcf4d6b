package graph_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

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
	doc := func(p string) graph.DocumentFacts {
		return graph.DocumentFacts{Document: graph.Document{Path: p, Language: "go"}}
	}
	since := func(what string, v uint64, want ...string) {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, ok := r.LiveChangedSince(v)
		if want == nil {
			want = []string{}
		}
		if got == nil {
			got = []string{}
		}
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: changed since %d = %q, %v; want %q, true", what, v, got, ok, want)
		}
	}
	unknown := func(what string, v uint64) {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if got, ok := r.LiveChangedSince(v); ok {
			t.Errorf("%s: changed since %d = %q, true; want it unknown", what, v, got)
		}
	}
	v0 := st.Version()
	since("nothing written", v0)
	for _, p := range []string{"a.go", "b.go", "c.go"} {
		if err := st.PutDocument(ctx, graph.Live, doc(p)); err != nil {
			t.Fatal(err)
		}
	}
	v1 := st.Version()
	since("three written", v0, "a.go", "b.go", "c.go")
	since("none after", v1)
	if err := st.PutDocument(ctx, graph.Live, doc("a.go")); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteDocument(ctx, graph.Live, "b.go"); err != nil {
		t.Fatal(err)
	}
	if err := st.RenameDocument(ctx, graph.Live, "c.go", "d.go"); err != nil {
		t.Fatal(err)
	}
	if err := st.PutDocument(ctx, graph.Base, doc("base.go")); err != nil {
		t.Fatal(err)
	}
	v2 := st.Version()
	since("replaced, deleted, renamed; a base write", v1, "a.go", "b.go", "c.go", "d.go")
	since("from the start", v0, "a.go", "b.go", "c.go", "d.go")
	if err := st.PutDocument(ctx, graph.Live, doc("e.go")); err != nil {
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
	if err := st.PutDocument(ctx, graph.Live, doc("f.go")); err != nil {
		t.Fatal(err)
	}
	since("written after the clear", v4, "f.go")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err = graph.Open(dir, graph.Options{}); err != nil {
		t.Fatal(err)
	}
	unknown("reopened", v4)
	since("since reopening", st.Version())
}
