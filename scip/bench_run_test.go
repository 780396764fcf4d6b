package scip

import (
	"context"
	"runtime"
	"testing"
)

// TestBench runs the four phases twice on a fixture dump and checks what
// they report against the import's own summary.
func TestBench(t *testing.T) {
	dump, root := fixtureDump(t, "goapp", "goapp")
	calls := 0
	res, err := Bench(context.Background(), dump, BenchOptions{Root: root, Runs: 2, AroundImport: func(run func() error) error {
		calls++
		return run()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || len(res.Phases) != 4 || res.Runs != 2 || len(res.RunRatios) != 2 {
		t.Fatalf("AroundImport called %d times, %d phases, %d runs, ratios %v; want 1, 4, 2 and two ratios", calls, len(res.Phases), res.Runs, res.RunRatios)
	}
	// The reported ratio is of the median passes, within the runs' own.
	if lo, hi := min(res.RunRatios[0], res.RunRatios[1]), max(res.RunRatios[0], res.RunRatios[1]); res.Ratio <= 0 || res.Ratio < lo/2 || res.Ratio > hi*2 {
		t.Errorf("ratio %.3f against the runs' %v", res.Ratio, res.RunRatios)
	}
	sum := res.ImportSummary
	if res.Phases[2].Documents != sum.Documents || sum.Documents == 0 || res.Phases[1].Occurrences != sum.Occurrences {
		t.Errorf("phases %+v disagree with the import's summary %+v", res.Phases, sum)
	}
	if res.Facts != sum.Occurrences+sum.Edges+sum.Symbols || res.StoreBytes == 0 ||
		res.BytesPerFact != float64(res.StoreBytes)/float64(res.Facts) {
		t.Errorf("store %d bytes, %d facts, %.1f per fact; summary %+v", res.StoreBytes, res.Facts, res.BytesPerFact, sum)
	}
	// The import touches memory handed back to the system before it (a
	// fault for each page), and its system time is part of its CPU time.
	imp := res.Phases[2]
	if runtime.GOOS == "linux" && imp.MinorFaults <= 0 {
		t.Errorf("the import took %d page faults", imp.MinorFaults)
	}
	// (Both are differences of float seconds: with no user time at all in
	// the phase, as a loaded machine can leave a tiny fixture's import,
	// they are equal up to rounding.)
	if imp.SysSeconds < 0 || imp.SysSeconds > imp.CPUSeconds+1e-9 {
		t.Errorf("the import's system time %.3f s of %.3f s of CPU", imp.SysSeconds, imp.CPUSeconds)
	}
	// The sstables alone wrote the imported generation's records: at least
	// a document record for each document (graph's TestTableFloor counts
	// them exactly).
	if res.FloorRecords < sum.Documents || res.FloorBytes <= 0 || res.FloorTables < 1 || res.Phases[3].Seconds <= 0 {
		t.Errorf("sstables alone: %d records, %d bytes, %d tables, %+v; %d documents imported",
			res.FloorRecords, res.FloorBytes, res.FloorTables, res.Phases[3], sum.Documents)
	}
}

// TestMedianBy picks the median pass, the lower middle one of an even
// number, without reordering its input.
func TestMedianBy(t *testing.T) {
	secs := func(p BenchPhase) float64 { return p.Seconds }
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{5}, 5},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2},
		{[]float64{0.7, 0.9, 0.6, 0.8, 2.5}, 0.8},
	} {
		var ps []BenchPhase
		for _, s := range tc.in {
			ps = append(ps, BenchPhase{Seconds: s})
		}
		if got := medianBy(ps, secs).Seconds; got != tc.want {
			t.Errorf("medianBy(%v) = %v, want %v", tc.in, got, tc.want)
		}
		if ps[0].Seconds != tc.in[0] {
			t.Errorf("medianBy reordered its input: %v", ps)
		}
	}
}
