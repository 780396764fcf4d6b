package graph

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestChunkSortDedup checks that a chunk comes out in key order with one
// entry per key, the last value added winning.
func TestChunkSortDedup(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	kinds := []kind{kindRef, kindDocOcc, kindSym, kindIn, kindDoc}
	var c chunk
	want := map[string]string{}
	for i := range 5000 {
		k := appendPrefix(nil, genSpace(3), kinds[rng.IntN(len(kinds))])
		k = append(k, fmt.Sprintf("sym%d\x00path", rng.IntN(1500))...)
		v := fmt.Sprint(i)
		c.add(k, []byte(v))
		want[string(k)] = v
	}
	// Keys that are prefixes of each other, sharing a long prefix.
	for i, rest := range []string{"", "\x00", "x", "x\x00\x01", "x\x00", "y", "", "x"} {
		k := append(appendPrefix(nil, genSpace(3), kindName), "scip-go gomod example.com/long/common/prefix "+rest...)
		v := fmt.Sprint("fixed", i)
		c.add(k, []byte(v))
		want[string(k)] = v
	}
	c.sortDedup()
	if len(c.ents) != len(want) {
		t.Fatalf("%d entries after dedup, want %d", len(c.ents), len(want))
	}
	for i, e := range c.ents {
		if i > 0 && bytes.Compare(c.key(c.ents[i-1]), c.key(e)) >= 0 {
			t.Fatalf("entry %d %q not after %q", i, c.key(e), c.key(c.ents[i-1]))
		}
		if got := string(c.value(e)); got != want[string(c.key(e))] {
			t.Errorf("key %q has value %s, want the last added %s", c.key(e), got, want[string(c.key(e))])
		}
	}
}
