package graph

// This file is the value format of the grouped index records (part of
// SchemaVersion): a ref record holds every occurrence of one symbol in one
// document, an out record every edge one symbol's document gives it, an in
// record every edge into one symbol that one document justifies. A
// document mentions a symbol many times, and a function's body calls many
// symbols: one record per group instead of one per fact is a third of the
// keys to sort, merge and write, and the path and symbol id are stored
// once per group instead of once per fact.

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"

	"github.com/lspgraph/lspgraph/internal/freelist"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Enclosing-symbol modes of a refs group entry, in the low bits of its
// roles field.
const (
	encNone = 0 // no enclosing symbol
	encSame = 1 // the previous entry's
	encNew  = 2 // an 8-byte id follows
	encBits = 2
)

// refEntry is one occurrence of a refs group as the emitter holds it.
type refEntry struct {
	sym       uint64 // the symbol's id: the group
	occ       int    // index in the document's occurrences
	enclosing uint64
	hasEnc    bool
}

// Refs value: the number of occurrences, then per occurrence in position
// order its range, roles<<2 | enclosing mode, and the enclosing symbol's id
// when the mode is encNew.
func appendRefsValue(dst []byte, occs []Occurrence, group []refEntry) []byte {
	w := valueWriter{dst}
	w.uvarint(uint64(len(group)))
	var prev uint64
	havePrev := false
	for _, g := range group {
		o := &occs[g.occ]
		w.rng(o.Range)
		mode := uint64(encNone)
		switch {
		case !g.hasEnc:
		case havePrev && g.enclosing == prev:
			mode = encSame
		default:
			mode = encNew
		}
		w.uvarint(uint64(o.Roles)<<encBits | mode)
		if mode == encNew {
			w.b = binary.BigEndian.AppendUint64(w.b, g.enclosing)
		}
		if g.hasEnc {
			prev, havePrev = g.enclosing, true
		}
	}
	return w.b
}

// decodeRefsValue calls fn for each occurrence of a refs value, in order,
// until fn returns false.
func decodeRefsValue(b []byte, fn func(r textpos.Range, roles Role, enclosing uint64, hasEnc bool) bool) error {
	r := valueReader{b: b}
	n := r.uvarint()
	if n > uint64(len(b)) {
		return fmt.Errorf("%w: references", errBadValue)
	}
	var prev uint64
	havePrev := false
	for range n {
		rng := r.rng()
		x := r.uvarint()
		var enc uint64
		hasEnc := false
		switch x & (1<<encBits - 1) {
		case encNone:
		case encSame:
			if !havePrev {
				r.bad = true
			}
			enc, hasEnc = prev, true
		case encNew:
			if len(r.b) < symIDLen {
				r.bad = true
				break
			}
			enc, hasEnc = binary.BigEndian.Uint64(r.b), true
			r.b = r.b[symIDLen:]
		default:
			r.bad = true
		}
		roles := x >> encBits
		if roles > 1<<32-1 {
			r.bad = true
		}
		if r.bad {
			break
		}
		if hasEnc {
			prev, havePrev = enc, true
		}
		if !fn(rng, Role(roles), enc, hasEnc) {
			return nil
		}
	}
	return r.done("references")
}

// edgeDictionary starts the string table of every edges and doc-edges
// value: the edge kinds, sources and reasons the producers write, which
// each value would otherwise spell out once. It is frozen (part of
// SchemaVersion): appending or reordering changes what stored values
// mean. A string not in it is spelled out in the value, as before.
var edgeDictionary = [...]string{
	"",
	string(EdgeReferences), string(EdgeCalls), string(EdgeImplements), string(EdgeTypeOf),
	string(EdgeContains), string(EdgeImports), string(EdgeTypeDef),
	SourceSCIP, SourceLSP, SourceSyntax,
	"scip:reference-in-body", "scip:call-by-descriptor", "scip:import-role",
	"scip:relationship-implementation", "scip:relationship-type-definition",
	"scip:relationship-reference", "scip:descriptor-parent", "scip:call",
	"syntax:declaration", "syntax:same-file", "syntax:same-package",
	"syntax:imported-package", "syntax:receiver-type", "syntax:declared-type",
	"syntax:inferred-type", "syntax:promoted-member", "syntax:unique-global-name",
	"syntax:ambiguous-global-name",
	"lsp:definition", "lsp:reference", "lsp:references", "lsp:implementation",
	"lsp:incoming-call",
}

// edgeDictIndexes maps each string of edgeDictionary to its index: every
// edge's kind, source and reason is looked up in it, for each of the three
// values an edge is written in, and a linear search of the dictionary took
// 1.6% of an import's CPU time.
var edgeDictIndexes = func() map[string]int {
	m := make(map[string]int, len(edgeDictionary))
	for i, s := range edgeDictionary {
		m[s] = i
	}
	return m
}()

