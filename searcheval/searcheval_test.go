package searcheval

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"testing"

	"github.com/lspgraph/lspgraph/search"
)

// TestCommitQuery drops trailers, links and release notes and folds the
// rest into one line.
func TestCommitQuery(t *testing.T) {
	msg := "db: speed up compaction picking\n\nThe picker now scores levels once.\nSee https://example.com/x\nFixes: #12\nRelease note: none\nSigned-off-by: A <a@b>\n"
	if got, want := commitQuery(msg), "db: speed up compaction picking The picker now scores levels once."; got != want {
		t.Errorf("commitQuery = %q; want %q", got, want)
	}
}

// TestScores counts hits at 1, 3, 5 and 10 by the best-ranked truth file,
// its reciprocal rank (0 meaning not found) and the share of truth files
// within 10.
func TestScores(t *testing.T) {
	cs := []Commit{
		{Truth: []string{"a", "b"}, Ranks: map[string][]int{"r": {0, 1}}},
		{Truth: []string{"a", "b"}, Ranks: map[string][]int{"r": {7, 12}}},
		{Truth: []string{"a"}, Ranks: map[string][]int{"r": {0}}},
		{Truth: []string{"a"}, Ranks: map[string][]int{"r": {3}}},
	}
	s := Scores(cs, []string{"r"})[0]
	want := Score{Ranking: "r", Hit1: 1.0 / 4, Hit3: 2.0 / 4, Hit5: 2.0 / 4, Hit10: 3.0 / 4,
		MRR: (1 + 1.0/7 + 1.0/3) / 4, Recall10: (0.5 + 0.5 + 0 + 1) / 4}
	for _, p := range [][2]float64{{s.Hit1, want.Hit1}, {s.Hit3, want.Hit3}, {s.Hit5, want.Hit5}, {s.Hit10, want.Hit10}, {s.MRR, want.MRR}, {s.Recall10, want.Recall10}} {
		if math.Abs(p[0]-p[1]) > 1e-9 {
			t.Fatalf("scores = %+v; want %+v", s, want)
		}
	}
}

// sameGrid is hits as the candidates of every setting of TextGrid.
func sameGrid(hits []search.Hit) [][]search.Hit {
	g := make([][]search.Hit, len(TextGrid))
	for i := range g {
		g[i] = hits
	}
	return g
}

// TestFitChoosesOnFitCommitsOnly: the held-out commits, which a symbol
// weight would help, do not sway the choice; the fit commits, which the
// symbol signal hurts, choose it off.
func TestFitChoosesOnFitCommitsOnly(t *testing.T) {
	// Two candidates: "x" first by BM25, "y" first by the symbol signal.
	hits := []search.Hit{
		{Path: "x", Signals: []search.Signal{{Name: search.SignalText, Rank: 1}, {Name: search.SignalSymbol, Rank: 2}}},
		{Path: "y", Signals: []search.Signal{{Name: search.SignalText, Rank: 2}, {Name: search.SignalSymbol, Rank: 1}}},
	}
	fit := Commit{Split: SplitFit, Truth: []string{"x"}, hits: hits, grid: sameGrid(hits)}
	held := Commit{Split: SplitHeldOut, Truth: []string{"y"}, hits: hits, grid: sameGrid(hits)}
	w := Fit([]Commit{fit, held, held, held}).Signals
	if w[search.SignalSymbol] != 0 {
		t.Errorf("fitted symbol weight %g; want 0 (the fit commit's truth is x, first by BM25)", w[search.SignalSymbol])
	}
	f := Fit([]Commit{{Split: SplitFit, Truth: []string{"y"}, hits: hits, grid: sameGrid(hits)}, {Split: SplitHeldOut, Truth: []string{"x"}, hits: hits, grid: sameGrid(hits)}})
	if w := f.Signals; w[search.SignalSymbol] <= search.DefaultSignals[search.SignalText] {
		t.Errorf("fitted symbol weight %g; want above the text's %g so y ranks first", w[search.SignalSymbol], search.DefaultSignals[search.SignalText])
	}
	rep := Evaluate([]Commit{{Split: SplitFit, Truth: []string{"y"}, hits: hits, grid: sameGrid(hits), Ranks: map[string][]int{RankBM25: {2}}}}, f)
	if got := rep.Commits[0].Ranks[RankFit]; got[0] != 1 {
		t.Errorf("fused-fit rank of y = %v; want 1", got)
	}
	if got := rep.Commits[0].Ranks[RankBM25F]; got[0] != 2 {
		t.Errorf("bm25f rank of y = %v; want 2", got)
	}
}

