package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/ranking"
	"github.com/lspgraph/lspgraph/resolve"
	"github.com/lspgraph/lspgraph/scope"
)

// evalQuery is one hand-written query of ranking/testdata/eval.
type evalQuery struct {
	name          string
	fixture, dump string
	target, scope string
	wants         []evalWant
}

// evalWant is an item a careful engineer needs: any candidate located in
// path between lines from and to (1-based, inclusive) satisfies it.
type evalWant struct {
	path     string
	from, to int
	label    string
}

func parseEvalQuery(path string) (evalQuery, error) {
	q := evalQuery{name: strings.TrimSuffix(filepath.Base(path), ".txt"), scope: "closure"}
	f, err := os.Open(path)
	if err != nil {
		return q, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		bad := fmt.Errorf("%s:%d: cannot parse %q", path, n, line)
		switch fields[0] {
		case "fixture":
			if len(fields) != 3 {
				return q, bad
			}
			q.fixture, q.dump = fields[1], fields[2]
		case "target":
			q.target = strings.TrimSpace(strings.TrimPrefix(line, "target"))
		case "scope":
			q.scope = fields[1]
		case "want":
			if len(fields) < 2 {
				return q, bad
			}
			loc := fields[1]
			i := strings.LastIndex(loc, ":")
			if i < 0 {
				return q, bad
			}
			w := evalWant{path: loc[:i], label: strings.Join(fields[2:], " ")}
			a, b, isRange := strings.Cut(loc[i+1:], "-")
			if w.from, err = strconv.Atoi(a); err != nil {
				return q, bad
			}
			w.to = w.from
			if isRange {
				if w.to, err = strconv.Atoi(b); err != nil {
					return q, bad
				}
			}
			q.wants = append(q.wants, w)
		default:
			return q, bad
		}
	}
	if q.fixture == "" || q.target == "" || len(q.wants) == 0 {
		return q, fmt.Errorf("%s: needs fixture, target and at least one want", path)
	}
	return q, sc.Err()
}

// evalRanks ranks the query's target and returns, per want, the 1-based
// rank of the first candidate that satisfies it (0: not found). The
// definition (always first) is not counted.
func evalRanks(t *testing.T, r *graph.Reader, root string, q evalQuery) ([]int, []ranking.Candidate) {
	t.Helper()
	ctx := context.Background()
	sym, err := resolve.ResolveIn(ctx, r, root, q.target)
	if err != nil {
		t.Fatalf("%s: resolving %s: %v", q.name, q.target, err)
	}
	ws, err := scope.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	a, err := scope.Analyze(ctx, ws, r)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := a.For(ctx, a.PackageOfDocument(sym.Def.Path), scope.ParseSpec(q.scope))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ranking.Rank(ctx, r, sym, ranking.Options{Analysis: a, Scope: cl})
	if err != nil {
		t.Fatal(err)
	}
	items := res.Items[1:]
	ranks := make([]int, len(q.wants))
	used := map[int]bool{}
	for wi, w := range q.wants {
		for i := range items {
			l := items[i].Location()
			line := int(l.Range.Start.Line) + 1
			if !used[i] && l.Path == w.path && line >= w.from && line <= w.to {
				ranks[wi] = i + 1
				used[i] = true
				break
			}
		}
	}
	return ranks, items
}

// TestRankEval scores the ranking against the hand-written expectations in
// ranking/testdata/eval and compares the metrics with
// ranking/testdata/rank_stats.txt (rewritten with -update), so that every
// scoring change shows its effect on recall@5, recall@10 and MRR.
func TestRankEval(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "ranking", "testdata", "eval", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no evaluation queries: %v", err)
	}
	sort.Strings(files)
	type fixture struct {
		r    *graph.Reader
		root string
	}
	fixtures := map[string]fixture{}
	var b strings.Builder
	b.WriteString("# Ranking evaluation over ranking/testdata/eval (expectations written by hand from the fixture sources).\n")
	b.WriteString("# The definition always ranks first and is not counted: rank 1 is the first item after it.\n")
	b.WriteString("# Per query: the rank of each wanted item in file order (- = not among the candidates).\n")
	b.WriteString("# Regenerate: go test ./cmd/lspgraph -run TestRankEval -update\n\n")
	var wanted, at5, at10 int
	var rrSum float64
	for _, file := range files {
		q, err := parseEvalQuery(file)
		if err != nil {
			t.Fatal(err)
		}
		fx, ok := fixtures[q.dump]
		if !ok {
			r, root := contextFixture(t, q.dump, q.fixture)
			fx = fixture{r, root}
			fixtures[q.dump] = fx
		}
		ranks, items := evalRanks(t, fx.r, fx.root, q)
		var shown []string
		q5, q10, first := 0, 0, 0
		for _, rk := range ranks {
			wanted++
			if rk == 0 {
				shown = append(shown, "-")
				continue
			}
			shown = append(shown, strconv.Itoa(rk))
			if rk <= 5 {
				q5++
			}
			if rk <= 10 {
				q10++
			}
			if first == 0 || rk < first {
				first = rk
			}
		}
		at5 += q5
		at10 += q10
		rr := 0.0
		if first > 0 {
			rr = 1 / float64(first)
		}
		rrSum += rr
		fmt.Fprintf(&b, "%-24s ranks %-18s recall@5 %d/%d  recall@10 %d/%d  rr %.3f  (%d candidates)\n",
			q.name, strings.Join(shown, " "), q5, len(ranks), q10, len(ranks), rr, len(items))
		if testing.Verbose() {
			for i, c := range items {
				l := c.Location()
				t.Logf("%s %2d. %-14s %-20s %s:%d %.3f %s", q.name, i+1, c.Role, c.Name(), l.Path, l.Range.Start.Line+1, c.Score, c.Reason)
			}
		}
	}
	n := float64(len(files))
	fmt.Fprintf(&b, "\nqueries: %d, wanted items: %d\n", len(files), wanted)
	fmt.Fprintf(&b, "recall@5: %d/%d (%.1f%%)\n", at5, wanted, 100*float64(at5)/float64(wanted))
	fmt.Fprintf(&b, "recall@10: %d/%d (%.1f%%)\n", at10, wanted, 100*float64(at10)/float64(wanted))
	fmt.Fprintf(&b, "mrr: %.4f\n", rrSum/n)
	statsPath := filepath.Join("..", "..", "ranking", "testdata", "rank_stats.txt")
	got := b.String()
	if *update {
		if err := os.WriteFile(statsPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(statsPath)
	if err != nil {
		t.Fatalf("reading %s (create it with -update): %v", statsPath, err)
	}
	if string(want) != got {
		t.Errorf("ranking metrics changed; if intended, rerun with -update and commit the new stats.\n--- %s\n%s\n--- now\n%s", statsPath, want, got)
	}
}
