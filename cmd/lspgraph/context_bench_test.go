package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/indexbench"
	"github.com/lspgraph/lspgraph/internal/lspbench"
	"github.com/lspgraph/lspgraph/ranking"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/scope"
	"github.com/lspgraph/lspgraph/workspace"
)

// corpusDump locates a corpus dump: $LSPGRAPH_CORPUS (a directory, or the
// file itself), else ../shared/corpus beside the module root.
func corpusDump(name string) (string, bool) {
	cands := []string{filepath.Join("..", "..", "..", "shared", "corpus", name)}
	if env := os.Getenv("LSPGRAPH_CORPUS"); env != "" {
		cands = append([]string{filepath.Join(env, name), env}, cands...)
	}
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && !fi.IsDir() && filepath.Base(c) == name {
			return c, true
		}
	}
	return "", false
}

// benchTargets picks n callable symbols spread over the graph's documents,
// deterministically (cycling when the graph has fewer).
func benchTargets(b *testing.B, r *graph.Reader, n int) []graph.Symbol {
	targets, err := indexbench.SampleTargets(context.Background(), r, n, "")
	if err != nil {
		b.Fatal(err)
	}
	return targets
}

// BenchmarkContext builds context packs (8000 tokens, closure scope) for
// 100 targets and reports the latency percentiles of one pack. The scope
// analysis of the graph (done once per reader, as a long-lived host would
// cache it, with the closures of the targets' packages) is reported apart. On the corpus graph there is no work tree,
// so snippets degrade to locations.
//
//	go test ./cmd/lspgraph -run '^$' -bench BenchmarkContext -benchtime 3x
func BenchmarkContext(b *testing.B) {
	type graphCase struct {
		name, dump, fixture string
		corpus              bool
	}
	cases := []graphCase{{"fixture=goapp", "goapp.scip", "goapp", false}}
	if p, ok := corpusDump("pebble-go.scip"); ok {
		cases = append(cases, graphCase{"corpus=pebble-go", p, "", true})
	}
	for _, gc := range cases {
		b.Run(gc.name, func(b *testing.B) {
			ctx := context.Background()
			var r *graph.Reader
			var st *graph.Store // the corpus's, to open a reader per pack
			var root string
			if gc.corpus {
				// Without the sources snippets degrade to locations;
				// LSPGRAPH_PEBBLE_SRC names a checkout of the dump's commit
				// (f82e3ff74d10) to read them from.
				root = os.Getenv("LSPGRAPH_PEBBLE_SRC")
				opts := scip.Options{Root: root}
				if root == "" {
					root = b.TempDir()
				}
				// LSPGRAPH_CONTEXT_STORE names a store to import into once
				// and reuse, to compare builds without importing each time.
				dir := os.Getenv("LSPGRAPH_CONTEXT_STORE")
				if dir == "" {
					dir = filepath.Join(b.TempDir(), "store")
				}
				if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err != nil {
					importCorpus(b, dir, gc.dump, opts)
				}
				// Query a store opened afresh, as the CLI does.
				var err error
				if st, err = graph.Open(dir, graph.Options{ReadOnly: true}); err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				if r, err = st.Reader(); err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				// LSPGRAPH_CONTEXT_WARM warms the block cache as a
				// long-lived session does when it opens, to completion,
				// long before its first question.
				if os.Getenv("LSPGRAPH_CONTEXT_WARM") != "" {
					t0 := time.Now()
					ws, err := st.Warm(ctx, workspace.WarmBudget, nil)
					if err != nil {
						b.Fatal(err)
					}
					took := time.Since(t0)
					b.Logf("warm-up: %s, %d keys, %.1f MB of records, %.1f MB of blocks (%.1f MB read from the tables), in %s",
						ws.End, ws.Keys, float64(ws.Bytes)/1e6, float64(ws.BlockBytes)/1e6, float64(ws.BlockBytesRead)/1e6, took.Round(time.Millisecond))
					defer func() {
						b.ReportMetric(float64(took.Microseconds())/1000, "warm-ms")
						b.ReportMetric(float64(ws.Bytes)/1e6, "warm-MB")
					}()
				}
			} else {
				r, root = contextFixture(b, gc.dump, gc.fixture)
			}
			start := time.Now()
			ws, err := scope.Discover(root)
			if err != nil {
				b.Fatal(err)
			}
			a, err := scope.Analyze(ctx, ws, r)
			if err != nil {
				b.Fatal(err)
			}
			targets := benchTargets(b, r, 100)
			// LSPGRAPH_CONTEXT_TARGET keeps the targets whose id contains it
			// (or one of its "|"-separated parts), to profile the slow tail
			// on its own.
			if only := os.Getenv("LSPGRAPH_CONTEXT_TARGET"); only != "" {
				parts := strings.Split(only, "|")
				targets = slices.DeleteFunc(targets, func(t graph.Symbol) bool {
					return !slices.ContainsFunc(parts, func(p string) bool { return p != "" && strings.Contains(t.ID, p) })
				})
				if len(targets) == 0 {
					b.Skipf("no benchmark target contains %q", only)
				}
			}
			// The analysis observes a package's references when a closure
			// first needs them and keeps them, as a session keeps the
			// analysis: that is analysis time, counted here, not a pack's.
			for _, t := range targets {
				if _, err := a.For(ctx, a.PackageOfDocument(t.Def.Path), scope.Spec{Closure: true}); err != nil {
					b.Fatal(err)
				}
			}
			analysis := time.Since(start)
			// LSPGRAPH_CONTEXT_DUMP names a directory to write the first
			// round's packs to, to compare the answers of two builds.
			dump := os.Getenv("LSPGRAPH_CONTEXT_DUMP")
			var lat, wall, cpu []time.Duration // in the order the packs were built
			// CPU time of the building thread, beside wall time: on a
			// loaded machine wall time mostly measures waiting for a core.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			slowest := map[string]time.Duration{}
			items, withSnippet := 0, 0
			// As a session does, the packs share one cache of the work
			// tree's documents (each checked unchanged before reuse).
			var texts contextpack.TextCache
			// And one cache of the ranking's graph reads, unless
			// LSPGRAPH_CONTEXT_NOCACHE is set.
			var reads *ranking.Cache
			if os.Getenv("LSPGRAPH_CONTEXT_NOCACHE") == "" {
				reads = new(ranking.Cache)
			}
			// LSPGRAPH_CONTEXT_READER_PER_PACK opens a reader per pack on
			// the corpus store, as a session does per answer.
			perPack := os.Getenv("LSPGRAPH_CONTEXT_READER_PER_PACK") != ""
			// The blocks the first round reads from the tables: its cold
			// cost, counted (the corpus store only).
			var misses0, firstMisses int64
			if st != nil {
				misses0 = st.BlockCacheMisses()
			}
			b.ResetTimer()
			for b.Loop() {
				for _, t := range targets {
					t0, c0 := time.Now(), threadCPUTime(b)
					pr := r
					if perPack && st != nil {
						// As a session answers: a reader of its own.
						if pr, err = st.Reader(); err != nil {
							b.Fatal(err)
						}
					}
					p, err := contextpack.Build(ctx, pr, a, t, contextpack.Options{Budget: 8000, Source: contextpack.Source{Root: root, Cache: &texts}, Reads: reads})
					if err != nil {
						b.Fatal(err)
					}
					if pr != r {
						pr.Close()
					}
					lat = append(lat, time.Since(t0))
					if st != nil && len(lat) == len(targets) {
						firstMisses = st.BlockCacheMisses() - misses0
					}
					wall = append(wall, lat[len(lat)-1])
					if dump != "" && len(lat) <= len(targets) {
						name := fmt.Sprintf("%03d.json", len(lat))
						if err := os.WriteFile(filepath.Join(dump, name), []byte(p.Render()), 0o644); err != nil {
							b.Fatal(err)
						}
					}
					c := threadCPUTime(b) - c0
					cpu = append(cpu, c)
					slowest[t.ID] = max(slowest[t.ID], c)
					if p.Tokens > p.Budget {
						b.Fatalf("pack of %s exceeds the budget: %d > %d", t.ID, p.Tokens, p.Budget)
					}
					all := p.Items()
					items += len(all)
					for _, it := range all {
						if it.Text != "" {
							withSnippet++
						}
					}
				}
			}
			b.StopTimer()
			// The first round's slowest packs: the cold tail, by target.
			order := make([]int, len(targets))
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(i, j int) bool { return cpu[order[i]] > cpu[order[j]] })
			for _, i := range order[:min(5, len(order))] {
				b.Logf("first round, slowest (CPU): %v (wall %v) #%d %s", cpu[i].Round(100*time.Microsecond), wall[i].Round(100*time.Microsecond), i, targets[i].ID)
			}
			ids := slices.Sorted(maps.Keys(slowest))
			sort.SliceStable(ids, func(i, j int) bool { return slowest[ids[i]] > slowest[ids[j]] })
			logSlowest(b, r, a, root, targets, ids[:min(10, len(ids))], slowest)
			// Percentiles by nearest rank (lspbench.PercentileMS): p99 of
			// the first round's 100 packs is its second slowest; the
			// slowest is reported as the first round's max.
			b.ReportMetric(lspbench.PercentileMS(lat, 50), "p50-ms/pack")
			b.ReportMetric(lspbench.PercentileMS(lat, 99), "p99-ms/pack")
			// The first round reads the graph with nothing cached yet: the
			// cold cost of a target a session has not seen.
			firstCPU, firstWall := cpu[:len(targets)], wall[:len(targets)]
			var firstTotal time.Duration
			for _, c := range firstCPU {
				firstTotal += c
			}
			b.ReportMetric(float64(firstTotal.Microseconds())/1000/float64(len(firstCPU)), "first-round-cpu-mean-ms/pack")
			b.ReportMetric(lspbench.PercentileMS(firstCPU, 50), "first-round-cpu-p50-ms/pack")
			b.ReportMetric(lspbench.PercentileMS(firstCPU, 99), "first-round-cpu-p99-ms/pack")
			b.ReportMetric(lspbench.PercentileMS(firstCPU, 100), "first-round-cpu-max-ms/pack")
			b.ReportMetric(lspbench.PercentileMS(firstWall, 50), "first-round-p50-ms/pack")
			b.ReportMetric(lspbench.PercentileMS(firstWall, 99), "first-round-p99-ms/pack")
			b.ReportMetric(lspbench.PercentileMS(firstWall, 100), "first-round-max-ms/pack")
			if st != nil {
				b.ReportMetric(float64(firstMisses)/float64(len(targets)), "first-round-block-reads/pack")
			}
			b.ReportMetric(lspbench.PercentileMS(cpu, 50), "cpu-p50-ms/pack")
			b.ReportMetric(lspbench.PercentileMS(cpu, 99), "cpu-p99-ms/pack")
			b.ReportMetric(float64(analysis.Milliseconds()), "scope-analysis-ms")
			b.ReportMetric(float64(items)/float64(len(lat)), "items/pack")
			b.ReportMetric(float64(withSnippet)/float64(max(1, items)), "snippet-share")
		})
	}
}

