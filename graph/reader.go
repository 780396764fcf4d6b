package graph

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Reader reads one consistent snapshot of the graph. The live layer hides
// the base facts of every document it owns. A Reader is safe for concurrent
// use. Close it when done (closing the Store closes it too): it pins the
// snapshot's data on disk.
type Reader struct {
	store   *Store
	snap    *pebble.Snapshot
	closed  atomic.Bool
	baseGen uint64              // current base generation, 0 if none
	live    map[string]Document // documents the live layer owns
	layers  []layerSpace        // live first, then base when present
	// parent is the reader whose snapshot a view (BaseView) shares.
	parent  *Reader
	version uint64 // the store's Version in the snapshot
	// baseVersion is the Version of the last write that changed the base
	// layer, 0 when the store does not record it.
	baseVersion uint64

	// manifests caches the snapshot's manifests by layer (a snapshot's
	// never change), so callers asking per query decode them once.
	manifestMu sync.Mutex
	manifests  map[Layer]cachedManifest

	symCache symCache  // symbol ids of the live layer translated so far
	genSyms  *symCache // those of the base generation, shared (Store.genSymCache)

	// iters are idle iterators on snap, lent out again by scans: a
	// ranking makes thousands of small scans, and re-bounding an open
	// iterator costs less than opening and closing one.
	itersMu sync.Mutex
	iters   []*pebble.Iterator
}

// maxIdleIters bounds the idle iterators a Reader keeps (one per
// concurrent scan, nested ones included).
const maxIdleIters = 8

type cachedManifest struct {
	m  Manifest
	ok bool
}

// Version is the store's Version in the reader's snapshot: readers of one
// version, in any process, see the same facts.
func (r *Reader) Version() uint64 { return r.version }

// BaseVersion is the Version of the last write that changed what the
// reader sees of the base layer (a generation switched to, a patch, a base
// document written), 0 when the store does not record it. Two readers of
// the same BaseVersion see the same base layer; they differ at most in the
// live layer.
func (r *Reader) BaseVersion() uint64 { return r.baseVersion }

// layerSpace pairs a layer with the space holding it in this snapshot.
type layerSpace struct {
	layer Layer
	space uint64
}

// Reader returns a reader pinned to a consistent snapshot. Close it.
func (s *Store) Reader() (*Reader, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	s.readersMu.Lock()
	defer s.readersMu.Unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	r := &Reader{store: s, snap: s.db.NewSnapshot(), live: map[string]Document{}}
	if err := r.load(); err != nil {
		_ = r.snap.Close()
		return nil, fmt.Errorf("graph: opening a reader on %s: %w", s.dir, err)
	}
	s.readers[r] = struct{}{}
	return r, nil
}

// kv returns what reads go to: the snapshot, or after Close a reader that
// fails with ErrClosed.
func (r *Reader) kv() kvReader {
	if r.parent != nil {
		return r.parent.kv()
	}
	if r.closed.Load() {
		return closedKV{}
	}
	return snapKV{r}
}

// snapKV is a Reader's snapshot, lending its idle iterators to scans.
type snapKV struct{ r *Reader }

func (s snapKV) NewIter(o *pebble.IterOptions) (*pebble.Iterator, error) { return s.r.snap.NewIter(o) }
func (s snapKV) Get(k []byte) ([]byte, io.Closer, error)                 { return s.r.snap.Get(k) }

func (s snapKV) iter(lower, upper []byte) (*pebble.Iterator, error) {
	r := s.r
	r.itersMu.Lock()
	if n := len(r.iters); n > 0 {
		it := r.iters[n-1]
		r.iters = r.iters[:n-1]
		r.itersMu.Unlock()
		it.SetBounds(lower, upper)
		return it, nil
	}
	r.itersMu.Unlock()
	return r.snap.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
}

