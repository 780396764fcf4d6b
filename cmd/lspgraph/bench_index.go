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
	res.WriteText(e.stdout)
	return nil
}