// edgeDictByAddr finds the strings of edgeDictionary by the address of
// their bytes: the kinds, sources and reasons producers give are nearly
// always the constants themselves, and the linker keeps one copy of equal
// string literals, so that comparing addresses finds them without hashing
// them (the map look-up took 2.6% of an import's CPU time). It is an open
// addressing table of the dictionary's addresses; a string not found in
// it is looked up by content in edgeDictIndexes.
var edgeDictByAddr = func() (t [edgeDictSlots]edgeDictSlot) {
	for i, s := range edgeDictionary {
		if s == "" {
			continue
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		j := edgeDictSlotOf(p)
		for t[j].addr != 0 && t[j].addr != p {
			j = (j + 1) % edgeDictSlots
		}
		t[j] = edgeDictSlot{p, i}
	}
	return t
}()

// edgeDictSlots is the size of edgeDictByAddr, some eight times the
// dictionary's: most look-ups probe one slot.
const edgeDictSlots = 256

type edgeDictSlot struct {
	addr  uintptr // 0: an empty slot
	index int
}

func edgeDictSlotOf(p uintptr) uintptr { return (p ^ p>>8 ^ p>>16) % edgeDictSlots }

// edgeDictIndex returns the index of s in edgeDictionary, -1 if absent.
func edgeDictIndex(s string) int {
	if len(s) > 0 {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		for j := edgeDictSlotOf(p); edgeDictByAddr[j].addr != 0; j = (j + 1) % edgeDictSlots {
			if sl := &edgeDictByAddr[j]; sl.addr == p && len(edgeDictionary[sl.index]) == len(s) {
				return sl.index
			}
		}
	}
	if i, ok := edgeDictIndexes[s]; ok {
		return i
	}
	return -1
}

// edgeEntry is one edge of an out or in group as the emitter holds it.
type edgeEntry struct {
	sym   uint64 // the group's symbol: From for out, To for in
	other uint64 // the other end's id
	edge  int    // index in the document's edges
}

// Edges value (out and in records): the number of edges, then per edge
// its kind, the other end's id (8 bytes), and its body (see
// appendEdgeBody). Kinds, sources and reasons go through a string table
// of the value (idWriter's encoding): a group repeats a few of each.
// strs is scratch for the table.
func appendEdgesValue(dst []byte, edges []Edge, group []edgeEntry, strs *[]string) []byte {
	w := valueWriter{dst}
	t := smallTable{w: &w, strs: (*strs)[:0]}
	w.uvarint(uint64(len(group)))
	for _, g := range group {
		e := &edges[g.edge]
		t.id(string(e.Kind))
		w.b = binary.BigEndian.AppendUint64(w.b, g.other)
		appendEdgeBody(&w, t.id, e)
	}
	*strs = t.strs[:0]
	return w.b
}

// groupEdge is an edge of an out or in group as decoded: its kind, the
// other end's id, and the rest of the Edge's stored fields.
type groupEdge struct {
	kind       EdgeKind
	other      uint64
	confidence float64
	source     string
	reason     string
	count      int
}

// decodeEdgesValue calls fn for each edge of an edges value, in order,
// until fn returns false. The strings of the edges it passes are the
// value's own copies, shared by the edges that repeat them.
func decodeEdgesValue(b []byte, fn func(e *groupEdge) bool) error {
	r := valueReader{b: b}
	t := idReader{r: &r, dict: edgeDictionary[:]}
	n := r.uvarint()
	if n > uint64(len(b)) {
		return fmt.Errorf("%w: edges", errBadValue)
	}
	var e groupEdge
	for range n {
		e.kind = EdgeKind(t.id())
		if len(r.b) < symIDLen {
			r.bad = true
			break
		}
		e.other = binary.BigEndian.Uint64(r.b)
		r.b = r.b[symIDLen:]
		e.confidence = r.confidence()
		e.source, e.reason = t.id(), t.id()
		e.count = int(r.uvarint())
		if r.bad {
			break
		}
		if !fn(&e) {
			return nil
		}
	}
	return r.done("edges")
}

// appendEdgeBody appends an edge's confidence, source, reason and count,
// its strings through str (a value's string table).
func appendEdgeBody(w *valueWriter, str func(string), e *Edge) {
	w.confidence(e.Confidence)
	str(e.Source)
	str(e.Reason)
	w.uvarint(uint64(max(e.Count, 0)))
}

// smallTable is an idWriter for the few strings of a group value, with
// edgeDictionary: a linear search of its own strings instead of a map.
type smallTable struct {
	w    *valueWriter
	strs []string
}

func (t *smallTable) id(s string) {
	if i := edgeDictIndex(s); i >= 0 {
		t.w.uvarint(2*uint64(i) + 1)
		return
	}
	for i, x := range t.strs {
		if x == s {
			t.w.uvarint(2*uint64(len(edgeDictionary)+i) + 1)
			return
		}
	}
	t.strs = append(t.strs, s)
	t.w.uvarint(2 * uint64(len(s)))
	t.w.b = append(t.w.b, s...)
}

// groupScratch is what groupBySym keeps from one call to the next.
type groupScratch struct {
	number freelist.ScratchMap[uint64, int32] // a symbol → its group's number, in order of appearance
	syms   []uint64                           // the groups' symbols, by number
	at     []int32                            // by number: the group's entries, then where it goes next
	order  []int32                            // the numbers in symbol order
	nums   []int32                            // each entry's group number
}

// groupBySym appends in's entries to out grouped by their symbol, the
// groups in increasing symbol order, each in in's order: what sorting in
// stably by symbol gives, in time linear in its length (a document's
// occurrences mention each symbol several times: sorting them all moved
// each entry some ten times over).
func groupBySym[T any](out, in []T, sym func(*T) uint64, sc *groupScratch) []T {
	sc.number.Reset()
	syms, at, nums := sc.syms[:0], sc.at[:0], sc.nums[:0]
	for i := range in {
		s := sym(&in[i])
		n, ok := sc.number.M[s]
		if !ok {
			n = int32(len(syms))
			sc.number.M[s] = n
			syms = append(syms, s)
			at = append(at, 0)
		}
		at[n]++
		nums = append(nums, n)
	}
	order := sc.order[:0]
	for n := range syms {
		order = append(order, int32(n))
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(syms[a], syms[b]) })
	next := int32(len(out))
	for _, n := range order {
		next, at[n] = next+at[n], next
	}
	out = slices.Grow(out, len(in))[:len(out)+len(in)]
	for i, n := range nums {
		out[at[n]] = in[i]
		at[n]++
	}
	sc.syms, sc.at, sc.order, sc.nums = syms, at, order, nums
	return out
}
