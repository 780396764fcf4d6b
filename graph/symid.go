package graph

// This file is the symbol table of a space (see keys.go): the 8-byte ids
// that index keys hold instead of symbol strings, how writers assign them
// and how readers translate them back.

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/cockroachdb/pebble/v2"

	"github.com/lspgraph/lspgraph/internal/freelist"
)

// symbolHash is the id a symbol string asks for first. Part of the format.
//
// Its top 16 bits are the XXH64 hash (seed 0) of the symbol's owner (see
// symbolOwners), the next 16 bits that of its parent, the low 32 bits that
// of the whole string. Index keys lead with symbol ids, so the records of
// a package's symbols, and of a type's members, sit side by side in the key
// space: the reads one question makes about a symbol and its neighbours
// (its callers, callees, siblings, their names) land in a few blocks
// instead of one block per symbol, as a plain hash of the string scattered
// them.
func symbolHash(sym string) uint64 {
	owner, parent := symbolOwners(sym)
	return xxhash.Sum64String(sym[:owner])>>48<<48 |
		xxhash.Sum64String(sym[:parent])>>48<<32 |
		xxhash.Sum64String(sym)&(1<<32-1)
}

// symbolOwners returns the lengths of the prefixes of sym naming its owner
// and its parent. The owner is what precedes the last space or '/' (a
// SCIP namespace, a syntax symbol's package): a package, module or file.
// The parent extends it up to the last '#' or '.' before the symbol's last
// byte (a SCIP type descriptor, a syntax symbol's receiver), or is the
// owner when there is none. The split needs no grammar: a symbol string
// it reads wrongly only loses locality, never an id.
func symbolOwners(sym string) (owner, parent int) {
	owner = max(strings.LastIndexByte(sym, ' '), strings.LastIndexByte(sym, '/')) + 1
	parent = owner
	if len(sym) > owner {
		if i := strings.LastIndexAny(sym[owner:len(sym)-1], "#."); i >= 0 {
			parent = owner + i + 1
		}
	}
	return owner, parent
}

// symIDs gives the id of a symbol string in one space, for writing or
// deleting a document's index records, and whether that id is the
// symbol's hash: a document whose every id is says so in its document
// record (see docIDsHashed), and replacing it needs no look-up of them.
type symIDs interface {
	symID(sym string) (id uint64, hashed bool, err error)
}

// probeSymID finds sym's id in a table read through at: from sym's hash
// on, the first id that holds sym (found) or nothing (free, the id sym
// gets); hashed when that is the hash itself. Ids are never removed from
// a space, so a probe that finds sym finds the id its records were
// written with.
func probeSymID(sym string, at func(id uint64) (string, bool, error)) (id uint64, found, hashed bool, err error) {
	first := symbolHash(sym)
	for id = first; ; id++ {
		s, ok, err := at(id)
		if err != nil {
			return 0, false, false, err
		}
		if !ok {
			return id, false, id == first, nil
		}
		if s == sym {
			return id, true, id == first, nil
		}
	}
}

// storeSymIDs resolves ids against a space of the store for a batch of
// writes: with claim, a symbol without an id gets one and its symid record
// is added to the batch; without, it is given the id it would get, under
// which no record exists (what a deletion needs).
type storeSymIDs struct {
	r     kvReader
	b     *pebble.Batch
	space uint64
	claim bool
	added map[uint64]string // ids claimed in the batch
	known map[string]uint64
	// displaced holds the symbols of known whose id is not their hash:
	// few or none.
	displaced map[string]struct{}
}

func newStoreSymIDs(r kvReader, b *pebble.Batch, space uint64, claim bool) *storeSymIDs {
	return &storeSymIDs{r: r, b: b, space: space, claim: claim, added: map[uint64]string{}, known: map[string]uint64{},
		displaced: map[string]struct{}{}}
}

func (t *storeSymIDs) symID(sym string) (uint64, bool, error) {
	if id, ok := t.known[sym]; ok {
		return id, t.hashed(sym), nil
	}
	id, found, hashed, err := probeSymID(sym, t.at)
	if err != nil {
		return 0, false, fmt.Errorf("graph: reading the id of symbol %q: %w", sym, err)
	}
	if !found && t.claim {
		if err := t.b.Set(appendSymIDKey(nil, t.space, id), []byte(sym), nil); err != nil {
			return 0, false, err
		}
		t.added[id] = sym
		found = true
	}
	if found { // an id not held is not remembered: a claiming view may share known
		t.learn(sym, id, hashed)
	}
	return id, hashed, nil
}

