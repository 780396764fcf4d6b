package search

import (
	"fmt"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/internal/terms"
)

// TestPackNames: a document's packed definitions give back each one's
// match and words, and for each word the definitions holding it, once
// each and increasing, as a map of words to definitions built the plain
// way does; a word no name holds finds none.
func TestPackNames(t *testing.T) {
	names := []string{"ReadBuffer", "readAll", "Buffer", "BufferedReader", "readReadRead", "", "ServeHTTP", "httpServer", "Ünïcode_Name", "x"}
	var defs []SymbolMatch
	var words [][]string
	for i, n := range names {
		defs = append(defs, SymbolMatch{ID: fmt.Sprintf("syntax go m p %s", n), Name: n, Kind: []string{"function", "method", "type"}[i%3], Line: i + 1})
		words = append(words, terms.Query(n))
	}
	ns := packNames(defs, words)
	want := map[string][]uint32{}
	for i, ws := range words {
		for _, w := range ws {
			if !slices.Contains(want[w], uint32(i)) {
				want[w] = append(want[w], uint32(i))
			}
		}
	}
	if len(ns.words) != len(want) {
		t.Errorf("%d distinct words packed; want %d", len(ns.words), len(want))
	}
	for w, holders := range want {
		i := ns.word(w)
		if i < 0 {
			t.Errorf("word %q not found", w)
			continue
		}
		if got := ns.holdersOf(i); !slices.Equal(got, holders) {
			t.Errorf("holders of %q: %v; want %v", w, got, holders)
		}
	}
	if ns.word("nosuchword") >= 0 {
		t.Error("a word no name holds was found")
	}
	for i, d := range defs {
		if got := ns.match(i); got != d {
			t.Errorf("definition %d: %+v; want %+v", i, got, d)
		}
		if ns.name(i) != d.Name {
			t.Errorf("name %d: %q; want %q", i, ns.name(i), d.Name)
		}
		var got []string
		for _, w := range ns.wordsOf(i) {
			got = append(got, ns.words[w].of(ns.wordText))
		}
		if !slices.Equal(got, words[i]) {
			t.Errorf("words of %q: %q; want %q", d.Name, got, words[i])
		}
	}
	if empty := packNames(nil, nil); empty.word("read") >= 0 || len(empty.syms) != 0 {
		t.Errorf("an empty pack: %+v", empty)
	}
}
