package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/lspgraph/lspgraph/searcheval"
)

// runBenchSearch evaluates search against real history: for each commit,
// the query is its message, the truth the source files it modified, and
// the graph a syntax index of the tree at its parent.
func runBenchSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench search", "bench search --git DIR [--commits N] [--skip K] [--ext .go] [--json] [--out FILE]")
	gitDir := fs.String("git", "", "the git directory (or work tree) of the repository whose history is replayed")
	n := fs.Int("commits", 30, "commits evaluated")
	skip := fs.Int("skip", 0, "qualifying commits skipped first (newest first)")
	ext := fs.String("ext", ".go", "the source files that count as truth")
	asJSON := fs.Bool("json", false, "print JSON")
	out := fs.String("out", "", "also write the JSON report to FILE")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *gitDir == "" || *n <= 0 {
		return fmt.Errorf("%w: give --git DIR and --commits N > 0", errUsage)
	}
	commits, err := searcheval.Commits(ctx, *gitDir, *ext, *skip+*n)
	if err != nil {
		return err
	}
	if len(commits) <= *skip {
		return fmt.Errorf("bench search: %s has only %d qualifying commits", *gitDir, len(commits))
	}
	commits = commits[*skip:]
	rep := searcheval.Report{Repo: *gitDir}
	for i := range commits {
		c := &commits[i]
		start := time.Now()
		if err := searcheval.Rank(ctx, *gitDir, *ext, c); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "%d/%d %.12s %v (%.1fs)\n", i+1, len(commits), c.Commit, c.Ranks, time.Since(start).Seconds())
		rep.Commits = append(rep.Commits, *c)
	}
	rep.Scores = searcheval.Scores(rep.Commits)
	if *out != "" {
		var b bytes.Buffer
		if err := writeJSON(&b, rep); err != nil {
			return err
		}
		if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("bench search: %w", err)
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, rep)
	}
	fmt.Fprintf(e.stdout, "%d commits of %s\n%-16s %7s %7s %7s\n", len(rep.Commits), rep.Repo, "ranking", "hit@5", "hit@10", "MRR")
	for _, s := range rep.Scores {
		fmt.Fprintf(e.stdout, "%-16s %7.3f %7.3f %7.3f\n", s.Ranking, s.Hit5, s.Hit10, s.MRR)
	}
	return nil
}
