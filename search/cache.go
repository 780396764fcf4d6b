package search

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/terms"
)

// Cache keeps what searches of one store read again and again, so a
// search reads only what changed since the last: the reference links,
// package and named definitions of each document, per base generation,
// read again only for the documents that changed in place since
// (graph.Reader.BaseChangedSince, LiveChangedSince); per store version,
// the term statistics (the store keeps the base layer's part); and each
// package's importers, kept across live writes while the base layer holds
// but for the packages that the changed live documents import, before and
// now. A search with a Cache answers exactly as one without. Use one
// Cache per store; it is safe for concurrent searches.
type Cache struct {
	mu      sync.Mutex
	baseGen uint64
	ids     map[string]uint32 // symbol → its number in docLinks
	// base and live hold what was read of the documents each layer owns
	// at version.
	base, live docFacts
	version    uint64
	stats      *graph.TermStats
	deps       map[string]float64 // package symbol → importing packages
	// baseVersion is the reader's BaseVersion that deps hold for, with
	// the live documents' imports at version (liveImports, by path):
	// deps follow the live layer's changes while the base holds.
	baseVersion uint64
	liveImports map[string][]string
	// docReads counts the documents' links, packages and names read.
	docReads atomic.Int64
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{} }

// docFacts is what searches read of the documents of one layer, by path.
type docFacts struct {
	links map[string]*docLinks
	pkgs  map[string]docPackage
	names map[string]*docNames // the named definitions
}

func newDocFacts() docFacts {
	return docFacts{links: map[string]*docLinks{}, pkgs: map[string]docPackage{}, names: map[string]*docNames{}}
}

// follow drops what f holds of the documents at paths; with ok false
// (the changes are not known), all of it.
func (f *docFacts) follow(paths []string, ok bool) {
	if !ok {
		*f = newDocFacts()
		return
	}
	for _, p := range paths {
		delete(f.links, p)
		delete(f.pkgs, p)
		delete(f.names, p)
	}
}

// docLinks are the symbols a document defines and references (imports and
// locals left out), by number, sorted: the reference graph's edges at
// document level.
type docLinks struct {
	defs, refs []uint32
}

// docNames are a document's named definitions and, by word, which of
// them hold it, packed in two strings and a few slices: a session keeps
// them for every document of the base generation. Kept as a struct, a
// word list and a lower-case copy per definition and a map per document,
// they took 216 MB of the 264 MB a session's warm search cache held on
// four GOROOT copies in one repository (27,304 documents, 20,656 with
// terms); packed, the cache holds 83 MB and warms in 2.7-3.1 s instead of
// 3.6-4.0 s.
type docNames struct {
	// text holds each definition's id (without idPrefix, which every one
	// of the document starts with), name and kind one after the other.
	idPrefix string
	text     string
	syms     []packedName // in definition order
	// words are the distinct words of the names, sorted, as spans of
	// wordText; holders[holding[i]:holding[i+1]] are the definitions
	// (indexes into syms, increasing) whose names hold words[i].
	wordText string
	words    []span
	holding  []uint32
	holders  []uint32
	// symWords lists each definition's words, as indexes into words, in
	// the order its name holds them.
	symWords []uint32
}

// span is a part of a string: s[off : off+n].
type span struct{ off, n uint32 }

func (sp span) of(s string) string { return s[sp.off : sp.off+sp.n] }

// packedName is one definition of docNames: text[off:] holds its id
// after the prefix (idLen bytes), its name (nameLen), its kind (kindLen);
// symWords[words:words+nwords] its words.
type packedName struct {
	off                     uint32
	idLen, nameLen, kindLen uint32
	line                    int32 // 1-based
	words, nwords           uint32
}

// match is the definition i as a SymbolMatch (Words and score unset).
func (ns *docNames) match(i int) SymbolMatch {
	p := &ns.syms[i]
	id := p.off + p.idLen
	name := id + p.nameLen
	return SymbolMatch{ID: ns.idPrefix + ns.text[p.off:id], Name: ns.text[id:name], Kind: ns.text[name : name+p.kindLen], Line: int(p.line)}
}

// name is the name of definition i.
func (ns *docNames) name(i int) string {
	p := &ns.syms[i]
	return ns.text[p.off+p.idLen : p.off+p.idLen+p.nameLen]
}

// wordsOf returns the words of definition i, as indexes into ns.words.
func (ns *docNames) wordsOf(i int) []uint32 {
	p := &ns.syms[i]
	return ns.symWords[p.words : p.words+p.nwords]
}

// word returns the index in ns.words of w, or -1.
func (ns *docNames) word(w string) int {
	i, ok := slices.BinarySearchFunc(ns.words, w, func(sp span, w string) int { return strings.Compare(sp.of(ns.wordText), w) })
	if !ok {
		return -1
	}
	return i
}

