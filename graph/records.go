package graph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"

	"github.com/lspgraph/lspgraph/internal/freelist"
)

// kvReader is what reads need from a *pebble.DB or a *pebble.Snapshot.
type kvReader interface {
	NewIter(*pebble.IterOptions) (*pebble.Iterator, error)
	Get(key []byte) ([]byte, io.Closer, error)
}

// get returns a copy of key's value, or ok false when absent.
func get(r kvReader, key []byte) ([]byte, bool, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out := slices.Clone(v)
	return out, true, closer.Close()
}

// view calls fn with key's value, which is valid only during the call,
// without copying it; ok is false (and fn not called) when key is absent.
func view(r kvReader, key []byte, fn func(v []byte) error) (ok bool, err error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	err = fn(v)
	return true, cmp.Or(err, closer.Close())
}

// scanPrefix calls fn for every key with the given prefix, in key order,
// checking ctx as it goes. fn's slices are valid only during the call.
func scanPrefix(ctx context.Context, r kvReader, prefix []byte, fn func(k, v []byte) error) error {
	return scanRange(ctx, r, prefix, prefixEnd(prefix), fn)
}

// errStop ends a scan early without error.
var errStop = errors.New("graph: stop scan")

// iterReuser is a kvReader that lends iterators out again (a Reader's
// snapshot): re-bounding an open iterator costs less than opening one.
type iterReuser interface {
	kvReader
	// iter returns an iterator bounded to [lower, upper); give it back
	// with release.
	iter(lower, upper []byte) (*pebble.Iterator, error)
	release(*pebble.Iterator) error
}

// withIter calls fn with an iterator bounded to [lower, upper): one r
// lends again when it can, else a new one.
func withIter(r kvReader, lower, upper []byte, fn func(*pebble.Iterator) error) (err error) {
	var it *pebble.Iterator
	if ru, ok := r.(iterReuser); ok {
		if it, err = ru.iter(lower, upper); err != nil {
			return err
		}
		defer func() { err = cmp.Or(err, ru.release(it)) }()
	} else {
		if it, err = r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper}); err != nil {
			return err
		}
		defer func() { err = cmp.Or(err, it.Close()) }()
	}
	return fn(it)
}

