package searcheval

import (
	"math"
	"testing"
)

// TestCommitQuery drops trailers, links and release notes and folds the
// rest into one line.
func TestCommitQuery(t *testing.T) {
	msg := "db: speed up compaction picking\n\nThe picker now scores levels once.\nSee https://example.com/x\nFixes: #12\nRelease note: none\nSigned-off-by: A <a@b>\n"
	if got, want := commitQuery(msg), "db: speed up compaction picking The picker now scores levels once."; got != want {
		t.Errorf("commitQuery = %q; want %q", got, want)
	}
}

// TestScores counts hits within 5 and 10 and the reciprocal rank, with 0
// meaning not found.
func TestScores(t *testing.T) {
	cs := []Commit{{Ranks: map[string]int{"fused": 1}}, {Ranks: map[string]int{"fused": 7}}, {Ranks: map[string]int{"fused": 0}}}
	for _, s := range Scores(cs) {
		if s.Ranking != "fused" {
			continue
		}
		if math.Abs(s.Hit5-1.0/3) > 1e-9 || math.Abs(s.Hit10-2.0/3) > 1e-9 || math.Abs(s.MRR-(1+1.0/7)/3) > 1e-9 {
			t.Errorf("fused: %+v; want hit@5 1/3, hit@10 2/3, MRR (1+1/7)/3", s)
		}
		return
	}
	t.Fatal("no fused score")
}
