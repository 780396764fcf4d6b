package ranking

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
)

// Cache keeps the graph reads of Rank across calls on one store while its
// version (graph.Reader.Version) stays the same: a host answering many
// packs (a session, a benchmark) decodes a symbol, a document's symbols or
// occurrences, or a symbol's edges once, not once per pack. The first Rank
// on a new version starts it over. The cached slices are shared and never
// modified. Safe for concurrent use; the zero value is ready.
type Cache struct {
	mu      sync.Mutex
	version uint64
	weight  int // entries plus the elements of the cached slices
	m       map[readKey]any
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

func (c *Cache) get(r *graph.Reader, k readKey) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.version != r.Version() {
		c.m, c.version, c.weight = map[readKey]any{}, r.Version(), 0
		return nil, false
	}
	v, ok := c.m[k]
	return v, ok
}

func (c *Cache) put(r *graph.Reader, k readKey, v any, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.version != r.Version() || c.weight+1+n > maxCacheWeight {
		c.m, c.version, c.weight = map[readKey]any{}, r.Version(), 0
	}
	if _, ok := c.m[k]; !ok {
		c.weight += 1 + n
	}
	c.m[k] = v
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
	if v, ok := g.cache.get(g.r, k); ok {
		return v.(V), nil
	}
	v, err := read()
	if err != nil {
		return v, err
	}
	g.cache.put(g.r, k, v, size(v))
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
