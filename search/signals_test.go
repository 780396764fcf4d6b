package search_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/search"
)

// linked is a document of package pkg holding words, defining the symbols
// defs and referencing refs (one occurrence each).
func linked(path, pkg string, words, defs, refs []string) graph.DocumentFacts {
	f := doc(path, pkg, false, words)
	line := uint32(1)
	occ := func(sym string, role graph.Role) {
		o := graph.Occurrence{Path: path, Symbol: sym, Roles: role}
		o.Range.Start.Line, o.Range.End.Line = line, line
		line++
		f.Occurrences = append(f.Occurrences, o)
	}
	for _, d := range defs {
		f.Symbols = append(f.Symbols, graph.Symbol{ID: d, DisplayName: d, Kind: "function", Def: graph.Location{Path: path}})
		occ(d, graph.RoleDefinition)
	}
	for _, r := range refs {
		occ(r, graph.RoleReference)
	}
	return f
}

// neighbourDocs: store.go defines Flush, which handler.go calls; both
// hold the query's words, as does other.go, linked to nothing. util.go
// references Flush too but holds no query word, so it is no candidate.
func neighbourDocs() []graph.DocumentFacts {
	return []graph.DocumentFacts{
		linked("core/store.go", "core", []string{"flush/code", "memtable/code"}, []string{"Flush"}, nil),
		linked("api/handler.go", "api", []string{"flush/code", "memtable/doc", "request/code"}, []string{"Handle"}, []string{"Flush"}),
		linked("misc/other.go", "misc", []string{"flush/string", "memtable/code", "x/code"}, []string{"Other"}, nil),
		linked("misc/util.go", "misc", []string{"y/code"}, nil, []string{"Flush"}),
	}
}

func hitOf(t *testing.T, res search.Result, p string) search.Hit {
	t.Helper()
	for _, h := range res.Hits {
		if h.Path == p {
			return h
		}
	}
	t.Fatalf("%s not among %v", p, paths(res))
	return search.Hit{}
}

