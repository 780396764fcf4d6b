package search_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/search"
)

// doc is a document of package pkg (whose symbol it defines) holding
// words, "word/field" each, importing the packages imports.
func doc(path, pkg string, test bool, words []string, imports ...string) graph.DocumentFacts {
	f := graph.DocumentFacts{Document: graph.Document{Path: path, Language: "go", Package: pkg}}
	if test {
		f.Document.Flags |= graph.DocTest
	}
	f.Symbols = []graph.Symbol{{ID: "pkg " + pkg, DisplayName: pkg, Kind: "package"}}
	for _, w := range words {
		word, field, _ := strings.Cut(w, "/")
		tf := graph.TermCode
		for _, f := range graph.TermFields {
			if f.String() == field {
				tf = f
			}
		}
		f.Terms = append(f.Terms, graph.Term{Word: word, Field: tf, Count: 1})
	}
	for _, imp := range imports {
		f.Edges = append(f.Edges, graph.Edge{From: "pkg " + pkg, To: "pkg " + imp, Kind: graph.EdgeImports, Confidence: 1})
	}
	return f
}

func fixture(t *testing.T) *graph.Reader {
	return graphtest.Base(t, graph.Manifest{Layer: graph.Base},
		// cache/lru.go names the words; util/misc.go only uses them once
		// among many other words.
		doc("cache/lru.go", "cache", false, []string{"evict/name", "entry/doc", "cache/path"}),
		doc("cache/lru_test.go", "cache", true, []string{"evict/code", "entry/code", "cache/path"}),
		doc("util/misc.go", "util", false, []string{"evict/code", "entry/code", "a1/code", "a2/code", "a3/code", "a4/code"}, "cache"),
		doc("app/main.go", "app", false, []string{"main/name", "entry/code"}, "cache", "util"),
		doc("other/x.go", "other", false, []string{"entry/string"}, "cache"),
	)
}

func paths(res search.Result) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Path)
	}
	return out
}

func TestSearchRanksNamesFirst(t *testing.T) {
	r := fixture(t)
	res, err := search.Search(context.Background(), r, "evicting entries", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Words, " "); got != "evict entry" {
		t.Errorf("words = %q, want evict entry", got)
	}
	got := paths(res)
	if len(got) != 5 || got[0] != "cache/lru.go" {
		t.Fatalf("hits = %v, want cache/lru.go first of 5", got)
	}
	h := res.Hits[0]
	if reasons := h.Reasons(); !strings.Contains(reasons, "evict (name×1)") || !strings.Contains(reasons, "bm25") || !strings.Contains(reasons, "dependents 3 #1") {
		t.Errorf("reasons of the first hit = %q", reasons)
	}
	// The test file ranks below the file it tests, which has the same
	// words in better fields and the non-test signal.
	if i, j := indexOf(got, "cache/lru.go"), indexOf(got, "cache/lru_test.go"); i > j {
		t.Errorf("the test file ranks above its subject: %v", got)
	}
	if !res.Hits[indexOf(got, "cache/lru_test.go")].Test {
		t.Errorf("lru_test.go not marked a test")
	}
}

func TestSearchFlatWeights(t *testing.T) {
	r := fixture(t)
	flat, err := search.Search(context.Background(), r, "evict", search.Options{TextOnly: true, Text: &search.FlatText})
	if err != nil {
		t.Fatal(err)
	}
	// Each of the three documents holds evict once: plain BM25 prefers the
	// shortest, whatever the field.
	if got := paths(flat); strings.Join(got, " ") != "cache/lru.go cache/lru_test.go util/misc.go" {
		t.Errorf("flat BM25 order = %v", got)
	}
	if len(flat.Hits[0].Signals) != 1 {
		t.Errorf("text-only hit has graph signals: %+v", flat.Hits[0].Signals)
	}
}

func TestSearchClosureAndProximity(t *testing.T) {
	r := fixture(t)
	res, err := search.Search(context.Background(), r, "entry", search.Options{Scope: search.ScopeClosure, From: "util/misc.go"})
	if err != nil {
		t.Fatal(err)
	}
	// util imports cache: app and other are outside its closure.
	if got := strings.Join(paths(res), " "); strings.Contains(got, "app/") || strings.Contains(got, "other/") || !strings.Contains(got, "util/misc.go") {
		t.Errorf("closure of util/misc.go: hits %v", got)
	}
	for _, h := range res.Hits {
		if h.Path == "util/misc.go" && !strings.Contains(h.Reasons(), "proximity 3 #1") {
			t.Errorf("the current file's reasons = %q, want proximity 3 #1", h.Reasons())
		}
	}
	if _, err := search.Search(context.Background(), r, "entry", search.Options{Scope: search.ScopeClosure}); err == nil {
		t.Error("closure without a current file: no error")
	}
}

