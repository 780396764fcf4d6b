package searcheval

import (
	"math/rand/v2"
	"slices"
)

// Paired compares two rankings commit by commit: the mean of the
// difference of their reciprocal ranks (A − B, so MRR(A) − MRR(B)), its
// 95% interval by a paired bootstrap over the commits, and on how many
// commits A ranked the first truth file higher (wins) or lower (losses).
// An interval above zero says A's lead is not an accident of which
// commits were drawn.
type Paired struct {
	Of      string  `json:"of"`
	A       string  `json:"a"`
	B       string  `json:"b"`
	Commits int     `json:"commits"`
	Diff    float64 `json:"mrr_difference"`
	Low     float64 `json:"low"`
	High    float64 `json:"high"`
	Wins    int     `json:"wins"`
	Losses  int     `json:"losses"`
}

// Resamples is how many bootstrap resamples Compare draws.
const Resamples = 10000

// Compare compares rankings a and b over commits with a paired bootstrap
// of Resamples draws from a fixed seed, so that a report is reproducible.
func Compare(of string, commits []Commit, a, b string) Paired {
	p := Paired{Of: of, A: a, B: b, Commits: len(commits)}
	if len(commits) == 0 {
		return p
	}
	diffs := make([]float64, len(commits))
	for i, c := range commits {
		d := reciprocalRank(c.Ranks[a]) - reciprocalRank(c.Ranks[b])
		diffs[i] = d
		p.Diff += d / float64(len(commits))
		switch {
		case d > 0:
			p.Wins++
		case d < 0:
			p.Losses++
		}
	}
	rng := rand.New(rand.NewPCG(1, uint64(len(commits))))
	means := make([]float64, Resamples)
	for r := range means {
		sum := 0.0
		for range diffs {
			sum += diffs[rng.IntN(len(diffs))]
		}
		means[r] = sum / float64(len(diffs))
	}
	slices.Sort(means)
	p.Low, p.High = means[Resamples*25/1000], means[Resamples*975/1000-1]
	return p
}

// comparisons are the pairs every report compares: the fused ranking
// against plain BM25 over whole files, and against field-weighted BM25.
var comparisons = [][2]string{{RankFused, RankBM25}, {RankFused, RankBM25F}}

// compareHeldOut compares, per repository and over all of them, the
// held-out commits' rankings of each pair in comparisons.
func compareHeldOut(commits []Commit) []Paired {
	var repos []string
	for _, c := range commits {
		if !slices.Contains(repos, c.Repo) {
			repos = append(repos, c.Repo)
		}
	}
	var out []Paired
	for _, of := range append(repos, "all") {
		var cs []Commit
		for _, c := range commits {
			if c.Split == SplitHeldOut && (of == "all" || c.Repo == of) {
				cs = append(cs, c)
			}
		}
		for _, pair := range comparisons {
			out = append(out, Compare(of, cs, pair[0], pair[1]))
		}
	}
	return out
}