// scanRange calls fn for every key in [lower, upper).
func scanRange(ctx context.Context, r kvReader, lower, upper []byte, fn func(k, v []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return withIter(r, lower, upper, func(it *pebble.Iterator) error { return scanIter(ctx, it, fn) })
}

// scanIter is scanRange's loop over an iterator.
func scanIter(ctx context.Context, it *pebble.Iterator, fn func(k, v []byte) error) error {
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		if err := fn(it.Key(), v); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
	return it.Error()
}

// normalizeFacts validates f and merges duplicates inside it, so that a
// document writes each key once. The result shares no slices with f.
func normalizeFacts(f DocumentFacts) (DocumentFacts, error) {
	return new(normalizer).facts(f)
}

// A normalizer normalizes documents into buffers it reuses: what facts
// returns is valid until its next call. The zero value is ready to use.
type normalizer struct {
	syms  []Symbol
	occs  []Occurrence
	edges []Edge
	terms []Term
	order []int32 // sortStableInPlace's
	edge  edgeSorter
	term  termSorter
}

// facts validates f and merges duplicates inside it, so that a document
// writes each key once. The result shares no slices with f; its slices are
// n's, until the next call.
func (n *normalizer) facts(f DocumentFacts) (DocumentFacts, error) {
	path := f.Document.Path
	if path == "" {
		return f, errors.New("graph: document has an empty path")
	}
	if err := validID("path", path); err != nil {
		return f, err
	}
	if err := validID("package", f.Document.Package); err != nil {
		return f, err
	}
	out := DocumentFacts{Document: f.Document, Lookups: f.Lookups}
	out.Document.Layer = 0
	var err error
	if n.syms, err = n.symbols(n.syms[:0], f.Symbols); err != nil {
		return f, fmt.Errorf("graph: document %q: %w", path, err)
	}
	if n.occs, err = n.occurrences(n.occs[:0], path, f.Occurrences); err != nil {
		return f, fmt.Errorf("graph: document %q: %w", path, err)
	}
	if n.edges, err = n.normalizeEdges(n.edges[:0], f.Edges); err != nil {
		return f, fmt.Errorf("graph: document %q: %w", path, err)
	}
	if n.terms, err = appendNormalTerms(n.terms[:0], f.Terms, &n.term); err != nil {
		return f, fmt.Errorf("graph: document %q: %w", path, err)
	}
	out.Symbols, out.Occurrences, out.Edges, out.Terms = n.syms, n.occs, n.edges, n.terms
	return out, nil
}

// symbols appends in's symbols to out, sorted by id, duplicates merged.
func (n *normalizer) symbols(out, in []Symbol) ([]Symbol, error) {
	for _, s := range in {
		if s.ID == "" {
			return out, errors.New("symbol with an empty id")
		}
		if err := validID("symbol", s.ID); err != nil {
			return out, err
		}
		if err := validID("display name", s.DisplayName); err != nil {
			return out, err
		}
		out = append(out, s)
	}
	if !slices.IsSortedFunc(out, func(a, b Symbol) int { return strings.Compare(a.ID, b.ID) }) {
		sortStableInPlace(out, &n.order, func(a, b *Symbol) int { return strings.Compare(a.ID, b.ID) })
	}
	w := 0
	for i := range out {
		if w > 0 && out[w-1].ID == out[i].ID {
			mergeSymbol(&out[w-1], out[i])
			continue
		}
		out[w] = out[i]
		w++
	}
	return out[:w], nil
}

// occurrences appends in's occurrences to out, given path, in position
// order, those of one symbol at one range merged.
func (n *normalizer) occurrences(out []Occurrence, path string, in []Occurrence) ([]Occurrence, error) {
	for _, o := range in {
		if o.Symbol == "" {
			return out, fmt.Errorf("occurrence at %s has an empty symbol", o.Range)
		}
		if err := validID("symbol", o.Symbol); err != nil {
			return out, err
		}
		o.Path = path
		out = append(out, o)
	}
	if !slices.IsSortedFunc(out, compareOccurrences) { // producers mostly give them in order
		sortStableInPlace(out, &n.order, func(a, b *Occurrence) int { return compareOccurrences(*a, *b) })
	}
	// Merge occurrences of the same symbol at the same range.
	w := 0
	for i := range out {
		if w > 0 && out[w-1].Range == out[i].Range && out[w-1].Symbol == out[i].Symbol {
			out[w-1].Roles |= out[i].Roles
			out[w-1].Enclosing = cmp.Or(out[w-1].Enclosing, out[i].Enclosing)
			continue
		}
		out[w] = out[i]
		w++
	}
	return out[:w], nil
}

// sortStableInPlace sorts s stably by cmp, moving indexes (in *order,
// reused) rather than the elements, which are large to move, then each
// element once, along the permutation's cycles.
func sortStableInPlace[T any](s []T, order *[]int32, cmp func(a, b *T) int) {
	idx := slices.Grow((*order)[:0], len(s))[:len(s)]
	*order = idx
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := cmp(&s[a], &s[b]); c != 0 {
			return c
		}
		return int(a - b) // equal elements keep their order
	})
	permute(s, idx)
}

// permute moves s[idx[i]] to s[i] for every i, in place, along the
// permutation's cycles: each element moves once. idx is consumed (each
// position done is marked -1).
func permute[T any](s []T, idx []int32) {
	for i := range idx {
		if idx[i] < 0 {
			continue
		}
		if int(idx[i]) == i {
			idx[i] = -1
			continue
		}
		tmp := s[i]
		j := i
		for {
			k := int(idx[j])
			idx[j] = -1
			if k == i {
				s[j] = tmp
				break
			}
			s[j] = s[k]
			j = k
		}
	}
}

// compareOccurrences orders by path, range start, range end, symbol: the
// order of the doc-occ and ref keys.
func compareOccurrences(a, b Occurrence) int {
	// Not cmp.Or: its arguments, the paths and symbols, would all be
	// compared every time.
	if a.Path != b.Path {
		return strings.Compare(a.Path, b.Path)
	}
	if a.Range != b.Range {
		return cmp.Or(
			cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
			cmp.Compare(a.Range.Start.Col, b.Range.Start.Col),
			cmp.Compare(a.Range.End.Line, b.Range.End.Line),
			cmp.Compare(a.Range.End.Col, b.Range.End.Col),
		)
	}
	return strings.Compare(a.Symbol, b.Symbol)
}