// holdersOf returns the definitions whose names hold word w (an index
// into ns.words), increasing.
func (ns *docNames) holdersOf(w int) []uint32 { return ns.holders[ns.holding[w]:ns.holding[w+1]] }

// packNames packs a document's named definitions: each one's match and
// the words of its name (terms.Query's).
func packNames(defs []SymbolMatch, words [][]string) *docNames {
	ns := &docNames{syms: make([]packedName, 0, len(defs))}
	var text, wordText strings.Builder
	size := 0
	for i, d := range defs {
		size += len(d.ID) + len(d.Name) + len(d.Kind)
		if i == 0 {
			ns.idPrefix = d.ID
		}
		for !strings.HasPrefix(d.ID, ns.idPrefix) {
			ns.idPrefix = ns.idPrefix[:len(ns.idPrefix)-1]
		}
	}
	ns.idPrefix = strings.Clone(ns.idPrefix)
	text.Grow(size - len(defs)*len(ns.idPrefix))
	// The distinct words, sorted; index maps each to its place.
	index := map[string]uint32{}
	nwords := 0
	for _, ws := range words {
		nwords += len(ws)
		for _, w := range ws {
			index[w] = 0
		}
	}
	ns.symWords = make([]uint32, 0, nwords)
	order := slices.Sorted(maps.Keys(index))
	ns.words = make([]span, len(order))
	size = 0
	for _, w := range order {
		size += len(w)
	}
	wordText.Grow(size)
	for at, w := range order {
		index[w] = uint32(at)
		ns.words[at] = span{uint32(wordText.Len()), uint32(len(w))}
		wordText.WriteString(w)
	}
	for i, d := range defs {
		id := d.ID[len(ns.idPrefix):]
		ns.syms = append(ns.syms, packedName{off: uint32(text.Len()), idLen: uint32(len(id)), nameLen: uint32(len(d.Name)), kindLen: uint32(len(d.Kind)), line: int32(d.Line), words: uint32(len(ns.symWords)), nwords: uint32(len(words[i]))})
		text.WriteString(id)
		text.WriteString(d.Name)
		text.WriteString(d.Kind)
		for _, w := range words[i] {
			ns.symWords = append(ns.symWords, index[w])
		}
	}
	// holders: for each word, the definitions holding it, each once (a
	// name may hold a word twice), increasing.
	last := make([]int, len(order))
	holds := func(each func(w, i uint32)) {
		for w := range last {
			last[w] = -1
		}
		for i := range ns.syms {
			for _, w := range ns.wordsOf(i) {
				if last[w] != i {
					last[w] = i
					each(w, uint32(i))
				}
			}
		}
	}
	ns.holding = make([]uint32, len(order)+1)
	holds(func(w, _ uint32) { ns.holding[w+1]++ })
	for w := range order {
		ns.holding[w+1] += ns.holding[w]
	}
	ns.holders = make([]uint32, ns.holding[len(order)])
	next := slices.Clone(ns.holding[:len(order)])
	holds(func(w, i uint32) {
		ns.holders[next[w]] = i
		next[w]++
	})
	ns.text, ns.wordText = text.String(), wordText.String()
	return ns
}

// docPackage is a document's package symbol and whether it is a test.
type docPackage struct {
	sym  string
	test bool
}

// view is a Cache as one search sees it: checked against the reader's
// base generation and version, with the reader's live documents, whose
// facts are never cached. A nil Cache gives a view that caches for the
// search alone.
type view struct {
	c       *Cache
	r       *graph.Reader
	live    []string
	baseGen uint64
	version uint64
}

func (c *Cache) view(ctx context.Context, r *graph.Reader) *view {
	keep := c != nil // else it caches for one search
	if !keep {
		c = NewCache()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.ids == nil || c.baseGen != r.BaseGeneration() || r.Version() < c.version:
		c.baseGen, c.ids = r.BaseGeneration(), map[string]uint32{}
		c.base, c.live = newDocFacts(), newDocFacts()
	case r.Version() != c.version:
		c.base.follow(r.BaseChangedSince(c.version))
		c.live.follow(r.LiveChangedSince(c.version))
	}
	if c.deps == nil || c.version != r.Version() {
		if !c.followLive(ctx, r) {
			c.deps, c.liveImports = map[string]float64{}, nil
			if keep {
				c.liveImports = liveImports(ctx, r)
			}
		}
		c.version, c.baseVersion, c.stats = r.Version(), r.BaseVersion(), nil
	}
	return &view{c: c, r: r, live: r.LiveDocuments(), baseGen: r.BaseGeneration(), version: r.Version()}
}

