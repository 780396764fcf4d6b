package main

import (
	"context"
	"os"
	"path"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lspbench"
	"github.com/lspgraph/lspgraph/scope"
)

// BenchmarkContextAfterLiveWrite times a context pack (8,000 tokens) right
// after a live-layer write in the target's package, as a session answers
// one while the editor's answers are observed: "anew" computes the scope
// analysis again (what a session did on every write before the analysis
// was kept across them), "update" brings the kept one up to date with the
// live documents (scope.Analysis.Update). Each time covers the analysis,
// the observation of what changed and the pack. The store is a
// copy the benchmark may write live documents into (it clears the live
// layer at the end), with its work tree:
//
//	LSPGRAPH_SCOPE_STORE=DIR LSPGRAPH_SCOPE_ROOT=TREE go test ./cmd/lspgraph -run '^$' -bench BenchmarkContextAfterLiveWrite -benchtime 20x
func BenchmarkContextAfterLiveWrite(b *testing.B) {
	dir, root := os.Getenv("LSPGRAPH_SCOPE_STORE"), os.Getenv("LSPGRAPH_SCOPE_ROOT")
	if dir == "" || root == "" {
		b.Skip("set LSPGRAPH_SCOPE_STORE (a store copy, written to) and LSPGRAPH_SCOPE_ROOT (its work tree)")
	}
	ctx := context.Background()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	defer st.ClearLayer(ctx, graph.Live)
	r, err := st.Reader()
	if err != nil {
		b.Fatal(err)
	}
	targets := benchTargets(b, r, 20)
	r.Close()
	ws, err := scope.Discover(root)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"anew", "update"} {
		b.Run(mode, func(b *testing.B) {
			r, err := st.Reader()
			if err != nil {
				b.Fatal(err)
			}
			a, err := scope.Analyze(ctx, ws, r)
			if err != nil {
				b.Fatal(err)
			}
			// A session's kept analysis has observed the closures asked
			// for before.
			for _, t := range targets {
				if _, err := contextpack.Build(ctx, r, a, t, contextpack.Options{Budget: 8000, Source: contextpack.Source{Root: root}}); err != nil {
					b.Fatal(err)
				}
			}
			var lat []time.Duration
			i := 0
			for b.Loop() {
				t := targets[i%len(targets)]
				i++
				// A live document beside the target, in its package.
				live := graph.DocumentFacts{Document: graph.Document{
					Path: path.Join(path.Dir(t.Def.Path), "zz_live_bench.go"), Language: "go", Package: t.Package, Source: graph.SourceLSP}}
				if err := st.PutDocument(ctx, graph.Live, live); err != nil {
					b.Fatal(err)
				}
				prev := r
				if r, err = st.Reader(); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				if mode == "anew" {
					a, err = scope.Analyze(ctx, ws, r)
				} else {
					err = a.Update(ctx, r, append(prev.LiveDocuments(), r.LiveDocuments()...))
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := contextpack.Build(ctx, r, a, t, contextpack.Options{Budget: 8000, Source: contextpack.Source{Root: root}}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
				prev.Close()
				if err := st.DeleteDocument(ctx, graph.Live, live.Document.Path); err != nil {
					b.Fatal(err)
				}
			}
			r.Close()
			b.ReportMetric(lspbench.PercentileMS(lat, 50), "p50-ms/pack")
			b.ReportMetric(lspbench.PercentileMS(lat, 99), "p99-ms/pack")
		})
	}
}
