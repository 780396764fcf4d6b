package main

import (
	"context"
	"fmt"
	"os"

	"github.com/lspgraph/lspgraph/internal/hugeheap"
	"github.com/lspgraph/lspgraph/scip"
)

// runBench dispatches `lspgraph bench SUBJECT`.
func runBench(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(e.stderr, "Usage: lspgraph bench scip [--root DIR] [--runs N] [--cpuprofile FILE] [--json] FILE\n       lspgraph bench index [--ctags PATH] [--workers N] [--json] DIR\n       lspgraph bench scale [--copies 1,2,4] [--source DIR] [--dump FILE] [--targets N] [--json] DIR\n       lspgraph bench mcp [--targets N] [--depth D] [--cli-targets N] [--cli-runs N] [--json] FILE\n       lspgraph bench calibrate --root DIR [--threshold T] [--targets N] [--seed S] [--json] DUMP\n       lspgraph bench proxy [--root DIR] [--file FILE] [--at LINE:COL] [--requests N] [--runs R] [--json] -- SERVER [ARGS...]\n       lspgraph bench search --git DIR [--commits N] [--skip K] [--json] [--out FILE]\n       lspgraph bench search-cost [--store DIR] [--runs N] [--json] TREE\n")
		if len(args) == 0 {
			return fmt.Errorf("%w: missing subject (scip, index, scale, mcp, calibrate, proxy, search, search-cost)", errUsage)
		}
		return nil
	}
	switch args[0] {
	case "scip":
		return runBenchSCIP(ctx, e, args[1:])
	case "index":
		return runBenchIndex(ctx, e, args[1:])
	case "scale":
		return runBenchScale(ctx, e, args[1:])
	case "mcp":
		return runBenchMCP(ctx, e, args[1:])
	case "calibrate":
		return runBenchCalibrate(ctx, e, args[1:])
	case "proxy":
		return runBenchProxy(ctx, e, args[1:])
	case "copier":
		return runBenchCopier(ctx, e, args[1:])
	case "search":
		return runBenchSearch(ctx, e, args[1:])
	case "search-cost":
		return runBenchSearchCost(ctx, e, args[1:])
	}
	return fmt.Errorf("%w: unknown bench subject %q (want scip, index, scale, mcp, calibrate, proxy, search or search-cost)", errUsage, args[0])
}

func runBenchSCIP(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench scip", "bench scip [--root DIR] [--runs N] [--one-process] [--cpuprofile FILE] [--json] FILE")
	root := fs.String("root", "", "workspace root for document text (UTF-16 dumps); default none")
	runs := fs.Int("runs", 5, "run the three passes `N` times and report each one's median run")
	oneProcess := fs.Bool("one-process", false, "run every pass in this process, not each in a process of its own")
	pass := fs.Bool("pass", false, "run the one pass given as JSON on standard input (how each pass runs in a process of its own)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the first run's full import to `FILE` (go tool pprof)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pass {
		// Every pass runs on the heap an import has (see runSCIPImport).
		_, _ = hugeheap.Reserve(importHeap)
		return scip.ServeBenchPass(ctx, e.stdin, e.stdout)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one dump file", errUsage)
	}
	opts := scip.BenchOptions{Root: *root, Runs: *runs, CPUProfile: *cpuProfile}
	if *oneProcess {
		_, _ = hugeheap.Reserve(importHeap)
	} else if self, err := os.Executable(); err != nil {
		return fmt.Errorf("finding the lspgraph binary: %w", err)
	} else {
		opts.Program = []string{self, "bench", "scip", "--pass"}
	}
	res, err := scip.Bench(ctx, fs.Arg(0), opts)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "%s: %.1f MB; each phase's median of %d runs (each pass in a process of its own: %v)\n", res.File, float64(res.Bytes)/1e6, res.Runs, res.Processes)
	for _, p := range res.Phases {
		fmt.Fprintf(e.stdout, "  %-40s %6.2fs %7.1f MB/s %9.0f occ/s | cpu %6.2fs (sys %.2fs) %7.1f MB/cpu-s | %d docs, %d occurrences, peak RSS %.0f MB, %dk page faults\n",
			p.Name, p.Seconds, p.MBPerSec, p.OccPerSec, p.CPUSeconds, p.SysSeconds, p.MBPerCPUSec, p.Documents, p.Occurrences, p.PeakRSSMB, p.MinorFaults/1000)
	}
	fmt.Fprintf(e.stdout, "  import / decode-only throughput: %.2f× by wall clock, %.2f× by CPU time (per run, by wall clock: %.2f)\n", res.Ratio, res.CPURatio, res.RunRatios)
	fmt.Fprintf(e.stdout, "  store: %.1f MB for %d facts (%d occurrences, %d edges, %d symbols): %.1f bytes per fact\n",
		float64(res.StoreBytes)/1e6, res.Facts, res.Phases[2].Occurrences, res.Edges, res.Symbols, res.BytesPerFact)
	if !res.PeakResetOK {
		fmt.Fprintln(e.stdout, "  (peak RSS could not be reset between phases: each figure is the process peak so far)")
	}
	return nil
}
