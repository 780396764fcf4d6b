package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/searcheval"
)

// runBenchSearch evaluates search against real history: for each commit,
// the query is its message, the truth the source files it modified, and
// the graph a syntax index of the tree at its parent.
func runBenchSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench search", "bench search [--commits N] [--skip K] [--cache DIR] [--json] [--out FILE] (--git DIR [--ext .go] | GITDIR:EXT...)")
	gitDir := fs.String("git", "", "the git directory (or work tree) of one repository whose history is replayed")
	ext := fs.String("ext", ".go", "with --git: the source files that count as truth")
	n := fs.Int("commits", 30, "commits evaluated per repository (the older half fits the weights, the newer half is held out)")
	skip := fs.Int("skip", 0, "qualifying commits skipped first (newest first)")
	asJSON := fs.Bool("json", false, "print JSON")
	out := fs.String("out", "", "also write the JSON report to FILE")
	cache := fs.String("cache", "", "keep each parent's index in DIR and reuse it in later runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	repos := fs.Args()
	if *gitDir != "" {
		repos = append(repos, *gitDir+":"+*ext)
	}
	if len(repos) == 0 || *n <= 0 {
		return fmt.Errorf("%w: give --git DIR (or GITDIR:EXT arguments) and --commits N > 0", errUsage)
	}
	var all []searcheval.Commit
	for _, spec := range repos {
		dir, ext, ok := strings.Cut(spec, ":")
		if !ok || !strings.HasPrefix(ext, ".") {
			return fmt.Errorf("%w: %q is not GITDIR:EXT (e.g. /src/flask:.py)", errUsage, spec)
		}
		commits, err := searcheval.Commits(ctx, dir, ext, *skip+*n)
		if err != nil {
			return err
		}
		if len(commits) <= *skip {
			return fmt.Errorf("bench search: %s has only %d qualifying commits", dir, len(commits))
		}
		commits = commits[*skip:]
		searcheval.Split(commits)
		for i := range commits {
			c := &commits[i]
			c.Repo = dir
			start := time.Now()
			if err := searcheval.Rank(ctx, dir, ext, *cache, c); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "%d/%d %.12s (%.1fs)\n", i+1, len(commits), c.Commit, time.Since(start).Seconds())
		}
		all = append(all, commits...)
	}
	rep := searcheval.Evaluate(all, searcheval.Fit(all))
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
	return searcheval.WriteText(e.stdout, &rep)
}
