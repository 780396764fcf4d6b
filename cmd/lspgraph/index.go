package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/hugeheap"
	"github.com/lspgraph/lspgraph/syntax"
	"github.com/lspgraph/lspgraph/workspace"
)

const indexSynopsis = "index [--store DIR] [--root DIR] [--workers N] [--parse-timeout D] [--fact-cache DIR | --no-fact-cache] [--allow-shrink] [--full] [--json] [--cpuprofile FILE] [DIR] [--lsp -- SERVER ARGS...]"

// runIndex builds a syntax-only base generation of a repository: every
// source file is parsed with tree-sitter, names are resolved with the
// confidences of syntax.Rules, and the result replaces the base layer
// atomically.
func runIndex(ctx context.Context, e *env, args []string) error {
	// Everything after "--" belongs to --lsp's server command line.
	var serverArgs []string
	for i, a := range args {
		if a == "--" {
			args, serverArgs = args[:i], args[i+1:]
			break
		}
	}
	fs := newFlagSet(e, "index", indexSynopsis)
	storeFlag := fs.String("store", "", "graph store directory (default: the user cache directory for the root)")
	rootFlag := fs.String("root", "", "repository root (default: DIR, else the git top level of the current directory, else the current directory)")
	workers := fs.Int("workers", 0, "parallel parsers (default: the number of CPUs)")
	timeout := fs.Duration("parse-timeout", syntax.DefaultParseTimeout, "longest parse of one file before it is skipped")
	allowShrink := fs.Bool("allow-shrink", false, "accept an index that keeps fewer than half the documents of the previous one of the root (refused by default)")
	full := fs.Bool("full", false, "write a whole new generation even when the current one can be brought up to date incrementally")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	useLSP := fs.Bool("lsp", false, "crawl a language server (after --) instead of parsing with tree-sitter")
	dryRun := fs.Bool("dry-run", false, "extract and resolve, but write nothing (measures the extractor alone)")
	factCache := fs.String("fact-cache", "", "directory of the cache of extracted facts, shared by indexes (default: the user cache directory's lspgraph/facts)")
	noFactCache := fs.Bool("no-fact-cache", false, "parse every file, reading and writing no fact cache")
	parseOnly := fs.Bool("parse-only", false, "parse every file with tree-sitter and stop: nothing extracted or written (measures the parser alone)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the index to `FILE` (go tool pprof)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return fmt.Errorf("%w: want at most one directory", errUsage)
	}
	rootArg := *rootFlag
	if rootArg == "" && fs.NArg() == 1 {
		rootArg = fs.Arg(0)
	}
	root, dir, err := workspaceAndStore(ctx, rootArg, *storeFlag)
	if err != nil {
		return err
	}
	if *useLSP {
		return runIndexLSP(ctx, e, root, dir, serverArgs, *asJSON) // index_lsp.go
	}
	if len(serverArgs) > 0 {
		return fmt.Errorf("%w: arguments after -- need --lsp", errUsage)
	}

	// The commit checked out is asked of git (a process of its own, 5-7
	// ms) while the store opens, once: the index records it and the
	// summary reports it.
	head := make(chan string, 1)
	go func() { head <- gitHead(ctx, root) }()
	opts := syntax.IndexOptions{
		Root:         root,
		Workers:      *workers,
		ParseTimeout: *timeout,
		AllowShrink:  *allowShrink,
		Full:         *full,
		ExitsAfter:   true,
	}
	if *parseOnly {
		ps, err := syntax.ParseAll(ctx, opts)
		if err != nil {
			return fmt.Errorf("parsing %s: %w", root, err)
		}
		if *asJSON {
			return writeJSON(e.stdout, struct {
				Root         string  `json:"root"`
				DurationSecs float64 `json:"duration_seconds"`
				syntax.ParseSummary
			}{root, ps.Duration.Seconds(), ps})
		}
		fmt.Fprintf(e.stdout, "%s: parsed %d of %d files (%.1f MB) in %.2fs\n",
			root, ps.Parsed, ps.Files, float64(ps.Bytes)/1e6, ps.Duration.Seconds())
		return nil
	}
	if !*dryRun {
		if c, err := workspace.Dial(ctx, dir, "cli", ""); err == nil {
			// The session's working directory is not this one.
			if *factCache != "" {
				if *factCache, err = filepath.Abs(*factCache); err != nil {
					c.Close()
					return fmt.Errorf("resolving --fact-cache: %w", err)
				}
			}
			// A session holds the store: it indexes, and its clients
			// switch to the new generation when it commits.
			defer c.Close()
			var res workspace.IndexResult
			if err := c.Command(ctx, workspace.CommandIndex, []json.RawMessage{mustJSON(workspace.IndexRequest{Workers: *workers, ParseTimeout: *timeout, AllowShrink: *allowShrink, Full: *full, FactCache: *factCache, NoFactCache: *noFactCache})}, 0, &res); err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(e.stdout, res)
			}
			fmt.Fprintf(e.stdout, "%s → %s (through the session of pid %d)\n", res.Root, res.Store, c.PID())
			res.Summary.WriteText(e.stdout, res.Commit)
			return nil
		} else if !errors.Is(err, workspace.ErrNoSession) {
			return err
		}
	}
	// A whole new generation presses the heap's limit on a large tree: with
	// MADV_FREE the pages it hands back are not faulted in again (four GOROOT
	// copies 7% faster, peak RSS +35 MB); resident processes keep the default.
	if _, err := os.Stat(dir); e.relaunch != nil && (*full || *dryRun || err != nil) {
		_ = e.relaunch("madvdontneed=0") // it returns only when it runs nothing
	}
	// After the relaunch: a profiling timer outlives an exec (SIGPROF kills).
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	// Huge pages under the heap (a collection, 5-12 ms), before the listing
	// allocates: memory used before would be cleared (four GOROOTs: 0.36 s).
	_, _ = hugeheap.Reserve(syntax.MemoryLimit)
	// The tree is listed while the fact cache and the store open.
	if !*dryRun {
		opts.Listing = syntax.StartListing(ctx, opts)
		defer opts.Listing.Close()
	}
	if !*noFactCache {
		if opts.Cache, err = syntax.OpenFactCache(*factCache, 0); err != nil {
			return err
		}
		defer opts.Cache.Close()
	}
	prog := newIndexProgress(e.stderr)
	opts.Progress = prog.update
	defer syntax.BoundHeap()()
	var sum syntax.IndexSummary
	if *dryRun {
		dir = "(dry run: no store)"
		opts.Commit = <-head
		sum, err = syntax.Build(ctx, opts, func(context.Context, graph.DocumentFacts) error { return nil })
	} else {
		store, oerr := workspace.OpenStore(dir, root, nil)
		if oerr != nil {
			return fmt.Errorf("opening store %s: %w", dir, oerr)
		}
		defer store.Close()
		opts.Commit = <-head
		sum, err = syntax.Index(ctx, store, opts)
	}
	prog.finish()
	if err != nil {
		return fmt.Errorf("indexing %s: %w", root, err)
	}
	if *asJSON {
		return writeJSON(e.stdout, struct {
			Root         string  `json:"root"`
			Store        string  `json:"store"`
			Commit       string  `json:"commit"`
			FilesPerSec  float64 `json:"files_per_sec"`
			DurationSecs float64 `json:"duration_seconds"`
			syntax.IndexSummary
		}{root, dir, opts.Commit, sum.FilesPerSecond(), sum.Duration.Seconds(), sum})
	}
	fmt.Fprintf(e.stdout, "%s → %s\n", root, dir)
	sum.WriteText(e.stdout, opts.Commit)
	return nil
}

// indexProgress shows extraction and resolution: the phase and files done.
type indexProgress struct{ *progress }

func newIndexProgress(w io.Writer) indexProgress { return indexProgress{newProgress(w)} }

func (p indexProgress) update(pr syntax.IndexProgress) {
	done := pr.Done == pr.Total
	p.show(done, func(elapsed time.Duration) (string, string) {
		plain := "" // when done, the summary follows
		if !done {
			plain = fmt.Sprintf("index: %s %d of %d files, %.0f files/s", pr.Phase, pr.Done, pr.Total, float64(pr.Done)/max(elapsed.Seconds(), 1e-9))
		}
		return fmt.Sprintf("index %-7s [%s] %d/%d files", pr.Phase, progressBar(int64(pr.Done), int64(pr.Total)), pr.Done, pr.Total), plain
	})
}
