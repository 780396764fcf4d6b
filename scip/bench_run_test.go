package scip

import (
	"context"
	"testing"
)

// TestBench runs the three phases on a fixture dump and checks what they
// report against the import's own summary.
func TestBench(t *testing.T) {
	dump, root := fixtureDump(t, "goapp", "goapp")
	calls := 0
	res, err := Bench(context.Background(), dump, BenchOptions{Root: root, AroundImport: func(run func() error) error {
		calls++
		return run()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || len(res.Phases) != 3 {
		t.Fatalf("AroundImport called %d times, %d phases; want 1 and 3", calls, len(res.Phases))
	}
	sum := res.ImportSummary
	if res.Phases[2].Documents != sum.Documents || sum.Documents == 0 || res.Phases[1].Occurrences != sum.Occurrences {
		t.Errorf("phases %+v disagree with the import's summary %+v", res.Phases, sum)
	}
	if res.Facts != sum.Occurrences+sum.Edges+sum.Symbols || res.StoreBytes == 0 ||
		res.BytesPerFact != float64(res.StoreBytes)/float64(res.Facts) {
		t.Errorf("store %d bytes, %d facts, %.1f per fact; summary %+v", res.StoreBytes, res.Facts, res.BytesPerFact, sum)
	}
}
