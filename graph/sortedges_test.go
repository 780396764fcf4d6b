package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortEdges checks the ranked sort against a stable sort of the
// strings, on edges that repeat their ends and keys.
func TestSortEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	syms := []string{"a", "ab", "b", "scip-go gomod m v1 p/F().", "scip-go gomod m v1 p/F().x", "scip-go gomod m v1 p/G()."}
	kinds := []EdgeKind{EdgeCalls, EdgeReferences, EdgeImplements}
	for round := range 50 {
		edges := make([]Edge, rng.IntN(200))
		for i := range edges {
			edges[i] = Edge{
				From: syms[rng.IntN(len(syms))], Kind: kinds[rng.IntN(len(kinds))], To: syms[rng.IntN(len(syms))],
				Count: i, // tells equal keys apart
			}
		}
		want := slices.Clone(edges)
		slices.SortStableFunc(want, compareEdgeKeys)
		sortEdges(edges)
		if !slices.Equal(edges, want) {
			t.Fatalf("round %d: got %v\nwant %v", round, edges, want)
		}
	}
}
