package searcheval

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteText writes a report's fitted weights and its tables for a
// terminal.
func WriteText(w io.Writer, rep *Report) error {
	var b strings.Builder
	var ws []string
	for k, v := range rep.Fitted {
		ws = append(ws, fmt.Sprintf("%s %g", k, v))
	}
	slices.Sort(ws)
	fmt.Fprintf(&b, "weights chosen on the fit commits: %s\n", strings.Join(ws, ", "))
	for _, t := range rep.Scores {
		fmt.Fprintf(&b, "\n%s: %d %s commits\n%-26s %7s %7s %7s %7s %7s %7s\n", t.Of, t.Commits, t.Split,
			"ranking", "hit@1", "hit@3", "hit@5", "hit@10", "MRR", "rec@10")
		for _, s := range t.Scores {
			fmt.Fprintf(&b, "%-26s %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f\n", s.Ranking, s.Hit1, s.Hit3, s.Hit5, s.Hit10, s.MRR, s.Recall10)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