func TestSearchErrors(t *testing.T) {
	r := fixture(t)
	if _, err := search.Search(context.Background(), r, "the of and", search.Options{}); err == nil || !strings.Contains(err.Error(), "no searchable words") {
		t.Errorf("a query of stop words: %v", err)
	}
	empty := graphtest.Base(t, graph.Manifest{Layer: graph.Base}, graph.DocumentFacts{Document: graph.Document{Path: "a.go"}})
	if _, err := search.Search(context.Background(), empty, "cache", search.Options{}); !errors.Is(err, search.ErrNoTerms) || !strings.Contains(err.Error(), "lspgraph index") {
		t.Errorf("a graph without terms: %v, want ErrNoTerms saying what to run", err)
	}
	if _, err := search.ParseScope("pkg"); err == nil {
		t.Error("scope pkg accepted")
	}
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

func TestSearchTestsWhenAsked(t *testing.T) {
	r := fixture(t)
	res, err := search.Search(context.Background(), r, "evict tests", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if strings.Contains(h.Reasons(), "non-test") {
			t.Errorf("a query about tests still pushes tests down: %s %s", h.Path, h.Reasons())
		}
	}
}

// The symbols of a hit leave out its locals, whatever their names, and
// its package is still found among symbols sorting after the locals.
func TestSearchSymbolsSkipLocals(t *testing.T) {
	f := doc("cache/lru.go", "cache", false, []string{"evict/name"})
	at := func(line uint32) graph.Location {
		l := graph.Location{Path: "cache/lru.go"}
		l.Range.Start.Line = line
		return l
	}
	f.Symbols = append(f.Symbols,
		graph.Symbol{ID: "local 1 cache/lru.go", DisplayName: "evicted", Kind: "local", Def: at(3)},
		graph.Symbol{ID: "go cache/evict().", DisplayName: "evict", Kind: "function", Def: at(9)},
		graph.Symbol{ID: "go cache/Size().", DisplayName: "Size", Kind: "function", Def: at(12)},
	)
	r := graphtest.Base(t, graph.Manifest{Layer: graph.Base}, f,
		doc("app/main.go", "app", false, []string{"evict/code"}, "cache"))
	res, err := search.Search(context.Background(), r, "evict", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res); strings.Join(got, " ") != "cache/lru.go app/main.go" {
		t.Fatalf("hits = %v", got)
	}
	syms := res.Hits[0].Symbols
	if len(syms) != 1 || syms[0].Name != "evict" || syms[0].Line != 10 {
		t.Errorf("symbols of cache/lru.go = %+v, want evict at line 10 alone", syms)
	}
	if s, ok := signal(res.Hits[0], search.SignalDependents); !ok || s.Value != 1 {
		t.Errorf("signals of cache/lru.go = %+v, want 1 dependent (its package found)", res.Hits[0].Signals)
	}
}

// signal returns a hit's signal by name.
func signal(h search.Hit, name string) (search.Signal, bool) {
	for _, s := range h.Signals {
		if s.Name == name {
			return s, true
		}
	}
	return search.Signal{}, false
}

// TestTextFor: a document is weighted by its language's row of
// LanguageText, found by its extension (.tsx is TypeScript), and one of a
// language without a row by the hand-set weights.
func TestTextFor(t *testing.T) {
	for p, l := range map[string]string{"a/b.go": "go", "src/x.ts": "typescript", "src/x.tsx": "typescript", "f/app.py": "python"} {
		if got, want := search.TextFor(p), search.LanguageText[l]; got.B != want.B || !maps.Equal(got.Weights, want.Weights) {
			t.Errorf("TextFor(%s) = %+v; want the %s row %+v", p, got, l, want)
		}
	}
	if got := search.TextFor("README.md"); got.B != search.HandText.B || !maps.Equal(got.Weights, search.HandText.Weights) {
		t.Errorf("TextFor(README.md) = %+v; want HandText", got)
	}
}

// TestManyCandidates: a word most documents hold makes more candidates
// than are ranked by the graph's signals: the best by BM25 are kept, in
// order, the Matches of each hit its own counts.
func TestManyCandidates(t *testing.T) {
	var docs []graph.DocumentFacts
	const n = 250
	for i := range n {
		words := []string{"flush/code", fmt.Sprintf("w%d/code", i)}
		for range i % 7 {
			words = append(words, "flush/code")
		}
		docs = append(docs, doc(fmt.Sprintf("d%03d/f.go", i), fmt.Sprintf("p%d", i), false, words))
	}
	r := graphtest.Base(t, graph.Manifest{Layer: graph.Base}, docs...)
	res, err := search.Search(context.Background(), r, "flush", search.Options{TextOnly: true, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Candidates != 100 || len(res.Hits) != 20 {
		t.Fatalf("%d candidates, %d hits; want 100 of %d documents, 20 hits", res.Candidates, len(res.Hits), n)
	}
	for i, h := range res.Hits {
		// Six flushes (i%7 == 6) score best; among equals the path
		// orders: d006, d013, d020, ...
		if want := fmt.Sprintf("d%03d/f.go", 6+7*i); h.Path != want {
			t.Errorf("hit %d: %s, want %s", i+1, h.Path, want)
		}
		if len(h.Matches) != 1 || h.Matches[0].Word != "flush" || h.Matches[0].Fields["code"] != 7 {
			t.Errorf("hit %d (%s): matches %+v, want flush 7 times in code", i+1, h.Path, h.Matches)
		}
	}
}
