package overlay

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
)

// nameLimit is how many symbols of one name (or prefix) a look-up returns:
// all of them.
const nameLimit = 1 << 20

// Past these, a name cache starts again empty: the answers it keeps, and
// the symbols they hold.
const (
	maxNameAnswers = 1 << 14
	maxNameSymbols = 1 << 18
)

// nameCache keeps what the graph answered look-ups of symbols by name
// (exactly, or by prefix) from one sync to the next, within one base
// generation. After a save the saved file is resolved again against the
// graph, and looking its names up again, each of which read the symbol of
// every definition of the name (four per name in a tree of four modules),
// was nearly all of the sync. An answer is kept until one of the documents
// it read changes, or a changed document now has a symbol of its name (or
// prefix) or one of its symbols: what graph.Reader.FindSymbolsFrom says it
// read, and what the graph's change log says changed (LiveChangedSince,
// BaseChangedSince). The zero value is empty.
type nameCache struct {
	mu      sync.Mutex
	known   bool   // gen and version are set
	gen     uint64 // the base generation the answers are of
	version uint64 // the store version they hold at
	answers map[nameQuery][]graph.Symbol
	symbols int                    // in answers
	byPath  map[string][]nameQuery // a document → the answers that read it (some dropped since)
	byID    map[string][]nameQuery // a symbol → the answers holding it (some dropped since)
	refs    int                    // in byPath and byID
	// prefixes are the prefixes answered (some dropped since): a
	// document's symbol names are matched against each.
	prefixes map[string]bool
}

// nameQuery is a look-up: a name, or a prefix of names.
type nameQuery struct {
	name   string
	prefix bool
}

// reset empties the cache for answers of generation gen at version v.
func (c *nameCache) reset(gen, v uint64) {
	c.known, c.gen, c.version = true, gen, v
	c.answers = map[nameQuery][]graph.Symbol{}
	c.byPath = map[string][]nameQuery{}
	c.byID = map[string][]nameQuery{}
	c.prefixes = map[string]bool{}
	c.symbols, c.refs = 0, 0
}

// at brings the cache to r's snapshot: the answers that may differ there
// are dropped. Later look-ups through it must read with r.
func (c *nameCache) at(ctx context.Context, r *graph.Reader) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	gen, v := r.BaseGeneration(), r.Version()
	if !c.known || gen != c.gen || v < c.version {
		c.reset(gen, v)
		return nil
	}
	if v == c.version {
		return nil
	}
	base, okBase := r.BaseChangedSince(c.version)
	live, okLive := r.LiveChangedSince(c.version)
	if !okBase || !okLive {
		c.reset(gen, v)
		return nil
	}
	for _, p := range append(base, live...) {
		for _, q := range c.byPath[p] {
			c.drop(q)
		}
		delete(c.byPath, p)
		syms, err := r.DocumentSymbols(ctx, p)
		if err != nil {
			c.reset(gen, v)
			return fmt.Errorf("overlay: reading the symbols of %s: %w", p, err)
		}
		for _, s := range syms {
			c.drop(nameQuery{name: s.DisplayName})
			for pfx := range c.prefixes {
				if strings.HasPrefix(s.DisplayName, pfx) {
					c.drop(nameQuery{pfx, true})
				}
			}
			for _, q := range c.byID[s.ID] {
				c.drop(q)
			}
			delete(c.byID, s.ID)
		}
	}
	c.version = v
	return nil
}

// drop forgets an answer.
func (c *nameCache) drop(q nameQuery) {
	if syms, ok := c.answers[q]; ok {
		c.symbols -= len(syms)
		delete(c.answers, q)
	}
}

// find returns the symbols of q, from the cache or else read with r (the
// reader of the last call of at) and kept. The slice is shared: the
// caller must not modify it.
func (c *nameCache) find(ctx context.Context, r *graph.Reader, q nameQuery) ([]graph.Symbol, error) {
	c.mu.Lock()
	syms, ok := c.answers[q]
	c.mu.Unlock()
	if ok {
		return syms, nil
	}
	syms, from, err := r.FindSymbolsFrom(ctx, q.name, q.prefix, nameLimit)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.known || r.Version() != c.version || r.BaseGeneration() != c.gen {
		return syms, nil // read with a reader the cache is not at
	}
	if len(c.answers) >= maxNameAnswers || c.symbols+len(syms) > maxNameSymbols || c.refs > 4*maxNameSymbols {
		c.reset(c.gen, c.version)
	}
	c.answers[q] = syms
	c.symbols += len(syms)
	c.refs += len(from) + len(syms)
	if q.prefix {
		c.prefixes[q.name] = true
	}
	for _, p := range from {
		c.byPath[p] = append(c.byPath[p], q)
	}
	for _, s := range syms {
		c.byID[s.ID] = append(c.byID[s.ID], q)
	}
	return syms, nil
}

// finder looks symbols up by name in one snapshot. As a syntax.Lookup it
// finds names exactly.
type finder func(ctx context.Context, q nameQuery) ([]graph.Symbol, error)

// finder returns the finder reading with r through the cache, which must
// be at r (a cache never brought to a reader keeps nothing).
func (c *nameCache) finder(r *graph.Reader) finder {
	return func(ctx context.Context, q nameQuery) ([]graph.Symbol, error) { return c.find(ctx, r, q) }
}

// Named returns the graph's symbols named name.
func (f finder) Named(ctx context.Context, name string) ([]graph.Symbol, error) {
	syms, err := f(ctx, nameQuery{name: name})
	if err != nil {
		return nil, fmt.Errorf("overlay: looking up %q in the graph: %w", name, err)
	}
	return syms, nil
}
