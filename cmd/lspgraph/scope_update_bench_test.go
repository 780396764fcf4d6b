package main

import (
	"context"
	"os"
	"path"
	"strconv"
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
// live documents that changed since (scope.Analysis.Update with
// graph.Reader.LiveChangedSince), "update-every-live" with every document
// live before or after the write (the rule before the store told which
// changed). Each time covers the analysis, the observation of what changed
// and the pack. LSPGRAPH_SCOPE_LIVE=N first copies N of the base's
// documents into the live layer, as a long session's observations leave
// them. The store is a copy the benchmark may write live documents into
// (it clears the live layer at the end), with its work tree:
//
//	LSPGRAPH_SCOPE_STORE=DIR LSPGRAPH_SCOPE_ROOT=TREE [LSPGRAPH_SCOPE_LIVE=N] go test ./cmd/lspgraph -run '^$' -bench BenchmarkContextAfterLiveWrite -benchtime 20x
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
	if n, _ := strconv.Atoi(os.Getenv("LSPGRAPH_SCOPE_LIVE")); n > 0 {
		copyToLive(b, st, r, n)
	}
	r.Close()
	ws, err := scope.Discover(root)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"anew", "update", "update-every-live"} {
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
				switch changed, known := r.LiveChangedSince(prev.Version()); {
				case mode == "anew":
					a, err = scope.Analyze(ctx, ws, r)
				case mode == "update" && known:
					err = a.Update(ctx, r, changed)
				case mode == "update":
					b.Fatalf("the store cannot tell the live documents changed since %d", prev.Version())
				default:
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

// copyToLive writes n documents of r's base layer, with their facts, into
// st's live layer.
func copyToLive(b *testing.B, st *graph.Store, r *graph.Reader, n int) {
	ctx := context.Background()
	var docs []graph.Document
	if err := r.Documents(ctx, func(d graph.Document) error {
		if len(docs) < n {
			docs = append(docs, d)
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	for _, d := range docs {
		f := graph.DocumentFacts{Document: d}
		var err error
		if f.Symbols, err = r.DocumentSymbols(ctx, d.Path); err != nil {
			b.Fatal(err)
		}
		if f.Occurrences, err = r.Occurrences(ctx, d.Path); err != nil {
			b.Fatal(err)
		}
		if f.Edges, err = r.DocumentEdges(ctx, d.Path); err != nil {
			b.Fatal(err)
		}
		if err := st.PutDocument(ctx, graph.Live, f); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%d documents copied into the live layer", len(docs))
}
