package searcheval

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
)

// WriteText writes a report's fitted weights and its tables for a
// terminal.
func WriteText(w io.Writer, rep *Report) error {
	var b strings.Builder
	var ws, ts []string
	for k, v := range rep.Fitted.Signals {
		ws = append(ws, fmt.Sprintf("%s %g", k, v))
	}
	for l, i := range rep.Fitted.Text {
		t := TextGrid[i]
		ts = append(ts, fmt.Sprintf("%s: name %g path %g doc %g string %g code %g b %g", l,
			t.Weights[graph.TermName], t.Weights[graph.TermPath], t.Weights[graph.TermDoc], t.Weights[graph.TermString], t.Weights[graph.TermCode], t.B))
	}
	slices.Sort(ws)
	slices.Sort(ts)
	var others []string
	for k, v := range rep.Fitted.OtherSignals {
		others = append(others, fmt.Sprintf("%s %g", k, v))
	}
	slices.Sort(others)
	fmt.Fprintf(&b, "weights chosen on the fit commits: %s\nBM25F chosen on the fit commits: %s\nfusion chosen: %s; %s (fused-fit-other) weighs %s\n",
		strings.Join(ws, ", "), strings.Join(ts, "; "), rep.Fitted.Fusion, rep.Fitted.Other, strings.Join(others, ", "))
	for _, t := range rep.Scores {
		fmt.Fprintf(&b, "\n%s: %d %s commits\n%-26s %7s %7s %7s %7s %7s %7s\n", t.Of, t.Commits, t.Split,
			"ranking", "hit@1", "hit@3", "hit@5", "hit@10", "MRR", "rec@10")
		for _, s := range t.Scores {
			fmt.Fprintf(&b, "%-26s %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f\n", s.Ranking, s.Hit1, s.Hit3, s.Hit5, s.Hit10, s.MRR, s.Recall10)
		}
	}
	if ps := compareHeldOut(rep.Commits); len(ps) > 0 {
		fmt.Fprintf(&b, "\nheld-out, paired by commit: MRR difference, its 95%% interval (bootstrap, %d resamples), commits where the first ranks the first changed file higher / lower\n", Resamples)
		for _, p := range ps {
			fmt.Fprintf(&b, "%-40s %-6s vs %-16s %4d commits  %+.3f  [%+.3f, %+.3f]  %3d higher %3d lower\n", p.Of, p.A, p.B, p.Commits, p.Diff, p.Low, p.High, p.Wins, p.Losses)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