// learn records that the space holds sym at id.
func (t *storeSymIDs) learn(sym string, id uint64, hashed bool) {
	t.known[sym] = id
	if !hashed {
		t.displaced[sym] = struct{}{}
	}
}

// hashed reports whether sym, which t knows, is at its hash.
func (t *storeSymIDs) hashed(sym string) bool {
	if len(t.displaced) == 0 {
		return true
	}
	_, moved := t.displaced[sym]
	return !moved
}

// learnHashed records the ids h gave as the space's: those of a document
// whose record says its ids are their hashes (docIDsHashed), given to
// the symbols its index records name as it was read back. The space
// holds each of them, at its hash.
func (t *storeSymIDs) learnHashed(h *hashSymIDs) {
	for sym, id := range h.given.M {
		if _, ok := t.known[sym]; !ok {
			t.known[sym] = id
		}
	}
}

// prefetch finds the ids the space holds for syms through one iterator in
// id order, instead of a lookup each, and remembers them: a patch asks for
// every symbol of a document's old and new facts, and in a store just
// opened each lookup read its blocks anew. Symbols the space does not
// hold are left to symID. Local symbols are asked for too (DocLocal is
// the emitter's business); they are found or not like any other.
func (t *storeSymIDs) prefetch(syms []string) error {
	var unknown []string
	for _, sym := range syms {
		if _, ok := t.known[sym]; !ok {
			unknown = append(unknown, sym)
		}
	}
	return probeSymIDs(t.r, t.space, unknown, func(i int, id uint64, hashed bool) { t.learn(unknown[i], id, hashed) })
}

// probeSymIDs finds the ids space holds for syms through one iterator,
// the symbols in the order of their hashes (each as probeSymID finds it:
// the hash, else the next id, until the string or a free id), and calls
// found with the index of each symbol it holds, its id and whether that
// is its hash.
func probeSymIDs(r kvReader, space uint64, syms []string, found func(i int, id uint64, hashed bool)) error {
	type probe struct {
		id uint64
		i  int
	}
	probes := make([]probe, len(syms))
	for i, sym := range syms {
		probes[i] = probe{symbolHash(sym), i}
	}
	slices.SortFunc(probes, func(a, b probe) int { return cmp.Compare(a.id, b.id) })
	lower := appendPrefix(nil, space, kindSymID)
	var key []byte
	return withIter(r, lower, prefixEnd(lower), func(it *pebble.Iterator) error {
		var prev struct {
			sym string
			id  uint64
			ok  bool
		}
		for n, p := range probes {
			if n > 0 && syms[p.i] == prev.sym { // named twice: equal ids, side by side
				if prev.ok {
					found(p.i, prev.id, prev.id == p.id)
				}
				continue
			}
			prev.sym, prev.ok = syms[p.i], false
			for id := p.id; ; id++ {
				key = appendSymIDKey(key[:0], space, id)
				if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
					break
				}
				v, err := it.ValueAndErr()
				if err != nil {
					return err
				}
				if string(v) == prev.sym {
					prev.id, prev.ok = id, true
					found(p.i, id, id == p.id)
					break
				}
			}
		}
		return it.Error()
	})
}

// lookups returns a view of t that claims nothing and shares what t knows:
// a patch deletes a document's old records through it, and most of their
// symbols were met before in the patch.
func (t *storeSymIDs) lookups() *storeSymIDs {
	v := *t
	v.claim = false
	return &v
}

func (t *storeSymIDs) at(id uint64) (string, bool, error) {
	if s, ok := t.added[id]; ok {
		return s, true, nil
	}
	v, ok, err := get(t.r, appendSymIDKey(nil, t.space, id))
	return string(v), ok, err
}

// hashSymIDs gives every symbol its hash, and remembers which it gave: a
// generation writer encodes a document with it outside its lock, then
// checks under the lock that no other symbol of the generation holds one
// of those ids (see genSymTable.register). With seed set it also takes
// each symbol's fingerprint for that check (genSymTable.fingerprint),
// hashing the strings outside the lock too.
type hashSymIDs struct {
	given freelist.ScratchMap[string, uint64]
	seed  *maphash.Seed
	list  []givenSym // what given holds, in the order given
}

func (h *hashSymIDs) symID(sym string) (uint64, bool, error) {
	if id, ok := h.given.M[sym]; ok {
		return id, true, nil
	}
	id := symbolHash(sym)
	if h.given.M == nil {
		h.given.Reset()
	}
	h.given.M[sym] = id
	g := givenSym{id: id, sym: sym}
	if h.seed != nil {
		g.fp = maphash.String(*h.seed, sym)
	}
	h.list = append(h.list, g)
	return id, true, nil
}

