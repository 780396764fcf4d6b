package searcheval

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

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
	RankFused       = "fused"       // search.DefaultSignals
	RankFit         = "fused-fit"   // the weights chosen on the fit commits
	RankGraphBlind  = "graph-blind" // BM25F and the query-blind signals
	RankBM25F       = "bm25f"       // BM25F alone
	RankBM25        = "bm25-whole-file"
	ablationPrefix  = "fused-without-"
	candidatesTaken = 100
)

// querySignals are the query-dependent graph signals, each left out in
// turn by an ablation ranking.
var querySignals = []string{search.SignalSymbol, search.SignalNeighbours, search.SignalPackage}

// blindSignals are the query-blind ones, left out together.
var blindSignals = []string{search.SignalDependents, search.SignalProximity, search.SignalNonTest}

// Rankings names the rankings in the order they are reported.
func Rankings() []string {
	out := []string{RankFused, RankFit}
	for _, s := range querySignals {
		out = append(out, ablationPrefix+s)
	}
	return append(out, ablationPrefix+"blind", RankGraphBlind, RankBM25F, RankBM25)
}

// weightsOf returns the signal weights of a fused ranking.
func weightsOf(name string, fitted search.SignalWeights) search.SignalWeights {
	w := maps.Clone(search.DefaultSignals)
	switch name {
	case RankFused:
	case RankFit:
		w = fitted
	case RankGraphBlind:
		for _, s := range querySignals {
			w[s] = 0
		}
	case RankBM25F:
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
// parent: once with every signal, keeping the candidates to fuse, and once
// as plain BM25 over whole files. With cache set, the index is kept in
// cache/PARENT and reused by later runs (indexing is what a run costs).
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
	every := search.SignalWeights{}
	for k := range search.DefaultSignals {
		every[k] = 1
	}
	all, err := search.Search(ctx, r, c.Query, search.Options{Limit: candidatesTaken, Signals: every})
	if err != nil {
		return fmt.Errorf("searcheval: %.12s: %w", c.Commit, err)
	}
	flat, err := search.Search(ctx, r, c.Query, search.Options{Limit: candidatesTaken, TextOnly: true, Weights: search.FlatWeights})
	if err != nil {
		return fmt.Errorf("searcheval: %.12s: %w", c.Commit, err)
	}
	c.hits = all.Hits
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

// fuse ranks c's candidates with weights w.
func (c *Commit) fuse(w search.SignalWeights) []int {
	hits := slices.Clone(c.hits)
	search.Fuse(hits, w)
	return truthRanks(c.Truth, hits)
}

// fitGrid is the weights tried for each query-dependent signal.
var fitGrid = []float64{0, 0.25, 0.5, 1, 2, 4}

// Fit chooses the weights of the query-dependent signals, from fitGrid,
// that give the best MRR over the fit commits (then the best hit@3, then
// the smallest weights), the other weights as in search.DefaultSignals.
func Fit(commits []Commit) search.SignalWeights {
	var fit []Commit
	for _, c := range commits {
		if c.Split == SplitFit {
			fit = append(fit, c)
		}
	}
	var best search.SignalWeights
	var bestScore Score
	n := len(querySignals)
	idx := make([]int, n)
	for {
		w := maps.Clone(search.DefaultSignals)
		for i, s := range querySignals {
			w[s] = fitGrid[idx[i]]
		}
		for i := range fit {
			fit[i].Ranks = map[string][]int{RankFit: fit[i].fuse(w)}
		}
		sc := Scores(fit, []string{RankFit})[0]
		if best == nil || cmp.Or(cmp.Compare(sc.MRR, bestScore.MRR), cmp.Compare(sc.Hit3, bestScore.Hit3)) > 0 {
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
			return best
		}
	}
}

// Evaluate ranks commits (Rank done) with every ranking, fitted the
// weights chosen on the fit commits, and scores the held-out commits per
// repository and over all of them, and the fit commits over all.
func Evaluate(commits []Commit, fitted search.SignalWeights) Report {
	for i := range commits {
		c := &commits[i]
		flat := c.Ranks[RankBM25]
		c.Ranks = map[string][]int{RankBM25: flat}
		for _, name := range Rankings() {
			if name != RankBM25 {
				c.Ranks[name] = c.fuse(weightsOf(name, fitted))
			}
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
