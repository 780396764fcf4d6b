package arena

import "unsafe"

// Strings holds strings in chunks of bytes. A chunk never grows past its
// capacity, so a string handed out by String stays valid while the
// Strings is kept. The zero value is empty and ready to use.
type Strings struct{ chunks [][]byte }

// Ref is a string of a Strings: chunk, offset and length. The zero Ref is
// the empty string.
type Ref struct{ chunk, off, n uint32 }

// chunkSize is the size of a chunk (a longer string gets one of its own).
const chunkSize = 1 << 20

// Add copies s into the arena.
func (a *Strings) Add(s string) Ref {
	if s == "" {
		return Ref{}
	}
	n := len(a.chunks)
	if n == 0 || cap(a.chunks[n-1])-len(a.chunks[n-1]) < len(s) {
		a.chunks = append(a.chunks, make([]byte, 0, max(chunkSize, len(s))))
		n++
	}
	c := &a.chunks[n-1]
	off := len(*c)
	*c = append(*c, s...)
	return Ref{uint32(n - 1), uint32(off), uint32(len(s))}
}

// String returns the string r refers to, sharing the arena's memory.
func (a *Strings) String(r Ref) string {
	if r.n == 0 {
		return ""
	}
	return unsafe.String(&a.chunks[r.chunk][r.off], r.n)
}

// Adopt makes b a chunk of the arena, without copying it, and returns a
// function that gives the Ref of b[off:off+n]. b must not change while
// the arena is kept. Add never appends to an adopted chunk.
func (a *Strings) Adopt(b []byte) func(off, n int) Ref {
	a.chunks = append(a.chunks, b[:len(b):len(b)])
	chunk := uint32(len(a.chunks) - 1)
	return func(off, n int) Ref {
		if n == 0 {
			return Ref{}
		}
		return Ref{chunk, uint32(off), uint32(n)}
	}
}

// Chunk returns the chunk r refers to.
func (r Ref) Chunk() uint32 { return r.chunk }

// Within reports whether r is a string of chunk c, of size bytes: the
// empty Ref, or one that lies inside it. A Ref read from a file is
// checked so before it is used.
func (r Ref) Within(c uint32, size int) bool {
	if r.n == 0 {
		return r == Ref{}
	}
	return r.chunk == c && uint64(r.off)+uint64(r.n) <= uint64(size)
}