// TestFitChoosesTextPerLanguage: each language's BM25F parameters are
// those whose candidates rank its fit commits' truth best, whatever the
// held-out commits and the other language's commits say.
func TestFitChoosesTextPerLanguage(t *testing.T) {
	x := []search.Hit{{Path: "x", Signals: []search.Signal{{Name: search.SignalText, Rank: 1}}}, {Path: "y", Signals: []search.Signal{{Name: search.SignalText, Rank: 2}}}}
	y := []search.Hit{{Path: "y", Signals: []search.Signal{{Name: search.SignalText, Rank: 1}}}, {Path: "x", Signals: []search.Signal{{Name: search.SignalText, Rank: 2}}}}
	grid := sameGrid(x)
	grid[2] = y // only the third setting puts y first
	commit := func(l, split, truth string) Commit {
		return Commit{Language: l, Split: split, Truth: []string{truth}, hits: x, grid: grid}
	}
	f := Fit([]Commit{commit("go", SplitFit, "y"), commit("go", SplitHeldOut, "x"), commit("python", SplitFit, "x"), commit("python", SplitHeldOut, "y"), commit("python", SplitHeldOut, "y")})
	if f.Text["go"] != 2 || f.Text["python"] != 0 {
		t.Errorf("fitted text settings %v; want go 2 (its fit truth is first only there), python 0 (the first of the settings ranking x first)", f.Text)
	}
	rep := Evaluate([]Commit{commit("go", SplitHeldOut, "y")}, f)
	if got := rep.Commits[0].Ranks[RankFit]; got[0] != 1 {
		t.Errorf("fused-fit rank of y = %v; want 1 (searched with the fitted setting)", got)
	}
	if got := rep.Commits[0].Ranks[RankBM25FHand]; got[0] != 2 {
		t.Errorf("bm25f-hand-fields rank of y = %v; want 2", got)
	}
}

var update = flag.Bool("update", false, "rewrite testdata/eval-history.txt's tables from its JSON report")

// TestCommittedReport checks that the committed history report's text is
// what its JSON (every commit's ranks) renders: the tables and the paired
// comparisons are derived from the ranks, not written by hand.
func TestCommittedReport(t *testing.T) {
	js, err := os.ReadFile("../search/testdata/eval-history.json")
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteText(&got, &rep); err != nil {
		t.Fatal(err)
	}
	const txt = "../search/testdata/eval-history.txt"
	if *update {
		if err := os.WriteFile(txt, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(txt)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("%s differs from what its JSON renders (run with -update after checking the diff):\n%s", txt, got.String())
	}
}

func TestCompare(t *testing.T) {
	var cs []Commit
	for i := 0; i < 40; i++ {
		a, b := []int{1}, []int{2} // a ranks every truth first, b second
		if i%4 == 0 {
			a, b = []int{3}, []int{1}
		}
		cs = append(cs, Commit{Ranks: map[string][]int{"a": a, "b": b}})
	}
	p := Compare("x", cs, "a", "b")
	// 30 commits at +0.5, 10 at 1/3-1 = -2/3: mean (15 - 6.67)/40.
	if p.Wins != 30 || p.Losses != 10 || math.Abs(p.Diff-(15-20.0/3)/40) > 1e-9 {
		t.Errorf("Compare = %+v; want 30 wins, 10 losses, difference %.4f", p, (15-20.0/3)/40)
	}
	if !(p.Low < p.Diff && p.Diff < p.High) || p.Low <= 0 {
		t.Errorf("interval [%.3f, %.3f] should hold %.3f and lie above 0", p.Low, p.High, p.Diff)
	}
	if q := Compare("x", cs, "b", "a"); q.High >= 0 || q.Wins != 10 {
		t.Errorf("reversed: %+v; want an interval below 0 and 10 wins", q)
	}
}
