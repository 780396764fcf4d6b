package indexbench

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
)

// CompareOptions configure Compare.
type CompareOptions struct {
	// Dir is the tree indexed.
	Dir string
	// Lspgraph is the lspgraph binary; Ctags universal-ctags.
	Lspgraph, Ctags string
	// CodeGraph, when set, is the `codegraph` command of
	// @colbymchenry/codegraph, run as `codegraph init --yes DIR` beside
	// the index (see RunCodeGraph).
	CodeGraph string
	// Workers is passed to the index (0: its default).
	Workers int
}

// CompareResult is what Compare measured. Runs are ctags, the parse-only
// pass, the dry run and the full index, then CodeGraph when it ran.
type CompareResult struct {
	Dir  string `json:"dir"`
	Runs []Run  `json:"runs"`
	// WallRatio and CPURatio are the full index's figures over ctags's;
	// ParseWallRatio and ParseCPURatio are the parse-only run's.
	WallRatio      float64         `json:"wall_ratio"`
	CPURatio       float64         `json:"cpu_ratio"`
	ParseWallRatio float64         `json:"parse_wall_ratio"`
	ParseCPURatio  float64         `json:"parse_cpu_ratio"`
	Summary        json.RawMessage `json:"index_summary"`
	// StoreMB is the size of the full index's store.
	StoreMB float64 `json:"store_mb"`
	// CodeGraph is CodeGraph's run and its .codegraph directory's size,
	// with the full index's figures over CodeGraph's.
	CodeGraph *CodeGraphRun `json:"codegraph,omitempty"`
}

// CodeGraphRun is one `codegraph init` and how the index compares to it.
type CodeGraphRun struct {
	Version    string  `json:"version"`
	StoreMB    float64 `json:"store_mb"`
	WallRatio  float64 `json:"index_over_codegraph_wall"`
	RSSRatio   float64 `json:"index_over_codegraph_peak_rss"`
	StoreRatio float64 `json:"index_over_codegraph_store"`
}

// Compare measures `lspgraph index` on a tree next to `ctags -R` on the
// same tree, each as a child process (wall time, CPU time, peak RSS):
// ctags writing a tag file, tree-sitter alone (--parse-only), the index
// without a store (--dry-run, no fact cache) and the index into a new
// store with a new fact cache (a cold index: every file parsed, the cache
// written); then, when o.CodeGraph is set, CodeGraph indexing the same
// tree.
func Compare(ctx context.Context, o CompareOptions) (CompareResult, error) {
	res := CompareResult{Dir: o.Dir}
	tmp, err := os.MkdirTemp("", "lspgraph-bench-index-")
	if err != nil {
		return res, fmt.Errorf("creating a temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	// ctags writes a real tag file (sorting included), as an editor setup would.
	run, _, errOut, err := Measure(ctx, "ctags -R", "", o.Ctags, "--totals=yes", "-R", "-f", filepath.Join(tmp, "tags"), o.Dir)
	if err != nil {
		return res, err
	}
	if m := regexp.MustCompile(`(?m)^(\d+) files?,`).FindSubmatch(errOut); m != nil {
		run.Files, _ = strconv.Atoi(string(m[1]))
	}
	res.Runs = append(res.Runs, run)
	store := filepath.Join(tmp, "store")
	for _, phase := range []struct {
		name string
		args []string
	}{
		{"lspgraph index --parse-only", []string{"index", "--json", "--parse-only", "--root", o.Dir}},
		{"lspgraph index --dry-run", []string{"index", "--json", "--dry-run", "--no-fact-cache", "--root", o.Dir}},
		{"lspgraph index (new store)", []string{"index", "--json", "--store", store, "--fact-cache", filepath.Join(tmp, "facts"), "--root", o.Dir}},
	} {
		args := phase.args
		if o.Workers > 0 {
			args = append(args, "--workers", strconv.Itoa(o.Workers))
		}
		run, out, _, err := Measure(ctx, phase.name, "", o.Lspgraph, args...)
		if err != nil {
			return res, err
		}
		var sum struct {
			Files int `json:"files"`
		}
		if err := json.Unmarshal(out, &sum); err != nil {
			return res, fmt.Errorf("reading the index summary: %w", err)
		}
		run.Files = sum.Files
		res.Summary = json.RawMessage(bytes.TrimSpace(out))
		res.Runs = append(res.Runs, run)
	}
	if res.StoreMB, err = dirMB(store); err != nil {
		return res, err
	}
	full, ctags, parse := res.Runs[3], res.Runs[0], res.Runs[1]
	res.WallRatio = full.Seconds / max(ctags.Seconds, 1e-9)
	res.CPURatio = full.CPUSeconds / max(ctags.CPUSeconds, 1e-9)
	res.ParseWallRatio = parse.Seconds / max(ctags.Seconds, 1e-9)
	res.ParseCPURatio = parse.CPUSeconds / max(ctags.CPUSeconds, 1e-9)
	if o.CodeGraph != "" {
		cg, cgStore, version, err := RunCodeGraph(ctx, o.CodeGraph, o.Dir)
		if err != nil {
			return res, err
		}
		cg.Files = full.Files
		res.Runs = append(res.Runs, cg)
		res.CodeGraph = &CodeGraphRun{Version: version, StoreMB: cgStore,
			WallRatio:  full.Seconds / max(cg.Seconds, 1e-9),
			RSSRatio:   full.PeakRSSMB / max(cg.PeakRSSMB, 1e-9),
			StoreRatio: res.StoreMB / max(cgStore, 1e-9)}
	}
	for i := range res.Runs {
		res.Runs[i].FilesPerS = float64(res.Runs[i].Files) / max(res.Runs[i].Seconds, 1e-9)
	}
	return res, nil
}

// RunCodeGraph measures `codegraph init --yes DIR` (CodeGraph builds its
// graph in DIR/.codegraph) with its background daemon off
// (CODEGRAPH_NO_DAEMON=1), and returns the run, the size of .codegraph in
// megabytes and CodeGraph's version; the directory is removed afterwards.
// A tree that holds a .codegraph already is refused. Peak RSS is that of
// CodeGraph's largest process (its launcher runs the indexer as a child).
func RunCodeGraph(ctx context.Context, bin, dir string) (Run, float64, string, error) {
	state := filepath.Join(dir, ".codegraph")
	if _, err := os.Stat(state); err == nil {
		return Run{}, 0, "", fmt.Errorf("codegraph: %s exists; remove it so that CodeGraph indexes afresh", state)
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return Run{}, 0, "", fmt.Errorf("finding codegraph (npm install @colbymchenry/codegraph, then pass node_modules/.bin/codegraph): %w", err)
	}
	ver, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return Run{}, 0, "", fmt.Errorf("codegraph --version: %w", err)
	}
	defer os.RemoveAll(state)
	cmd := exec.CommandContext(ctx, path, "init", "--yes", dir)
	cmd.Env = append(os.Environ(), "CODEGRAPH_NO_DAEMON=1")
	run, _, _, err := MeasureCmd("codegraph init", cmd)
	if err != nil {
		return run, 0, "", err
	}
	mb, err := dirMB(state)
	return run, mb, string(bytes.TrimSpace(ver)), err
}
