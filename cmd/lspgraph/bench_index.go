package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/lspgraph/lspgraph/indexbench"
)

// runBenchIndex measures `lspgraph index` on a tree next to `ctags -R`
// (and CodeGraph with --codegraph): indexbench.Compare.
func runBenchIndex(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench index", "bench index [--ctags PATH] [--codegraph PATH] [--workers N] [--json] DIR")
	ctags := fs.String("ctags", "ctags", "universal-ctags binary")
	codegraph := fs.String("codegraph", "", "also measure CodeGraph's `codegraph init` on DIR (the codegraph command of npm's @colbymchenry/codegraph)")
	workers := fs.Int("workers", 0, "parallel parsers for the index (default: the number of CPUs)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one directory", errUsage)
	}
	dir, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("resolving %s: %w", fs.Arg(0), err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	ctagsPath, err := exec.LookPath(*ctags)
	if err != nil {
		return fmt.Errorf("finding ctags (install universal-ctags or pass --ctags): %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the lspgraph binary: %w", err)
	}
	res, err := indexbench.Compare(ctx, indexbench.CompareOptions{Dir: dir, Lspgraph: self, Ctags: ctagsPath, CodeGraph: *codegraph, Workers: *workers})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "%s\n", dir)
	for _, r := range res.Runs {
		fmt.Fprintf(e.stdout, "  %-28s %7.2fs wall %7.2fs cpu %6.0f MB peak RSS %6d files %7.0f files/s\n",
			r.Name, r.Seconds, r.CPUSeconds, r.PeakRSSMB, r.Files, r.FilesPerS)
	}
	fmt.Fprintf(e.stdout, "  index (new store) / ctags: %.2f× wall, %.2f× cpu; store %.1f MB\n", res.WallRatio, res.CPURatio, res.StoreMB)
	fmt.Fprintf(e.stdout, "  parse only / ctags:        %.2f× wall, %.2f× cpu\n", res.ParseWallRatio, res.ParseCPURatio)
	if cg := res.CodeGraph; cg != nil {
		fmt.Fprintf(e.stdout, "  index / CodeGraph %s:  %.2f× wall, %.2f× peak RSS, %.2f× store (%.1f MB vs %.1f MB)\n",
			cg.Version, cg.WallRatio, cg.RSSRatio, cg.StoreRatio, res.StoreMB, cg.StoreMB)
	}
	return nil
}
