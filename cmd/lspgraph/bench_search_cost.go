package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lspbench"
	"github.com/lspgraph/lspgraph/internal/proccpu"
	"github.com/lspgraph/lspgraph/search"
	"github.com/lspgraph/lspgraph/searcheval"
	"github.com/lspgraph/lspgraph/workspace"
)

// searchLatency is the latency of a set of queries answered one way.
type searchLatency struct {
	Path    string  `json:"path"` // in-process or session
	Queries string  `json:"queries"`
	N       int     `json:"n"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
	MaxMs   float64 `json:"max_ms"`
	// CPU percentiles: the process's CPU time per query (all its
	// threads), which a loaded machine's waiting does not inflate.
	CPUP50ms float64 `json:"cpu_p50_ms"`
	CPUP99ms float64 `json:"cpu_p99_ms"`
}

type searchCostReport struct {
	Tree             string                 `json:"tree"`
	Indexes          []searcheval.IndexCost `json:"indexes"`
	ExtractSeconds   float64                `json:"term_extraction_seconds"`
	Store            string                 `json:"store,omitempty"`
	StoreDocuments   int                    `json:"store_term_documents,omitempty"`
	Latencies        []searchLatency        `json:"latencies,omitempty"`
	LatencyQueryRuns int                    `json:"latency_runs,omitempty"`
	// WarmSeconds: reading the search cache of the store once (in-process,
	// then the session's), before the searches are timed.
	WarmSeconds []float64 `json:"warm_seconds,omitempty"`
}

// shortQueries are questions a reader asks of a storage engine's code.
var shortQueries = []string{
	"compaction picker score", "flush memtable to sstable", "bloom filter", "range deletion tombstone",
	"block cache eviction", "write ahead log recycling", "manifest version edit", "iterator seek prefix",
	"merge operator", "snapshot visibility sequence number", "ingest external sstable", "table cache open file",
	"key comparison user key", "batch commit pipeline", "level size target", "checksum corruption",
	"delete only compaction", "virtual sstable", "obsolete file deletion", "read amplification",
}

// runBenchSearchCost measures what the term index costs: a syntax index of
// TREE with and without terms (time and store size) and the term
// extraction alone, in one run; then, with --store, search latency over
// that store in-process and through a session.
func runBenchSearchCost(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench search-cost", "bench search-cost [--store DIR --root DIR] [--queries EVAL.json] [--runs N] [--json] TREE")
	store := fs.String("store", "", "a store to measure search latency on (e.g. an import of pebble-go.scip)")
	root := fs.String("root", "", "the workspace root of --store")
	queries := fs.String("queries", "", "a `bench search` report whose commit messages are also queried")
	runs := fs.Int("runs", 5, "passes over the queries")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: give the TREE to index", errUsage)
	}
	tree, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	rep := searchCostReport{Tree: tree}
	qs := [][]string{shortQueries}
	names := []string{"short"}
	if *queries != "" {
		long, err := searcheval.ReadQueries(*queries)
		if err != nil {
			return err
		}
		qs, names = append(qs, long), append(names, "commit messages")
	}
	// Alternate the two kinds, twice each, and keep each kind's faster run.
	best := map[bool]searcheval.IndexCost{}
	for _, withTerms := range []bool{true, false, true, false} {
		ix, err := searcheval.Index(ctx, tree, withTerms)
		if err != nil {
			return err
		}
		if b, ok := best[withTerms]; !ok || ix.Seconds < b.Seconds {
			best[withTerms] = ix
		}
	}
	rep.Indexes = []searcheval.IndexCost{best[false], best[true]}
	if rep.ExtractSeconds, err = searcheval.Extraction(ctx, tree); err != nil {
		return err
	}
	if *store != "" {
		rep.Store, rep.LatencyQueryRuns = *store, *runs
		if err := searchLatencies(ctx, &rep, *store, *root, names, qs, *runs); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, rep)
	}
	fmt.Fprintf(e.stdout, "syntax index of %s\n", tree)
	for _, ix := range rep.Indexes {
		fmt.Fprintf(e.stdout, "  terms=%-5v %6.2fs  store %7.1f MB  %d documents\n", ix.Terms, ix.Seconds, ix.StoreMB, ix.Documents)
	}
	fmt.Fprintf(e.stdout, "  term extraction alone %.2fs (included in both: only writing differs)\n", rep.ExtractSeconds)
	if len(rep.WarmSeconds) == 2 {
		fmt.Fprintf(e.stdout, "search cache warmed in %.2fs in-process, %.2fs in the session\n", rep.WarmSeconds[0], rep.WarmSeconds[1])
	}
	for _, l := range rep.Latencies {
		fmt.Fprintf(e.stdout, "search %-10s %-15s n=%-4d p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms  cpu p50 %6.2f ms  p99 %6.2f ms\n",
			l.Path, l.Queries, l.N, l.P50ms, l.P99ms, l.MaxMs, l.CPUP50ms, l.CPUP99ms)
	}
	return nil
}

// searchLatencies times every query in-process (a new reader and a search)
// and through a session's lspgraph.search (sync, reader, search,
// freshness).
func searchLatencies(ctx context.Context, rep *searchCostReport, storeDir, root string, names []string, qs [][]string, runs int) error {
	st, err := graph.Open(storeDir, graph.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	pid := os.Getpid()
	cache := search.NewCache() // one per store, as a session keeps
	r, err := st.Reader()
	if err != nil {
		st.Close()
		return err
	}
	start := time.Now()
	err = cache.Warm(ctx, r, nil)
	r.Close()
	if err != nil {
		st.Close()
		return err
	}
	rep.WarmSeconds = append(rep.WarmSeconds, time.Since(start).Seconds())
	for i, set := range qs {
		var ds, cpu []time.Duration
		for range runs {
			for _, q := range set {
				start, cpu0 := time.Now(), proccpu.Of(pid)
				r, err := st.Reader()
				if err != nil {
					st.Close()
					return err
				}
				res, err := search.Search(ctx, r, q, search.Options{Cache: cache})
				r.Close()
				if err != nil {
					st.Close()
					return err
				}
				rep.StoreDocuments = res.Documents
				ds, cpu = append(ds, time.Since(start)), append(cpu, proccpu.Of(pid)-cpu0)
			}
		}
		rep.Latencies = append(rep.Latencies, latencyOf("in-process", names[i], ds, cpu))
	}
	st.Close()
	// A long-lived session's: the work tree watched, as a proxy's is.
	s, err := workspace.Open(workspace.Options{Root: root, StoreDir: storeDir, Watch: true})
	if err != nil {
		return err
	}
	defer s.Close()
	start = time.Now()
	if err := s.WarmSearch(ctx); err != nil {
		return err
	}
	s.Watching(ctx)
	rep.WarmSeconds = append(rep.WarmSeconds, time.Since(start).Seconds())
	for i, set := range qs {
		var ds, cpu []time.Duration
		for range runs {
			for _, q := range set {
				raw, _ := json.Marshal(workspace.SearchRequest{Query: q})
				start, cpu0 := time.Now(), proccpu.Of(pid)
				if _, err := s.Command(ctx, workspace.CommandSearch, workspace.Call{Args: []json.RawMessage{raw}}); err != nil {
					return err
				}
				ds, cpu = append(ds, time.Since(start)), append(cpu, proccpu.Of(pid)-cpu0)
			}
		}
		rep.Latencies = append(rep.Latencies, latencyOf("session", names[i], ds, cpu))
	}
	return nil
}

// latencyOf summarizes one set's timings, percentiles by nearest rank.
func latencyOf(path, queries string, ds, cpu []time.Duration) searchLatency {
	pct := lspbench.PercentileMS
	return searchLatency{Path: path, Queries: queries, N: len(ds), P50ms: pct(ds, 50), P99ms: pct(ds, 99), MaxMs: pct(ds, 100),
		CPUP50ms: pct(cpu, 50), CPUP99ms: pct(cpu, 99)}
}