// release keeps an iterator for the next scan, or closes it once the
// reader is closed (or enough are idle).
func (s snapKV) release(it *pebble.Iterator) error {
	r := s.r
	r.itersMu.Lock()
	if !r.closed.Load() && len(r.iters) < maxIdleIters && it.Error() == nil {
		r.iters = append(r.iters, it)
		r.itersMu.Unlock()
		return nil
	}
	r.itersMu.Unlock()
	return it.Close()
}

// closedKV is the kvReader of a closed Reader.
type closedKV struct{}

func (closedKV) NewIter(*pebble.IterOptions) (*pebble.Iterator, error) { return nil, ErrClosed }
func (closedKV) Get([]byte) ([]byte, io.Closer, error)                 { return nil, nil, ErrClosed }

// load reads the current generation and the live layer's documents.
func (r *Reader) load() error {
	gen, err := currentGen(r.kv())
	if err != nil {
		return err
	}
	r.baseGen = gen
	if r.version, err = readVersion(r.kv()); err != nil {
		return err
	}
	if r.baseVersion, err = readCounter(r.kv(), kindBaseVersion, "base version"); err != nil {
		return err
	}
	prefix := appendPrefix(nil, spaceLive, kindDoc)
	err = scanPrefix(context.Background(), r.kv(), prefix, func(k, v []byte) error {
		d, err := decodeDocValue(string(k[len(prefix):]), v)
		d.Layer = Live
		r.live[d.Path] = d
		return err
	})
	// Every live record belongs to a live document: without any, the live
	// space is empty and reads skip it.
	if len(r.live) > 0 {
		r.layers = append(r.layers, layerSpace{Live, spaceLive})
	}
	if gen != 0 {
		r.layers = append(r.layers, layerSpace{Base, genSpace(gen)})
		r.genSyms = r.store.genSymCache(genSpace(gen))
	}
	return err
}

// base returns the base layer's space, if there is a base generation.
func (r *Reader) base() (layerSpace, bool) {
	if n := len(r.layers); n > 0 && r.layers[n-1].layer == Base {
		return r.layers[n-1], true
	}
	return layerSpace{}, false
}

// Close releases the snapshot; reads that reach the store afterwards fail
// with ErrClosed.
// Closing twice does nothing.
func (r *Reader) Close() error {
	if r.parent != nil {
		return nil // a view: its parent holds the snapshot
	}
	r.store.readersMu.Lock()
	defer r.store.readersMu.Unlock()
	return r.closeLocked()
}

// closeLocked closes the snapshot; the caller holds r.store.readersMu.
func (r *Reader) closeLocked() error {
	if r.closed.Swap(true) {
		return nil
	}
	delete(r.store.readers, r)
	r.itersMu.Lock()
	var err error
	for _, it := range r.iters {
		err = cmp.Or(err, it.Close())
	}
	r.iters = nil
	r.itersMu.Unlock()
	return cmp.Or(err, r.snap.Close())
}

// BaseView returns a view of r's snapshot without the live layer: the
// base generation as it was imported or indexed, as the graph stood before
// the work tree and the editor's buffers changed it. It shares r's
// snapshot, so it needs no Close, and its reads fail once r is closed.
func (r *Reader) BaseView() *Reader {
	v := &Reader{store: r.store, snap: r.snap, baseGen: r.baseGen, live: map[string]Document{}, parent: r, version: r.version, baseVersion: r.baseVersion}
	if ls, ok := r.base(); ok {
		v.layers = []layerSpace{ls}
	}
	return v
}

// BaseGeneration returns the base generation the reader sees, 0 if none.
func (r *Reader) BaseGeneration() uint64 { return r.baseGen }

// LiveDocuments returns the paths the live layer owns, sorted.
func (r *Reader) LiveDocuments() []string {
	return slices.Sorted(maps.Keys(r.live))
}

// hidden reports whether a record of path in ls is masked by the live layer.
func (r *Reader) hidden(ls layerSpace, path string) bool {
	if ls.layer != Base {
		return false
	}
	_, ok := r.live[path]
	return ok
}

// hiddenBytes is hidden for a path still in a key's bytes.
func (r *Reader) hiddenBytes(ls layerSpace, path []byte) bool {
	if ls.layer != Base || len(r.live) == 0 {
		return false
	}
	_, ok := r.live[string(path)]
	return ok
}

