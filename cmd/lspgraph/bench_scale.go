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
	res.WriteText(e.stdout)
	return nil
}
