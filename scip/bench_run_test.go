package scip

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMain lets the test binary run a pass of Bench in a process of its
// own (BenchOptions.Program): with LSPGRAPH_SCIP_BENCH_PASS=1 it serves the
// pass on its standard input and output.
func TestMain(m *testing.M) {
	if os.Getenv("LSPGRAPH_SCIP_BENCH_PASS") == "1" {
		if err := ServeBenchPass(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBench runs the four phases twice on a fixture dump, in this process
// and each in a process of its own, and checks what they report against
// the import's own summary.
func TestBench(t *testing.T) {
	t.Run("one process", func(t *testing.T) { testBench(t, nil) })
	t.Run("processes", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("LSPGRAPH_SCIP_BENCH_PASS", "1")
		testBench(t, []string{self})
	})
}

func testBench(t *testing.T, program []string) {
	dump, root := fixtureDump(t, "goapp", "goapp")
	profile := filepath.Join(t.TempDir(), "import.pprof")
	res, err := Bench(context.Background(), dump, BenchOptions{Root: root, Runs: 2, CPUProfile: profile, Program: program})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Phases) != 4 || res.Runs != 2 || len(res.RunRatios) != 2 || res.Processes != (program != nil) {
		t.Fatalf("%d phases, %d runs, ratios %v, processes %v; want 4, 2, two ratios and %v", len(res.Phases), res.Runs, res.RunRatios, res.Processes, program != nil)
	}
	// The first import was profiled: a gzipped profile.
	if b, err := os.ReadFile(profile); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("CPU profile of the import: %d bytes, %v", len(b), err)
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

// TestBenchPassFails reports a pass whose process fails, with what it
// printed.
func TestBenchPassFails(t *testing.T) {
	dump, _ := fixtureDump(t, "goapp", "goapp")
	_, err := Bench(context.Background(), dump, BenchOptions{Runs: 1, Program: []string{"sh", "-c", "echo no such pass >&2; exit 3"}})
	if err == nil || !strings.Contains(err.Error(), "the decode pass") || !strings.Contains(err.Error(), "no such pass") {
		t.Errorf("Bench with a failing pass: %v", err)
	}
	_, err = Bench(context.Background(), dump, BenchOptions{Runs: 1, Program: []string{"true"}})
	if err == nil || !strings.Contains(err.Error(), "printed no result") {
		t.Errorf("Bench with a pass that prints nothing: %v", err)
	}
}