// TestNeighbourSignal: a document takes half the mean BM25 of the
// candidates it is linked to by references, either way, and names them.
func TestNeighbourSignal(t *testing.T) {
	r := graphtest.Base(t, graph.Manifest{Layer: graph.Base}, neighbourDocs()...)
	res, err := search.Search(context.Background(), r, "flush memtable", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store, handler, other := hitOf(t, res, "core/store.go"), hitOf(t, res, "api/handler.go"), hitOf(t, res, "misc/other.go")
	if !slices.Equal(store.Neighbours, []string{"api/handler.go"}) || !slices.Equal(handler.Neighbours, []string{"core/store.go"}) || other.Neighbours != nil {
		t.Errorf("neighbours: store %v, handler %v, other %v; want each other, and none", store.Neighbours, handler.Neighbours, other.Neighbours)
	}
	s, ok := signal(store, search.SignalNeighbours)
	if want := store.BM25 + 0.5*handler.BM25; !ok || math.Abs(s.Value-want) > 0.002 {
		t.Errorf("neighbours signal of store.go = %+v; want %.3f (its BM25 and half its neighbour's)", s, want)
	}
	if _, ok := signal(other, search.SignalNeighbours); ok {
		t.Errorf("other.go, linked to nothing, has a neighbours signal: %+v", other.Signals)
	}
}

// TestSymbolSignal: a definition named by the query's words scores by
// their idf and the share of the name they cover.
func TestSymbolSignal(t *testing.T) {
	f := doc("cache/lru.go", "cache", false, []string{"evict/name", "entry/name"})
	f.Symbols = append(f.Symbols,
		graph.Symbol{ID: "go cache/evictEntry().", DisplayName: "evictEntry", Kind: "function", Def: graph.Location{Path: "cache/lru.go"}},
		graph.Symbol{ID: "go cache/evictAllOld().", DisplayName: "evictAllOld", Kind: "function", Def: graph.Location{Path: "cache/lru.go"}})
	r := graphtest.Base(t, graph.Manifest{Layer: graph.Base}, f,
		doc("util/misc.go", "util", false, []string{"evict/code", "entry/code"}))
	res, err := search.Search(context.Background(), r, "evict entry", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lru := hitOf(t, res, "cache/lru.go")
	s, ok := signal(lru, search.SignalSymbol)
	// Both words are in both documents: idf = ln(1 + 0.5/2.5) each;
	// evictEntry's words are evict, entry and evictentry (the whole name),
	// two of three covered.
	if want := 2 * math.Log(1+0.5/2.5) * 2 / 3; !ok || math.Abs(s.Value-want) > 0.002 {
		t.Errorf("symbol signal of lru.go = %+v; want %.3f", s, want)
	}
	if len(lru.Symbols) != 2 || lru.Symbols[0].Name != "evictEntry" {
		t.Errorf("symbols of lru.go = %+v; want evictEntry first", lru.Symbols)
	}
	if _, ok := signal(hitOf(t, res, "util/misc.go"), search.SignalSymbol); ok {
		t.Error("misc.go, which defines nothing named so, has a symbol signal")
	}
}

// TestPackageSignal: a document takes half the mean BM25 of the best other
// documents of its directory (when the signal is weighted: by default it
// is not).
func TestPackageSignal(t *testing.T) {
	r := graphtest.Base(t, graph.Manifest{Layer: graph.Base},
		doc("x/a.go", "x", false, []string{"flush/code"}),
		doc("x/b.go", "x", false, []string{"flush/code", "z/code"}),
		doc("y/c.go", "y", false, []string{"flush/code"}),
		doc("y/d.go", "y", false, []string{"other/code"}))
	res, err := search.Search(context.Background(), r, "flush", search.Options{Signals: search.SignalWeights{search.SignalText: 1, search.SignalPackage: 1}})
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := hitOf(t, res, "x/a.go"), hitOf(t, res, "x/b.go"), hitOf(t, res, "y/c.go")
	for _, tc := range []struct {
		h    search.Hit
		want float64
	}{{a, a.BM25 + 0.5*b.BM25}, {b, b.BM25 + 0.5*a.BM25}, {c, c.BM25}} {
		if s, ok := signal(tc.h, search.SignalPackage); !ok || math.Abs(s.Value-tc.want) > 0.002 {
			t.Errorf("package signal of %s = %+v; want %.3f", tc.h.Path, s, tc.want)
		}
	}
}

// neighbourStore returns a store whose base generation holds
// neighbourDocs.
func neighbourStore(t *testing.T) *graph.Store {
	t.Helper()
	ctx := context.Background()
	st := graphtest.Open(t)
	gw, err := st.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range neighbourDocs() {
		if err := gw.PutDocument(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := gw.Commit(ctx, graph.Manifest{Layer: graph.Base}); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestCacheAnswersAsWithout: searches with a cache kept across them answer
// as searches without, also after the live layer changes a document's
// references and while a reader of the older snapshot is still searched.
func TestCacheAnswersAsWithout(t *testing.T) {
	ctx := context.Background()
	st := neighbourStore(t)
	cache := search.NewCache()
	same := func(r *graph.Reader, q string) search.Result {
		t.Helper()
		want, err := search.Search(ctx, r, q, search.Options{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			got, err := search.Search(ctx, r, q, search.Options{Limit: 100, Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			if g, w := resultString(got), resultString(want); g != w {
				t.Fatalf("%q with a cache:\n%s\nwithout:\n%s", q, g, w)
			}
		}
		return want
	}
	old, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	same(old, "flush memtable")
	same(old, "memtable request")
	// The live layer's other.go now calls Flush: it and store.go are linked.
	edited := linked("misc/other.go", "misc", []string{"flush/string", "memtable/code", "x/code"}, []string{"Other"}, []string{"Flush"})
	if err := st.PutDocument(ctx, graph.Live, edited); err != nil {
		t.Fatal(err)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := same(r, "flush memtable")
	if got := hitOf(t, res, "misc/other.go").Neighbours; !slices.Equal(got, []string{"core/store.go"}) {
		t.Errorf("neighbours of the edited other.go = %v; want core/store.go", got)
	}
	if got := hitOf(t, same(old, "flush memtable"), "misc/other.go").Neighbours; got != nil {
		t.Errorf("the older snapshot's other.go has neighbours %v", got)
	}
}

// resultString renders every hit with its reasons and score.
func resultString(res search.Result) string {
	var b []byte
	for _, h := range res.Hits {
		b = fmt.Appendf(b, "%s %g %s\n", h.Path, h.Score, h.Reasons())
	}
	return string(b)
}

// TestFuseWeighs: a signal's weight decides which of two rankings wins.
func TestFuseWeighs(t *testing.T) {
	hits := []search.Hit{
		{Path: "x", Signals: []search.Signal{{Name: search.SignalText, Rank: 1}, {Name: search.SignalSymbol, Rank: 2}}},
		{Path: "y", Signals: []search.Signal{{Name: search.SignalText, Rank: 2}, {Name: search.SignalSymbol, Rank: 1}}},
	}
	search.Fuse(hits, search.SignalWeights{search.SignalText: 1, search.SignalSymbol: 0.5})
	if hits[0].Path != "x" {
		t.Errorf("symbol at half the text's weight: %s first; want x", hits[0].Path)
	}
	search.Fuse(hits, search.SignalWeights{search.SignalText: 1, search.SignalSymbol: 2})
	if hits[0].Path != "y" || math.Abs(hits[0].Score-(1.0/62+2.0/61)) > 1e-12 {
		t.Errorf("symbol at twice the text's weight: %+v first; want y scoring 1/62+2/61", hits[0])
	}
}

// TestFuseBySum: CombSUM weighs each signal's value over its largest
// among the hits, so a margin in value counts where ranks would not.
func TestFuseBySum(t *testing.T) {
	hits := []search.Hit{
		{Path: "x", Signals: []search.Signal{{Name: search.SignalText, Value: 10, Rank: 1}, {Name: search.SignalSymbol, Value: 1, Rank: 2}}},
		{Path: "y", Signals: []search.Signal{{Name: search.SignalText, Value: 9, Rank: 2}, {Name: search.SignalSymbol, Value: 4, Rank: 1}}},
		{Path: "z", Signals: []search.Signal{{Name: search.SignalText, Value: 2, Rank: 3}}},
	}
	w := search.SignalWeights{search.SignalText: 1, search.SignalSymbol: 0.5}
	search.FuseBy(hits, w, search.FusionRRF)
	if hits[0].Path != "x" {
		t.Errorf("rrf, symbol at half the text's weight: %s first; want x", hits[0].Path)
	}
	search.FuseBy(hits, w, search.FusionSum)
	// y: 9/10 + 0.5·4/4 = 1.4; x: 10/10 + 0.5·1/4 = 1.125; z: 2/10.
	if got := []string{hits[0].Path, hits[1].Path, hits[2].Path}; !slices.Equal(got, []string{"y", "x", "z"}) || math.Abs(hits[0].Score-1.4) > 1e-12 {
		t.Errorf("combsum order %v (first scoring %g); want y x z, y scoring 1.4", got, hits[0].Score)
	}
}

// TestCacheFollowsLiveImports: the importer counts a cache keeps across
// live writes are those a search without it counts, as live documents
// drop an import their base version made, add one, go (the base version
// visible again) and change which package they import.
func TestCacheFollowsLiveImports(t *testing.T) {
	ctx := context.Background()
	st := graphtest.Open(t)
	gw, err := st.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []graph.DocumentFacts{
		doc("cache/lru.go", "cache", false, []string{"evict/name", "entry/doc", "cache/path"}),
		doc("util/misc.go", "util", false, []string{"evict/code", "entry/code"}, "cache"),
		doc("app/main.go", "app", false, []string{"main/name", "entry/code"}, "cache", "util"),
		doc("other/x.go", "other", false, []string{"entry/string"}, "cache"),
	} {
		if err := gw.PutDocument(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := gw.Commit(ctx, graph.Manifest{Layer: graph.Base}); err != nil {
		t.Fatal(err)
	}
	cache := search.NewCache()
	dependents := func(step string, want string) {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		without, err := search.Search(ctx, r, "evict entry", search.Options{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		with, err := search.Search(ctx, r, "evict entry", search.Options{Limit: 100, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if g, w := resultString(with), resultString(without); g != w {
			t.Errorf("%s: with the cache:\n%s\nwithout:\n%s", step, g, w)
		}
		h := hitOf(t, without, "cache/lru.go")
		if got := h.Reasons(); !strings.Contains(got, want) {
			t.Errorf("%s: cache/lru.go's reasons %q lack %q", step, got, want)
		}
	}
	live := func(f graph.DocumentFacts) {
		t.Helper()
		if err := st.PutDocument(ctx, graph.Live, f); err != nil {
			t.Fatal(err)
		}
	}
	dependents("the base", "dependents 3 ")
	live(doc("other/x.go", "other", false, []string{"entry/string"}))
	dependents("other/x.go's import hidden by its live version", "dependents 2 ")
	live(doc("new/y.go", "new", false, []string{"entry/code"}, "cache"))
	dependents("a live document importing cache", "dependents 3 ")
	if err := st.DeleteDocument(ctx, graph.Live, "other/x.go"); err != nil {
		t.Fatal(err)
	}
	dependents("the live other/x.go gone, its base version back", "dependents 4 ")
	live(doc("new/y.go", "new", false, []string{"entry/code"}, "util"))
	dependents("new/y.go importing util instead", "dependents 3 ")
}

// TestCacheFollowsBasePatches: after a patch of the base generation (an
// incremental index) and after live writes, a search with
// the cache answers as one without and reads again only the documents
// that changed.
func TestCacheFollowsBasePatches(t *testing.T) {
	ctx := context.Background()
	st := neighbourStore(t)
	cache := search.NewCache()
	check := func(step string, maxReads int64, queries ...string) {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		before := search.DocReads(cache)
		for _, q := range queries {
			without, err := search.Search(ctx, r, q, search.Options{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			with, err := search.Search(ctx, r, q, search.Options{Limit: 100, Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			if g, w := resultString(with), resultString(without); g != w {
				t.Errorf("%s, %q: with the cache:\n%s\nwithout:\n%s", step, q, g, w)
			}
		}
		if n := search.DocReads(cache) - before; n > maxReads {
			t.Errorf("%s: the cache read %d documents' facts, want at most %d", step, n, maxReads)
		}
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.Warm(ctx, r, nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	check("warmed", 0, "flush memtable", "sync")
	// core/store.go now defines Sync instead of Flush.
	p, err := st.BeginPatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.PutDocument(ctx, linked("core/store.go", "core", []string{"flush/code", "memtable/code", "sync/name"}, []string{"Sync"}, nil)); err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(ctx, graph.Manifest{Layer: graph.Base}); err != nil {
		t.Fatal(err)
	}
	check("patched", 3, "flush memtable", "sync")
	// misc/other.go, live, now references Sync.
	if err := st.PutDocument(ctx, graph.Live, linked("misc/other.go", "misc", []string{"flush/string", "memtable/code", "sync/code"}, []string{"Other"}, []string{"Sync"})); err != nil {
		t.Fatal(err)
	}
	check("a live write", 3, "flush memtable", "sync")
	check("nothing changed", 0, "flush memtable", "sync")
	if err := st.DeleteDocument(ctx, graph.Live, "misc/other.go"); err != nil {
		t.Fatal(err)
	}
	check("the live document gone", 0, "flush memtable", "sync")
}

// TestWarmPauses: Warm asks pause before each document and stops at its
// error, having read the documents before only.
func TestWarmPauses(t *testing.T) {
	ctx := context.Background()
	st := neighbourStore(t)
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	full := search.NewCache()
	if err := full.Warm(ctx, r, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	perDoc := search.DocReads(full) / int64(len(neighbourDocs()))
	errHeld := fmt.Errorf("held")
	cache := search.NewCache()
	calls := 0
	err = cache.Warm(ctx, r, func(context.Context) error {
		calls++
		if calls == 3 {
			return errHeld
		}
		return nil
	})
	if err != errHeld {
		t.Fatalf("Warm with a pause failing before the third document = %v, want its error", err)
	}
	if got, want := search.DocReads(cache), 2*perDoc; got != want || calls != 3 {
		t.Errorf("Warm stopped before the third document: %d reads, %d pauses; want %d reads (two documents of %d), 3 pauses", got, calls, want, search.DocReads(full))
	}
}