// followLive brings deps from c.version to r's, a later version of the
// same base layer: it drops the counts of the packages imported by the
// live documents that changed since c.version, in their versions before
// and now and in the base versions they hid or hide. False when it cannot
// (deps then start over). The caller holds c.mu.
func (c *Cache) followLive(ctx context.Context, r *graph.Reader) bool {
	if c.deps == nil || c.liveImports == nil || r.Version() < c.version || r.BaseVersion() != c.baseVersion || r.BaseVersion() == 0 {
		return false
	}
	changed, ok := r.LiveChangedSince(c.version)
	if !ok {
		return false
	}
	base, live := r.BaseView(), r.LiveDocuments()
	for _, p := range changed {
		drop := c.liveImports[p]
		delete(c.liveImports, p)
		now, err := importsOf(ctx, r, p)
		if err != nil {
			return false
		}
		if _, ok := slices.BinarySearch(live, p); ok {
			c.liveImports[p] = now
		}
		under, err := importsOf(ctx, base, p)
		if err != nil {
			return false
		}
		for _, to := range slices.Concat(drop, now, under) {
			delete(c.deps, to)
		}
	}
	return true
}

// liveImports returns what each live document of r imports; nil if it
// cannot be read.
func liveImports(ctx context.Context, r *graph.Reader) map[string][]string {
	out := map[string][]string{}
	for _, p := range r.LiveDocuments() {
		imps, err := importsOf(ctx, r, p)
		if err != nil {
			return nil
		}
		out[p] = imps
	}
	return out
}

// importsOf returns the packages the document at path imports, as r
// reads it.
func importsOf(ctx context.Context, r *graph.Reader, path string) ([]string, error) {
	es, err := r.DocumentEdges(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("search: reading the edges of %s: %w", path, err)
	}
	var out []string
	for _, e := range es {
		if e.Kind == graph.EdgeImports {
			out = append(out, e.To)
		}
	}
	return out, nil
}

// current reports, with c.mu held, whether the cache still describes the
// view's base generation and version (a concurrent search of a newer
// snapshot may have reset it).
func (v *view) current() bool { return v.c.baseGen == v.baseGen && v.c.version == v.version }

// base reports whether the base layer owns path's facts.
func (v *view) base(path string) bool {
	_, live := slices.BinarySearch(v.live, path)
	return !live
}

// facts returns, with c.mu held, what the cache holds of the documents of
// the layer that owns path's.
func (v *view) facts(path string) *docFacts {
	if v.base(path) {
		return &v.c.base
	}
	return &v.c.live
}

// cached returns what the cache's map (chosen by of, under the lock) holds
// for key when the cache is current, else read's answer, kept in that map
// when the cache is still current.
func cached[T any](v *view, of func(*Cache) map[string]T, key string, read func() (T, error)) (T, error) {
	v.c.mu.Lock()
	x, ok := of(v.c)[key]
	ok = ok && v.current()
	v.c.mu.Unlock()
	if ok {
		return x, nil
	}
	x, err := read()
	if err != nil {
		return x, err
	}
	v.c.mu.Lock()
	if v.current() {
		of(v.c)[key] = x
	}
	v.c.mu.Unlock()
	return x, nil
}

// termStats returns the reader's term statistics.
func (v *view) termStats(ctx context.Context) (graph.TermStats, error) {
	v.c.mu.Lock()
	st := v.c.stats
	ok := v.current()
	v.c.mu.Unlock()
	if st != nil && ok {
		return *st, nil
	}
	s, err := v.r.TermStats(ctx)
	if err != nil {
		return s, err
	}
	v.c.mu.Lock()
	if v.current() {
		v.c.stats = &s
	}
	v.c.mu.Unlock()
	return s, nil
}

// links returns the symbols path defines and references.
func (v *view) links(ctx context.Context, path string) (*docLinks, error) {
	return cached(v, func(*Cache) map[string]*docLinks { return v.facts(path).links }, path, func() (*docLinks, error) {
		return v.readLinks(ctx, path)
	})
}

// readLinks reads the symbols path defines and references, numbering
// them.
func (v *view) readLinks(ctx context.Context, path string) (*docLinks, error) {
	v.c.docReads.Add(1)
	occs, err := v.r.Occurrences(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("search: reading the references of %s: %w", path, err)
	}
	l := &docLinks{}
	v.c.mu.Lock()
	for _, o := range occs {
		if strings.HasPrefix(o.Symbol, "local ") || o.Roles&graph.RoleImport != 0 {
			continue
		}
		id, ok := v.c.ids[o.Symbol]
		if !ok {
			id = uint32(len(v.c.ids))
			v.c.ids[o.Symbol] = id
		}
		if o.Roles&graph.RoleDefinition != 0 {
			l.defs = append(l.defs, id)
		} else {
			l.refs = append(l.refs, id)
		}
	}
	v.c.mu.Unlock()
	slices.Sort(l.defs)
	slices.Sort(l.refs)
	// Kept for the generation's life: without the room the appends left,
	// which a document repeating its references made most of it (22 MB
	// of 29 on four GOROOT copies).
	l.defs, l.refs = slices.Clone(slices.Compact(l.defs)), slices.Clone(slices.Compact(l.refs))
	return l, nil
}

