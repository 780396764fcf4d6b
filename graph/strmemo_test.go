package graph

import (
	"strings"
	"testing"
)

func TestStringMemo(t *testing.T) {
	var m stringMemo[int]
	whole := strings.Repeat("scip-go gomod example 1.0 pkg/Type#Method().", 2)
	m.put(whole, 1)
	if v, ok := m.get(whole); !ok || v != 1 {
		t.Fatalf("get(whole) = %d, %v; want 1, true", v, ok)
	}
	// A prefix shares the address: it is another string.
	if v, ok := m.get(whole[:10]); ok {
		t.Errorf("get(prefix) = %d, true; want a miss", v)
	}
	// The same bytes elsewhere only miss.
	copied := strings.Clone(whole)
	if v, ok := m.get(copied); ok {
		t.Errorf("get(copy) = %d, true; want a miss", v)
	}
	m.put(copied, 2)
	if v, _ := m.get(copied); v != 2 {
		t.Errorf("get(copy) = %d; want 2", v)
	}
	if _, ok := m.get(""); ok {
		t.Error("get(\"\") hit")
	}
	m.reset()
	if _, ok := m.get(whole); ok {
		t.Error("get after reset hit")
	}
	// Many strings: each is found, or missed where a later one took its
	// slot, never given another's value.
	strs := make([]string, 4*stringMemoSlots)
	for i := range strs {
		strs[i] = strings.Repeat("x", i%7+1) + string(rune('a'+i%26))
		m.put(strs[i], i)
	}
	hits := 0
	for i, s := range strs {
		if v, ok := m.get(s); ok {
			hits++
			if v != i {
				t.Fatalf("get(strs[%d]) = %d", i, v)
			}
		}
	}
	if hits == 0 {
		t.Error("no string found after putting them all")
	}
}
