package arena

import (
	"fmt"
	"slices"
	"testing"
)

func TestIndex(t *testing.T) {
	var x Index
	var strs []string
	str := func(i uint32) string { return strs[i] }
	if _, ok := x.Find("a", str); ok {
		t.Fatal("an empty index found a string")
	}
	for i := range 1000 {
		s := fmt.Sprintf("s%d", i)
		if _, ok := x.Find(s, str); ok {
			t.Fatalf("%s found before it was inserted", s)
		}
		strs = append(strs, s)
		x.Insert(s, uint32(i))
	}
	for i, s := range strs {
		if got, ok := x.Find(s, str); !ok || got != uint32(i) {
			t.Errorf("Find(%s) = %d, %v, want %d", s, got, ok, i)
		}
	}
	if _, ok := x.Find("s1000", str); ok {
		t.Error("found a string never inserted")
	}
}

// TestIndexReserve: an index reserved for n strings takes n without
// growing, and finds them all.
func TestIndexReserve(t *testing.T) {
	var x Index
	x.Reserve(3000)
	slots := len(x.slots)
	if slots < 6000 {
		t.Fatalf("Reserve(3000) made %d slots, want at least 6000", slots)
	}
	var strs []string
	str := func(i uint32) string { return strs[i] }
	for i := range 3000 {
		strs = append(strs, fmt.Sprintf("s%d", i))
		x.Insert(strs[i], uint32(i))
	}
	if len(x.slots) != slots {
		t.Errorf("inserting the 3000 strings reserved grew the slots from %d to %d", slots, len(x.slots))
	}
	// Reserving more places what is held again, in slots of the least
	// power of two that is enough.
	x.Reserve(10000)
	if len(x.slots) != 32768 {
		t.Errorf("Reserve(10000) made %d slots, want 32768", len(x.slots))
	}
	x.Reserve(100)
	if len(x.slots) != 32768 {
		t.Errorf("Reserve(100) shrank the slots to %d", len(x.slots))
	}
	for i, s := range strs {
		if got, ok := x.Find(s, str); !ok || got != uint32(i) {
			t.Errorf("Find(%s) = %d, %v, want %d", s, got, ok, i)
		}
	}
}

// TestAdoptIndex: an index adopted from another's slots finds what the
// other held, and an Insert into it leaves the adopted slots as they were.
func TestAdoptIndex(t *testing.T) {
	var x Index
	var strs []string
	str := func(i uint32) string { return strs[i] }
	for i := range 500 {
		strs = append(strs, fmt.Sprintf("s%d", i))
		x.Insert(strs[i], uint32(i))
	}
	kept := slices.Clone(x.Slots())
	y := AdoptIndex(kept, x.Len())
	for i, s := range strs {
		if got, ok := y.Find(s, str); !ok || got != uint32(i) {
			t.Fatalf("adopted Find(%s) = %d, %v, want %d", s, got, ok, i)
		}
	}
	for i := 500; i < 1500; i++ {
		strs = append(strs, fmt.Sprintf("s%d", i))
		if i == 500 {
			y.Insert(strs[i], uint32(i))
			if !slices.Equal(kept, x.Slots()) {
				t.Fatal("an Insert into an adopted index wrote its slots")
			}
			continue
		}
		y.Insert(strs[i], uint32(i))
	}
	for i, s := range strs {
		if got, ok := y.Find(s, str); !ok || got != uint32(i) {
			t.Errorf("Find(%s) = %d, %v, want %d", s, got, ok, i)
		}
	}
	if _, ok := x.Find("s600", str); ok {
		t.Error("the index adopted from found a string inserted into the adopter")
	}
}

// TestIndexAdd: Add inserts a string once, keeps the first number given
// it, and grows as Insert does.
func TestIndexAdd(t *testing.T) {
	var x Index
	var strs []string
	str := func(i uint32) string { return strs[i] }
	for i := range 2000 {
		s := fmt.Sprintf("s%d", i%700)
		strs = append(strs, s)
		got, added := x.Add(s, uint32(i), str)
		if want := uint32(i % 700); got != want || added != (i < 700) {
			t.Fatalf("Add(%s, %d) = %d, %v; want %d, %v", s, i, got, added, want, i < 700)
		}
	}
	if x.Len() != 700 {
		t.Errorf("Len() = %d, want 700", x.Len())
	}
	for i := range 700 {
		if got, ok := x.Find(strs[i], str); !ok || got != uint32(i) {
			t.Errorf("Find(%s) = %d, %v", strs[i], got, ok)
		}
	}
	adopted := slices.Clone(x.Slots())
	before := slices.Clone(adopted)
	y := AdoptIndex(adopted, x.Len())
	// A string the adopted slots hold is found where they lie.
	if got, added := y.Add(strs[5], 9999, str); added || got != 5 {
		t.Errorf("Add(%s) into the adopted index = %d, %v; want 5, false", strs[5], got, added)
	}
	if &y.Slots()[0] != &adopted[0] {
		t.Error("Add of a string the adopted index holds copied its slots")
	}
	strs = append(strs, "new")
	if _, added := y.Add("new", uint32(len(strs)-1), str); !added || !slices.Equal(adopted, before) {
		t.Error("Add into an adopted index did not copy its slots first")
	}
	if got, ok := y.Find("new", str); !ok || got != uint32(len(strs)-1) {
		t.Errorf("Find(new) after Add = %d, %v", got, ok)
	}
}