func (h *hashSymIDs) reset() {
	h.given.Reset()
	clear(h.list) // the strings are the document's
	h.list = h.list[:0]
}

// genSymTable is the symbol table of a generation being written: every
// id assigned so far, and a fingerprint of the string holding it (a 64-bit
// hash independent of the id's), which is what telling two strings of one
// id apart needs: two strings are taken for one when both their ids and
// fingerprints agree, a chance of 2^-64 for each pair of strings of one
// id. The table kept the strings themselves, copied into an arena: a
// generation of four GOROOTs names 439,000 symbols in 26 MB of strings,
// which stayed live until Commit and grew the heap the collector paces
// itself by with the repository. Its owner serializes access.
type genSymTable struct {
	ids map[uint64]uint64 // id → fingerprint of the string holding it
	// recent holds ids found in ids, each at the slot its low bits name,
	// with their fingerprints: a document names mostly symbols other
	// documents named before, and at four GOROOTs the map's look-ups
	// missed the processor's caches, 12 times the time of one GOROOT's.
	recent *[recentSymIDs]givenFP
	seed   maphash.Seed
	emit   func(k, v []byte) // adds a symid record to the generation
	key    []byte
	// fresh is register's scratch: the ids it took.
	fresh []givenSym
}

func newGenSymTable(emit func(k, v []byte)) genSymTable {
	return genSymTable{ids: map[uint64]uint64{}, seed: maphash.MakeSeed(), emit: emit}
}

// fingerprint returns the hash the table tells sym by.
func (t *genSymTable) fingerprint(sym string) uint64 { return maphash.String(t.seed, sym) }

// register adopts the ids a hashSymIDs gave, adding the symid records of
// new ones; it reports false, adopting nothing, when one of them is held
// by another symbol, of the generation or of the same document (which
// must then be encoded through the table). Each id is looked up once: the
// new ones are taken as they come, and given back if one turns out held.
func (t *genSymTable) register(space uint64, h *hashSymIDs) bool {
	if t.recent == nil {
		t.recent = new([recentSymIDs]givenFP)
	}
	fresh := t.fresh[:0]
	defer func() { clear(fresh); t.fresh = fresh[:0] }()
	for _, g := range h.list {
		if h.seed != &t.seed {
			g.fp = t.fingerprint(g.sym)
		}
		slot := &t.recent[g.id%recentSymIDs]
		if slot.id == g.id && slot.fp == g.fp && g.id != 0 {
			continue
		}
		held, ok := t.ids[g.id]
		if !ok {
			t.ids[g.id] = g.fp
			fresh = append(fresh, g)
			continue
		}
		if held != g.fp {
			for _, g := range fresh {
				delete(t.ids, g.id)
			}
			return false
		}
		*slot = givenFP{g.id, g.fp}
	}
	for _, g := range fresh {
		t.emitSymID(space, g.id, g.sym)
		t.recent[g.id%recentSymIDs] = givenFP{g.id, g.fp}
	}
	return true
}

// recentSymIDs is the size of genSymTable.recent: 128 KiB.
const recentSymIDs = 1 << 13

// givenSym is an id, the symbol it was given to and the symbol's
// fingerprint (zero when not taken).
type givenSym struct {
	id, fp uint64
	sym    string
}

// givenFP is an id and the fingerprint of the symbol holding it.
type givenFP struct{ id, fp uint64 }

func (t *genSymTable) claim(space, id uint64, sym string) {
	t.ids[id] = t.fingerprint(sym)
	t.emitSymID(space, id, sym)
}

// emitSymID adds the symid record of id, held by sym.
func (t *genSymTable) emitSymID(space, id uint64, sym string) {
	t.key = appendSymIDKey(t.key[:0], space, id)
	t.emit(t.key, []byte(sym))
}

// probe returns sym's id as probeSymID does, through the fingerprints:
// found is false when no string holds it yet.
func (t *genSymTable) probe(sym string) (id uint64, found, hashed bool) {
	fp := t.fingerprint(sym)
	first := symbolHash(sym)
	for id = first; ; id++ {
		held, ok := t.ids[id]
		if !ok || held == fp {
			return id, ok, id == first
		}
	}
}

// release drops the table's memory.
func (t *genSymTable) release() { t.ids, t.recent = nil, nil }