// importCorpus imports a SCIP dump into a new store at dir.
func importCorpus(b *testing.B, dir, dump string, opts scip.Options) {
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(dump)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	if _, err := scip.Import(context.Background(), st, f, opts); err != nil {
		b.Fatal(err)
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	b.Logf("imported %s in %v", filepath.Base(dump), time.Since(start).Round(time.Millisecond))
}

// logSlowest logs the slowest targets with their candidate counts and the
// CPU time of one pack's phases, measured apart from the timed loop and
// without the caches: the ranking alone, then the whole pack (ranking,
// reading, fitting); "rest" is their difference, noisy on a loaded machine.
func logSlowest(b *testing.B, r *graph.Reader, a *scope.Analysis, root string, targets []graph.Symbol, ids []string, slowest map[string]time.Duration) {
	ctx := context.Background()
	for _, id := range ids {
		i := slices.IndexFunc(targets, func(t graph.Symbol) bool { return t.ID == id })
		t := targets[i]
		cl, err := a.For(ctx, a.PackageOfDocument(t.Def.Path), scope.Spec{Closure: true})
		if err != nil {
			b.Fatal(err)
		}
		c0 := threadCPUTime(b)
		res, err := ranking.Rank(ctx, r, t, ranking.Options{Analysis: a, Scope: cl})
		if err != nil {
			b.Fatal(err)
		}
		rank := threadCPUTime(b) - c0
		c0 = threadCPUTime(b)
		if _, err := contextpack.Build(ctx, r, a, t, contextpack.Options{Budget: 8000, Source: contextpack.Source{Root: root}}); err != nil {
			b.Fatal(err)
		}
		pack := threadCPUTime(b) - c0
		b.Logf("slowest (CPU): %v %s: %d candidates (%d out of scope); again: rank %v, pack %v (rest %v)",
			slowest[id].Round(100*time.Microsecond), id, len(res.Items)+len(res.OutOfScope), len(res.OutOfScope),
			rank.Round(100*time.Microsecond), pack.Round(100*time.Microsecond), (pack - rank).Round(100*time.Microsecond))
	}
}
