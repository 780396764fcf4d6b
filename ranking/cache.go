package ranking

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
)

// Cache keeps the graph reads of Rank across calls on one store: a host
// answering many packs (a session, a benchmark) decodes a symbol, a
// document's symbols or occurrences, or a symbol's edges once, not once
// per pack. The cached slices are shared and never modified. Safe for
// concurrent use; the zero value is ready.
//
// The reads hold for one store version (graph.Reader.Version). A newer
// version whose base layer is the same (graph.Reader.BaseVersion) differs
// only in the live layer, which a session's observed answers change all
// the time: then only the reads the live documents that changed since
// (graph.Reader.LiveChangedSince) may have changed are dropped, those of
// their paths and those of every symbol their versions mention (before,
// now, and in the base layer, which a live document hides). When the
// store cannot tell which changed, every document live before or now
// counts as changed. Any other new version starts the cache over; a
// reader of an older version reads past it.
type Cache struct {
	mu          sync.Mutex
	version     uint64
	baseVersion uint64
	// live holds the symbols each live document mentions at version.
	live   map[string]map[string]bool
	weight int // entries plus the elements of the cached slices
	m      map[readKey]any
}

// maxCacheWeight bounds what a Cache holds (entries plus slice elements,
// each some 100 bytes at most); past it, it starts over. The 300 packs of
// the pebble benchmark (100 targets) hold a few hundred thousand.
const maxCacheWeight = 1 << 20

// readKey names one read: its method, its symbol or path, and for edges
// the filter.
type readKey struct {
	op, arg, filter string
}

type symRead struct {
	s  graph.Symbol
	ok bool
}

type docRead struct {
	d  graph.Document
	ok bool
}

func (c *Cache) get(ctx context.Context, r *graph.Reader, k readKey) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.follow(ctx, r) {
		return nil, false
	}
	v, ok := c.m[k]
	return v, ok
}

func (c *Cache) put(ctx context.Context, r *graph.Reader, k readKey, v any, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.follow(ctx, r) {
		return
	}
	if c.weight+1+n > maxCacheWeight {
		c.m, c.weight = map[readKey]any{}, 0
	}
	if _, ok := c.m[k]; !ok {
		c.weight += 1 + n
	}
	c.m[k] = v
}

// follow brings the cache to r's version, and reports whether it holds
// r's reads: false for a reader of an older version, or when what the
// live layer holds could not be read. The caller holds c.mu.
func (c *Cache) follow(ctx context.Context, r *graph.Reader) bool {
	switch {
	case c.m != nil && r.Version() == c.version:
		return true
	case c.m != nil && r.Version() < c.version:
		return false
	case c.m != nil && r.BaseVersion() == c.baseVersion:
		if c.dropLive(ctx, r) == nil {
			return true
		}
	}
	live, err := liveMentions(ctx, r)
	if err != nil {
		c.m = nil // nothing held: the next reader starts over
		return false
	}
	c.m, c.weight, c.version, c.baseVersion, c.live = map[readKey]any{}, 0, r.Version(), r.BaseVersion(), live
	return true
}

// dropLive drops the reads that the live layer's change from c.version to
// r's may have changed, and moves the cache to r's version. The caller
// holds c.mu.
func (c *Cache) dropLive(ctx context.Context, r *graph.Reader) error {
	paths := map[string]bool{}
	syms := map[string]bool{}
	live := c.live
	if changed, ok := r.LiveChangedSince(c.version); ok {
		// Only the documents that changed: their mentions before and now.
		live = maps.Clone(c.live)
		for _, p := range changed {
			paths[p] = true
			for id := range c.live[p] {
				syms[id] = true
			}
			delete(live, p)
		}
		for _, p := range r.LiveDocuments() {
			if !paths[p] {
				continue
			}
			ids := map[string]bool{}
			if err := mentions(ctx, r, p, ids); err != nil {
				return err
			}
			live[p] = ids
			for id := range ids {
				syms[id] = true
			}
		}
	} else {
		var err error
		if live, err = liveMentions(ctx, r); err != nil {
			return err
		}
		for _, m := range []map[string]map[string]bool{c.live, live} {
			for p, ids := range m {
				paths[p] = true
				for id := range ids {
					syms[id] = true
				}
			}
		}
	}
	base := r.BaseView()
	for p := range paths {
		if err := mentions(ctx, base, p, syms); err != nil {
			return err
		}
	}
	for k, v := range c.m {
		var drop bool
		switch k.op {
		case "document", "docsyms", "occurrences":
			drop = paths[k.arg]
		case "symbol", "references", "incoming", "outgoing", "targetsin":
			drop = syms[k.arg]
		default: // a search by name, or a read this list does not know
			drop = true
		}
		if drop {
			c.weight -= 1 + weightOf(v)
			delete(c.m, k)
		}
	}
	c.version, c.live = r.Version(), live
	return nil
}

// liveMentions returns, for each live document of r, the symbols it
// mentions.
func liveMentions(ctx context.Context, r *graph.Reader) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for _, p := range r.LiveDocuments() {
		ids := map[string]bool{}
		if err := mentions(ctx, r, p, ids); err != nil {
			return nil, err
		}
		out[p] = ids
	}
	return out, nil
}

