package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "breaktruth:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

const usage = `usage:
  breaktruth truth [--dir GOROOT/src] [--package net/http] [--importers LIST] [--per-stratum 8] [--seed 1] --out FILE
  breaktruth score --truth FILE --scip DUMP [--dir GOROOT/src] [--go-types]
  breaktruth score-syntax --truth FILE --store DIR [--threshold 0.7]`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return fmt.Errorf("%w: missing subcommand (truth or score)", errUsage)
	}
	switch args[0] {
	case "truth":
		return runTruth(ctx, args[1:], stderr)
	case "score":
		return runScore(ctx, args[1:], stdout, stderr)
	case "score-syntax":
		return runScoreSyntax(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("%w: unknown subcommand %q (truth or score)", errUsage, args[0])
}

// goroot returns GOROOT/src and the go version.
func goroot() (string, string, error) {
	out, err := exec.Command("go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env GOROOT: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return "", "", fmt.Errorf("go env printed %q", out)
	}
	return filepath.Join(f[0], "src"), f[1], nil
}

func runTruth(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("truth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "the tree (default: GOROOT/src)")
	pkg := fs.String("package", "net/http", "the package whose functions and methods change")
	importers := fs.String("importers", "expvar,internal/trace/traceviewer,net/http/cgi,net/http/cookiejar,net/http/fcgi,net/http/httptest,net/http/httputil,net/http/pprof,net/rpc", "its importers to type-check (comma-separated)")
	per := fs.Int("per-stratum", 8, "targets per stratum")
	seed := fs.Int64("seed", 1, "seed of the target sample")
	out := fs.String("out", "", "where to write the truth (JSON)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *out == "" {
		return fmt.Errorf("%w: --out is required", errUsage)
	}
	tree := *dir
	if *dir == "" {
		d, v, err := goroot()
		if err != nil {
			return err
		}
		*dir, tree = d, "GOROOT/src "+v
	}
	imps := strings.Split(*importers, ",")
	t, err := loadTree(ctx, *dir, *pkg, imps)
	if err != nil {
		return err
	}
	clean, err := t.check(nil)
	if err != nil {
		return err
	}
	truth := Truth{Tree: tree, Package: *pkg, Scope: append([]string{*pkg}, imps...),
		Method: fmt.Sprintf("per stratum %d targets (seed %d); each given a new first parameter of a fresh type; go/types over the package, its internal tests and its importers; every error mapped to its top-level declaration", *per, *seed)}
	for _, e := range clean.errors {
		truth.Problems = append(truth.Problems, "before any change (left out of every target's truth): "+e.Error())
	}
	own := t.withTst
	if own == nil {
		own = t.base
	}
	for _, u := range append([]*unit{own}, t.users...) {
		for _, n := range u.names {
			truth.Files = append(truth.Files, t.rel(n))
		}
	}
	sort.Strings(truth.Files)
	for _, cd := range pick(t.candidates(clean), *per, *seed) {
		tg, err := t.truthOf(clean, cd)
		if err != nil {
			return fmt.Errorf("%s: %w", cd.Name, err)
		}
		fmt.Fprintf(stderr, "%-40s %-40s callers %3d breaks %3d\n", tg.Name, tg.Stratum, len(tg.Callers), len(tg.Breaks))
		truth.Targets = append(truth.Targets, tg)
		runtime.GC()
	}
	b, err := json.MarshalIndent(truth, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(*out, append(b, '\n'), 0o644)
}
