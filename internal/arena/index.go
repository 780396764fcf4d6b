package arena

import "hash/maphash"

// Index finds the number a caller gave a string, without pointers: each
// slot is the upper 32 bits of the string's hash above the number plus
// one (0: empty), at the position those bits give, probed linearly. A slot
// whose bits match is checked against the string itself, which the caller
// keeps (str returns the string of a number). It grows to stay at most
// half full. Find only reads, so Finds may run concurrently with each
// other; Insert may not run with anything.
type Index struct {
	slots []uint64
	seed  maphash.Seed
	n     int
}

// Find returns the number of s, if s was inserted.
func (x *Index) Find(s string, str func(uint32) string) (uint32, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	tag, mask := x.tag(s), uint64(len(x.slots)-1)
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
	}
	x.place(x.tag(s)<<32 | uint64(i+1))
	x.n++
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
func (x *Index) tag(s string) uint64 { return maphash.String(x.seed, s) >> 32 }

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

// resize makes size slots (a power of two, more than there are) and
// places the old ones again.
func (x *Index) resize(size int) {
	if len(x.slots) == 0 {
		x.seed = maphash.MakeSeed()
	}
	old := x.slots
	x.slots = make([]uint64, size)
	for _, v := range old {
		if v != 0 {
			x.place(v)
		}
	}
}