// normalizeEdges appends in's edges to out, sorted by from, kind, to,
// duplicates merged.
func (n *normalizer) normalizeEdges(out, in []Edge) ([]Edge, error) {
	for _, e := range in {
		if e.From == "" || e.To == "" || e.Kind == "" {
			return out, fmt.Errorf("edge %q -%s-> %q lacks an end or a kind", e.From, e.Kind, e.To)
		}
		for _, s := range []string{e.From, e.To, string(e.Kind)} {
			if err := validID("edge field", s); err != nil {
				return out, err
			}
		}
		e.Count = max(e.Count, 1)
		e.Path, e.Layer = "", 0
		out = append(out, e)
	}
	if !slices.IsSortedFunc(out, compareEdgeKeys) {
		n.edge.sort(out)
	}
	w := 0
	for i := range out {
		if w > 0 && compareEdgeKeys(out[w-1], out[i]) == 0 {
			mergeEdge(&out[w-1], out[i])
			continue
		}
		out[w] = out[i]
		w++
	}
	return out[:w], nil
}

// maxEdgeRank bounds the distinct strings an edgeSorter ranks: three ranks
// share a number.
const maxEdgeRank = 1 << 21

// An edgeSorter sorts edges stably by from, kind, to in buffers it reuses.
// It ranks the distinct strings first, so that the sort compares numbers:
// a document's edges repeat few symbols, whose strings share long
// prefixes, and comparing them was most of the cost of normalizing a
// document.
type edgeSorter struct {
	first freelist.ScratchMap[string, uint32]
	strs  []string
	nums  [][3]uint32
	order []uint32
	rank  []uint64
	keyed []abbrEntry // an edge's index and its ranks as one number
	spare []abbrEntry // sortAbbrStable's scratch
	moved []int32
}

func (es *edgeSorter) sort(edges []Edge) {
	// Each distinct string gets a number in order of appearance (one map
	// look-up per field), then the numbers are mapped to the strings'
	// ranks in sorted order.
	es.first.Reset()
	strs := es.strs[:0]
	num := func(s string) uint32 {
		n, ok := es.first.M[s]
		if !ok {
			n = uint32(len(strs))
			es.first.M[s] = n
			strs = append(strs, s)
		}
		return n
	}
	nums := es.nums[:0]
	for i := range edges {
		e := &edges[i]
		nums = append(nums, [3]uint32{num(e.From), num(string(e.Kind)), num(e.To)})
	}
	es.strs, es.nums = strs, nums
	defer clear(es.strs) // the strings are the caller's
	if len(strs) > maxEdgeRank {
		sortStableInPlace(edges, &es.moved, func(a, b *Edge) int { return compareEdgeKeys(*a, *b) })
		return
	}
	order := es.order[:0]
	for i := range strs {
		order = append(order, uint32(i))
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(strs[a], strs[b]) })
	rank := slices.Grow(es.rank[:0], len(strs))[:len(strs)]
	for r, n := range order {
		rank[n] = uint64(r)
	}
	keyed := es.keyed[:0]
	for i, n := range nums {
		keyed = append(keyed, abbrEntry{abbr: rank[n[0]]<<42 | rank[n[1]]<<21 | rank[n[2]], i: uint32(i)})
	}
	// A stable sort of the edges in their order: equal keys keep it. A
	// radix sort that skips the bytes all keys share, where a comparison
	// sort of the (key, index) pairs took 40% of sorting the edges.
	spare := slices.Grow(es.spare[:0], len(keyed))[:len(keyed)]
	es.order, es.rank, es.keyed, es.spare = order, rank, keyed, spare
	sortAbbrStable(keyed, spare)
	moved := slices.Grow(es.moved[:0], len(keyed))[:len(keyed)]
	for j, r := range keyed {
		moved[j] = int32(r.i)
	}
	es.moved = moved
	permute(edges, moved)
}

