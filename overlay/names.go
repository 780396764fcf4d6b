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

// Past these, a name cache starts again empty: the look-ups and symbols
// it keeps (a symbol holds its documentation and signature: some hundred
// bytes), and their references to the documents they read. A save's
// resolution keeps a few thousand.
const (
	maxNameEntries = 1 << 16
	maxNameRefs    = 1 << 19
)

// nameCache keeps what the graph answered look-ups of symbols by name
// (exactly, or by prefix) from one sync to the next, within one base
// generation. After a save the saved file is resolved again against the
// graph, and looking its names up again, each of which read the symbol of
// every definition of the name (four per name in a tree of four modules),
// was nearly all of the sync.
//
// It keeps two things, each until a document it read changes, or a changed
// document now has what would change it (what the graph's change log says
// changed: LiveChangedSince, BaseChangedSince): the ids a look-up finds
// (graph.Reader.FindSymbolIDs), until a changed document has a symbol of
// the name (or prefix); and each symbol as read (graph.Reader.SymbolFrom),
// until a changed document has a record of it. A file defining a method
// named Close changes the ids of Close, not the other definitions of
// Close, which are not read again. The zero value is empty.
type nameCache struct {
	mu      sync.Mutex
	known   bool   // gen and version are set
	gen     uint64 // the base generation the entries are of
	version uint64 // the store version they hold at

	ids     map[nameQuery][]string       // the symbols a look-up finds
	syms    map[string]symbolRead        // a symbol as read
	answers map[nameQuery][]graph.Symbol // a look-up's symbols, assembled
	// What each document holds records of (some dropped since).
	idsByPath  map[string][]nameQuery // the look-ups its name records answer
	symsByPath map[string][]string    // the symbols it has records of
	answersOf  map[string][]nameQuery // a symbol → the answers holding it
	refs       int                    // in the three maps above
	// prefixes are the prefixes looked up (some dropped since): a changed
	// document's symbol names are matched against each.
	prefixes map[string]bool
}

// nameQuery is a look-up: a name, or a prefix of names.
type nameQuery struct {
	name   string
	prefix bool
}

// symbolRead is a symbol as graph.Reader.Symbol read it.
type symbolRead struct {
	sym   graph.Symbol
	found bool
}

// reset empties the cache for generation gen at version v.
func (c *nameCache) reset(gen, v uint64) {
	c.known, c.gen, c.version = true, gen, v
	c.ids = map[nameQuery][]string{}
	c.syms = map[string]symbolRead{}
	c.answers = map[nameQuery][]graph.Symbol{}
	c.idsByPath = map[string][]nameQuery{}
	c.symsByPath = map[string][]string{}
	c.answersOf = map[string][]nameQuery{}
	c.prefixes = map[string]bool{}
	c.refs = 0
}

// at brings the cache to r's snapshot: what may differ there is dropped.
// Later look-ups through it must read with r.
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
		for _, q := range c.idsByPath[p] {
			c.dropIDs(q)
		}
		for _, id := range c.symsByPath[p] {
			c.dropSymbol(id)
		}
		delete(c.idsByPath, p)
		delete(c.symsByPath, p)
		syms, err := r.DocumentSymbols(ctx, p)
		if err != nil {
			c.reset(gen, v)
			return fmt.Errorf("overlay: reading the symbols of %s: %w", p, err)
		}
		for _, s := range syms {
			c.dropIDs(nameQuery{name: s.DisplayName})
			for pfx := range c.prefixes {
				if strings.HasPrefix(s.DisplayName, pfx) {
					c.dropIDs(nameQuery{pfx, true})
				}
			}
			c.dropSymbol(s.ID)
		}
	}
	c.version = v
	return nil
}

// dropIDs forgets what a look-up finds.
func (c *nameCache) dropIDs(q nameQuery) {
	delete(c.ids, q)
	delete(c.answers, q)
}

// dropSymbol forgets a symbol, and the answers holding it.
func (c *nameCache) dropSymbol(id string) {
	delete(c.syms, id)
	for _, q := range c.answersOf[id] {
		delete(c.answers, q)
	}
	delete(c.answersOf, id)
}

// find returns the symbols of q, read with r (the reader of the last call
// of at) where the cache does not hold them. The slice is shared: the
// caller must not modify it.
func (c *nameCache) find(ctx context.Context, r *graph.Reader, q nameQuery) ([]graph.Symbol, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if syms, ok := c.answers[q]; ok {
		return syms, nil
	}
	keep := c.known && r.Version() == c.version && r.BaseGeneration() == c.gen
	if keep && (len(c.ids)+len(c.syms)+len(c.answers) >= maxNameEntries || c.refs >= maxNameRefs) {
		c.reset(c.gen, c.version)
	}
	ids, ok := c.ids[q]
	if !ok {
		var from []string
		var err error
		if ids, from, err = r.FindSymbolIDs(ctx, q.name, q.prefix, nameLimit); err != nil {
			return nil, err
		}
		if keep {
			c.ids[q] = ids
			for _, p := range from {
				c.idsByPath[p] = append(c.idsByPath[p], q)
			}
			if q.prefix {
				c.prefixes[q.name] = true
			}
			c.refs += len(from)
		}
	}
	out := make([]graph.Symbol, 0, len(ids))
	for _, id := range ids {
		sr, ok := c.syms[id]
		if !ok {
			s, found, from, err := r.SymbolFrom(ctx, id)
			if err != nil {
				return nil, err
			}
			sr = symbolRead{s, found}
			if keep {
				c.syms[id] = sr
				for _, p := range from {
					c.symsByPath[p] = append(c.symsByPath[p], id)
				}
				c.refs += len(from)
			}
		}
		if sr.found {
			out = append(out, sr.sym)
		}
	}
	if keep {
		c.answers[q] = out
		for _, id := range ids {
			c.answersOf[id] = append(c.answersOf[id], q)
		}
		c.refs += len(ids)
	}
	return out, nil
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
