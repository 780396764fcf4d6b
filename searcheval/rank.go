package searcheval

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/search"
)

// Splits of the commits: the older half of each repository's commits is
// where weights are chosen, the newer half where they are judged.
const (
	SplitFit     = "fit"
	SplitHeldOut = "held-out"
)

// Rankings the evaluation compares, all by the same scorer. The fused
// rankings are fusions of one search's signals with other weights
// (search.Fuse), which is what a search with those weights returns.
const (
	RankFused       = "fused"             // search.DefaultSignals, search.LanguageText
	RankFit         = "fused-fit"         // the weights chosen on the fit commits
	RankHandFields  = "fused-hand-fields" // search.DefaultSignals over search.HandText
	RankOverBM25    = "fused-over-bm25"   // search.DefaultSignals over search.FlatText (reported, not fitted)
	RankFitOther    = "fused-fit-other"   // the other fusion with its weights chosen on the fit commits
	RankGraphBlind  = "graph-blind"       // BM25F and the query-blind signals
	RankBM25F       = "bm25f"             // BM25F alone (search.LanguageText)
	RankBM25FHand   = "bm25f-hand-fields" // BM25F alone over search.HandText
	RankBM25        = "bm25-whole-file"
	ablationPrefix  = "fused-without-"
	candidatesTaken = 100
)

// TextGrid is the BM25F parameters the fit chooses from per language:
// the hand-set field weights first, then flat ones and milder field
// weightings, with b 0.75, and the hand-set and flat ones with b 0.5.
var TextGrid = []search.Text{
	search.HandText,
	search.FlatText,
	search.MildText,
	{Weights: search.Weights{graph.TermName: 2, graph.TermPath: 1, graph.TermDoc: 1, graph.TermString: 1, graph.TermCode: 1}, B: 0.75},
	{Weights: search.Weights{graph.TermName: 1, graph.TermPath: 2, graph.TermDoc: 1, graph.TermString: 1, graph.TermCode: 1}, B: 0.75},
	{Weights: search.FieldWeights, B: 0.5},
	{Weights: search.FlatWeights, B: 0.5},
}

// querySignals are the query-dependent graph signals, each left out in
// turn by an ablation ranking.
var querySignals = []string{search.SignalSymbol, search.SignalNeighbours, search.SignalPackage}

// blindSignals are the query-blind ones, left out together.
var blindSignals = []string{search.SignalDependents, search.SignalProximity, search.SignalNonTest}

// Rankings names the rankings in the order they are reported.
func Rankings() []string {
	out := []string{RankFused, RankFit, RankFitOther}
	for _, s := range querySignals {
		out = append(out, ablationPrefix+s)
	}
	return append(out, ablationPrefix+"blind", RankHandFields, RankOverBM25, RankGraphBlind, RankBM25F, RankBM25FHand, RankBM25)
}

// Fitted is what the fit commits chose: BM25F's parameters per language
// (an index into TextGrid), the fusion and its signal weights, and the
// best weights of the other fusion.
type Fitted struct {
	Text         map[string]int       `json:"text"`
	Fusion       search.Fusion        `json:"fusion"`
	Signals      search.SignalWeights `json:"signals"`
	Other        search.Fusion        `json:"other_fusion"`
	OtherSignals search.SignalWeights `json:"other_signals"`
}

// weightsOf returns the signal weights of a fused ranking.
func weightsOf(name string, fitted search.SignalWeights) search.SignalWeights {
	w := maps.Clone(search.DefaultSignals)
	switch name {
	case RankFused, RankHandFields, RankOverBM25:
	case RankFit, RankFitOther:
		w = fitted
	case RankGraphBlind:
		for _, s := range querySignals {
			w[s] = 0
		}
	case RankBM25F, RankBM25FHand:
		w = search.SignalWeights{search.SignalText: 1}
	case ablationPrefix + "blind":
		for _, s := range blindSignals {
			w[s] = 0
		}
	default:
		w[name[len(ablationPrefix):]] = 0
	}
	return w
}

