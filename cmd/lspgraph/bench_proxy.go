package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lspgraph/lspgraph/internal/lspbench"
	"github.com/lspgraph/lspgraph/lspproxy"
)

// runBenchProxy measures what the proxy adds to a language server's
// latency as an editor sees it: this process is the editor and talks, over
// pipes, to three processes at once: the server itself, a bare frame
// copier in front of it (`lspgraph bench copier`, the floor any middle
// process costs), and `lspgraph proxy` in front of it. Requests alternate
// between the three so drift on a busy machine affects all alike. With
// --control the third process is a second copier: the ratios it gets are
// the benchmark's own noise.
func runBenchProxy(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench proxy", "bench proxy [--root DIR] [--file FILE] [--at LINE:COL] [--requests N] [--runs R] [--warmup N] [--settle D] [--proxy-cpuprofile FILE] [--control] [--json] -- SERVER [ARGS...]")
	root := fs.String("root", "testdata/goapp", "workspace root `DIR` the server is started in")
	file := fs.String("file", "service/catalog.go", "document `FILE` (relative to --root) to ask about")
	at := fs.String("at", "30:17", "1-based `LINE:COL` (bytes) in --file to ask textDocument/definition at")
	// 16 runs of 500 rounds by default, each run with new processes (see
	// lspbench.Compare): a copier measured against a second copier gave
	// an added-p50 ratio of 0.79-1.33 over 1,500 rounds, and 0.91-1.17
	// over 8,000 with the same processes in every run; the ratio of one
	// run of new processes spreads over 0.5-1.5, their pooled ratio over
	// a tenth.
	requests := fs.Int("requests", 500, "definition requests per path per run")
	runs := fs.Int("runs", 16, "measured runs, each with new processes")
	warmup := fs.Int("warmup", 500, "unmeasured requests per path before each run (a new gopls answers slower for its first few hundred)")
	settle := fs.Duration("settle", 15*time.Second, "before each run, wait at most this long for the machine to be quiet (0: do not wait)")
	control := fs.Bool("control", false, "measure a second copier in the proxy's place: the ratios are then the benchmark's noise")
	asJSON := fs.Bool("json", false, "print JSON")
	proxyProfile := fs.String("proxy-cpuprofile", "", "have the proxy process write a CPU profile of its whole life to `FILE` (go tool pprof)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	server := fs.Args()
	if len(server) == 0 {
		return fmt.Errorf("%w: name the language server after --, e.g. lspgraph bench proxy -- gopls", errUsage)
	}
	if *requests < 1 || *runs < 1 || *warmup < 0 {
		return fmt.Errorf("%w: --requests and --runs must be at least 1, --warmup at least 0", errUsage)
	}
	line, col, ok := parseLineCol(*at)
	if !ok {
		return fmt.Errorf("%w: --at %q: want LINE:COL, both from 1", errUsage, *at)
	}
	dir, err := filepath.Abs(*root)
	if err != nil {
		return fmt.Errorf("resolving --root %s: %w", *root, err)
	}
	path := filepath.Join(dir, *file)
	text, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the document to ask about (--root, --file): %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the lspgraph binary: %w", err)
	}
	store, err := os.MkdirTemp("", "lspgraph-bench-proxy-")
	if err != nil {
		return fmt.Errorf("creating a scratch store: %w", err)
	}
	defer os.RemoveAll(store)

	proxyArgs := []string{"proxy", "--store", store, "--root", dir}
	if *proxyProfile != "" {
		if *proxyProfile, err = filepath.Abs(*proxyProfile); err != nil {
			return fmt.Errorf("resolving --proxy-cpuprofile: %w", err)
		}
		proxyArgs = append(proxyArgs, "--cpuprofile", *proxyProfile)
	}
	cfg := lspbench.Config{Dir: dir, URI: "file://" + path, Text: string(text), Line: line, Col: col,
		Requests: *requests, Runs: *runs, Warmup: *warmup, Settle: *settle, Paths: []lspbench.Path{
			{Name: "direct", Prog: server[0], Args: server[1:]},
			{Name: "copier", Prog: self, Args: append([]string{"bench", "copier", "--"}, server...)},
			{Name: "proxy", Prog: self, Args: append(append(proxyArgs, "--"), server...)},
		}}
	if *control {
		cfg.Paths[2] = lspbench.Path{Name: "copier 2", Prog: self, Args: cfg.Paths[1].Args}
	}
	out, err := lspbench.Compare(ctx, cfg)
	if err != nil {
		if errors.Is(err, lspbench.ErrNoDefinition) {
			return fmt.Errorf("the server has no definition at %s:%s (%w): pick --file/--at on an identifier", *file, *at, err)
		}
		return err
	}
	out.Server = strings.Join(server, " ")
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(e.stdout, "%d × textDocument/definition per path per run against %s (goal: added p50 proxy/copier ≤ 1.1, p99 proxy/direct ≤ 1.4)\n", *requests, out.Server)
	if *control {
		fmt.Fprintln(e.stdout, "control: the proxy's columns are a second copier's")
	}
	fmt.Fprintln(tw, "run\tdirect p50\tp99\tcopier p50\tp99\tcpu µs/req\tproxy p50\tp99\tcpu µs/req\tadded p50 proxy/copier\tpaired\tp99 proxy/direct\t")
	row := func(name string, r lspbench.RunStats) {
		d, c, x := r.Paths[0], r.Paths[1], r.Paths[2]
		ratio := func(v *float64) string {
			if v == nil {
				return "n/a" // the copier measured no slower than direct
			}
			return fmt.Sprintf("%.2f", *v)
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.0f\t%.3f\t%.3f\t%.0f\t%s\t%s\t%.2f\t\n", name, d.P50ms, d.P99ms, c.P50ms, c.P99ms, c.CPUusPerReq, x.P50ms, x.P99ms, x.CPUusPerReq, ratio(r.AddedP50Ratio), ratio(r.PairedAddedP50Ratio), r.P99OverDirect)
	}
	for i, r := range out.Runs {
		row(strconv.Itoa(i+1), r)
	}
	row("all", out.Pooled)
	if err := tw.Flush(); err != nil {
		return err
	}
	if iv := out.AddedP50Interval; iv != nil {
		fmt.Fprintf(e.stdout, "added p50 proxy/copier over all runs: 95%% interval %.2f-%.2f (bootstrap over the %d runs)\n", iv[0], iv[1], len(out.Runs))
	}
	return nil
}

// runBenchCopier is the floor `bench proxy` compares the proxy with: a
// process that starts the server and only moves frames between its own
// stdio and the server's.
func runBenchCopier(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench copier", "bench copier -- SERVER [ARGS...]")
	if err := fs.Parse(args); err != nil {
		return err
	}
	server := fs.Args()
	if len(server) == 0 {
		return fmt.Errorf("%w: name the language server after --", errUsage)
	}
	return lspproxy.RunCopier(ctx, server, e.stdin, e.stdout, e.stderr)
}

// parseLineCol parses "LINE:COL", both at least 1.
func parseLineCol(s string) (line, col int, ok bool) {
	a, b, found := strings.Cut(s, ":")
	if !found {
		return 0, 0, false
	}
	line, err1 := strconv.Atoi(a)
	col, err2 := strconv.Atoi(b)
	return line, col, err1 == nil && err2 == nil && line >= 1 && col >= 1
}
