package contexteval

import (
	"context"
	"fmt"
	"strings"

	"github.com/lspgraph/lspgraph/ranking"
)

// FitBudget is the budget weights are fitted at.
const FitBudget = 8000

// Split returns the older and the newer half of cases (which are newest
// first): weights are fitted on the past and reported on the future.
func Split(cases []Case) (older, newer []Case) {
	h := len(cases) / 2
	return cases[h:], cases[:h]
}

// objective is what fitting maximizes: the mean of file and function
// recall of the pack at FitBudget.
func objective(rs []Result) float64 {
	s := Summarize(rs).Recall[MethodPack][FitBudget]
	return (s[0] + s[1]) / 2
}

// knob is one weight Fit varies.
type knob struct {
	name string
	ptr  func(*ranking.Weights) *float64
}

var knobs = []knob{
	{"Sibling", func(w *ranking.Weights) *float64 { return &w.Sibling }},
	{"Test", func(w *ranking.Weights) *float64 { return &w.Test }},
	{"CoChanged", func(w *ranking.Weights) *float64 { return &w.CoChanged }},
	{"SameFile", func(w *ranking.Weights) *float64 { return &w.SameFile }},
	{"SameType", func(w *ranking.Weights) *float64 { return &w.SameType }},
	{"SameDir", func(w *ranking.Weights) *float64 { return &w.SameDir }},
	{"SamePackage", func(w *ranking.Weights) *float64 { return &w.SamePackage }},
	{"CoChange", func(w *ranking.Weights) *float64 { return &w.CoChange }},
	{"CoChangeFunc", func(w *ranking.Weights) *float64 { return &w.CoChangeFunc }},
	{"Centrality", func(w *ranking.Weights) *float64 { return &w.Centrality }},
}

// factors are the multiples of a weight's current value Fit tries.
var factors = []float64{0, 0.5, 2}

// Fit chooses weights on cases by coordinate ascent from start: each
// weight in turn is multiplied by each of factors and kept where the
// objective rises; one pass over the weights, rounds times. It returns the
// weights and a log of the steps.
func (e *Eval) Fit(ctx context.Context, cases []Case, start ranking.Weights, rounds int) (ranking.Weights, string, error) {
	var log strings.Builder
	score := func(w ranking.Weights) (float64, error) {
		rs, err := e.Run(ctx, cases, Options{Budgets: []int{FitBudget}, Methods: []string{MethodPack}, Weights: &w})
		if err != nil {
			return 0, err
		}
		return objective(rs), nil
	}
	best := start
	bestScore, err := score(best)
	if err != nil {
		return best, "", err
	}
	fmt.Fprintf(&log, "start %+v: %.4f\n", best, bestScore)
	for r := 0; r < rounds; r++ {
		improved := false
		for _, k := range knobs {
			base := *k.ptr(&best)
			for _, f := range factors {
				w := best
				v := base * f
				if base == 0 && f > 1 {
					v = 0.1
				}
				if v == base {
					continue
				}
				*k.ptr(&w) = v
				s, err := score(w)
				if err != nil {
					return best, "", err
				}
				if s > bestScore+1e-9 {
					best, bestScore, improved = w, s, true
					fmt.Fprintf(&log, "%s %.3f -> %.3f: %.4f\n", k.name, base, v, s)
				}
			}
		}
		if !improved {
			break
		}
	}
	fmt.Fprintf(&log, "fitted %+v: %.4f\n", best, bestScore)
	return best, log.String(), nil
}