// Rank searches c's query against a syntax index of the tree at c's
// parent: with every signal, keeping the candidates to fuse, once with
// each language's BM25F parameters (search.LanguageText) and once with
// each of TextGrid; and once as plain BM25 over whole files. With cache
// set, the index is kept in cache/PARENT and reused by later runs
// (indexing is what a run costs).
func Rank(ctx context.Context, gitDir, ext, cache string, c *Commit) error {
	st, cleanup, err := parentStore(ctx, gitDir, ext, cache, c.Commit)
	if err != nil {
		return err
	}
	defer cleanup()
	r, err := st.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	sort.Strings(c.Truth)
	c.Language = lang.Of("x" + ext)
	every := search.SignalWeights{}
	for k := range search.DefaultSignals {
		every[k] = 1
	}
	reads := search.NewCache()
	texts := []*search.Text{nil} // search.LanguageText
	for i := range TextGrid {
		texts = append(texts, &TextGrid[i])
	}
	c.hits, c.grid = nil, nil
	for i, t := range texts {
		res, err := search.Search(ctx, r, c.Query, search.Options{Limit: candidatesTaken, Signals: every, Text: t, Cache: reads})
		if err != nil {
			return fmt.Errorf("searcheval: %.12s: %w", c.Commit, err)
		}
		if i == 0 {
			c.hits = res.Hits
		} else {
			c.grid = append(c.grid, res.Hits)
		}
	}
	flat, err := search.Search(ctx, r, c.Query, search.Options{Limit: candidatesTaken, TextOnly: true, Text: &search.FlatText, Cache: reads})
	if err != nil {
		return fmt.Errorf("searcheval: %.12s: %w", c.Commit, err)
	}
	c.Ranks = map[string][]int{RankBM25: truthRanks(c.Truth, flat.Hits)}
	return nil
}

// truthRanks returns the rank of each truth file (sorted) among hits, 0
// when absent.
func truthRanks(truth []string, hits []search.Hit) []int {
	ranks := make([]int, len(truth))
	for i, h := range hits {
		if k, ok := slices.BinarySearch(truth, h.Path); ok && ranks[k] == 0 {
			ranks[k] = i + 1
		}
	}
	return ranks
}

// fuse ranks c's candidates searched with the BM25F parameters text (an
// index into TextGrid, or -1 for search.LanguageText) with weights w.
func (c *Commit) fuse(text int, w search.SignalWeights, f search.Fusion) []int {
	hits := c.hits
	if text >= 0 {
		hits = c.grid[text]
	}
	hits = slices.Clone(hits)
	search.FuseBy(hits, w, f)
	return truthRanks(c.Truth, hits)
}

// fitGrid is the weights tried for each query-dependent signal.
var fitGrid = []float64{0, 0.25, 0.5, 1, 2, 4}

// Fit chooses, on the fit commits alone, BM25F's parameters per language
// from TextGrid and the weights of the query-dependent signals from
// fitGrid (the other weights as in search.DefaultSignals). First, per
// language, the parameters whose BM25F alone ranks that language's
// commits best; then the signal weights whose fusion over those
// parameters' candidates ranks all fit commits best. Best is the highest
// MRR, then hit@3, then the earlier in the grids (the hand-set fields,
// the smaller weights). Choosing the parameters by the text alone, not
// jointly with the signal weights, leaves 75 commits per language fewer
// ways to be overfitted: chosen jointly, the fit gained 0.013 MRR on the
// fit commits and lost 0.007 on the held-out ones.
func Fit(commits []Commit) Fitted {
	var fit []Commit
	for _, c := range commits {
		if c.Split == SplitFit {
			fit = append(fit, c)
		}
	}
	f := Fitted{Text: map[string]int{}}
	var langs []string
	for _, c := range fit {
		if !slices.Contains(langs, c.Language) {
			langs = append(langs, c.Language)
		}
	}
	textOnly := search.SignalWeights{search.SignalText: 1}
	for _, l := range langs {
		var cs []Commit
		for _, c := range fit {
			if c.Language == l {
				cs = append(cs, c)
			}
		}
		var best Score
		for t := range TextGrid {
			for i := range cs {
				cs[i].Ranks = map[string][]int{RankFit: cs[i].fuse(t, textOnly, search.DefaultFusion)}
			}
			if sc := Scores(cs, []string{RankFit})[0]; t == 0 || better(sc, best) {
				f.Text[l], best = t, sc
			}
		}
	}
	f.Fusion, f.Other = search.FusionRRF, search.FusionSum
	var rrf, sum Score
	f.Signals, rrf = bestSignals(fit, f.Text, search.FusionRRF)
	f.OtherSignals, sum = bestSignals(fit, f.Text, search.FusionSum)
	if better(sum, rrf) {
		f.Fusion, f.Other = f.Other, f.Fusion
		f.Signals, f.OtherSignals = f.OtherSignals, f.Signals
	}
	return f
}

