package syntax

import (
	"sync"

	"github.com/lspgraph/lspgraph/internal/arena"
)

// defStore holds the definitions of a tree without pointers the collector
// has to follow: ids and signatures are bytes in chunks of an arena, the
// other strings (names, kinds, languages, packages, paths) indexes into a
// table of each distinct one, itself in the arena and found through an
// open-addressing table of integers. A table of every definition of a
// large tree stays live through a whole index; held as definitions it is
// mostly pointers (seven strings each), which every collection scans
// again, so that the collector's work grew faster than the tree. It is
// safe for concurrent use.
type defStore struct {
	mu    sync.Mutex
	text  arena.Strings // ids, signatures and the distinct short strings
	strs  []arena.Ref   // the distinct short strings
	byStr arena.Index   // finds strs by string
	// defs holds the definitions in chunks of defChunk: a table of a
	// large tree grows by a chunk at a time, not by copying all of it
	// into one twice as large (which held three times its size at the
	// moment of growing, and up to twice its size after).
	defs [][]packedDef
	n    int32 // the definitions held
	// recent holds the kind, language, package and path last interned
	// (the store's copies) and their indexes: the definitions of one
	// document share the last three, and most kinds are a few.
	recent [4]struct {
		s string
		i uint32
	}
}

// The fields of defStore.recent.
const (
	recentKind = iota
	recentLang
	recentPkg
	recentPath
)

// defChunk is the number of definitions in a chunk of defStore.defs.
const defChunk = 1 << 14

// packedDef is a definition in a defStore.
type packedDef struct {
	id, sig                   arena.Ref
	name, kind, lang, pkg, at uint32 // indexes into strs; at is the path
	external                  bool
}

func newDefStore() *defStore {
	return &defStore{}
}

// reserve makes room for about n more definitions: a table filled from a
// stored generation knows how many it will hold, and does not grow its
// index of strings step by step.
func (st *defStore) reserve(n int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	// Distinct names, kinds, packages and paths: about two for three
	// definitions (80,120 for 121,473 in GOROOT/src's index).
	st.byStr.Reserve(len(st.strs) + 2*n/3)
}

// add stores defs and returns the range [lo, hi) of their positions.
func (st *defStore) add(defs []definition) [2]int32 {
	st.mu.Lock()
	defer st.mu.Unlock()
	lo := st.n
	for k := range defs {
		st.pack(&defs[k])
	}
	return [2]int32{lo, st.n}
}

// addOne stores d (its strings are copied) and returns its position.
func (st *defStore) addOne(d *definition) int32 {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.pack(d)
	return st.n - 1
}

// pack appends d. The caller holds st.mu.
func (st *defStore) pack(d *definition) {
	st.append(packedDef{
		id: st.text.Add(d.ID), sig: st.text.Add(d.Signature),
		name: st.intern(d.DisplayName), kind: st.internRecent(recentKind, d.Kind), lang: st.internRecent(recentLang, d.Language),
		pkg: st.internRecent(recentPkg, d.Package), at: st.internRecent(recentPath, d.Path), external: d.External,
	})
}

// append appends a packed definition, its strings the store's already.
// The caller holds st.mu, or has the store to itself.
func (st *defStore) append(p packedDef) {
	if st.n%defChunk == 0 {
		st.defs = append(st.defs, make([]packedDef, 0, defChunk))
	}
	c := &st.defs[len(st.defs)-1]
	st.n++
	*c = append(*c, p)
}

// find returns the index of s in the table of short strings, if it is
// there. It only reads, so it may run concurrently with other reads.
func (st *defStore) find(s string) (uint32, bool) { return st.byStr.Find(s, st.short) }

// intern returns the index of s in the table of short strings, adding it
// (a copy) if it is not there. The caller holds st.mu.
func (st *defStore) intern(s string) uint32 {
	i, added := st.byStr.Add(s, uint32(len(st.strs)), st.short)
	if added {
		st.strs = append(st.strs, st.text.Add(s))
	}
	return i
}

// internRecent is intern of s, a field k of the definitions that the one
// before most often shares. The caller holds st.mu.
func (st *defStore) internRecent(k int, s string) uint32 {
	r := &st.recent[k]
	if r.s == s && r.s != "" {
		return r.i
	}
	r.i = st.intern(s)
	r.s = st.short(r.i)
	return r.i
}

// len returns the number of definitions held. Only the goroutine that
// adds may call it while others add.
func (st *defStore) len() int32 { return st.n }

// at returns the definition at position i.
func (st *defStore) at(i int32) *packedDef { return &st.defs[i/defChunk][i%defChunk] }

// short returns the short string of index i, sharing the store's memory.
func (st *defStore) short(i uint32) string { return st.text.String(st.strs[i]) }

// get returns the definition at position i. Its strings share the
// store's memory; the store must no longer be added to (add may grow
// its tables while get reads them).
func (st *defStore) get(i int32) definition {
	p := st.at(i)
	return definition{
		ID: st.text.String(p.id), Signature: st.text.String(p.sig),
		DisplayName: st.short(p.name), Kind: st.short(p.kind), Language: st.short(p.lang),
		Package: st.short(p.pkg), Path: st.short(p.at), External: p.external,
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
