package search

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBestBy: the k first items by a comparison, as sorting all of them
// and cutting gives, ties and all, for inputs shorter and longer than k.
func TestBestBy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type item struct {
		score float64
		name  int
	}
	order := func(a, b item) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.name, b.name)) }
	for _, n := range []int{0, 1, 5, 99, 100, 101, 250, 1000} {
		for _, k := range []int{1, 3, 100} {
			items := make([]item, n)
			for i := range items {
				items[i] = item{float64(rng.IntN(20)), i} // many equal scores
			}
			rng.Shuffle(n, func(i, j int) { items[i], items[j] = items[j], items[i] })
			in := slices.Clone(items)
			want := slices.Clone(items)
			slices.SortFunc(want, order)
			want = want[:min(k, n)]
			if got := bestBy(items, k, order); !slices.Equal(got, want) {
				t.Errorf("n %d, k %d: got %v, want %v", n, k, got, want)
			}
			if !slices.Equal(items, in) {
				t.Errorf("n %d, k %d: the input was changed", n, k)
			}
		}
	}
}

// TestKeepBest: the n largest values inserted, largest first.
func TestKeepBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 4} {
		for _, m := range []int{0, 1, 3, 4, 10, 100} {
			var kept, all []float64
			for range m {
				v := float64(rng.IntN(10))
				kept = keepBest(kept, v, n)
				all = append(all, v)
			}
			slices.SortFunc(all, func(a, b float64) int { return cmp.Compare(b, a) })
			if want := all[:min(n, m)]; !slices.Equal(kept, want) {
				t.Errorf("n %d, %d values: kept %v, want %v", n, m, kept, want)
			}
		}
	}
}