// tableSymIDs assigns ids through a genSymTable, probing past collisions.
type tableSymIDs struct {
	t     *genSymTable
	space uint64
}

func (x tableSymIDs) symID(sym string) (uint64, bool, error) {
	id, found, hashed := x.t.probe(sym)
	if !found {
		x.t.claim(x.space, id, sym)
	}
	return id, hashed, nil
}

// spaceSym is a symbol string in a space; spaceID a symbol id in one.
type (
	spaceSym struct {
		space uint64
		sym   string
	}
	spaceID struct{ space, id uint64 }
)

// symCache holds a reader's translations between symbol strings and ids,
// which a snapshot never changes.
type symCache struct {
	mu    sync.Mutex
	ids   map[spaceSym]uint64 // found ids
	names map[spaceID]string
}

// note records that sym's id in space is id: one string has one id in a
// space, so the translation holds both ways. The caller holds c.mu.
func (c *symCache) note(space, id uint64, sym string) {
	if c.names == nil {
		c.names = map[spaceID]string{}
	}
	if c.ids == nil {
		c.ids = map[spaceSym]uint64{}
	}
	c.names[spaceID{space, id}] = sym
	c.ids[spaceSym{space, sym}] = id
}

// symID returns sym's id in space, and false when no record of the space
// names sym.
func (r *Reader) symID(space uint64, sym string) (uint64, bool, error) {
	c := r.syms(space)
	key := spaceSym{space, sym}
	c.mu.Lock()
	id, ok := c.ids[key]
	c.mu.Unlock()
	if ok {
		return id, true, nil
	}
	id, found, _, err := probeSymID(sym, func(id uint64) (string, bool, error) { return r.lookupSymName(space, id) })
	if err != nil || !found {
		return 0, false, err
	}
	c.mu.Lock()
	if c.ids == nil {
		c.ids = map[spaceSym]uint64{}
	}
	c.ids[key] = id
	c.mu.Unlock()
	return id, true, nil
}

// symName returns the symbol string of an id that a record of space
// holds; a missing symid record is a malformed store.
func (r *Reader) symName(space, id uint64) (string, error) {
	s, ok, err := r.lookupSymName(space, id)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%w: symbol id %s of %s has no symid record", errBadValue, formatSymID(id), spaceName(space))
	}
	return s, nil
}

func (r *Reader) lookupSymName(space, id uint64) (string, bool, error) {
	c := r.syms(space)
	key := spaceID{space, id}
	c.mu.Lock()
	s, ok := c.names[key]
	c.mu.Unlock()
	if ok {
		return s, true, nil
	}
	v, ok, err := get(r.kv(), appendSymIDKey(nil, space, id))
	if err != nil || !ok {
		return "", false, err
	}
	s = string(v)
	c.mu.Lock()
	c.note(space, id, s)
	c.mu.Unlock()
	return s, true, nil
}

// symNames is symName of many ids of space: those not translated yet are
// read in key order through one iterator, not one lookup each.
func (r *Reader) symNames(space uint64, ids []uint64) ([]string, error) {
	out := make([]string, len(ids))
	c := r.syms(space)
	var missing []uint64
	c.mu.Lock()
	for i, id := range ids {
		if s, ok := c.names[spaceID{space, id}]; ok {
			out[i] = s
		} else {
			missing = append(missing, id)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	found := make(map[uint64]string, len(missing))
	lower := appendPrefix(nil, space, kindSymID)
	var key []byte
	err := withIter(r.kv(), lower, prefixEnd(lower), func(it *pebble.Iterator) error {
		for _, id := range missing {
			key = appendSymIDKey(key[:0], space, id)
			if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
				return fmt.Errorf("%w: symbol id %s of %s has no symid record", errBadValue, formatSymID(id), spaceName(space))
			}
			v, err := it.ValueAndErr()
			if err != nil {
				return err
			}
			found[id] = string(v)
		}
		return it.Error()
	})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	for id, s := range found {
		c.note(space, id, s)
	}
	c.mu.Unlock()
	for i, id := range ids {
		if s, ok := found[id]; ok {
			out[i] = s
		}
	}
	return out, nil
}

// syms returns the translations of space for the reader whose snapshot
// r reads: its base generation's are shared with the store's other
// readers of it, the rest are its own.
func (r *Reader) syms(space uint64) *symCache {
	if r.parent != nil {
		return r.parent.syms(space)
	}
	if r.genSyms != nil && space == genSpace(r.baseGen) {
		return r.genSyms
	}
	return &r.symCache
}
