package searcheval

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/search"
	"github.com/lspgraph/lspgraph/syntax"
)

// Commit is one commit of the history evaluation: its query,
// the files it changed and where each ranking put the first of them.
type Commit struct {
	Commit string         `json:"commit"`
	Query  string         `json:"query"`
	Truth  []string       `json:"truth"`
	Ranks  map[string]int `json:"ranks"` // ranking → rank of the first changed file (0: not in the top 100)
}

// Score is one ranking's scores over the commits.
type Score struct {
	Ranking string  `json:"ranking"`
	Hit5    float64 `json:"hit_at_5"`
	Hit10   float64 `json:"hit_at_10"`
	MRR     float64 `json:"mrr"`
}

// Report is the evaluation of one repository.
type Report struct {
	Repo    string   `json:"repo"`
	Commits []Commit `json:"commits"`
	Scores  []Score  `json:"scores"`
}

// rankings are the rankings the evaluation compares, all computed
// by the same scorer: the graph-fused ranking, field-weighted BM25 alone,
// and plain BM25 over whole files (every field weighted alike).
var rankings = []struct {
	name string
	opts search.Options
}{
	{"fused", search.Options{}},
	{"fused-graph-x6", search.Options{GraphScale: 6}}, // the first weights (0.3, 0.5, 0.3)
	{"bm25f", search.Options{TextOnly: true}},
	{"bm25-whole-file", search.Options{TextOnly: true, Weights: search.FlatWeights}},
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
		out = append(out, Commit{Commit: hash, Query: q, Truth: truth, Ranks: map[string]int{}})
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

// Rank indexes the tree at c's parent and ranks c's query with every
// ranking.
func Rank(ctx context.Context, gitDir, ext string, c *Commit) error {
	tmp, err := os.MkdirTemp("", "lspgraph-search-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tree := filepath.Join(tmp, "tree")
	if err := exportTree(ctx, gitDir, c.Commit+"^", tree, "*"+ext, "go.mod"); err != nil {
		return err
	}
	st, err := graph.Open(filepath.Join(tmp, "store"), graph.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := syntax.Index(ctx, st, syntax.IndexOptions{Root: tree, Workers: 2}); err != nil {
		return fmt.Errorf("searcheval: indexing %.12s^: %w", c.Commit, err)
	}
	r, err := st.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	for _, rk := range rankings {
		o := rk.opts
		o.Limit = 100
		res, err := search.Search(ctx, r, c.Query, o)
		if err != nil {
			return fmt.Errorf("searcheval: %.12s: %w", c.Commit, err)
		}
		c.Ranks[rk.name] = 0
		for i, h := range res.Hits {
			if slices.Contains(c.Truth, h.Path) {
				c.Ranks[rk.name] = i + 1
				break
			}
		}
	}
	sort.Strings(c.Truth)
	return nil
}

// exportTree writes the files of rev matching the pathspecs into dir with
// git archive (a partial clone may lack other blobs).
func exportTree(ctx context.Context, gitDir, rev, dir string, pathspecs ...string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	arch := exec.CommandContext(ctx, "git", append([]string{"-C", gitDir, "archive", "--format=tar", rev, "--"}, pathspecs...)...)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	pipe, err := arch.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	var errb bytes.Buffer
	arch.Stderr, untar.Stderr = &errb, &errb
	if err := untar.Start(); err != nil {
		return fmt.Errorf("searcheval: starting tar: %w", err)
	}
	if err := arch.Run(); err != nil {
		_, _ = io.Copy(io.Discard, pipe)
		_ = untar.Wait()
		return fmt.Errorf("searcheval: git archive %s: %w: %s", rev, err, errb.String())
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("searcheval: extracting %s: %w: %s", rev, err, errb.String())
	}
	return nil
}

// Scores computes each ranking's file hit@5, hit@10 and MRR over commits.
func Scores(commits []Commit) []Score {
	var out []Score
	for _, r := range rankings {
		s := Score{Ranking: r.name}
		for _, c := range commits {
			k := c.Ranks[r.name]
			if k > 0 {
				s.MRR += 1 / float64(k)
			}
			if k > 0 && k <= 5 {
				s.Hit5++
			}
			if k > 0 && k <= 10 {
				s.Hit10++
			}
		}
		m := float64(len(commits))
		s.Hit5, s.Hit10, s.MRR = s.Hit5/m, s.Hit10/m, s.MRR/m
		out = append(out, s)
	}
	return out
}
