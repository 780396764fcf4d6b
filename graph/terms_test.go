package graph_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
)

// termDoc is a document with the given words in the code field.
func termDoc(path string, words ...string) graph.DocumentFacts {
	f := graph.DocumentFacts{Document: graph.Document{Path: path, Language: "go"}}
	for _, w := range words {
		f.Terms = append(f.Terms, graph.Term{Word: w, Field: graph.TermCode, Count: 1})
	}
	return f
}

// postings renders the postings of word as "path@layer len=N code=C".
func postings(t *testing.T, r *graph.Reader, word string) string {
	t.Helper()
	ps, err := r.Postings(context.Background(), word)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("%s@%s len=%d code=%d", p.Path, p.Layer, p.Length, p.Count(graph.TermCode)))
	}
	return strings.Join(parts, "; ")
}

func TestTermsFollowTheDocument(t *testing.T) {
	ctx := context.Background()
	st := graphtest.Open(t)
	gw, err := st.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := termDoc("a.go", "cache", "evict", "cache")
	a.Terms = append(a.Terms, graph.Term{Word: "cache", Field: graph.TermName, Count: 2})
	for _, f := range []graph.DocumentFacts{a, termDoc("b.go", "cache"), termDoc("c.go")} {
		if err := gw.PutDocument(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := gw.Commit(ctx, graph.Manifest{Layer: graph.Base}); err != nil {
		t.Fatal(err)
	}
	read := func() *graph.Reader {
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	r := read()
	if got, want := postings(t, r, "cache"), "a.go@base len=5 code=2; b.go@base len=1 code=1"; got != want {
		t.Errorf("base postings of cache = %q, want %q", got, want)
	}
	if s, err := r.TermStats(ctx); err != nil || s != (graph.TermStats{Documents: 2, Length: 6}) {
		t.Errorf("TermStats = %+v, %v; want 2 documents of length 6", s, err)
	}
	m, _, err := r.Manifest(graph.Base)
	if err != nil || m.Extra[graph.ManifestTermDocuments] != 2 {
		t.Errorf("manifest counts %d documents with terms (%v), want 2", m.Extra[graph.ManifestTermDocuments], err)
	}

	// A live version of a.go hides its base postings and brings its own.
	if err := st.PutDocument(ctx, graph.Live, termDoc("a.go", "evict", "lru")); err != nil {
		t.Fatal(err)
	}
	r = read()
	if got, want := postings(t, r, "cache"), "b.go@base len=1 code=1"; got != want {
		t.Errorf("postings of cache with a.go live = %q, want %q", got, want)
	}
	if got, want := postings(t, r, "lru"), "a.go@live len=2 code=1"; got != want {
		t.Errorf("postings of lru = %q, want %q", got, want)
	}
	if got, want := postings(t, r.BaseView(), "cache"), "a.go@base len=5 code=2; b.go@base len=1 code=1"; got != want {
		t.Errorf("base view postings of cache = %q, want %q", got, want)
	}

	// Replacing, renaming and deleting carry the terms along.
	if err := st.PutDocument(ctx, graph.Live, termDoc("a.go", "evict")); err != nil {
		t.Fatal(err)
	}
	if got := postings(t, read(), "lru"); got != "" {
		t.Errorf("postings of lru after a.go lost the word = %q, want none", got)
	}
	if err := st.RenameDocument(ctx, graph.Live, "a.go", "d.go"); err != nil {
		t.Fatal(err)
	}
	if got, want := postings(t, read(), "evict"), "d.go@live len=1 code=1; a.go@base len=5 code=1"; got != want {
		t.Errorf("postings of evict after the rename = %q, want %q", got, want)
	}
	if err := st.DeleteDocument(ctx, graph.Base, "b.go"); err != nil {
		t.Fatal(err)
	}
	r = read()
	if got, want := postings(t, r, "cache"), "a.go@base len=5 code=2"; got != want {
		t.Errorf("postings of cache after deleting b.go = %q, want %q", got, want)
	}
	ts, err := r.DocumentTerms(ctx, "a.go")
	if err != nil || len(ts) != 3 {
		t.Errorf("DocumentTerms(a.go) = %v, %v; want cache/name, cache/code, evict/code", ts, err)
	}
}

func TestTermsRejectUnknownField(t *testing.T) {
	st := graphtest.Open(t)
	f := termDoc("a.go")
	f.Terms = []graph.Term{{Word: "x1", Field: 9, Count: 1}}
	if err := st.PutDocument(context.Background(), graph.Base, f); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("PutDocument with field 9 = %v, want an unknown field error", err)
	}
}

func TestDocumentSymbolsWhereSkipsLocals(t *testing.T) {
	ctx := context.Background()
	def := func(id, name, kind string) graph.Symbol {
		return graph.Symbol{ID: id, DisplayName: name, Kind: kind, Def: graph.Location{Path: "a.go"}}
	}
	f := graph.DocumentFacts{Document: graph.Document{Path: "a.go", Language: "go"}, Symbols: []graph.Symbol{
		def("go m a/Cache#", "Cache", "struct"),
		def("go m a/", "a", "package"),
		def("local 1 a.go", "cache", "local"),
		def("local 2 a.go", "evict", "local"),
		def("m a/evict().", "evict", "function"),
		def("zz a/Z.", "Z", "constant"),
	}}
	r := graphtest.Base(t, graph.Manifest{Layer: graph.Base}, f)
	for _, tc := range []struct {
		name string
		keep func(name, kind []byte) bool
		want string
	}{
		{"all", func(_, _ []byte) bool { return true }, "go m a/ go m a/Cache# m a/evict(). zz a/Z."},
		{"by kind", func(_, kind []byte) bool { return string(kind) == "package" }, "go m a/"},
		{"by name", func(name, _ []byte) bool { return strings.Contains(string(name), "evict") }, "m a/evict()."},
	} {
		syms, err := r.DocumentSymbolsWhere(ctx, "a.go", tc.keep)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range syms {
			ids = append(ids, s.ID)
		}
		if got := strings.Join(ids, " "); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
