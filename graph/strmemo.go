package graph

import "unsafe"

// stringMemoSlots is how many strings a stringMemo holds at once.
const stringMemoSlots = 256

// A stringMemo remembers one value per string by where the string's bytes
// are, which finds it without hashing or comparing the bytes: a slot holds
// the address and length of the last string put there, and two strings of
// one address and length are one string. It serves a document's symbols,
// which come from one decoded copy each, repeated across its occurrences
// and edges: a look-up in a map by the string hashed every symbol's bytes
// (about 60 of them) for each mention. A string with other bytes at another
// address only misses. The zero value is empty; reset empties it again (and
// lets the strings go).
type stringMemo[V any] struct {
	slots [stringMemoSlots]stringMemoSlot[V]
}

type stringMemoSlot[V any] struct {
	p *byte
	n int
	v V
}

func (m *stringMemo[V]) slot(s string) *stringMemoSlot[V] {
	// Fibonacci hashing of the address: its top bits mix all of its bits.
	h := uint64(uintptr(unsafe.Pointer(unsafe.StringData(s)))) * 0x9e3779b97f4a7c15
	return &m.slots[h>>(64-8)]
}

// get returns the value put for s, if s (these bytes, at this address) is
// still in its slot.
func (m *stringMemo[V]) get(s string) (v V, ok bool) {
	if len(s) == 0 {
		return v, false
	}
	sl := m.slot(s)
	if sl.p != unsafe.StringData(s) || sl.n != len(s) {
		return v, false
	}
	return sl.v, true
}

// put remembers v for s, in place of the slot's string.
func (m *stringMemo[V]) put(s string, v V) {
	if len(s) == 0 {
		return
	}
	sl := m.slot(s)
	sl.p, sl.n, sl.v = unsafe.StringData(s), len(s), v
}

func (m *stringMemo[V]) reset() { clear(m.slots[:]) }
