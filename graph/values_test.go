package graph

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestEdgeDictIndex: every string of the dictionary is found at its own
// index (the dictionary holds no string twice), anything else nowhere.
func TestEdgeDictIndex(t *testing.T) {
	for i, s := range edgeDictionary {
		if got := edgeDictIndex(s); got != i {
			t.Errorf("edgeDictIndex(%q) = %d, want %d", s, got, i)
		}
	}
	for _, s := range []string{"scip:call ", "syntax:", "lsp:Definition", "syntax:same-file"[:11]} {
		if got := edgeDictIndex(s); got != -1 {
			t.Errorf("edgeDictIndex(%q) = %d, want -1", s, got)
		}
	}
	// Equal strings elsewhere in memory are found by content.
	for i, s := range edgeDictionary {
		if c := string([]byte(s)); edgeDictIndex(c) != i {
			t.Errorf("edgeDictIndex(copy of %q) = %d, want %d", s, edgeDictIndex(c), i)
		}
	}
	// The constants are found by address.
	for i, s := range edgeDictionary[1:] {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		found := false
		for j := edgeDictSlotOf(p); edgeDictByAddr[j].addr != 0; j = (j + 1) % edgeDictSlots {
			found = found || edgeDictByAddr[j] == edgeDictSlot{p, i + 1}
		}
		if !found {
			t.Errorf("%q is not in edgeDictByAddr", s)
		}
	}
}

// TestGroupBySym: grouping gives what a stable sort by symbol gives, for
// inputs of few and of many symbols, appended after what out held, with
// the scratch reused from call to call.
func TestGroupBySym(t *testing.T) {
	type entry struct{ sym, i uint64 }
	var sc groupScratch
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 7, 100, 1000} {
		for _, syms := range []uint64{1, 3, 50, 1 << 40} {
			in := make([]entry, n)
			for i := range in {
				in[i] = entry{rng.Uint64N(syms), uint64(i)}
			}
			want := slices.Clone(in)
			slices.SortStableFunc(want, func(a, b entry) int { return cmp.Compare(a.sym, b.sym) })
			prefix := []entry{{sym: 99, i: 99}}
			got := groupBySym(slices.Clone(prefix), in, func(e *entry) uint64 { return e.sym }, &sc)
			if !slices.Equal(got[:1], prefix) || !slices.Equal(got[1:], want) {
				t.Fatalf("n=%d syms=%d: groupBySym = %v, want %v after %v", n, syms, got, want, prefix)
			}
		}
	}
}

// TestTermSorter: terms come out in compareTerms' order, whatever their
// words share: long common prefixes, a word a prefix of another, zero
// bytes where the sorter pads short words with zeros.
func TestTermSorter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0, 'a', 'b', 'z'}
	var s termSorter
	for round := range 200 {
		n := rng.IntN(60)
		terms := make([]Term, n)
		for i := range terms {
			w := []byte("prefix__")[:rng.IntN(9)]
			for range rng.IntN(4) {
				w = append(w, alphabet[rng.IntN(len(alphabet))])
			}
			terms[i] = Term{Word: string(w), Field: TermField(1 + rng.IntN(3)), Count: i + 1}
		}
		want := slices.Clone(terms)
		slices.SortStableFunc(want, compareTerms)
		s.sort(terms)
		for i := range terms {
			if compareTerms(terms[i], want[i]) != 0 {
				t.Fatalf("round %d: sorted %v, want %v", round, terms, want)
			}
		}
	}
}
