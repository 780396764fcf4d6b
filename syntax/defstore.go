package syntax

import (
	"strings"
	"sync"
	"unsafe"
)

// defStore holds the definitions of a tree without pointers the collector
// has to follow: ids and signatures are bytes in chunks of an arena, the
// other strings (names, kinds, languages, packages, paths) indexes into a
// table of each distinct one. A table of every definition of a large tree
// stays live through a whole index; held as definitions it is mostly
// pointers (seven strings each), which every collection scans again, so
// that the collector's work grew faster than the tree. It is safe for
// concurrent use.
type defStore struct {
	mu     sync.Mutex
	chunks [][]byte          // the arena; a chunk never grows past its capacity
	strs   []string          // the distinct short strings
	index  map[string]uint32 // their indexes
	defs   []packedDef
}

// packedDef is a definition in a defStore.
type packedDef struct {
	id, sig                   arenaRef
	name, kind, lang, pkg, at uint32 // indexes into strs; at is the path
	external                  bool
}

// arenaRef is a string in the arena: chunk, offset and length.
type arenaRef struct{ chunk, off, n uint32 }

// arenaChunk is the size of a chunk (a longer string gets one of its own).
const arenaChunk = 1 << 20

func newDefStore() *defStore {
	return &defStore{index: map[string]uint32{}}
}

// add stores defs and returns the range [lo, hi) of their positions.
func (st *defStore) add(defs []definition) [2]int32 {
	st.mu.Lock()
	defer st.mu.Unlock()
	lo := int32(len(st.defs))
	for k := range defs {
		st.pack(&defs[k])
	}
	return [2]int32{lo, int32(len(st.defs))}
}

// addOne stores d (its strings are copied) and returns its position.
func (st *defStore) addOne(d *definition) int32 {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.pack(d)
	return int32(len(st.defs) - 1)
}

// pack appends d. The caller holds st.mu.
func (st *defStore) pack(d *definition) {
	st.defs = append(st.defs, packedDef{
		id: st.bytes(d.ID), sig: st.bytes(d.Signature),
		name: st.str(d.DisplayName), kind: st.str(d.Kind), lang: st.str(d.Language),
		pkg: st.str(d.Package), at: st.str(d.Path), external: d.External,
	})
}

// bytes copies s into the arena. The caller holds st.mu.
func (st *defStore) bytes(s string) arenaRef {
	if s == "" {
		return arenaRef{}
	}
	n := len(st.chunks)
	if n == 0 || cap(st.chunks[n-1])-len(st.chunks[n-1]) < len(s) {
		st.chunks = append(st.chunks, make([]byte, 0, max(arenaChunk, len(s))))
		n++
	}
	c := &st.chunks[n-1]
	off := len(*c)
	*c = append(*c, s...)
	return arenaRef{uint32(n - 1), uint32(off), uint32(len(s))}
}

// str returns the index of s in the table of short strings. The caller
// holds st.mu.
func (st *defStore) str(s string) uint32 {
	if i, ok := st.index[s]; ok {
		return i
	}
	s = strings.Clone(s)
	i := uint32(len(st.strs))
	st.strs = append(st.strs, s)
	st.index[s] = i
	return i
}

// string returns a string of the arena, sharing its memory.
func (st *defStore) string(r arenaRef) string {
	if r.n == 0 {
		return ""
	}
	return unsafe.String(&st.chunks[r.chunk][r.off], r.n)
}

// get returns the definition at position i. Its strings share the
// store's memory; the store must no longer be added to (add may grow
// its tables while get reads them).
func (st *defStore) get(i int32) definition {
	p := &st.defs[i]
	return definition{
		ID: st.string(p.id), Signature: st.string(p.sig),
		DisplayName: st.strs[p.name], Kind: st.strs[p.kind], Language: st.strs[p.lang],
		Package: st.strs[p.pkg], Path: st.strs[p.at], External: p.external,
	}
}

// run returns the definitions at positions [r[0], r[1]).
func (st *defStore) run(r [2]int32) []definition {
	if r[1] <= r[0] {
		return nil
	}
	out := make([]definition, 0, r[1]-r[0])
	for i := r[0]; i < r[1]; i++ {
		out = append(out, st.get(i))
	}
	return out
}
