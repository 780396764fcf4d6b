package indexbench

import (
	"bytes"
	"strings"
	"testing"
)

// TestScaleWriteText: the text of a scale benchmark in rounds names every
// round's walls, the medians, each round's ratio and their median; in one
// round, none of them.
func TestScaleWriteText(t *testing.T) {
	run := func(s float64) Run { return Run{Seconds: s, CPUSeconds: 2 * s} }
	res := ScaleResult{
		Source: "src", Rounds: 3, SizeRatio: 4, IndexWallRatio: 3.9, IndexCPURatio: 3.8, IndexUserRatio: 3.6,
		IndexRoundRatios: []float64{4.1, 3.9, 3.7},
		IndexRoundMedian: roundRatio([]float64{4.1, 3.9, 3.7}),
		Sizes: []ScaleSize{
			{Copies: 1, Index: run(5), IndexRounds: []Run{run(5), run(6), run(4)}, IndexMedian: Median{5, 10, 9}},
			{Copies: 4, Index: run(20), IndexRounds: []Run{run(20), run(24), run(16)}, IndexMedian: Median{20, 40, 32}},
		},
	}
	var b bytes.Buffer
	res.WriteText(&b)
	for _, want := range []string{
		"src copied [1 4] times",
		"index over 3 rounds: median 5.0s wall 10.0s cpu (walls 5.0 6.0 4.0)",
		"index over 3 rounds: median 20.0s wall 40.0s cpu (walls 20.0 24.0 16.0)",
		"4× the size: index 3.90× wall 3.80× cpu 3.60× user cpu (medians of 3 rounds; per round 4.10× 3.90× 3.70×, median 3.90× (3.70-4.10 at 75.0%))",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	res.Rounds, res.IndexRoundMedian = 1, nil
	for i := range res.Sizes {
		res.Sizes[i].IndexRounds = res.Sizes[i].IndexRounds[:1]
	}
	b.Reset()
	res.WriteText(&b)
	if strings.Contains(b.String(), "rounds") {
		t.Errorf("one round's text mentions rounds:\n%s", b.String())
	}
}