// compareEdgeKeys orders edges by from, kind, to.
func compareEdgeKeys(a, b Edge) int {
	if a.From != b.From {
		return strings.Compare(a.From, b.From)
	}
	if a.Kind != b.Kind {
		return strings.Compare(string(a.Kind), string(b.Kind))
	}
	return strings.Compare(a.To, b.To)
}

// mergeEdge aggregates e into into: counts add; the most confident
// justification (the first among equals) gives the source, reason, path
// and layer.
func mergeEdge(into *Edge, e Edge) {
	into.Count += e.Count
	if e.Confidence > into.Confidence {
		into.Confidence, into.Source, into.Reason = e.Confidence, e.Source, e.Reason
		into.Path, into.Layer = e.Path, e.Layer
	}
}

// mergeSymbol folds s into into: a definition wins over an external
// reference target, then empty fields are filled.
func mergeSymbol(into *Symbol, s Symbol) {
	if into.External && !s.External {
		s, *into = *into, s
	}
	into.DisplayName = cmp.Or(into.DisplayName, s.DisplayName)
	into.Kind = cmp.Or(into.Kind, s.Kind)
	into.Language = cmp.Or(into.Language, s.Language)
	into.Package = cmp.Or(into.Package, s.Package)
	into.Signature = cmp.Or(into.Signature, s.Signature)
	into.Doc = cmp.Or(into.Doc, s.Doc)
	if into.Def.Path == "" {
		into.Def = s.Def
	}
	if into.DefExtent == (Symbol{}).DefExtent {
		into.DefExtent = s.DefExtent
	}
}

// recordSink receives the keys of a document's records.
type recordSink func(key, value []byte) error

// emitRecords produces every key a normalized document writes in space:
// the doc-first records and the indexes derived from them, their symbols
// given ids by ids. The same function serves writing and deleting, so they
// cannot disagree. key and value passed to sink are reused between calls.
// The symid records are the business of ids: the table is the space's,
// not the document's.
func emitRecords(space uint64, f *DocumentFacts, ids symIDs, sink recordSink) error {
	return new(recordEmitter).emit(space, f, ids, sink)
}

// emit is emitRecords in e's buffers, which it reuses from one call to the
// next.
func (e *recordEmitter) emit(space uint64, f *DocumentFacts, ids symIDs, sink recordSink) error {
	e.sink, e.ids, e.space, e.path, e.err, e.hashed = sink, ids, space, f.Document.Path, nil, true
	defer func() { e.sink, e.ids = nil, nil; e.given.reset() }() // e.given is empty between calls
	if pkg := f.Document.Package; pkg != "" {
		e.send(appendPkgKey(e.k[:0], space, pkg, e.path), nil)
	}
	for i := range f.Symbols {
		e.symbol(&f.Symbols[i])
	}
	if len(f.Symbols) > 0 {
		e.put(appendDocSymsKey(e.k[:0], space, e.path), appendDocSymsValue(e.v[:0], f.Symbols))
	}
	e.occurrences(f.Occurrences)
	if len(f.Occurrences) > 0 {
		e.put(appendDocOccKey(e.k[:0], space, e.path), appendDocOccsValue(e.v[:0], f.Occurrences))
	}
	e.edges(f.Edges)
	if len(f.Edges) > 0 {
		e.put(appendDocEdgeKey(e.k[:0], space, e.path), appendDocEdgesValue(e.v[:0], f.Edges))
	}
	e.terms(f.Terms)
	if len(f.Lookups) > 0 {
		e.send(appendDocLookupsKey(e.k[:0], space, e.path), f.Lookups)
	}
	// Last: it says whether every id given above was a hash.
	e.put(appendDocKey(e.k[:0], space, e.path), appendDocValue(e.v[:0], &f.Document, e.hashed))
	return e.err
}

func appendDocLookupsKey(dst []byte, space uint64, path string) []byte {
	return append(appendPrefix(dst, space, kindDocLookups), path...)
}