// owner returns the layer serving path's document facts.
func (r *Reader) owner(path string) (layerSpace, bool) {
	if _, ok := r.live[path]; ok {
		return layerSpace{Live, spaceLive}, true
	}
	return r.base()
}

// Manifest returns a layer's manifest. The snapshot's manifests are read
// once per Reader (views share their parent's); each call returns a copy.
func (r *Reader) Manifest(layer Layer) (Manifest, bool, error) {
	root := r
	if r.parent != nil {
		root = r.parent
	}
	if root.closed.Load() {
		return readManifest(closedKV{}, layer)
	}
	root.manifestMu.Lock()
	defer root.manifestMu.Unlock()
	c, hit := root.manifests[layer]
	if !hit {
		m, ok, err := readManifest(root.kv(), layer)
		if err != nil {
			return Manifest{}, false, err
		}
		c = cachedManifest{m, ok}
		if root.manifests == nil {
			root.manifests = map[Layer]cachedManifest{}
		}
		root.manifests[layer] = c
	}
	m := c.m
	m.ToolArgs = slices.Clone(m.ToolArgs)
	m.Extra = maps.Clone(m.Extra)
	return m, c.ok, nil
}

// Symbol returns the symbol with that id, merged over the documents that
// describe it (live records first, then base ones, each in path order).
func (r *Reader) Symbol(ctx context.Context, id string) (Symbol, bool, error) {
	return r.symbolFrom(ctx, id, nil)
}

// symbolFrom is Symbol, appending to *from (when not nil) the path of
// each record it read.
func (r *Reader) symbolFrom(ctx context.Context, id string, from *[]string) (Symbol, bool, error) {
	var merged Symbol
	found := false
	for _, ls := range r.layers {
		sid, indexed, err := r.symID(ls.space, id)
		if err == nil && indexed {
			prefix := appendSymPrefix(nil, ls.space, kindSym, sid)
			err = scanPrefix(ctx, r.kv(), prefix, func(k, v []byte) error {
				if r.hidden(ls, string(k[len(prefix):])) {
					return nil
				}
				s, err := decodeSymbolValue(id, v)
				if err != nil {
					return err
				}
				if from != nil {
					*from = append(*from, string(k[len(prefix):]))
				}
				if !found {
					merged, found = s, true
				} else {
					mergeSymbol(&merged, s)
				}
				return nil
			})
		}
		if err != nil {
			return Symbol{}, false, fmt.Errorf("graph: reading symbol %q: %w", id, err)
		}
		if p, ok := localPath(id); ok && !r.hidden(ls, p) {
			// A symbol local to p is in its doc-syms record only.
			s, ok, err := readDocSymbol(r.kv(), ls.space, p, id)
			if err != nil {
				return Symbol{}, false, fmt.Errorf("graph: reading symbol %q: %w", id, err)
			}
			if ok {
				if from != nil {
					*from = append(*from, p)
				}
				if !found {
					merged, found = s, true
				} else {
					mergeSymbol(&merged, s)
				}
			}
		}
	}
	return merged, found, nil
}

// SymbolsAt returns the occurrences in path whose range contains pos,
// innermost first.
func (r *Reader) SymbolsAt(ctx context.Context, path string, pos textpos.Position) ([]Occurrence, error) {
	ls, ok := r.owner(path)
	if !ok {
		return nil, nil
	}
	occs, err := readDocOccurrences(ctx, r.kv(), ls.space, path, &pos.Line)
	if err != nil {
		return nil, fmt.Errorf("graph: reading occurrences of %q: %w", path, err)
	}
	out := occs[:0]
	for _, o := range occs {
		if o.Range.Contains(pos) {
			out = append(out, o)
		}
	}
	slices.SortStableFunc(out, compareInnermost)
	return out, nil
}

