package searcheval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/search"
)

// Commit is one commit of the history evaluation: its query, the files it
// changed and where each ranking put them.
type Commit struct {
	Repo string `json:"repo"`
	// Language is the graph language of the truth files (internal/lang).
	Language string   `json:"language"`
	Split    string   `json:"split"` // SplitFit or SplitHeldOut
	Commit   string   `json:"commit"`
	Query    string   `json:"query"`
	Truth    []string `json:"truth"`
	// Ranks are, per ranking, the rank of each truth file in its order
	// (0: not in the top 100).
	Ranks map[string][]int `json:"ranks"`
	// hits are the candidates of a search with every signal, for fusing
	// them again with other weights; grid those of the same search with
	// each of TextGrid's BM25F parameters.
	hits []search.Hit
	grid [][]search.Hit
}

// Score is one ranking's scores over the commits: the share of commits
// with a changed file at rank 1, within 3, 5 and 10, the mean reciprocal
// rank of the first changed file, and the mean share of changed files
// within 10.
type Score struct {
	Ranking  string  `json:"ranking"`
	Hit1     float64 `json:"hit_at_1"`
	Hit3     float64 `json:"hit_at_3"`
	Hit5     float64 `json:"hit_at_5"`
	Hit10    float64 `json:"hit_at_10"`
	MRR      float64 `json:"mrr"`
	Recall10 float64 `json:"recall_at_10"`
}

// Report is the evaluation: every commit, the weights chosen on the fit
// commits, and the scores of each ranking over the held-out commits of
// each repository and of all of them.
type Report struct {
	Commits []Commit `json:"commits"`
	Fitted  Fitted   `json:"fitted"`
	Scores  []Table  `json:"scores"`
}

// Table is the scores of every ranking over one set of commits.
type Table struct {
	Of      string  `json:"of"` // a repository, or "all"
	Split   string  `json:"split"`
	Commits int     `json:"commits"`
	Scores  []Score `json:"scores"`
}

// Commits returns up to n commits, newest first, that are not merges,
// whose message says something (40 characters at least besides trailers),
// and that modify between 1 and 8 existing files with extension ext and
// touch 12 files at most.
func Commits(ctx context.Context, dir, ext string, n int) ([]Commit, error) {
	raw, err := gitcmd.Run(ctx, dir, "log", "--no-merges", "--format=%H%x00%B%x1e", "-n", "3000")
	if err != nil {
		return nil, fmt.Errorf("searcheval: reading the history of %s: %w", dir, err)
	}
	var out []Commit
	for _, rec := range strings.Split(string(raw), "\x1e") {
		hash, msg, ok := strings.Cut(strings.TrimSpace(rec), "\x00")
		if !ok || len(out) >= n {
			continue
		}
		q := commitQuery(msg)
		if len(q) < 40 || strings.HasPrefix(q, "Revert") {
			continue
		}
		st, err := gitcmd.Run(ctx, dir, "diff-tree", "--no-commit-id", "-r", "--name-status", "--no-renames", hash+"^", hash)
		if err != nil {
			continue // a root commit
		}
		lines := strings.Split(strings.TrimSpace(string(st)), "\n")
		var truth []string
		for _, l := range lines {
			status, p, _ := strings.Cut(l, "\t")
			if status == "M" && strings.HasSuffix(p, ext) {
				truth = append(truth, p)
			}
		}
		if len(truth) == 0 || len(truth) > 8 || len(lines) > 12 {
			continue
		}
		out = append(out, Commit{Commit: hash, Query: q, Truth: truth})
	}
	return out, nil
}

// commitQuery is a commit message without its trailers (Fixes, Epic,
// Release note, Signed-off-by, …) and links, as one line.
func commitQuery(msg string) string {
	var keep []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		low := strings.ToLower(l)
		if strings.Contains(low, "http://") || strings.Contains(low, "https://") {
			continue
		}
		if k, _, ok := strings.Cut(l, ":"); ok && slices.Contains(trailers, strings.ToLower(k)) {
			continue
		}
		if strings.HasPrefix(low, "release note") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(strings.Fields(strings.Join(keep, " ")), " ")
}

var trailers = []string{"fixes", "fixed", "informs", "epic", "signed-off-by", "co-authored-by", "touches", "see", "closes", "resolves", "part-of"}

// Scores computes each ranking's scores over commits, in the order of
// names.
func Scores(commits []Commit, names []string) []Score {
	var out []Score
	for _, name := range names {
		s := Score{Ranking: name}
		for _, c := range commits {
			first, within10 := firstRank(c.Ranks[name]), 0
			for _, k := range c.Ranks[name] {
				if k > 0 && k <= 10 {
					within10++
				}
			}
			if len(c.Truth) > 0 {
				s.Recall10 += float64(within10) / float64(len(c.Truth))
			}
			if first == 0 {
				continue
			}
			s.MRR += 1 / float64(first)
			for _, h := range []struct {
				at  int
				sum *float64
			}{{1, &s.Hit1}, {3, &s.Hit3}, {5, &s.Hit5}, {10, &s.Hit10}} {
				if first <= h.at {
					*h.sum++
				}
			}
		}
		if m := float64(len(commits)); m > 0 {
			s.Hit1, s.Hit3, s.Hit5, s.Hit10, s.MRR, s.Recall10 = s.Hit1/m, s.Hit3/m, s.Hit5/m, s.Hit10/m, s.MRR/m, s.Recall10/m
		}
		out = append(out, s)
	}
	return out
}

// firstRank is the best rank among a commit's truth files (0: none in the
// top 100).
func firstRank(ranks []int) int {
	first := 0
	for _, k := range ranks {
		if k > 0 && (first == 0 || k < first) {
			first = k
		}
	}
	return first
}

// reciprocalRank is 1/first rank, 0 when no truth file was found.
func reciprocalRank(ranks []int) float64 {
	if k := firstRank(ranks); k > 0 {
		return 1 / float64(k)
	}
	return 0
}

// ReadQueries returns the queries (commit messages) of the commits of a
// Report written to file as JSON.
func ReadQueries(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("searcheval: %s is not a search evaluation report: %w", file, err)
	}
	out := make([]string, 0, len(rep.Commits))
	for _, c := range rep.Commits {
		out = append(out, c.Query)
	}
	return out, nil
}
