package arena

import "github.com/cespare/xxhash/v2"

// Index finds the number a caller gave a string, without pointers: each
// slot is the upper 32 bits of the string's hash above the number plus
// one (0: empty), at the position those bits give, probed linearly. A slot
// whose bits match is checked against the string itself, which the caller
// keeps (str returns the string of a number). It grows to stay at most
// half full. Find only reads, so Finds may run concurrently with each
// other; Insert may not run with anything.
//
// The hash is the same in every process, so that an index can be kept in
// a file with the strings it finds and used where it lies (Slots,
// AdoptIndex).
type Index struct {
	slots  []uint64
	n      int
	shared bool // slots are not the index's to write: copied first
}

// AdoptIndex returns the index whose slots are slots (a power of two of
// them, or none) holding n strings, as Slots and Len gave them, without
// copying them: an Insert copies them first. The caller vouches for the
// slots (the numbers they hold are its strings').
func AdoptIndex(slots []uint64, n int) Index {
	return Index{slots: slots, n: n, shared: true}
}

// Slots returns the index's slots, shared: to be written out with Len.
func (x *Index) Slots() []uint64 { return x.slots }

// Len returns the number of strings the index holds.
func (x *Index) Len() int { return x.n }

// Find returns the number of s, if s was inserted.
func (x *Index) Find(s string, str func(uint32) string) (uint32, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	tag, mask := tag(s), uint64(len(x.slots)-1)
	for j := tag & mask; ; j = (j + 1) & mask {
		v := x.slots[j]
		if v == 0 {
			return 0, false
		}
		if v>>32 == tag && str(uint32(v)-1) == s {
			return uint32(v) - 1, true
		}
	}
}

// Insert records i as the number of s, which Find does not hold.
func (x *Index) Insert(s string, i uint32) {
	if 2*(x.n+1) > len(x.slots) {
		x.grow()
	} else if x.shared {
		x.resize(len(x.slots))
	}
	x.place(tag(s)<<32 | uint64(i+1))
	x.n++
}

// Add records i as the number of s unless s has one already, in one
// probe: it returns s's number and whether it was added (Find, then
// Insert, hashed and probed twice).
//
// Slots adopted (AdoptIndex) are copied only when s is added: a string
// found leaves them where they lie.
func (x *Index) Add(s string, i uint32, str func(uint32) string) (uint32, bool) {
	if x.shared {
		if j, ok := x.Find(s, str); ok {
			return j, false
		}
	}
	if 2*(x.n+1) > len(x.slots) {
		x.grow()
	} else if x.shared {
		x.resize(len(x.slots))
	}
	tag, mask := tag(s), uint64(len(x.slots)-1)
	for j := tag & mask; ; j = (j + 1) & mask {
		v := x.slots[j]
		if v == 0 {
			x.slots[j] = tag<<32 | uint64(i+1)
			x.n++
			return i, true
		}
		if v>>32 == tag && str(uint32(v)-1) == s {
			return uint32(v) - 1, false
		}
	}
}

// Reserve makes room for n strings in all, so that inserting up to n
// does not grow the slots again. The slots are made once at their new
// size (doubling up to it allocated and faulted in as much again).
func (x *Index) Reserve(n int) {
	size := max(64, len(x.slots))
	for 2*n > size {
		size *= 2
	}
	if size > len(x.slots) {
		x.resize(size)
	}
}

// tag is the part of s's hash the slots keep.
func tag(s string) uint64 { return xxhash.Sum64String(s) >> 32 }

// place puts a slot's value at the first free position from its tag's.
func (x *Index) place(v uint64) {
	mask := uint64(len(x.slots) - 1)
	j := (v >> 32) & mask
	for x.slots[j] != 0 {
		j = (j + 1) & mask
	}
	x.slots[j] = v
}

// grow doubles the slots (at least 64) and places them again.
func (x *Index) grow() { x.resize(max(64, 2*len(x.slots))) }

// resize makes size slots (a power of two, at least as many as there
// are) of the index's own and places the old ones again.
func (x *Index) resize(size int) {
	old := x.slots
	x.slots, x.shared = make([]uint64, size), false
	if size == len(old) {
		copy(x.slots, old)
		return
	}
	for _, v := range old {
		if v != 0 {
			x.place(v)
		}
	}
}