// compareInnermost orders ranges that contain one point: the one spanning
// fewer lines, then fewer columns, then starting later comes first.
func compareInnermost(a, b Occurrence) int {
	la, lb := a.Range.End.Line-a.Range.Start.Line, b.Range.End.Line-b.Range.Start.Line
	if la != lb {
		return cmp.Compare(la, lb)
	}
	if la == 0 {
		if c := cmp.Compare(a.Range.End.Col-a.Range.Start.Col, b.Range.End.Col-b.Range.Start.Col); c != 0 {
			return c
		}
	}
	if a.Range.Start != b.Range.Start {
		if b.Range.Start.Before(a.Range.Start) {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.Symbol, b.Symbol)
}

// FindSymbols finds symbols by display name, exactly or by prefix, case
// sensitive, at most limit (0: no limit), ordered by name then id. Symbols
// local to a document ("local 4 a/b.go" in a/b.go) are not found by name.
func (r *Reader) FindSymbols(ctx context.Context, name string, prefix bool, limit int) ([]Symbol, error) {
	hits, err := r.nameHits(ctx, name, prefix, limit, false)
	if err != nil {
		return nil, fmt.Errorf("graph: finding symbols named %q: %w", name, err)
	}
	out := make([]Symbol, 0, len(hits))
	for _, h := range hits {
		s, ok, err := r.Symbol(ctx, h.id)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// FindSymbolIDs returns the ids of the symbols FindSymbols finds, in its
// order, and the paths of the documents holding the name records that
// found them, sorted. A cache that keeps the ids from one reader to the
// next looks the name up again when one of those documents changed
// (LiveChangedSince, BaseChangedSince), or when a changed document now has
// a symbol of the name (the document hidden by the live layer, or with no
// such record before, is not among from).
func (r *Reader) FindSymbolIDs(ctx context.Context, name string, prefix bool, limit int) (ids, from []string, err error) {
	hits, err := r.nameHits(ctx, name, prefix, limit, true)
	if err != nil {
		return nil, nil, fmt.Errorf("graph: finding symbols named %q: %w", name, err)
	}
	ids = make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.id
		from = append(from, h.paths...)
	}
	slices.Sort(from)
	return ids, slices.Compact(from), nil
}

// SymbolFrom is Symbol, with the paths of the documents whose records
// made it, sorted: a cache keeping it reads it again when one of them
// changed, or a changed document now has a record of it.
func (r *Reader) SymbolFrom(ctx context.Context, id string) (s Symbol, found bool, from []string, err error) {
	s, found, err = r.symbolFrom(ctx, id, &from)
	slices.Sort(from)
	return s, found, slices.Compact(from), err
}

// nameHit is a symbol found by name, and the documents of its name
// records.
type nameHit struct {
	name, id string
	paths    []string
}

// nameHits returns the first limit (name, id) pairs of the name index in
// order, over the visible records of every layer, with their records'
// paths when paths is set.
func (r *Reader) nameHits(ctx context.Context, name string, prefix bool, limit int, paths bool) ([]nameHit, error) {
	var hits []nameHit
	at := map[[2]string]int{} // a hit's place in hits
	for _, ls := range r.layers {
		key := append(appendPrefix(nil, ls.space, kindName), name...)
		if !prefix {
			key = append(key, 0)
		}
		n := 0 // new hits in this layer; each layer's first limit suffice
		err := scanPrefix(ctx, r.kv(), key, func(k, v []byte) error {
			d, ok := decodeKey(k)
			if !ok {
				return fmt.Errorf("%w: name key %q", errBadValue, k)
			}
			if r.hidden(ls, d.fields[1]) {
				return nil
			}
			id, err := r.symName(ls.space, d.syms[0])
			if err != nil {
				return err
			}
			h := [2]string{d.fields[0], id}
			i, seen := at[h]
			if !seen {
				i, at[h] = len(hits), len(hits)
				hits = append(hits, nameHit{name: h[0], id: h[1]})
			}
			if paths {
				hits[i].paths = append(hits[i].paths, d.fields[1])
			}
			if seen {
				return nil
			}
			if n++; limit > 0 && n >= limit {
				return errStop
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(hits, func(a, b nameHit) int { return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.id, b.id)) })
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// Definitions returns the definition occurrences of a symbol, ordered by
// path and position.
func (r *Reader) Definitions(ctx context.Context, id string) ([]Occurrence, error) {
	defs, err := r.occurrencesOf(ctx, kindDef, id, 0)
	if err != nil {
		return nil, fmt.Errorf("graph: reading definitions of %q: %w", id, err)
	}
	return defs, nil
}

// References returns every occurrence of a symbol (definitions included),
// with its enclosing symbol, ordered by path and position, at most limit
// (0: no limit).
func (r *Reader) References(ctx context.Context, id string, limit int) ([]Occurrence, error) {
	refs, err := r.occurrencesOf(ctx, kindRef, id, limit)
	if err != nil {
		return nil, fmt.Errorf("graph: reading references of %q: %w", id, err)
	}
	return refs, nil
}

// occurrencesOf reads the ref or def index of a symbol in every layer, and
// for a symbol local to a document, that document's occurrences of it.
func (r *Reader) occurrencesOf(ctx context.Context, k kind, id string, limit int) ([]Occurrence, error) {
	var out []Occurrence
	for _, ls := range r.layers {
		if p, ok := localPath(id); ok && !r.hidden(ls, p) {
			occs, err := readDocOccurrences(ctx, r.kv(), ls.space, p, nil)
			if err != nil {
				return nil, err
			}
			for _, o := range occs {
				if o.Symbol == id && (k != kindDef || o.Roles&RoleDefinition != 0) {
					out = append(out, o)
				}
			}
		}
		sid, ok, err := r.symID(ls.space, id)
		if err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		prefix := appendSymPrefix(nil, ls.space, k, sid)
		n := 0
		// The enclosing symbols are named together after the scan.
		type enclosed struct {
			i  int
			id uint64
		}
		var encs []enclosed
		add := func(o Occurrence, enc uint64, hasEnc bool) bool {
			if hasEnc {
				encs = append(encs, enclosed{len(out), enc})
			}
			out = append(out, o)
			n++
			return limit <= 0 || n < limit
		}
		err = scanPrefix(ctx, r.kv(), prefix, func(key, v []byte) error {
			rest := key[len(prefix):]
			if k == kindRef {
				// A refs group: the symbol's occurrences in one document.
				if bytes.IndexByte(rest, 0) >= 0 {
					return fmt.Errorf("%w: reference key %q", errBadValue, key)
				}
				path := string(rest)
				if r.hidden(ls, path) {
					return nil
				}
				more := true
				err := decodeRefsValue(v, func(rng textpos.Range, roles Role, enc uint64, hasEnc bool) bool {
					more = add(Occurrence{Path: path, Range: rng, Symbol: id, Roles: roles}, enc, hasEnc)
					return more
				})
				if err != nil {
					return fmt.Errorf("%w of %q", err, id)
				}
				if !more {
					return errStop
				}
				return nil
			}
			i := bytes.IndexByte(rest, 0)
			if i < 0 || len(rest) != i+17 {
				return fmt.Errorf("%w: definition key %q", errBadValue, key)
			}
			path := string(rest[:i])
			if r.hidden(ls, path) {
				return nil
			}
			roles, enc, hasEnc, err := decodeOccValue(v)
			if err != nil {
				return fmt.Errorf("%w of %q", err, id)
			}
			if !add(Occurrence{Path: path, Range: decodePos(rest[i+1:]), Symbol: id, Roles: roles}, enc, hasEnc) {
				return errStop
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		ids := make([]uint64, len(encs))
		for i, e := range encs {
			ids[i] = e.id
		}
		names, err := r.symNames(ls.space, ids)
		if err != nil {
			return nil, err
		}
		for i, e := range encs {
			out[e.i].Enclosing = names[i]
		}
	}
	slices.SortFunc(out, compareOccurrences)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Occurrences returns the occurrences of one document, in position order.
func (r *Reader) Occurrences(ctx context.Context, path string) ([]Occurrence, error) {
	ls, ok := r.owner(path)
	if !ok {
		return nil, nil
	}
	occs, err := readDocOccurrences(ctx, r.kv(), ls.space, path, nil)
	if err != nil {
		return nil, fmt.Errorf("graph: reading occurrences of %q: %w", path, err)
	}
	return occs, nil
}

// EachOccurrence calls fn for each of a document's occurrences, as
// Occurrences returns them but without a copy of each: fn's Occurrence
// (its strings) is valid only during the call.
func (r *Reader) EachOccurrence(ctx context.Context, path string, fn func(o Occurrence) error) error {
	ls, ok := r.owner(path)
	if !ok {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := view(r.kv(), appendDocOccKey(nil, ls.space, path), func(v []byte) error {
		return eachDocOcc(path, v, true, func(int) {}, fn)
	})
	if err != nil {
		return fmt.Errorf("graph: reading occurrences of %q: %w", path, err)
	}
	return nil
}

// DocumentEdges returns the edges a document justifies, from the layer
// that owns it.
func (r *Reader) DocumentEdges(ctx context.Context, path string) ([]Edge, error) {
	ls, ok := r.owner(path)
	if !ok {
		return nil, nil
	}
	edges, err := readDocEdges(ctx, r.kv(), ls.space, path)
	if err != nil {
		return nil, fmt.Errorf("graph: reading edges of %q: %w", path, err)
	}
	for i := range edges {
		edges[i].Path, edges[i].Layer = path, ls.layer
	}
	return edges, nil
}

// DocumentSymbols returns the symbols a document defines, by id.
func (r *Reader) DocumentSymbols(ctx context.Context, path string) ([]Symbol, error) {
	ls, ok := r.owner(path)
	if !ok {
		return nil, nil
	}
	syms, err := readDocSymbols(ctx, r.kv(), ls.space, path)
	if err != nil {
		return nil, fmt.Errorf("graph: reading symbols of %q: %w", path, err)
	}
	return syms, nil
}

// EachDocumentSymbol calls fn with every symbol of a document, as
// DocumentSymbols returns them, without a copy of each: the strings of s
// share the store's memory and are valid only during the call, so fn
// copies what it keeps.
func (r *Reader) EachDocumentSymbol(ctx context.Context, path string, fn func(s Symbol) error) error {
	ls, ok := r.owner(path)
	if !ok {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := view(r.kv(), appendDocSymsKey(nil, ls.space, path), func(v []byte) error {
		return eachBorrowedDocSym(path, v, fn)
	})
	if err != nil {
		return fmt.Errorf("graph: reading symbols of %q: %w", path, err)
	}
	return nil
}

// EachSymbolByDocument is EachDocumentSymbol for every visible document,
// one document after another in path order (as Documents lists them):
// the base layer's are read in one scan instead of a read each. fn's
// Symbol borrows as EachDocumentSymbol's does.
func (r *Reader) EachSymbolByDocument(ctx context.Context, fn func(path string, s Symbol) error) error {
	live := r.LiveDocuments()
	liveBefore := func(path string, all bool) error {
		for len(live) > 0 && (all || live[0] < path) {
			p := live[0]
			live = live[1:]
			if err := r.EachDocumentSymbol(ctx, p, func(s Symbol) error { return fn(p, s) }); err != nil {
				return err
			}
		}
		return nil
	}
	if ls, ok := r.base(); ok {
		prefix := appendPrefix(nil, ls.space, kindDocSym)
		err := scanPrefix(ctx, r.kv(), prefix, func(k, v []byte) error {
			path := string(k[len(prefix):])
			if err := liveBefore(path, false); err != nil || r.hidden(ls, path) {
				return err
			}
			return eachBorrowedDocSym(path, v, func(s Symbol) error { return fn(path, s) })
		})
		if err != nil {
			return fmt.Errorf("graph: reading the documents' symbols: %w", err)
		}
	}
	return liveBefore("", true)
}

// BaseDocumentSymbols returns the symbols the base layer's version of a
// document defines, by id, even when the live layer owns (and hides) the
// document: what the document defined at the base commit.
func (r *Reader) BaseDocumentSymbols(ctx context.Context, path string) ([]Symbol, error) {
	ls, ok := r.base()
	if !ok {
		return nil, nil
	}
	syms, err := readDocSymbols(ctx, r.kv(), ls.space, path)
	if err != nil {
		return nil, fmt.Errorf("graph: reading base symbols of %q: %w", path, err)
	}
	return syms, nil
}

// BaseDocumentEdges returns the edges the base layer's version of a
// document justifies, even when the live layer owns (and hides) it.
func (r *Reader) BaseDocumentEdges(ctx context.Context, path string) ([]Edge, error) {
	ls, ok := r.base()
	if !ok {
		return nil, nil
	}
	edges, err := readDocEdges(ctx, r.kv(), ls.space, path)
	if err != nil {
		return nil, fmt.Errorf("graph: reading base edges of %q: %w", path, err)
	}
	for i := range edges {
		edges[i].Path, edges[i].Layer = path, Base
	}
	return edges, nil
}

// Document returns a document's record from the layer that owns it.
func (r *Reader) Document(ctx context.Context, path string) (Document, bool, error) {
	if d, ok := r.live[path]; ok {
		return d, true, nil
	}
	ls, ok := r.base()
	if !ok {
		return Document{}, false, nil
	}
	v, ok, err := get(r.kv(), appendDocKey(nil, ls.space, path))
	if err != nil || !ok {
		return Document{}, false, err
	}
	d, err := decodeDocValue(path, v)
	d.Layer = Base
	return d, err == nil, err
}

// Documents calls fn for every visible document in path order.
func (r *Reader) Documents(ctx context.Context, fn func(Document) error) error {
	live := r.LiveDocuments()
	emitLiveBefore := func(path string, all bool) error {
		for len(live) > 0 && (all || live[0] < path) {
			if err := fn(r.live[live[0]]); err != nil {
				return err
			}
			live = live[1:]
		}
		return nil
	}
	if ls, ok := r.base(); ok {
		prefix := appendPrefix(nil, ls.space, kindDoc)
		err := scanPrefix(ctx, r.kv(), prefix, func(k, v []byte) error {
			path := string(k[len(prefix):])
			if err := emitLiveBefore(path, false); err != nil || r.hidden(ls, path) {
				return err
			}
			d, err := decodeDocValue(path, v)
			if err != nil {
				return err
			}
			d.Layer = Base
			return fn(d)
		})
		if err != nil {
			return err
		}
	}
	return emitLiveBefore("", true)
}

// DocumentsOfPackage returns the paths of the documents of a package, sorted.
func (r *Reader) DocumentsOfPackage(ctx context.Context, pkg string) ([]string, error) {
	var out []string
	for p, d := range r.live {
		if d.Package == pkg {
			out = append(out, p)
		}
	}
	if ls, ok := r.base(); ok {
		prefix := appendField(appendPrefix(nil, ls.space, kindPkg), pkg)
		err := scanPrefix(ctx, r.kv(), prefix, func(k, v []byte) error {
			if path := string(k[len(prefix):]); !r.hidden(ls, path) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("graph: reading documents of package %q: %w", pkg, err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Packages returns every package that has visible documents, sorted.
func (r *Reader) Packages(ctx context.Context) ([]string, error) {
	set := map[string]bool{}
	for _, d := range r.live {
		if d.Package != "" {
			set[d.Package] = true
		}
	}
	if ls, ok := r.base(); ok {
		err := scanPrefix(ctx, r.kv(), appendPrefix(nil, ls.space, kindPkg), func(k, v []byte) error {
			d, ok := decodeKey(k)
			if !ok {
				return fmt.Errorf("%w: package key %q", errBadValue, k)
			}
			if !r.hidden(ls, d.fields[1]) {
				set[d.fields[0]] = true
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("graph: reading packages: %w", err)
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}
