package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lspgraph/lspgraph/internal/lspbench"
	"github.com/lspgraph/lspgraph/internal/proccpu"
	"github.com/lspgraph/lspgraph/lspproxy"
)

// runBenchProxy measures what the proxy adds to a language server's
// latency as an editor sees it: this process is the editor and talks, over
// pipes, to three processes at once: the server itself, a bare frame
// copier in front of it (`lspgraph bench copier`, the floor any middle
// process costs), and `lspgraph proxy` in front of it. Requests alternate
// between the three so drift on a busy machine affects all alike.
func runBenchProxy(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench proxy", "bench proxy [--root DIR] [--file FILE] [--at LINE:COL] [--requests N] [--runs R] [--proxy-cpuprofile FILE] [--json] -- SERVER [ARGS...]")
	root := fs.String("root", "testdata/goapp", "workspace root `DIR` the server is started in")
	file := fs.String("file", "service/catalog.go", "document `FILE` (relative to --root) to ask about")
	at := fs.String("at", "30:17", "1-based `LINE:COL` (bytes) in --file to ask textDocument/definition at")
	requests := fs.Int("requests", 200, "definition requests per path per run")
	runs := fs.Int("runs", 3, "measured runs")
	warmup := fs.Int("warmup", 30, "unmeasured requests per path before the first run")
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
	specs := []struct {
		name, prog string
		args       []string
	}{
		{"direct", server[0], server[1:]},
		{"copier", self, append([]string{"bench", "copier", "--"}, server...)},
		{"proxy", self, append(append(proxyArgs, "--"), server...)},
	}
	var paths []*lspbench.Editor
	defer func() {
		for _, p := range paths {
			p.Stop()
		}
	}()
	uri := "file://" + path
	for _, s := range specs {
		p, err := lspbench.Start(ctx, s.name, dir, s.prog, s.args...)
		if err != nil {
			return err
		}
		paths = append(paths, p)
		if err := p.Open("file://"+dir, uri, string(text)); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	params := fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}`, uri, line-1, col-1)
	for _, p := range paths {
		for range *warmup {
			if _, err := p.Call("textDocument/definition", params); err != nil {
				return fmt.Errorf("%s: warming up: %w", p.Name, err)
			}
		}
	}
	if res, err := paths[0].Call("textDocument/definition", params); err != nil || string(res) == "null" || string(res) == "[]" {
		return fmt.Errorf("the server has no definition at %s:%s (answer %s, %v): pick --file/--at on an identifier", *file, *at, res, err)
	}

	out := benchProxyResult{Server: strings.Join(server, " "), Requests: *requests}
	all := make([][]time.Duration, len(paths))
	cpuAll := make([]time.Duration, len(paths))
	for run := range *runs {
		samples := make([][]time.Duration, len(paths))
		cpu0 := make([]time.Duration, len(paths))
		for i, p := range paths {
			cpu0[i] = proccpu.Of(p.PID)
		}
		for round := range *requests {
			// Rotate the order so no path always follows the same one (a
			// server's work after an answer competes with the next request).
			for k := range paths {
				i := (round + k + run) % len(paths)
				t0 := time.Now()
				if _, err := paths[i].Call("textDocument/definition", params); err != nil {
					return fmt.Errorf("%s: %w", paths[i].Name, err)
				}
				samples[i] = append(samples[i], time.Since(t0))
			}
		}
		cpu := make([]time.Duration, len(paths))
		for i, p := range paths {
			cpu[i] = proccpu.Of(p.PID) - cpu0[i]
			cpuAll[i] += cpu[i]
			all[i] = append(all[i], samples[i]...)
		}
		out.Runs = append(out.Runs, summarizeProxyRun(paths, samples, cpu))
	}
	out.Pooled = summarizeProxyRun(paths, all, cpuAll)
	for _, p := range paths {
		if err := p.Shutdown(); err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	paths = nil
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(e.stdout, "%d × textDocument/definition per path per run against %s (goal: added p50 proxy/copier ≤ 1.1, p99 proxy/direct ≤ 1.4)\n", *requests, out.Server)
	fmt.Fprintln(tw, "run\tdirect p50\tp99\tcopier p50\tp99\tcpu µs/req\tproxy p50\tp99\tcpu µs/req\tadded p50 proxy/copier\tpaired\tp99 proxy/direct\t")
	row := func(name string, r benchProxyRun) {
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
	return tw.Flush()
}

// summarizeProxyRun computes the percentiles and ratios of one run (or of
// all runs' samples pooled); cpu is each path's process CPU time over it.
func summarizeProxyRun(paths []*lspbench.Editor, samples [][]time.Duration, cpu []time.Duration) benchProxyRun {
	var r benchProxyRun
	for i, p := range paths {
		st := benchProxyPath{Name: p.Name, P50ms: lspbench.PercentileMS(samples[i], 50), P99ms: lspbench.PercentileMS(samples[i], 99)}
		if i > 0 {
			st.CPUusPerReq = float64(cpu[i].Microseconds()) / float64(len(samples[i]))
		}
		r.Paths = append(r.Paths, st)
	}
	d, c, x := r.Paths[0], r.Paths[1], r.Paths[2]
	if c.P50ms > d.P50ms {
		added := (x.P50ms - d.P50ms) / (c.P50ms - d.P50ms)
		r.AddedP50Ratio = &added
	}
	if paired, ok := lspbench.PairedAddedRatio(samples[0], samples[1], samples[2]); ok {
		r.PairedAddedP50Ratio = &paired
	}
	r.P99OverDirect = x.P99ms / d.P99ms
	return r
}

type benchProxyResult struct {
	Server   string          `json:"server"`
	Requests int             `json:"requests_per_run"`
	Runs     []benchProxyRun `json:"runs"`
	// Pooled is every run's samples taken together.
	Pooled benchProxyRun `json:"pooled"`
}

type benchProxyRun struct {
	Paths []benchProxyPath `json:"paths"` // direct, copier, proxy
	// AddedP50Ratio is (proxy p50 − direct p50) / (copier p50 − direct
	// p50): what the proxy adds over what any middle process adds (null
	// when the copier measured no slower than direct).
	AddedP50Ratio *float64 `json:"added_p50_proxy_over_copier"`
	// PairedAddedP50Ratio is median(proxy − direct) / median(copier −
	// direct) over the rounds, each request less its round's direct one
	// (see lspbench.PairedAddedRatio); null as AddedP50Ratio.
	PairedAddedP50Ratio *float64 `json:"paired_added_p50_proxy_over_copier"`
	P99OverDirect       float64  `json:"p99_proxy_over_direct"`
}

type benchProxyPath struct {
	Name  string  `json:"name"`
	P50ms float64 `json:"p50_ms"`
	P99ms float64 `json:"p99_ms"`
	// CPUusPerReq is the middle process's CPU time per request (its
	// threads' run time from /proc; 0 for direct or where unavailable).
	CPUusPerReq float64 `json:"cpu_us_per_request,omitempty"`
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
	cmd := exec.CommandContext(ctx, server[0], server[1:]...)
	cmd.Stderr = e.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", server[0], err)
	}
	go func() {
		lspproxy.CopyFrames(in, e.stdin)
		in.Close() // the editor left: so does the server's input
	}()
	// The server's output ends when it exits; how it exited is the
	// copier's answer.
	lspproxy.CopyFrames(e.stdout, out)
	return cmd.Wait()
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
