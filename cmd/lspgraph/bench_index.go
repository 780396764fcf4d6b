package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/lspgraph/lspgraph/indexbench"
)

type indexBenchResult struct {
	Dir  string           `json:"dir"`
	Runs []indexbench.Run `json:"runs"`
	// WallRatio and CPURatio are the full index's figures (the last run)
	// over ctags's (the first); ParseWallRatio and ParseCPURatio are the
	// parse-only run's over ctags's.
	WallRatio      float64         `json:"wall_ratio"`
	CPURatio       float64         `json:"cpu_ratio"`
	ParseWallRatio float64         `json:"parse_wall_ratio"`
	ParseCPURatio  float64         `json:"parse_cpu_ratio"`
	Summary        json.RawMessage `json:"index_summary"`
}

// runBenchIndex measures `lspgraph index` on a tree next to `ctags -R` on
// the same tree, each as a child process (wall time, CPU time, peak RSS):
// ctags writing a tag file, the index without a store (--dry-run: parsing,
// extraction, resolution), and the index into a new store.
func runBenchIndex(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench index", "bench index [--ctags PATH] [--workers N] [--json] DIR")
	ctags := fs.String("ctags", "ctags", "universal-ctags binary")
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
	tmp, err := os.MkdirTemp("", "lspgraph-bench-index-")
	if err != nil {
		return fmt.Errorf("creating a temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)

	res := indexBenchResult{Dir: dir}
	// ctags writes a real tag file (sorting included), as an editor setup would.
	run, _, errOut, err := indexbench.Measure(ctx, "ctags -R", "", ctagsPath, "--totals=yes", "-R", "-f", filepath.Join(tmp, "tags"), dir)
	if err != nil {
		return err
	}
	if m := regexp.MustCompile(`(?m)^(\d+) files?,`).FindSubmatch(errOut); m != nil {
		run.Files, _ = strconv.Atoi(string(m[1]))
	}
	res.Runs = append(res.Runs, run)

	// Tree-sitter alone (the floor), the extractor alone (no store), then
	// the real thing into a new store.
	for _, phase := range []struct {
		name string
		args []string
	}{
		{"lspgraph index --parse-only", []string{"index", "--json", "--parse-only", "--root", dir}},
		{"lspgraph index --dry-run", []string{"index", "--json", "--dry-run", "--no-fact-cache", "--root", dir}},
		{"lspgraph index (new store)", []string{"index", "--json", "--store", filepath.Join(tmp, "store"), "--fact-cache", filepath.Join(tmp, "facts"), "--root", dir}},
	} {
		args := phase.args
		if *workers > 0 {
			args = append(args, "--workers", strconv.Itoa(*workers))
		}
		run, out, _, err := indexbench.Measure(ctx, phase.name, "", self, args...)
		if err != nil {
			return err
		}
		var sum struct {
			Files int `json:"files"`
		}
		if err := json.Unmarshal(out, &sum); err != nil {
			return fmt.Errorf("reading the index summary: %w", err)
		}
		run.Files = sum.Files
		res.Summary = json.RawMessage(bytes.TrimSpace(out))
		res.Runs = append(res.Runs, run)
	}
	for i := range res.Runs {
		res.Runs[i].FilesPerS = float64(res.Runs[i].Files) / max(res.Runs[i].Seconds, 1e-9)
	}
	full := res.Runs[len(res.Runs)-1]
	res.WallRatio = full.Seconds / max(res.Runs[0].Seconds, 1e-9)
	res.CPURatio = full.CPUSeconds / max(res.Runs[0].CPUSeconds, 1e-9)
	parse := res.Runs[1]
	res.ParseWallRatio = parse.Seconds / max(res.Runs[0].Seconds, 1e-9)
	res.ParseCPURatio = parse.CPUSeconds / max(res.Runs[0].CPUSeconds, 1e-9)

	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "%s\n", dir)
	for _, r := range res.Runs {
		fmt.Fprintf(e.stdout, "  %-28s %7.2fs wall %7.2fs cpu %6.0f MB peak RSS %6d files %7.0f files/s\n",
			r.Name, r.Seconds, r.CPUSeconds, r.PeakRSSMB, r.Files, r.FilesPerS)
	}
	fmt.Fprintf(e.stdout, "  index (new store) / ctags: %.2f× wall, %.2f× cpu\n", res.WallRatio, res.CPURatio)
	fmt.Fprintf(e.stdout, "  parse only / ctags:        %.2f× wall, %.2f× cpu\n", res.ParseWallRatio, res.ParseCPURatio)
	return nil
}