// recordEmitter builds keys in reused buffers; the first sink error sticks.
type recordEmitter struct {
	sink  recordSink
	ids   symIDs
	space uint64
	path  string
	k, v  []byte
	err   error
	refs  []refEntry  // a document's indexed occurrences
	group []edgeEntry // a document's edges, grouped by an end
	// grouped holds refs, inGroups the in-group edges, grouped by symbol
	// (groupBySym, with grouping's scratch).
	grouped  []refEntry
	inGroups []edgeEntry
	grouping groupScratch
	strs     []string // scratch for an edges value's string table
	// hashed: every id given to the document so far is its symbol's hash.
	hashed bool
	// given holds ids given by ids in this call of emit.
	given stringMemo[givenID]
}

// givenID is an id symIDs gave, and whether it was the symbol's hash.
type givenID struct {
	id     uint64
	hashed bool
}

// put hands the sink a record built in e's buffers, which k and v
// become for the next one.
func (e *recordEmitter) put(k, v []byte) {
	e.v = v
	e.send(k, v)
}

// send hands the sink a record whose value is not e's buffer (none, or
// the caller's bytes, which e must not write into afterwards).
func (e *recordEmitter) send(k, v []byte) {
	e.k = k
	if e.err == nil {
		e.err = e.sink(k, v)
	}
}

// id returns sym's id; the first error sticks.
func (e *recordEmitter) id(sym string) uint64 {
	if e.err != nil {
		return 0
	}
	if g, ok := e.given.get(sym); ok {
		return g.id // e.hashed already counted it
	}
	id, hashed, err := e.ids.symID(sym)
	if err != nil {
		e.err = err
		return id
	}
	e.given.put(sym, givenID{id, hashed})
	e.hashed = e.hashed && hashed
	return id
}

func (e *recordEmitter) symbol(s *Symbol) {
	if DocLocal(s.ID, e.path) {
		return
	}
	v := appendSymbolValue(e.v[:0], s)
	id := e.id(s.ID)
	e.put(appendSymKey(e.k[:0], e.space, id, e.path), v)
	if s.DisplayName != "" {
		e.put(appendNameKey(e.k[:0], e.space, s.DisplayName, id, e.path), v[:0])
	}
}

// occurrences puts a def record per definition and a ref record per
// symbol the document's occurrences (in position order) mention, both
// for symbols not local to the document.
func (e *recordEmitter) occurrences(occs []Occurrence) {
	e.refs = e.refs[:0]
	// Occurrences in a row mostly share their enclosing symbol: its id is
	// asked for once per run.
	var lastEnc string
	var lastEncID uint64
	for i := range occs {
		o := &occs[i]
		if DocLocal(o.Symbol, e.path) {
			continue
		}
		r := refEntry{sym: e.id(o.Symbol), occ: i}
		if o.Enclosing != "" {
			if o.Enclosing != lastEnc {
				lastEnc, lastEncID = o.Enclosing, e.id(o.Enclosing)
			}
			r.enclosing, r.hasEnc = lastEncID, true
		}
		if o.Roles&RoleDefinition != 0 {
			v := appendOccValue(e.v[:0], o.Roles, r.enclosing, r.hasEnc)
			e.put(appendDefKey(e.k[:0], e.space, r.sym, e.path, o.Range), v)
		}
		e.refs = append(e.refs, r)
	}
	// Each group keeps position order.
	e.grouped = groupBySym(e.grouped[:0], e.refs, func(r *refEntry) uint64 { return r.sym }, &e.grouping)
	for g := range groupsOf(e.grouped, func(r refEntry) uint64 { return r.sym }) {
		e.put(appendRefKey(e.k[:0], e.space, g[0].sym, e.path), appendRefsValue(e.v[:0], occs, g))
	}
}

