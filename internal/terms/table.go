package terms

import (
	"bytes"

	"github.com/lspgraph/lspgraph/graph"
)

// A table numbers the byte strings of a field it is given, from 0 in the
// order they came: an open addressing table probed linearly from a key's
// hash, its keys kept one after another in one slice. Finding a key costs
// one hash and one probe sequence, where a map costs a look-up and, for a
// new key, an assignment too; a key is copied once, and no string is made.
type table struct {
	slots  []slot // a power of two of them, at most half in use
	keys   []byte // the keys, one after another
	ends   []int32
	fields []graph.TermField
}

// A slot is an entry's number plus one (0 for an empty slot) and its
// key's hash.
type slot struct {
	hash  uint32
	entry int32
}

// tableWords bounds the entries whose slots a table keeps when reset:
// clearing slots costs what there is room for.
const tableWords = 1 << 12

// find returns the entry of key in field f, or -1 and the empty slot where
// it belongs.
func (t *table) find(key []byte, f graph.TermField, h uint32) (entry int32, at int) {
	if t.slots == nil {
		t.slots = make([]slot, 64)
	}
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.entry == 0 {
			return -1, i
		}
		if e := s.entry - 1; s.hash == h && t.fields[e] == f && bytes.Equal(t.key(e), key) {
			return e, i
		}
	}
}

// key returns the key of entry e.
func (t *table) key(e int32) []byte {
	start := int32(0)
	if e > 0 {
		start = t.ends[e-1]
	}
	return t.keys[start:t.ends[e]]
}

// add adds key in field f, whose hash is h, at the empty slot at that find
// returned, and returns its entry.
func (t *table) add(key []byte, f graph.TermField, h uint32, at int) int32 {
	e := int32(len(t.ends))
	t.keys = append(t.keys, key...)
	t.ends = append(t.ends, int32(len(t.keys)))
	t.fields = append(t.fields, f)
	t.slots[at] = slot{hash: h, entry: e + 1}
	if 2*len(t.ends) > len(t.slots) {
		t.grow()
	}
	return e
}

// grow doubles the slots.
func (t *table) grow() {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	mask := len(t.slots) - 1
	for _, s := range old {
		if s.entry == 0 {
			continue
		}
		j := int(s.hash) & mask
		for t.slots[j].entry != 0 {
			j = (j + 1) & mask
		}
		t.slots[j] = s
	}
}

// reset empties t, keeping its space unless it grew large.
func (t *table) reset() {
	if len(t.slots) > 2*tableWords {
		*t = table{}
		return
	}
	clear(t.slots)
	t.keys, t.ends, t.fields = t.keys[:0], t.ends[:0], t.fields[:0]
}

// hash hashes a key of field f: FNV-1a, its bits mixed so that the low
// ones a table uses depend on every byte.
func hash(key []byte, f graph.TermField) uint32 {
	h := uint32(2166136261) ^ uint32(f)
	for _, b := range key {
		h = (h ^ uint32(b)) * 16777619
	}
	h ^= h >> 15
	h *= 0x2c1b3c6d
	h ^= h >> 12
	return h
}