// better reports whether a scores above b: MRR, then hit@3.
func better(a, b Score) bool {
	return cmp.Or(cmp.Compare(a.MRR, b.MRR), cmp.Compare(a.Hit3, b.Hit3)) > 0
}

// bestSignals returns the signal weights, from fitGrid, whose fusion f of
// commits' candidates searched with the BM25F parameters text (per
// language, an index into TextGrid) scores best, and that score.
func bestSignals(commits []Commit, text map[string]int, f search.Fusion) (search.SignalWeights, Score) {
	var best search.SignalWeights
	var bestScore Score
	n := len(querySignals)
	idx := make([]int, n)
	cs := slices.Clone(commits)
	for {
		w := maps.Clone(search.DefaultSignals)
		for i, s := range querySignals {
			w[s] = fitGrid[idx[i]]
		}
		for i := range cs {
			cs[i].Ranks = map[string][]int{RankFit: cs[i].fuse(text[cs[i].Language], w, f)}
		}
		sc := Scores(cs, []string{RankFit})[0]
		if best == nil || better(sc, bestScore) {
			best, bestScore = w, sc
		}
		i := 0
		for ; i < n; i++ {
			if idx[i]++; idx[i] < len(fitGrid) {
				break
			}
			idx[i] = 0
		}
		if i == n {
			return best, bestScore
		}
	}
}

// Evaluate ranks commits (Rank done) with every ranking, fitted the
// parameters and weights chosen on the fit commits, and scores the
// held-out commits per repository and over all of them, and the fit
// commits over all.
func Evaluate(commits []Commit, fitted Fitted) Report {
	for i := range commits {
		c := &commits[i]
		flat := c.Ranks[RankBM25]
		c.Ranks = map[string][]int{RankBM25: flat}
		for _, name := range Rankings() {
			text, fusion, w := -1, search.DefaultFusion, weightsOf(name, fitted.Signals)
			switch name {
			case RankBM25:
				continue
			case RankFit:
				text, fusion = fitted.Text[c.Language], fitted.Fusion
			case RankFitOther:
				text, fusion, w = fitted.Text[c.Language], fitted.Other, fitted.OtherSignals
			case RankHandFields, RankBM25FHand:
				text = 0 // TextGrid[0] is search.HandText
			case RankOverBM25:
				text = 1 // TextGrid[1] is search.FlatText
			}
			c.Ranks[name] = c.fuse(text, w, fusion)
		}
	}
	rep := Report{Commits: commits, Fitted: fitted}
	var repos []string
	for _, c := range commits {
		if !slices.Contains(repos, c.Repo) {
			repos = append(repos, c.Repo)
		}
	}
	table := func(of, split string) {
		var cs []Commit
		for _, c := range commits {
			if c.Split == split && (of == "all" || c.Repo == of) {
				cs = append(cs, c)
			}
		}
		rep.Scores = append(rep.Scores, Table{Of: of, Split: split, Commits: len(cs), Scores: Scores(cs, Rankings())})
	}
	for _, r := range repos {
		table(r, SplitHeldOut)
	}
	table("all", SplitHeldOut)
	table("all", SplitFit)
	return rep
}

// Split marks the older half of commits (newest first) SplitFit and the
// rest SplitHeldOut.
func Split(commits []Commit) {
	for i := range commits {
		commits[i].Split = SplitHeldOut
		if i >= len(commits)/2 {
			commits[i].Split = SplitFit
		}
	}
}
