package arena

import (
	"fmt"
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