// pkg returns the package symbol of the document at path ("" when it
// defines none) and whether it is a test.
func (v *view) pkg(ctx context.Context, path string) (docPackage, error) {
	return cached(v, func(*Cache) map[string]docPackage { return v.facts(path).pkgs }, path, func() (docPackage, error) {
		return v.readPackage(ctx, path)
	})
}

// readPackage reads the package symbol path defines and whether it is a
// test.
func (v *view) readPackage(ctx context.Context, path string) (docPackage, error) {
	v.c.docReads.Add(1)
	d, _, err := v.r.Document(ctx, path)
	if err != nil {
		return docPackage{}, fmt.Errorf("search: reading document %s: %w", path, err)
	}
	syms, err := v.r.DocumentSymbolsWhere(ctx, path, func(_, kind []byte) bool {
		k := string(kind)
		return k == "package" || k == "namespace" || k == "module"
	})
	if err != nil {
		return docPackage{}, fmt.Errorf("search: reading the symbols of %s: %w", path, err)
	}
	return docPackage{sym: ownPackage(syms, path), test: d.Flags&graph.DocTest != 0}, nil
}

// dependents counts the packages importing a package symbol.
func (v *view) dependents(ctx context.Context, pkgSym string) (float64, error) {
	if pkgSym == "" {
		return 0, nil
	}
	return cached(v, func(c *Cache) map[string]float64 { return c.deps }, pkgSym, func() (float64, error) {
		es, err := v.r.Incoming(ctx, pkgSym, graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeImports}})
		if err != nil {
			return 0, fmt.Errorf("search: reading the importers of %s: %w", pkgSym, err)
		}
		return float64(len(es)), nil
	})
}

// ownPackage returns the id of the package symbol a document defines
// itself among syms (an import's package is defined elsewhere), else of
// the first symbol not external, else "".
func ownPackage(syms []graph.Symbol, path string) string {
	for _, s := range syms {
		if s.Def.Path == path {
			return s.ID
		}
	}
	for _, s := range syms {
		if !s.External && s.Def.Path == "" {
			return s.ID
		}
	}
	return ""
}

// symbols returns the definitions of the document at path that a reader
// can name: neither local nor external, defined in it, with a display
// name.
func (v *view) symbols(ctx context.Context, path string) (*docNames, error) {
	return cached(v, func(*Cache) map[string]*docNames { return v.facts(path).names }, path, func() (*docNames, error) {
		return v.readSymbols(ctx, path)
	})
}

// readSymbols reads the named definitions of path and indexes them by
// word.
func (v *view) readSymbols(ctx context.Context, path string) (*docNames, error) {
	v.c.docReads.Add(1)
	syms, err := v.r.DocumentSymbolsWhere(ctx, path, func(name, _ []byte) bool { return len(name) > 0 })
	if err != nil {
		return nil, fmt.Errorf("search: reading the symbols of %s: %w", path, err)
	}
	var defs []SymbolMatch
	var words [][]string
	for _, s := range syms {
		if s.DisplayName == "" || s.External || s.Def.Path != path || strings.HasPrefix(s.ID, "local ") {
			continue
		}
		defs = append(defs, SymbolMatch{Name: s.DisplayName, Kind: s.Kind, ID: s.ID, Line: int(s.Def.Range.Start.Line) + 1})
		words = append(words, terms.Query(s.DisplayName))
	}
	return packNames(defs, words), nil
}

// Warm reads into the cache what searches of r's base generation read
// again: every base document's references, definitions and package. A
// session warms its cache once per base generation, so that no search
// pays for the first reads. pause, when not nil, is called before each
// document: it returns when the warm-up may go on, or with an error that
// stops it.
func (c *Cache) Warm(ctx context.Context, r *graph.Reader, pause func(context.Context) error) error {
	v := c.view(ctx, r)
	return r.Documents(ctx, func(d graph.Document) error {
		if !v.base(d.Path) {
			return nil
		}
		if pause != nil {
			if err := pause(ctx); err != nil {
				return err
			}
		}
		if _, err := v.links(ctx, d.Path); err != nil {
			return err
		}
		if _, err := v.symbols(ctx, d.Path); err != nil {
			return err
		}
		_, err := v.pkg(ctx, d.Path)
		return err
	})
}
