package graph

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
)

// EdgeFilter selects edges. Empty Kinds means all kinds. MinConfidence
// applies to the aggregated edge; Limit (0: none) to the result.
type EdgeFilter struct {
	Kinds         []EdgeKind
	MinConfidence float64
	Limit         int
}

// Incoming returns the edges pointing at id, aggregated per (From, Kind)
// over the documents that justify them, ordered by From then Kind.
func (r *Reader) Incoming(ctx context.Context, id string, f EdgeFilter) ([]Edge, error) {
	es, err := r.edges(ctx, kindIn, id, f)
	if err != nil {
		return nil, fmt.Errorf("graph: reading edges into %q: %w", id, err)
	}
	return es, nil
}

// Outgoing returns the edges leaving id, aggregated per (Kind, To) over the
// documents that justify them, ordered by To then Kind.
func (r *Reader) Outgoing(ctx context.Context, id string, f EdgeFilter) ([]Edge, error) {
	es, err := r.edges(ctx, kindOut, id, f)
	if err != nil {
		return nil, fmt.Errorf("graph: reading edges from %q: %w", id, err)
	}
	return es, nil
}

// Targets returns the ids id has edges to, as Outgoing with the same
// filter would name them (in order, each once), without decoding the
// edges' other fields: the cheap read for asking which of a set of symbols
// a definition points at.
func (r *Reader) Targets(ctx context.Context, id string, f EdgeFilter) ([]string, error) {
	var keys []edgeKey
	var confs []float64
	var conf map[edgeKey]float64 // over several layers
	var seen []idEdge
	for li, ls := range r.layers {
		prefix, err := r.edgePrefix(ls, kindOut, id)
		if err != nil {
			return nil, fmt.Errorf("graph: reading edges from %q: %w", id, err)
		}
		if seen, err = r.outTargets(ctx, ls, id, prefix, f, seen[:0]); err != nil {
			return nil, fmt.Errorf("graph: reading edges from %q: %w", id, err)
		}
		ids := make([]uint64, len(seen))
		for i, e := range seen {
			ids[i] = e.to
		}
		names, err := r.symNames(ls.space, ids)
		if err != nil {
			return nil, fmt.Errorf("graph: reading edges from %q: %w", id, err)
		}
		for i, e := range seen {
			k := edgeKey{names[i], e.kind}
			if li == 0 {
				keys, confs = append(keys, k), append(confs, e.conf)
				continue
			}
			if conf == nil {
				conf = make(map[edgeKey]float64, len(keys))
				for i, k := range keys {
					conf[k] = confs[i]
				}
			}
			if cur, ok := conf[k]; !ok || e.conf > cur {
				conf[k] = e.conf
			}
		}
	}
	if conf != nil {
		keys, confs = keys[:0], confs[:0]
		for k, c := range conf {
			keys, confs = append(keys, k), append(confs, c)
		}
	}
	w := 0
	for i, k := range keys {
		if confs[i] >= f.MinConfidence {
			keys[w] = k
			w++
		}
	}
	keys = keys[:w]
	if f.Limit > 0 && len(keys) > f.Limit {
		// Which edges the limit keeps depends on the order.
		slices.SortFunc(keys, func(a, b edgeKey) int {
			return cmp.Or(cmp.Compare(a.other, b.other), cmp.Compare(a.kind, b.kind))
		})
		keys = keys[:f.Limit]
	}
	if len(keys) == 0 {
		return nil, nil
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.other
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// outTargets appends to seen the targets of id's edges of f's kinds in
// one layer (under prefix, its out records there), with the best
// confidence of each (target, kind).
func (r *Reader) outTargets(ctx context.Context, ls layerSpace, id string, prefix []byte, f EdgeFilter, seen []idEdge) ([]idEdge, error) {
	if prefix == nil {
		return seen, nil
	}
	at := map[idEdgeKey]int{}
	err := scanPrefix(ctx, r.kv(), prefix, func(key, v []byte) error {
		path, ok := edgeKeyPath(key)
		if !ok {
			return fmt.Errorf("%w: edge key %q", errBadValue, key)
		}
		if r.hiddenBytes(ls, path) {
			return nil
		}
		err := decodeEdgesValue(v, func(e *groupEdge) bool {
			if !f.wants(e.kind) {
				return true
			}
			k := idEdgeKey{e.other, e.kind}
			if i, ok := at[k]; ok {
				seen[i].conf = max(seen[i].conf, e.confidence)
				return true
			}
			at[k] = len(seen)
			seen = append(seen, idEdge{e.other, e.kind, e.confidence})
			return true
		})
		if err != nil {
			return fmt.Errorf("%w from %s", err, id)
		}
		return nil
	})
	return seen, err
}

// wants reports whether f selects edges of kind k.
func (f EdgeFilter) wants(k EdgeKind) bool {
	return len(f.Kinds) == 0 || slices.Contains(f.Kinds, k)
}

// SymbolSet is a set of symbols as a reader's layers number them, so that
// which edges lead into it is known without naming their targets.
type SymbolSet struct {
	r   *Reader
	ids []map[uint64]string // per layer of r.layers: id → symbol
}

// SymbolSet returns the set of syms for reads of r (a symbol no layer
// names is in no edge).
func (r *Reader) SymbolSet(syms []string) (*SymbolSet, error) {
	set := &SymbolSet{r: r, ids: make([]map[uint64]string, len(r.layers))}
	for li, ls := range r.layers {
		m := make(map[uint64]string, len(syms))
		for _, sym := range syms {
			id, ok, err := r.symID(ls.space, sym)
			if err != nil {
				return nil, fmt.Errorf("graph: numbering %q: %w", sym, err)
			}
			if ok {
				m[id] = sym
			}
		}
		set.ids[li] = m
	}
	return set, nil
}

// TargetsIn returns Targets(id, f) that are in set, in the same order. It
// names only those, unless the graph has several layers or f.Limit cuts
// (which targets the limit keeps depends on all their names).
func (r *Reader) TargetsIn(ctx context.Context, id string, f EdgeFilter, set *SymbolSet) ([]string, error) {
	if len(r.layers) != 1 || set.r != r {
		return r.targetsInNamed(ctx, id, f, set)
	}
	ls := r.layers[0]
	prefix, err := r.edgePrefix(ls, kindOut, id)
	if err != nil {
		return nil, fmt.Errorf("graph: reading edges from %q: %w", id, err)
	}
	seen, err := r.outTargets(ctx, ls, id, prefix, f, nil)
	if err != nil {
		return nil, fmt.Errorf("graph: reading edges from %q: %w", id, err)
	}
	var out []string
	kept := 0
	for _, e := range seen {
		if e.conf >= f.MinConfidence {
			kept++
			if sym, ok := set.ids[0][e.to]; ok {
				out = append(out, sym)
			}
		}
	}
	if f.Limit > 0 && kept > f.Limit {
		return r.targetsInNamed(ctx, id, f, set)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// targetsInNamed is TargetsIn through Targets.
func (r *Reader) targetsInNamed(ctx context.Context, id string, f EdgeFilter, set *SymbolSet) ([]string, error) {
	all, err := r.Targets(ctx, id, f)
	if err != nil {
		return nil, err
	}
	in := map[string]bool{}
	for _, m := range set.ids {
		for _, sym := range m {
			in[sym] = true
		}
	}
	return slices.DeleteFunc(all, func(s string) bool { return !in[s] }), nil
}

// idEdge is an edge's target within one space, before it is named, its
// kind and its best confidence.
type idEdge struct {
	to   uint64
	kind EdgeKind
	conf float64
}

// edgeKeyPath returns the path of an out or in key, after its symbol
// prefix (space, kind byte, symbol id), without copying.
func edgeKeyPath(key []byte) (path []byte, ok bool) {
	const head = 9 + symIDLen
	if len(key) < head || bytes.IndexByte(key[head:], 0) >= 0 {
		return nil, false
	}
	return key[head:], true
}

// edgeKey identifies an aggregated edge.
type edgeKey struct {
	other string
	kind  EdgeKind
}

// edges reads the in- or out-index of id in every layer and aggregates.
func (r *Reader) edges(ctx context.Context, k kind, id string, f EdgeFilter) ([]Edge, error) {
	agg := map[edgeKey]*Edge{}
	for _, ls := range r.layers {
		prefix, err := r.edgePrefix(ls, k, id)
		if err != nil {
			return nil, err
		}
		// Within a layer an id is one symbol: its edges aggregate by id,
		// and the ids are named together after the scan.
		layer := map[idEdgeKey]*Edge{}
		var order []idEdgeKey
		if err := r.scanEdges(ctx, ls, k, id, prefix, f, layer, &order); err != nil {
			return nil, err
		}
		ids := make([]uint64, len(order))
		for i, ik := range order {
			ids[i] = ik.id
		}
		names, err := r.symNames(ls.space, ids)
		if err != nil {
			return nil, err
		}
		for i, ik := range order {
			e := layer[ik]
			if k == kindIn {
				e.From = names[i]
			} else {
				e.To = names[i]
			}
			ek := edgeKey{names[i], ik.kind}
			if a, ok := agg[ek]; ok {
				mergeEdge(a, *e)
			} else {
				agg[ek] = e
			}
		}
	}
	// Sorted by reference: an Edge is large to move.
	keep := make([]*Edge, 0, len(agg))
	for _, e := range agg {
		if e.Confidence >= f.MinConfidence {
			keep = append(keep, e)
		}
	}
	other := func(e *Edge) string {
		if k == kindIn {
			return e.From
		}
		return e.To
	}
	slices.SortFunc(keep, func(a, b *Edge) int {
		return cmp.Or(cmp.Compare(other(a), other(b)), cmp.Compare(a.Kind, b.Kind))
	})
	if f.Limit > 0 && len(keep) > f.Limit {
		keep = keep[:f.Limit]
	}
	out := make([]Edge, len(keep))
	for i, e := range keep {
		out[i] = *e
	}
	return out, nil
}

// edgePrefix returns the key prefix of id's out or in records in one
// layer; nil when the layer's records never name id.
func (r *Reader) edgePrefix(ls layerSpace, k kind, id string) ([]byte, error) {
	sid, ok, err := r.symID(ls.space, id)
	if err != nil || !ok {
		return nil, err
	}
	return appendSymPrefix(nil, ls.space, k, sid), nil
}

// scanEdges folds the edges of f's kinds in id's records under prefix (of
// kind k, in layer ls) into agg, by the other symbol's id (left unnamed),
// appending each new key to order.
func (r *Reader) scanEdges(ctx context.Context, ls layerSpace, k kind, id string, prefix []byte, f EdgeFilter, agg map[idEdgeKey]*Edge, order *[]idEdgeKey) error {
	if prefix == nil {
		return nil
	}
	return scanPrefix(ctx, r.kv(), prefix, func(key, v []byte) error {
		pb, ok := edgeKeyPath(key)
		if !ok {
			return fmt.Errorf("%w: edge key %q", errBadValue, key)
		}
		if r.hiddenBytes(ls, pb) {
			return nil
		}
		var path string // named once per record, when an edge keeps it
		err := decodeEdgesValue(v, func(g *groupEdge) bool {
			if !f.wants(g.kind) {
				return true
			}
			ik := idEdgeKey{g.other, g.kind}
			cur, ok := agg[ik]
			if ok && g.confidence <= cur.Confidence {
				cur.Count += g.count
				return true
			}
			if path == "" {
				path = string(pb)
			}
			e := Edge{Kind: g.kind, Confidence: g.confidence, Source: g.source, Reason: g.reason, Count: g.count, Path: path, Layer: ls.layer}
			if k == kindIn {
				e.To = id
			} else {
				e.From = id
			}
			if ok {
				mergeEdge(cur, e)
				return true
			}
			agg[ik] = &e
			*order = append(*order, ik)
			return true
		})
		if err != nil {
			return fmt.Errorf("%w of %s", err, id)
		}
		return nil
	})
}

// idEdgeKey identifies an aggregated edge within one layer, by the other
// symbol's id.
type idEdgeKey struct {
	id   uint64
	kind EdgeKind
}

// Direction of a traversal.
type Direction uint8

const (
	Upstream   Direction = iota // follow incoming edges: who depends on the start
	Downstream                  // follow outgoing edges: what the start depends on
)

// TraverseOptions bound a traversal. Zero limits mean no limit.
type TraverseOptions struct {
	Direction     Direction
	Kinds         []EdgeKind
	MinConfidence float64
	MaxDepth      int
	Limit         int // total visits, 0 = no limit
	LimitPerDepth int // 0 = no limit
}

// Visit is one symbol reached by a traversal.
type Visit struct {
	Symbol string
	Depth  int
	Via    Edge // the edge that reached it first (breadth-first, deterministic order)
}

// Traverse walks breadth-first from start. The first hop has Depth 1; the
// start symbols are not visits. Each depth's frontier is expanded in the
// order its symbols were reached, and each symbol's neighbours in symbol id
// order, so the result is deterministic. Truncated reports that Limit or
// LimitPerDepth left a reachable symbol out; stopping at MaxDepth does not
// count as truncation.
func (r *Reader) Traverse(ctx context.Context, start []string, o TraverseOptions) (visits []Visit, truncated bool, err error) {
	seen := map[string]bool{}
	var frontier []string
	for _, s := range start {
		if !seen[s] {
			seen[s] = true
			frontier = append(frontier, s)
		}
	}
	for depth := 1; len(frontier) > 0 && (o.MaxDepth <= 0 || depth <= o.MaxDepth); depth++ {
		var next []string
		for _, sym := range frontier {
			if err := ctx.Err(); err != nil {
				return visits, truncated, err
			}
			es, err := r.neighbours(ctx, sym, o)
			if err != nil {
				return visits, truncated, err
			}
			for _, e := range es {
				nb := e.To
				if o.Direction == Upstream {
					nb = e.From
				}
				if seen[nb] {
					continue
				}
				if o.Limit > 0 && len(visits) >= o.Limit {
					return visits, true, nil
				}
				if o.LimitPerDepth > 0 && len(next) >= o.LimitPerDepth {
					truncated = true
					break
				}
				seen[nb] = true
				visits = append(visits, Visit{Symbol: nb, Depth: depth, Via: e})
				next = append(next, nb)
			}
		}
		frontier = next
	}
	return visits, truncated, nil
}

func (r *Reader) neighbours(ctx context.Context, sym string, o TraverseOptions) ([]Edge, error) {
	f := EdgeFilter{Kinds: o.Kinds, MinConfidence: o.MinConfidence}
	if o.Direction == Upstream {
		return r.Incoming(ctx, sym, f)
	}
	return r.Outgoing(ctx, sym, f)
}