// mentions adds to ids every symbol the version of document p that r
// reads mentions: those it defines, those its occurrences name or sit
// in, and the ends of its edges.
func mentions(ctx context.Context, r *graph.Reader, p string, ids map[string]bool) error {
	syms, err := r.DocumentSymbols(ctx, p)
	if err != nil {
		return err
	}
	for _, s := range syms {
		ids[s.ID] = true
	}
	occs, err := r.Occurrences(ctx, p)
	if err != nil {
		return err
	}
	for _, o := range occs {
		ids[o.Symbol] = true
		if o.Enclosing != "" {
			ids[o.Enclosing] = true
		}
	}
	edges, err := r.DocumentEdges(ctx, p)
	if err != nil {
		return err
	}
	for _, e := range edges {
		ids[e.From], ids[e.To] = true, true
	}
	return nil
}

// weightOf is what a cached value counts toward maxCacheWeight beyond its
// entry: the elements of a cached slice.
func weightOf(v any) int {
	switch v := v.(type) {
	case []graph.Symbol:
		return len(v)
	case []graph.Occurrence:
		return len(v)
	case []graph.Edge:
		return len(v)
	case []string:
		return len(v)
	}
	return 0
}

// reads is the graph as the collector reads it: through the cache when
// there is one.
type reads struct {
	ctx   context.Context
	r     *graph.Reader
	cache *Cache
}

// cached returns the cached result of k, else read's (cached when it
// succeeds); size counts the result's elements.
func cached[V any](g reads, k readKey, read func() (V, error), size func(V) int) (V, error) {
	if g.cache == nil {
		return read()
	}
	if v, ok := g.cache.get(g.ctx, g.r, k); ok {
		return v.(V), nil
	}
	v, err := read()
	if err != nil {
		return v, err
	}
	g.cache.put(g.ctx, g.r, k, v, size(v))
	return v, nil
}

func one[V any](V) int { return 0 }

func count[E any](s []E) int { return len(s) }

func (g reads) Symbol(id string) (graph.Symbol, bool, error) {
	v, err := cached(g, readKey{op: "symbol", arg: id}, func() (symRead, error) {
		s, ok, err := g.r.Symbol(g.ctx, id)
		return symRead{s, ok}, err
	}, one)
	return v.s, v.ok, err
}

func (g reads) Document(path string) (graph.Document, bool, error) {
	v, err := cached(g, readKey{op: "document", arg: path}, func() (docRead, error) {
		d, ok, err := g.r.Document(g.ctx, path)
		return docRead{d, ok}, err
	}, one)
	return v.d, v.ok, err
}

func (g reads) DocumentSymbols(path string) ([]graph.Symbol, error) {
	return cached(g, readKey{op: "docsyms", arg: path}, func() ([]graph.Symbol, error) {
		return g.r.DocumentSymbols(g.ctx, path)
	}, count)
}

func (g reads) Occurrences(path string) ([]graph.Occurrence, error) {
	return cached(g, readKey{op: "occurrences", arg: path}, func() ([]graph.Occurrence, error) {
		return g.r.Occurrences(g.ctx, path)
	}, count)
}

func (g reads) References(id string, limit int) ([]graph.Occurrence, error) {
	return cached(g, readKey{op: "references", arg: id, filter: fmt.Sprint(limit)}, func() ([]graph.Occurrence, error) {
		return g.r.References(g.ctx, id, limit)
	}, count)
}

func (g reads) FindSymbols(name string, prefix bool, limit int) ([]graph.Symbol, error) {
	return cached(g, readKey{op: "find", arg: name, filter: fmt.Sprint(prefix, limit)}, func() ([]graph.Symbol, error) {
		return g.r.FindSymbols(g.ctx, name, prefix, limit)
	}, count)
}

func filterKey(f graph.EdgeFilter) string { return fmt.Sprint(f.Kinds, f.MinConfidence, f.Limit) }

func (g reads) Incoming(id string, f graph.EdgeFilter) ([]graph.Edge, error) {
	return cached(g, readKey{op: "incoming", arg: id, filter: filterKey(f)}, func() ([]graph.Edge, error) {
		return g.r.Incoming(g.ctx, id, f)
	}, count)
}

func (g reads) Outgoing(id string, f graph.EdgeFilter) ([]graph.Edge, error) {
	return cached(g, readKey{op: "outgoing", arg: id, filter: filterKey(f)}, func() ([]graph.Edge, error) {
		return g.r.Outgoing(g.ctx, id, f)
	}, count)
}

// TargetsIn is r.TargetsIn of id into a set of candidates: cached by the
// set's digest (setKey, "" for none), since a pack asked again has the same
// candidates; set gives the set, read only when it is needed.
func (g reads) TargetsIn(id string, f graph.EdgeFilter, setKey string, set func() (*graph.SymbolSet, error)) ([]string, error) {
	read := func() ([]string, error) {
		s, err := set()
		if err != nil {
			return nil, err
		}
		return g.r.TargetsIn(g.ctx, id, f, s)
	}
	if setKey == "" {
		return read()
	}
	return cached(g, readKey{op: "targetsin", arg: id, filter: filterKey(f) + setKey}, read, count)
}

// setDigest names a set of symbols for the cache: a digest of its sorted
// members.
func setDigest(syms []string) string {
	sorted := slices.Clone(syms)
	slices.Sort(sorted)
	h := sha256.New()
	for _, s := range sorted {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return string(h.Sum(nil))
}
