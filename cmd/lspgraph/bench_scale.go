package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lspgraph/lspgraph/indexbench"
)

// runBenchScale runs the scale benchmark (indexbench.Scale): GOROOT/src
// copied at growing sizes, indexed, a dump imported, impact and context
// timed.
func runBenchScale(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench scale", "bench scale [--copies 1,2,4] [--source DIR] [--dump FILE] [--targets N] [--workers N] [--rounds R] [--keep] [--json] DIR")
	copies := fs.String("copies", "1,2,4", "sizes to measure: how many copies of the source tree, increasing")
	source := fs.String("source", "", "Go source tree to copy (default: $(go env GOROOT)/src)")
	dump := fs.String("dump", "", "SCIP dump to import at each size, copied as many times (none: no import)")
	targets := fs.Int("targets", 100, "functions and methods impact and context are timed on at each size")
	workers := fs.Int("workers", 0, "parallel parsers for the index (default: the number of CPUs)")
	rounds := fs.Int("rounds", 1, "time each size's index and import this many times, sizes alternating in order; ratios are of the medians")
	keep := fs.Bool("keep", false, "keep the copies in DIR afterwards")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one working directory (it gets the copies and the stores)", errUsage)
	}
	var sizes []int
	for _, c := range strings.Split(*copies, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil {
			return fmt.Errorf("%w: --copies %q: %v", errUsage, *copies, err)
		}
		sizes = append(sizes, n)
	}
	src := *source
	if src == "" {
		var err error
		if src, err = indexbench.GoSourceTree(); err != nil {
			return err
		}
	}
	dir, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("resolving %s: %w", fs.Arg(0), err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the lspgraph binary: %w", err)
	}
	if !*keep {
		defer os.RemoveAll(filepath.Join(dir, "tree"))
		defer os.RemoveAll(filepath.Join(dir, "import-root"))
	}
	res, err := indexbench.Scale(ctx, indexbench.ScaleOptions{
		Lspgraph: self, Source: src, Dump: *dump, Dir: dir, Copies: sizes, Targets: *targets, Workers: *workers, Rounds: *rounds,
		Progress: func(s string) { fmt.Fprintln(e.stderr, "bench scale:", s) },
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "%s copied %v times\n", src, sizes)
	for _, s := range res.Sizes {
		fmt.Fprintf(e.stdout, "  %d× %8d Go lines %6d files: index %7.1fs wall %7.1fs cpu %5.0f MB peak RSS, store %5.0f MB\n",
			s.Copies, s.Tree.GoLines, s.Index.Files, s.Index.Seconds, s.Index.CPUSeconds, s.Index.PeakRSSMB, s.IndexStoreMB)
		fmt.Fprintf(e.stdout, "      re-index after changing %d files: %.1fs wall %.1fs cpu %.0f MB peak RSS (%.0f%% of the full index's wall)\n",
			s.Edited, s.Reindex.Seconds, s.Reindex.CPUSeconds, s.Reindex.PeakRSSMB, 100*s.ReindexRatio)
		fmt.Fprintf(e.stdout, "      impact p50 %.1f p99 %.1f ms, context p50 %.1f p99 %.1f ms (%d targets)\n",
			s.Impact.P50ms, s.Impact.P99ms, s.Context.P50ms, s.Context.P99ms, s.Impact.Targets)
		if len(s.IndexRounds) > 1 {
			fmt.Fprintf(e.stdout, "      index over %d rounds: median %.1fs wall %.1fs cpu (walls%s)\n",
				len(s.IndexRounds), s.IndexMedian.Seconds, s.IndexMedian.CPUSeconds, roundWalls(s.IndexRounds, 1))
		}
		if s.Import != nil {
			fmt.Fprintf(e.stdout, "      import of %d documents: %.1fs wall %.1fs cpu %.0f MB peak RSS, store %.0f MB; impact p50 %.1f p99 %.1f ms\n",
				s.ImportDump.Documents, s.Import.Seconds, s.Import.CPUSeconds, s.Import.PeakRSSMB, s.ImportStoreMB, s.ImportImpact.P50ms, s.ImportImpact.P99ms)
			if len(s.ImportRounds) > 1 {
				fmt.Fprintf(e.stdout, "      import over %d rounds: median %.2fs wall %.2fs cpu (walls%s)\n",
					len(s.ImportRounds), s.ImportMedian.Seconds, s.ImportMedian.CPUSeconds, roundWalls(s.ImportRounds, 2))
			}
		}
	}
	fmt.Fprintf(e.stdout, "  %.0f× the size: index %.2f× wall %.2f× cpu", res.SizeRatio, res.IndexWallRatio, res.IndexCPURatio)
	if res.Rounds > 1 {
		fmt.Fprintf(e.stdout, " (medians of %d rounds; per round%s)", res.Rounds, ratios(res.IndexRoundRatios))
	}
	if res.ImportWallRatio > 0 {
		fmt.Fprintf(e.stdout, ", import %.2f× wall %.2f× cpu", res.ImportWallRatio, res.ImportCPURatio)
		if res.Rounds > 1 {
			fmt.Fprintf(e.stdout, " (per round%s)", ratios(res.ImportRoundRatios))
		}
	}
	fmt.Fprintf(e.stdout, "; largest index peak RSS %.0f MB; re-index after 1%% changed at most %.0f%% of a full index\n", res.MaxIndexRSSMB, 100*res.MaxReindexRatio)
	return nil
}

// roundWalls lists the rounds' wall times, prec digits after the point.
func roundWalls(runs []indexbench.Run, prec int) string {
	var b strings.Builder
	for _, r := range runs {
		fmt.Fprintf(&b, " %.*f", prec, r.Seconds)
	}
	return b.String()
}

// ratios lists ratios.
func ratios(x []float64) string {
	var b strings.Builder
	for _, r := range x {
		fmt.Fprintf(&b, " %.2f×", r)
	}
	return b.String()
}
