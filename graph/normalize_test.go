package graph

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// randomFacts makes a document whose symbols, occurrences, edges and terms
// come out of order and repeat, so that normalizing sorts and merges.
func randomFacts(rng *rand.Rand, path string) DocumentFacts {
	sym := func() string { return fmt.Sprintf("scip-go gomod m v1 p/S%d().", rng.IntN(12)) }
	f := DocumentFacts{Document: Document{Path: path, Package: "p", Layer: Live}}
	for range rng.IntN(40) {
		f.Symbols = append(f.Symbols, Symbol{ID: sym(), DisplayName: fmt.Sprint("S", rng.IntN(3)), Kind: []string{"", "function"}[rng.IntN(2)], External: rng.IntN(2) == 0})
	}
	for range rng.IntN(200) {
		line := rng.Uint32N(30)
		r := textpos.Range{Start: textpos.Position{Line: line, Col: rng.Uint32N(3)}, End: textpos.Position{Line: line, Col: 5}}
		f.Occurrences = append(f.Occurrences, Occurrence{Range: r, Symbol: sym(), Roles: Role(rng.IntN(4)), Enclosing: []string{"", sym()}[rng.IntN(2)]})
	}
	kinds := []EdgeKind{EdgeCalls, EdgeReferences}
	for range rng.IntN(100) {
		f.Edges = append(f.Edges, Edge{From: sym(), To: sym(), Kind: kinds[rng.IntN(2)], Count: rng.IntN(3), Confidence: float64(rng.IntN(3)) / 2, Source: "scip", Path: "x"})
	}
	for range rng.IntN(30) {
		f.Terms = append(f.Terms, Term{Word: fmt.Sprint("w", rng.IntN(8)), Field: TermName, Count: 1 + rng.IntN(2)})
	}
	return f
}

// TestNormalizerReuse checks that a normalizer used for one document after
// another (as a generation writer uses it) normalizes each as a fresh one
// does, and that what it returns shares nothing with its input.
func TestNormalizerReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var reused normalizer
	for i := range 100 {
		f := randomFacts(rng, fmt.Sprintf("d%d.go", i))
		orig := DocumentFacts{Symbols: append([]Symbol(nil), f.Symbols...), Occurrences: append([]Occurrence(nil), f.Occurrences...), Edges: append([]Edge(nil), f.Edges...)}
		want, err := new(normalizer).facts(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := reused.facts(f)
		if err != nil {
			t.Fatal(err)
		}
		if !equalFacts(got, want) {
			t.Fatalf("document %d: the reused normalizer gave\n%+v\nwant\n%+v", i, got, want)
		}
		if !reflect.DeepEqual(f.Symbols, orig.Symbols) || !reflect.DeepEqual(f.Occurrences, orig.Occurrences) || !reflect.DeepEqual(f.Edges, orig.Edges) {
			t.Fatalf("document %d: normalizing changed its input", i)
		}
		if len(want.Occurrences) > 0 && want.Occurrences[0].Path != f.Document.Path || want.Document.Layer != 0 {
			t.Fatalf("document %d: occurrences' path %q, layer %v", i, want.Occurrences[0].Path, want.Document.Layer)
		}
	}
}

// equalFacts compares facts by content: an empty slice equals nil.
func equalFacts(a, b DocumentFacts) bool {
	return a.Document == b.Document &&
		reflect.DeepEqual(append([]Symbol{}, a.Symbols...), append([]Symbol{}, b.Symbols...)) &&
		reflect.DeepEqual(append([]Occurrence{}, a.Occurrences...), append([]Occurrence{}, b.Occurrences...)) &&
		reflect.DeepEqual(append([]Edge{}, a.Edges...), append([]Edge{}, b.Edges...)) &&
		reflect.DeepEqual(append([]Term{}, a.Terms...), append([]Term{}, b.Terms...))
}
