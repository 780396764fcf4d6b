package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/contexteval"
	"github.com/lspgraph/lspgraph/ranking"
)

// evalSet is one repository's history evaluation (contexteval).
type evalSet struct {
	name, dump, rev string
	parser          contexteval.Parser
}

var evalSets = map[string]evalSet{
	"go": {"cockroachdb/pebble", "pebble-go.scip", "f82e3ff74d10", contexteval.GoFuncs{}},
	"ts": {"vuejs/core", "vuejs-core-ts.scip", "e2bede96", contexteval.TSFuncs{}},
}

// TestContextHistoryEval replays a repository's history against context
// packs (package contexteval) and writes the scores: recall of the pack,
// its ablations and two baselines at 2k-16k tokens, then the weights
// fitted on the older half of the cases with both halves' scores.
//
//	LSPGRAPH_EVAL_GIT=/work/.mirror/cockroachdb+pebble/repo \
//	  go test ./cmd/lspgraph -run TestContextHistoryEval -timeout 120m -v
//	LSPGRAPH_EVAL_LANG=ts LSPGRAPH_EVAL_GIT=/work/.mirror/vuejs+core/repo \
//	  go test ./cmd/lspgraph -run TestContextHistoryEval -timeout 120m -v
//
// LSPGRAPH_EVAL_LANG is go (pebble at f82e3ff74d10, the default) or ts
// (vuejs/core at e2bede96); LSPGRAPH_EVAL_REV and LSPGRAPH_EVAL_DUMP
// override the set's commit and the corpus dump of it; LSPGRAPH_EVAL_CASES
// (default 100) bounds the cases; LSPGRAPH_EVAL_OUT names the scores file
// (default contexteval/testdata/history_eval_NAME.txt); LSPGRAPH_EVAL_FIT=0
// skips the fit.
func TestContextHistoryEval(t *testing.T) {
	gitDir := os.Getenv("LSPGRAPH_EVAL_GIT")
	if gitDir == "" {
		t.Skip("LSPGRAPH_EVAL_GIT is not set")
	}
	lang := cmp.Or(os.Getenv("LSPGRAPH_EVAL_LANG"), "go")
	set, ok := evalSets[lang]
	if !ok {
		t.Fatalf("LSPGRAPH_EVAL_LANG=%q: want go or ts", lang)
	}
	rev := cmp.Or(os.Getenv("LSPGRAPH_EVAL_REV"), set.rev)
	dump := os.Getenv("LSPGRAPH_EVAL_DUMP")
	if dump == "" {
		p, ok := corpusDump(set.dump)
		if !ok {
			t.Skipf("no %s in the corpus", set.dump)
		}
		dump = p
	}
	maxCases := 100
	if n, err := strconv.Atoi(os.Getenv("LSPGRAPH_EVAL_CASES")); err == nil && n > 0 {
		maxCases = n
	}
	short := set.name[strings.Index(set.name, "/")+1:]
	out := cmp.Or(os.Getenv("LSPGRAPH_EVAL_OUT"), filepath.Join("..", "..", "contexteval", "testdata", "history_eval_"+short+".txt"))
	ctx := context.Background()

	start := time.Now()
	g, err := contexteval.OpenGraph(ctx, gitDir, rev, dump, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.CheckoutNote != "" {
		t.Log(g.CheckoutNote)
	}
	t.Logf("imported %s in %v", filepath.Base(dump), time.Since(start).Round(time.Second))
	cases, err := contexteval.BuildCases(ctx, g.Root, rev, set.parser, maxCases*2)
	if err != nil {
		t.Fatal(err)
	}
	ev := &contexteval.Eval{G: g}
	progress := func(r contexteval.Result) {
		v := r.Recall[contexteval.MethodPack][8000]
		t.Logf("%s %s %s: pack at 8k %.2f/%.2f", r.Commit[:12], r.Seed.Path, r.Seed.Name, v[0], v[1])
	}
	rs, err := ev.Run(ctx, cases, contexteval.Options{Limit: maxCases, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 {
		t.Fatal("no case with a seed in the graph")
	}
	// The cases scored, newest first, for the split.
	var scored []contexteval.Case
	byCommit := map[string]contexteval.Case{}
	for _, c := range cases {
		byCommit[c.Commit] = c
	}
	for _, r := range rs {
		scored = append(scored, byCommit[r.Commit])
	}
	methods := contexteval.Methods()
	var b strings.Builder
	fmt.Fprintf(&b, "# Context packs on the history of %s: %d commits before %s (newest first),\n", set.name, len(rs), rev)
	b.WriteString("# each with one changed function as the seed and the rest of the commit as the truth, built at\n")
	fmt.Fprintf(&b, "# the commit's parent (--history-rev PARENT) on the graph of %s. Recall is the mean\n", filepath.Base(dump))
	b.WriteString("# of the share of truth files (other than the seed's) and truth functions (other than the seed)\n")
	b.WriteString("# shown, over the cases that have such a truth: a commit whose only function is the seed has none.\n")
	b.WriteString("# pack-no-X turns one signal off (history: files and functions changed together; history-functions:\n")
	b.WriteString("# the functions alone; locality; neighbours: the file's definitions and the directory's files;\n")
	b.WriteString("# tests: tests of callees and paired test files) to show what it adds.\n")
	fmt.Fprintf(&b, "# Regenerate: LSPGRAPH_EVAL_LANG=%s LSPGRAPH_EVAL_GIT=<git dir of %s> go test ./cmd/lspgraph -run TestContextHistoryEval -timeout 120m -v\n\n", lang, set.name)
	b.WriteString(contexteval.Summarize(rs).Table(methods))
	b.WriteString("\n# " + contexteval.Where(rs))
	if os.Getenv("LSPGRAPH_EVAL_FIT") != "0" {
		older, newer := contexteval.Split(scored)
		def := ranking.DefaultWeights()
		fitted, log, err := ev.Fit(ctx, older, def, 1)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n# Weights fitted on the older %d cases (coordinate ascent on the mean of file and function\n# recall of the pack at %d tokens), reported on both halves:\n", len(older), contexteval.FitBudget)
		for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
			b.WriteString("#   " + l + "\n")
		}
		fmt.Fprintf(&b, "%-10s %-8s %12s %12s\n", "half", "weights", "file recall", "func recall")
		for _, h := range []struct {
			name  string
			cases []contexteval.Case
		}{{"fit", older}, {"held-out", newer}} {
			for _, w := range []struct {
				name string
				w    ranking.Weights
			}{{"default", def}, {"fitted", fitted}} {
				hr, err := ev.Run(ctx, h.cases, contexteval.Options{Budgets: []int{contexteval.FitBudget}, Methods: []string{contexteval.MethodPack}, Weights: &w.w})
				if err != nil {
					t.Fatal(err)
				}
				s := contexteval.Summarize(hr).Recall[contexteval.MethodPack][contexteval.FitBudget]
				fmt.Fprintf(&b, "%-10s %-8s %12.3f %12.3f\n", h.name, w.name, s[0], s[1])
			}
		}
	}
	b.WriteString("\n# Per case at 8000 tokens: file/function recall of each method.\n")
	b.WriteString(contexteval.Lines(rs, methods, 8000))
	t.Log("\n" + b.String())
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
