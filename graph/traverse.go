package graph

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
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
		prefixes, err := r.edgePrefixes(ls, kindOut, id, f)
		if err != nil {
			return nil, fmt.Errorf("graph: reading edges from %q: %w", id, err)
		}
		if seen, err = r.outTargets(ctx, ls, id, prefixes, seen[:0]); err != nil {
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

// outTargets appends to seen the targets of id's edges under prefixes in
// one layer, with the best confidence of each (target, kind). Under one
// prefix the keys run by kind, then target, then path: an edge's
// documents are adjacent, so no map is needed.
func (r *Reader) outTargets(ctx context.Context, ls layerSpace, id string, prefixes [][]byte, seen []idEdge) ([]idEdge, error) {
	for i, p := range prefixes {
		if slices.ContainsFunc(prefixes[:i], func(q []byte) bool { return bytes.Equal(p, q) }) {
			continue // a kind named twice
		}
		err := scanPrefix(ctx, r.kv(), p, func(key, v []byte) error {
			ek, to, path, ok := splitEdgeKey(key)
			if !ok {
				return fmt.Errorf("%w: edge key %q", errBadValue, key)
			}
			if r.hiddenBytes(ls, path) {
				return nil
			}
			vr := valueReader{b: v}
			c := vr.float()
			if vr.bad {
				return fmt.Errorf("%w: edge %s -> %s", errBadValue, id, formatSymID(to))
			}
			if n := len(seen); n > 0 && seen[n-1].to == to && string(seen[n-1].kind) == string(ek) {
				seen[n-1].conf = max(seen[n-1].conf, c)
				return nil
			}
			seen = append(seen, idEdge{to, edgeKindOf(ek), c})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return seen, nil
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
	prefixes, err := r.edgePrefixes(ls, kindOut, id, f)
	if err != nil {
		return nil, fmt.Errorf("graph: reading edges from %q: %w", id, err)
	}
	seen, err := r.outTargets(ctx, ls, id, prefixes, nil)
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

// splitEdgeKey splits an out or in key after its symbol prefix (space,
// kind byte, symbol id) into the edge kind, the other symbol's id and the
// path, without copying.
func splitEdgeKey(key []byte) (kind []byte, other uint64, path []byte, ok bool) {
	const head = 9 + symIDLen
	if len(key) < head {
		return nil, 0, nil, false
	}
	rest := key[head:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 || len(rest) < i+1+symIDLen {
		return nil, 0, nil, false
	}
	path = rest[i+1+symIDLen:]
	if bytes.IndexByte(path, 0) >= 0 {
		return nil, 0, nil, false
	}
	return rest[:i], binary.BigEndian.Uint64(rest[i+1:]), path, true
}

// edgeKindOf returns the kind a key spells, without allocating for the
// known kinds.
func edgeKindOf(b []byte) EdgeKind {
	switch string(b) {
	case string(EdgeReferences):
		return EdgeReferences
	case string(EdgeCalls):
		return EdgeCalls
	case string(EdgeImplements):
		return EdgeImplements
	case string(EdgeTypeOf):
		return EdgeTypeOf
	case string(EdgeContains):
		return EdgeContains
	case string(EdgeImports):
		return EdgeImports
	case string(EdgeTypeDef):
		return EdgeTypeDef
	}
	return EdgeKind(b)
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
		prefixes, err := r.edgePrefixes(ls, k, id, f)
		if err != nil {
			return nil, err
		}
		// Within a layer an id is one symbol: its edges aggregate by id,
		// and the ids are named together after the scan.
		layer := map[idEdgeKey]*Edge{}
		var order []idEdgeKey
		for _, p := range prefixes {
			if err := r.scanEdges(ctx, ls, k, id, p, layer, &order); err != nil {
				return nil, err
			}
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

// edgePrefixes returns the key prefixes of id's edges in one layer: one
// per kind of the filter, or one for all; none when the layer's records
// never name id.
func (r *Reader) edgePrefixes(ls layerSpace, k kind, id string, f EdgeFilter) ([][]byte, error) {
	sid, ok, err := r.symID(ls.space, id)
	if err != nil || !ok {
		return nil, err
	}
	base := appendSymPrefix(nil, ls.space, k, sid)
	if len(f.Kinds) == 0 {
		return [][]byte{base}, nil
	}
	prefixes := make([][]byte, 0, len(f.Kinds))
	for _, kd := range f.Kinds {
		prefixes = append(prefixes, appendField(slices.Clip(base), string(kd)))
	}
	return prefixes, nil
}

// scanEdges folds the edge keys under prefix (id's, of kind k, in layer
// ls) into agg, by the other symbol's id (left unnamed), appending each new
// key to order. An edge already aggregated decodes its value's strings
// only when it is more confident than the one kept (mergeEdge).
func (r *Reader) scanEdges(ctx context.Context, ls layerSpace, k kind, id string, prefix []byte, agg map[idEdgeKey]*Edge, order *[]idEdgeKey) error {
	return scanPrefix(ctx, r.kv(), prefix, func(key, v []byte) error {
		kb, otherID, path, ok := splitEdgeKey(key)
		if !ok {
			return fmt.Errorf("%w: edge key %q", errBadValue, key)
		}
		if r.hiddenBytes(ls, path) {
			return nil
		}
		ik := idEdgeKey{otherID, edgeKindOf(kb)}
		e := Edge{Kind: ik.kind, Layer: ls.layer}
		if k == kindIn {
			e.To = id
		} else {
			e.From = id
		}
		if cur, ok := agg[ik]; ok {
			c, n, err := decodeEdgeConfidence(v)
			if err != nil {
				return fmt.Errorf("%w: edge of %s", err, id)
			}
			if c <= cur.Confidence {
				cur.Count += n
				return nil
			}
			e.Path = string(path)
			if err := decodeEdgeValue(&e, v); err != nil {
				return err
			}
			mergeEdge(cur, e)
			return nil
		}
		e.Path = string(path)
		if err := decodeEdgeValue(&e, v); err != nil {
			return err
		}
		agg[ik] = &e
		*order = append(*order, ik)
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
