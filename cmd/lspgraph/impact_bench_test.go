package main

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/scip"
	"golang.org/x/sys/unix"
)

// BenchmarkImpact computes the depth-3 upstream impact (default options,
// so at most impact.DefaultMaxDependents dependents) of 1,000 functions
// and methods spread over the graph imported from the pebble corpus dump,
// and reports per-answer latency percentiles, answer sizes and how many
// answers the bound truncated, beside the same walk without the bound. The
// import happens once, outside the timer.
//
//	LSPGRAPH_CORPUS=../shared/corpus go test ./cmd/lspgraph -run '^$' -bench BenchmarkImpact -benchtime 3x
func BenchmarkImpact(b *testing.B) {
	dump, ok := corpusDump("pebble-go.scip")
	if !ok {
		b.Skip("corpus dump pebble-go.scip not found (set LSPGRAPH_CORPUS)")
	}
	ctx := context.Background()
	st, err := graph.Open(b.TempDir(), graph.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	f, err := os.Open(dump)
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := f.Stat()
	start := time.Now()
	sum, err := scip.Import(ctx, st, f, scip.Options{Commit: "corpus", Size: fi.Size()})
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("imported %d documents, %d symbols, %d edges in %s", sum.Documents, sum.Symbols, sum.Edges, time.Since(start).Round(time.Millisecond))
	r, err := st.Reader()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	targets := benchTargets(b, r, 1000)
	// The same targets with and without the walk's bound, in one run.
	b.Run("bound=default", func(b *testing.B) { benchImpactTargets(b, r, targets, impact.DefaultOptions()) })
	b.Run("bound=none", func(b *testing.B) {
		o := impact.DefaultOptions()
		o.MaxDependents = 0
		benchImpactTargets(b, r, targets, o)
	})
}

// benchImpactTargets times impact.Compute on each target; with -benchtime
// Nx the percentiles are those of the last pass (the store's caches warm).
func benchImpactTargets(b *testing.B, r *graph.Reader, targets []graph.Symbol, o impact.Options) {
	ctx := context.Background()
	o.Freshness = &freshness.Block{BaseCommit: "corpus", Head: "corpus"}

	// CPU time of the computing thread beside wall time: on a machine
	// others share, waiting for a core inflates the wall clock's tail.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var lat, cpu []time.Duration
	var sizes, deps []int
	truncated := 0
	b.ResetTimer()
	for b.Loop() {
		lat, cpu, sizes, deps, truncated = lat[:0], cpu[:0], sizes[:0], deps[:0], 0
		for _, t := range targets {
			c0 := threadCPUTime(b)
			t0 := time.Now()
			a, err := impact.Compute(ctx, r, t, o)
			if err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
			cpu = append(cpu, threadCPUTime(b)-c0)
			if a.Skipped != nil {
				truncated++
			}
			n := len(a.Dispatch) + len(a.Satisfaction) + len(a.Implementations)
			for _, g := range a.Depths {
				n += len(g.Dependents)
			}
			deps = append(deps, n)
			js, err := json.Marshal(a)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, len(js))
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	slices.Sort(cpu)
	sort.Ints(sizes)
	sort.Ints(deps)
	pct := func(n int, p float64) int { return min(n-1, int(float64(n)*p)) }
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	n := len(lat)
	b.ReportMetric(ms(lat[pct(n, 0.50)]), "p50-ms")
	b.ReportMetric(ms(lat[pct(n, 0.99)]), "p99-ms")
	b.ReportMetric(ms(lat[n-1]), "max-ms")
	b.ReportMetric(ms(cpu[pct(n, 0.50)]), "p50-cpu-ms")
	b.ReportMetric(ms(cpu[pct(n, 0.99)]), "p99-cpu-ms")
	b.ReportMetric(float64(sizes[pct(n, 0.50)]), "p50-json-bytes")
	b.ReportMetric(float64(sizes[pct(n, 0.99)]), "p99-json-bytes")
	b.ReportMetric(float64(deps[pct(n, 0.50)]), "p50-dependents")
	b.ReportMetric(float64(deps[pct(n, 0.99)]), "p99-dependents")
	b.ReportMetric(float64(deps[n-1]), "max-dependents")
	b.ReportMetric(float64(truncated), "truncated-answers")
	b.ReportMetric(0, "ns/op")
}

// threadCPUTime is the CPU time the calling OS thread has used.
func threadCPUTime(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}
