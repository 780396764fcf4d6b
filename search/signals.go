package search

import (
	"cmp"
	"context"
	"path"
	"slices"
)

// The signals a search fuses, by name.
const (
	// SignalText: field-weighted BM25 of the query's words.
	SignalText = "bm25"
	// SignalSymbol: the query's words in the names the document defines,
	// each name scored by the idf of the words it holds and the share of
	// the name they cover (a definition named by the query).
	SignalSymbol = "symbol"
	// SignalNeighbours: the BM25 of the candidates the document is linked
	// to by references, either way (it references their definitions or
	// they reference its): one hop of the reference graph spreading the
	// text's evidence.
	SignalNeighbours = "neighbours"
	// SignalPackage: the BM25 of the best other documents of the
	// document's directory.
	SignalPackage = "package"
	// SignalDependents: how many packages import the document's (query
	// blind).
	SignalDependents = "dependents"
	// SignalProximity: nearness to the current document (query blind).
	SignalProximity = "proximity"
	// SignalNonTest: the document is not a test (query blind).
	SignalNonTest = "non-test"
)

// SignalWeights weigh each signal in the fusion (its value over the
// largest, or its reciprocal rank), by name.
type SignalWeights map[string]float64

// DefaultSignals are the weights of DefaultFusion: those of the query's evidence
// chosen on the older half of 150 commits of each of three repositories'
// histories (pebble, vuejs/core, flask; search/testdata/README.md), over
// the candidates of each language's BM25F (LanguageText).
// The query-blind signals only break near-ties: at 0.3 (dependents,
// non-test) and 0.5 (proximity) they dragged the MRR of 40 pebble commits
// from 0.757 to 0.404.
var DefaultSignals = SignalWeights{
	SignalText:       1,
	SignalSymbol:     0.5,
	SignalNeighbours: 0.5,
	SignalPackage:    0,
	SignalDependents: 0.05,
	SignalProximity:  0.1,
	SignalNonTest:    0.05,
}

// evidenceDepth is how many candidates, best by BM25, the symbol and
// neighbours signals read: the documents whose definitions and references
// are read per query.
const evidenceDepth = 20

// spread damps the evidence a document takes from its neighbours and
// siblings: its own BM25 plus spread times theirs (averaged).
const spread = 0.5

// siblingsCounted is how many of a directory's other documents, best by
// BM25, the package signal sums.
const siblingsCounted = 3

// queryWords is a search's words and their idf.
type queryWords struct {
	words []string
	idf   map[string]float64
}

// Fusion is how the signals' evidence is summed.
type Fusion string

const (
	// FusionRRF sums each signal's reciprocal rank, weighted (rrfK
	// damping).
	FusionRRF Fusion = "rrf"
	// FusionSum (CombSUM) sums each signal's value over its largest
	// among the hits, weighted.
	FusionSum Fusion = "combsum"
)

// DefaultFusion is the fusion a search uses: CombSUM, which the fit on the
// older half of the history commits chose over reciprocal ranks
// (search/testdata/README.md).
const DefaultFusion = FusionSum

// Fuse scores hits by the reciprocal ranks of their signals, each
// weighted by w (rrfK damping), and sorts them best first, equal scores
// in their order.
func Fuse(hits []Hit, w SignalWeights) { FuseBy(hits, w, FusionRRF) }

