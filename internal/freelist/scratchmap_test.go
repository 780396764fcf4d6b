package freelist

import (
	"reflect"
	"testing"
)

func TestScratchMap(t *testing.T) {
	var m ScratchMap[int, int]
	m.Reset()
	if m.M == nil {
		t.Fatal("Reset of the zero value left no map")
	}
	fill := func(n int) {
		for i := range n {
			m.M[i] = i
		}
	}
	same := func() func() bool {
		p := reflect.ValueOf(m.M).UnsafePointer()
		return func() bool { return reflect.ValueOf(m.M).UnsafePointer() == p }
	}
	// Items of one size keep their map.
	fill(1000)
	kept := same()
	for range 3 {
		m.Reset()
		if len(m.M) != 0 {
			t.Fatalf("Reset left %d entries", len(m.M))
		}
		fill(1000)
	}
	if !kept() {
		t.Error("items of 1,000 entries each were given a new map")
	}
	// A large item, then small ones: the large map is cleared once (the
	// item after it may be as large), then replaced.
	m.Reset()
	fill(100_000)
	large := same()
	m.Reset()
	fill(10)
	if !large() || len(m.M) != 10 {
		t.Fatalf("the item after a large one was not given the large map, cleared (%d entries)", len(m.M))
	}
	m.Reset()
	if large() {
		t.Error("a map grown to 100,000 entries was kept for items of 10")
	}
	if len(m.M) != 0 {
		t.Fatalf("a new map holds %d entries", len(m.M))
	}
	// Small items stay below what makes a map again.
	for range 3 {
		fill(10)
		small := same()
		m.Reset()
		if !small() {
			t.Error("a map of 10 entries was made again")
		}
	}
}

// BenchmarkScratchMap clears a map after each of a run of small items that
// follows one large item: cleared as it is, against ScratchMap.
func BenchmarkScratchMap(b *testing.B) {
	const large, small = 200_000, 50
	b.Run("clear", func(b *testing.B) {
		m := make(map[int]int)
		for i := range large {
			m[i] = i
		}
		for b.Loop() {
			clear(m)
			for i := range small {
				m[i] = i
			}
		}
	})
	b.Run("scratch", func(b *testing.B) {
		var m ScratchMap[int, int]
		m.Reset()
		for i := range large {
			m.M[i] = i
		}
		for b.Loop() {
			m.Reset()
			for i := range small {
				m.M[i] = i
			}
		}
	})
}
