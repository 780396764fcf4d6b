package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortEdges checks the ranked sort against a stable sort of the
// strings, on edges that repeat their ends and keys, with one sorter
// reused from round to round as a generation writer reuses it.
func TestSortEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var es edgeSorter
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
		es.sort(edges)
		if !slices.Equal(edges, want) {
			t.Fatalf("round %d: got %v\nwant %v", round, edges, want)
		}
	}
}

// TestSortStableInPlace checks the sort by index and cycle-following moves
// against slices.SortStableFunc, on slices with many equal keys, long and
// short (the order buffer reused), and already in order.
func TestSortStableInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type kv struct{ k, v int }
	byKey := func(a, b *kv) int { return a.k - b.k }
	var order []int32
	for round := range 200 {
		s := make([]kv, rng.IntN(300))
		for i := range s {
			s[i] = kv{rng.IntN(1 + round%40), i}
		}
		if round%10 == 0 {
			slices.SortFunc(s, func(a, b kv) int { return byKey(&a, &b) })
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, func(a, b kv) int { return byKey(&a, &b) })
		sortStableInPlace(s, &order, byKey)
		if !slices.Equal(s, want) {
			t.Fatalf("round %d: got %v\nwant %v", round, s, want)
		}
	}
}
