package graph

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestTargetsMatchesOutgoing: Targets names the same ids, in the same
// order, as the edges Outgoing returns under every filter: kinds, the
// confidence floor (on the edge aggregated over documents), the limit on
// (To, Kind) pairs, and a base document hidden by its live version.
func TestTargetsMatchesOutgoing(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	const from = "scip a/F()."
	var docs []DocumentFacts
	for d := range 4 {
		f := DocumentFacts{Document: Document{Path: fmt.Sprintf("d%d.go", d), Source: SourceSCIP}}
		for i := range 12 {
			kind := []EdgeKind{EdgeCalls, EdgeReferences, EdgeTypeOf}[(i+d)%3]
			// Documents disagree on confidence: the aggregate takes the best.
			conf := float64((i*7+d*3)%10) / 10
			f.Edges = append(f.Edges, Edge{From: from, To: fmt.Sprintf("scip a/T%02d().", (i*5+d)%9), Kind: kind, Confidence: conf, Source: SourceSCIP, Reason: "r", Count: 1})
		}
		docs = append(docs, f)
	}
	for _, f := range docs {
		if err := s.PutDocument(ctx, Base, f); err != nil {
			t.Fatal(err)
		}
	}
	// d3.go's live version hides its base edges and brings its own.
	live := DocumentFacts{Document: Document{Path: "d3.go", Source: SourceSyntax},
		Edges: []Edge{{From: from, To: "scip a/Live().", Kind: EdgeCalls, Confidence: 0.5, Source: SourceSyntax, Reason: "r", Count: 1}}}
	if err := s.PutDocument(ctx, Live, live); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	filters := []EdgeFilter{{}, {MinConfidence: 0.6}, {Limit: 5}, {Limit: 1}, {Kinds: []EdgeKind{EdgeCalls}},
		{Kinds: []EdgeKind{EdgeReferences, EdgeTypeOf}, MinConfidence: 0.3, Limit: 4},
		{Kinds: []EdgeKind{EdgeCalls, EdgeTypeOf, EdgeCalls}, Limit: 3}}
	for _, f := range filters {
		es, err := r.Outgoing(ctx, from, f)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, e := range es {
			if len(want) == 0 || want[len(want)-1] != e.To {
				want = append(want, e.To)
			}
		}
		// TargetsIn keeps those of a set, through both readers: the
		// view has one layer, where no target outside the set is named.
		for _, rd := range []*Reader{r, r.BaseView()} {
			all, err := rd.Targets(ctx, from, f)
			if err != nil {
				t.Fatal(err)
			}
			some := []string{"scip a/T01().", "scip a/T04().", "scip a/T07().", "scip a/Live().", "scip a/Absent()."}
			set, err := rd.SymbolSet(some)
			if err != nil {
				t.Fatal(err)
			}
			in, err := rd.TargetsIn(ctx, from, f, set)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.DeleteFunc(slices.Clone(all), func(s string) bool { return !slices.Contains(some, s) })
			if !slices.Equal(in, want) {
				t.Errorf("filter %+v, %d layers: TargetsIn = %v, want %v of %v", f, len(rd.layers), in, want, all)
			}
		}
		got, err := r.Targets(ctx, from, f)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("filter %+v: Targets = %v, Outgoing names %v", f, got, want)
		}
		if len(want) == 0 {
			t.Errorf("filter %+v selects nothing: the case tests nothing", f)
		}
	}
	if got, _ := r.Targets(ctx, from, EdgeFilter{}); !slices.Contains(got, "scip a/Live().") {
		t.Errorf("Targets = %v, want the live edge", got)
	}
}

// TestReadersShareGenerationSymbols: a reader of a base generation finds
// the symbol ids another reader of it translated (a session opens a reader
// per answer), and never those of the live layer's space.
func TestReadersShareGenerationSymbols(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	f := DocumentFacts{Document: Document{Path: "a.go", Source: SourceSCIP},
		Edges: []Edge{{From: "scip a/F().", To: "scip a/G().", Kind: EdgeCalls, Confidence: 1, Source: SourceSCIP, Reason: "r", Count: 1}}}
	if err := s.PutDocument(ctx, Base, f); err != nil {
		t.Fatal(err)
	}
	live := DocumentFacts{Document: Document{Path: "b.go", Source: SourceSyntax},
		Edges: []Edge{{From: "scip a/H().", To: "scip a/G().", Kind: EdgeCalls, Confidence: 0.5, Source: SourceSyntax, Reason: "r", Count: 1}}}
	if err := s.PutDocument(ctx, Live, live); err != nil {
		t.Fatal(err)
	}
	r1, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	if in, err := r1.Incoming(ctx, "scip a/G().", EdgeFilter{}); err != nil || len(in) != 2 {
		t.Fatalf("Incoming = %v, %v; want the base and the live edge", in, err)
	}
	r2, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	base := genSpace(r2.BaseGeneration())
	c := r2.syms(base)
	c.mu.Lock()
	_, shared := c.ids[spaceSym{base, "scip a/F()."}]
	c.mu.Unlock()
	if !shared {
		t.Errorf("a second reader of the generation does not find the id the first translated")
	}
	if r2.syms(spaceLive) == r1.syms(spaceLive) {
		t.Errorf("readers share the live layer's translations")
	}
}