// FuseBy scores hits by their signals, each weighted by w, summed as f
// says (FusionRRF or FusionSum), and sorts them best first, equal scores
// in their order.
func FuseBy(hits []Hit, w SignalWeights, f Fusion) {
	var top map[string]float64
	if f == FusionSum {
		top = map[string]float64{}
		for _, h := range hits {
			for _, s := range h.Signals {
				top[s.Name] = max(top[s.Name], s.Value)
			}
		}
	}
	for i := range hits {
		h := &hits[i]
		h.Score = 0
		for _, s := range h.Signals {
			if f == FusionSum {
				if top[s.Name] > 0 {
					h.Score += w[s.Name] * s.Value / top[s.Name]
				}
				continue
			}
			h.Score += w[s.Name] / float64(rrfK+s.Rank)
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
}

// symbolEvidence scores each candidate by its best definition named by the
// query's words.
func symbolEvidence(ctx context.Context, v *view, cands []*candidate, q queryWords) error {
	for _, c := range cands {
		syms, err := matchingSymbols(ctx, v, c.hit.Path, q.words, q.idf)
		if err != nil {
			return err
		}
		c.symbols, c.named = syms, true
		for _, s := range syms {
			c.symbol = max(c.symbol, s.score)
		}
	}
	return nil
}

// neighbourEvidence links the candidates whose documents reference one
// another's definitions and scores each by its neighbours' BM25. A symbol
// defined by more than one candidate (a package) links nothing, nor do
// imports and locals.
func neighbourEvidence(ctx context.Context, v *view, cands []*candidate) error {
	definer := map[uint32]int{} // symbol → candidate defining it, -1 when several
	refs := make([][]uint32, len(cands))
	for i, c := range cands {
		l, err := v.links(ctx, c.hit.Path)
		if err != nil {
			return err
		}
		refs[i] = l.refs
		for _, s := range l.defs {
			if _, ok := definer[s]; ok {
				definer[s] = -1
			} else {
				definer[s] = i
			}
		}
	}
	linked := make([]map[int]bool, len(cands))
	for i := range linked {
		linked[i] = map[int]bool{}
	}
	for i, rs := range refs {
		for _, s := range rs {
			if j, ok := definer[s]; ok && j >= 0 && j != i {
				linked[i][j], linked[j][i] = true, true
			}
		}
	}
	for i, c := range cands {
		ns := make([]int, 0, len(linked[i]))
		for j := range linked[i] {
			ns = append(ns, j)
		}
		slices.Sort(ns) // candidates are best by BM25 first
		sum := 0.0
		for _, j := range ns {
			sum += cands[j].hit.BM25
			if len(c.hit.Neighbours) < 3 {
				c.hit.Neighbours = append(c.hit.Neighbours, cands[j].hit.Path)
			}
		}
		if len(ns) > 0 {
			c.neighbours = c.hit.BM25 + spread*sum/float64(len(ns))
		}
	}
	return nil
}

// siblingScores sums, for every document scored, the BM25 of the best
// siblingsCounted other documents of its directory.
func siblingScores(docs []*scoredDoc, cands []*candidate) map[string]float64 {
	// Per directory, the best siblingsCounted+1 BM25 scores, best first:
	// a document's own and its best others' are among them.
	byDir := map[string][]float64{}
	for _, d := range docs {
		dir := path.Dir(d.path)
		byDir[dir] = keepBest(byDir[dir], d.bm25, siblingsCounted+1)
	}
	out := make(map[string]float64, len(cands))
	for _, c := range cands {
		p := c.hit.Path
		s := byDir[path.Dir(p)]
		own := false
		sum, n := 0.0, 0
		for _, v := range s[:min(len(s), siblingsCounted+1)] {
			if !own && v == c.hit.BM25 {
				own = true
				continue
			}
			sum, n = sum+v, n+1
		}
		if !own && n > siblingsCounted {
			sum, n = sum-s[siblingsCounted], n-1
		}
		out[p] = c.hit.BM25
		if n > 0 {
			out[p] += spread * sum / float64(n)
		}
	}
	return out
}

// keepBest inserts v into s, which holds at most n values in decreasing
// order, dropping the smallest when s is full.
func keepBest(s []float64, v float64, n int) []float64 {
	i, _ := slices.BinarySearchFunc(s, v, func(e, t float64) int { return cmp.Compare(t, e) })
	if i >= n {
		return s
	}
	if len(s) < n {
		s = append(s, 0)
	}
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}