// edges puts an out record per symbol the document's edges (normalized:
// in from, kind, to order) leave, and an in record per symbol they reach.
func (e *recordEmitter) edges(edges []Edge) {
	e.group = e.group[:0]
	for i := range edges {
		ed := &edges[i]
		e.group = append(e.group, edgeEntry{sym: e.id(ed.From), other: e.id(ed.To), edge: i})
	}
	for g := range groupsOf(e.group, func(x edgeEntry) uint64 { return x.sym }) {
		e.put(appendEdgeKey(e.k[:0], e.space, kindOut, g[0].sym, e.path), appendEdgesValue(e.v[:0], edges, g, &e.strs))
	}
	for i := range e.group {
		x := &e.group[i]
		x.sym, x.other = x.other, x.sym
	}
	// Each group keeps from, kind order.
	e.inGroups = groupBySym(e.inGroups[:0], e.group, func(x *edgeEntry) uint64 { return x.sym }, &e.grouping)
	for g := range groupsOf(e.inGroups, func(x edgeEntry) uint64 { return x.sym }) {
		e.put(appendEdgeKey(e.k[:0], e.space, kindIn, g[0].sym, e.path), appendEdgesValue(e.v[:0], edges, g, &e.strs))
	}
}

// groupsOf yields the runs of s with equal keys.
func groupsOf[T any](s []T, key func(T) uint64) func(yield func([]T) bool) {
	return func(yield func([]T) bool) {
		for i := 0; i < len(s); {
			j := i + 1
			for j < len(s) && key(s[j]) == key(s[i]) {
				j++
			}
			if !yield(s[i:j]) {
				return
			}
			i = j
		}
	}
}

// readDocFacts reads back what a document wrote in space from its
// doc-first records. ok is false when the document is absent.
func readDocFacts(ctx context.Context, r kvReader, space uint64, path string) (f DocumentFacts, ok bool, err error) {
	f, _, ok, err = readDocFactsHashed(ctx, r, space, path)
	return f, ok, err
}

// readDocFactsHashed is readDocFacts, and whether the document's record
// says that every id its records hold is its symbol's hash
// (docIDsHashed).
func readDocFactsHashed(ctx context.Context, r kvReader, space uint64, path string) (f DocumentFacts, hashed, ok bool, err error) {
	v, ok, err := get(r, appendDocKey(nil, space, path))
	if err != nil || !ok {
		return f, false, false, err
	}
	if f.Document, hashed, err = decodeDocValueHashed(path, v); err != nil {
		return f, false, false, err
	}
	if f.Symbols, err = readDocSymbols(ctx, r, space, path); err != nil {
		return f, false, false, err
	}
	if f.Occurrences, err = readDocOccurrences(ctx, r, space, path, nil); err != nil {
		return f, false, false, err
	}
	if f.Edges, err = readDocEdges(ctx, r, space, path); err != nil {
		return f, false, false, err
	}
	if f.Terms, err = readDocTerms(ctx, r, space, path); err != nil {
		return f, false, false, err
	}
	if v, ok, err := get(r, appendDocLookupsKey(nil, space, path)); err != nil {
		return f, false, false, err
	} else if ok {
		f.Lookups = v
	}
	return f, hashed, true, nil
}

func readDocSymbols(ctx context.Context, r kvReader, space uint64, path string) ([]Symbol, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Symbol
	_, err := view(r, appendDocSymsKey(nil, space, path), func(v []byte) error {
		var err error
		out, err = decodeDocSymsValue(path, v)
		return err
	})
	return out, err
}

// readDocSymbol reads one symbol of a document, decoding only it.
func readDocSymbol(r kvReader, space uint64, path, id string) (s Symbol, found bool, err error) {
	_, err = view(r, appendDocSymsKey(nil, space, path), func(v []byte) error {
		return eachDocSym(path, v, func(k, v []byte) error {
			if string(k) != id {
				return nil
			}
			var err error
			s, err = decodeSymbolValue(id, v)
			found = true
			return cmp.Or(err, errStop)
		})
	})
	return s, found, err
}

// readDocOccurrences reads a document's occurrences in position order,
// stopping before the first one starting after line stopAfter (if set).
func readDocOccurrences(ctx context.Context, r kvReader, space uint64, path string, stopAfter *uint32) ([]Occurrence, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, ok, err := get(r, appendDocOccKey(nil, space, path))
	if err != nil || !ok {
		return nil, err
	}
	return decodeDocOccsValue(path, v, stopAfter)
}

func readDocEdges(ctx context.Context, r kvReader, space uint64, path string) ([]Edge, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, ok, err := get(r, appendDocEdgeKey(nil, space, path))
	if err != nil || !ok {
		return nil, err
	}
	return decodeDocEdgesValue(path, v)
}
