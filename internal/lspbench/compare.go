package lspbench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lspgraph/lspgraph/internal/proccpu"
)

// Path is one way to reach the server: a process this editor starts and
// talks to over its stdio.
type Path struct {
	Name string
	Prog string
	Args []string
}

// Config says what Compare asks and how often.
type Config struct {
	Dir       string // the workspace root every path starts in
	URI, Text string // the document asked about and its text
	Line, Col int    // 1-based position (bytes) of the definition request
	Requests  int    // requests per path per run
	Runs      int    // measured runs
	Warmup    int    // unmeasured requests per path before the first run
	// Paths are compared in order; the first is the baseline (the server
	// itself), the second the reference middle process and the third the
	// middle process measured against it.
	Paths []Path
}

// ErrNoDefinition is returned when the first path answers the definition
// request with nothing: the position is not on an identifier.
var ErrNoDefinition = errors.New("no definition")

// Compare starts every path, opens the document in each, and sends
// textDocument/definition to them in turn, rotating the order each round
// so that drift on a busy machine affects all alike; each run's
// percentiles, CPU per request and ratios, and those of all runs pooled.
func Compare(ctx context.Context, c Config) (Result, error) {
	if len(c.Paths) != 3 {
		return Result{}, fmt.Errorf("comparing %d paths: want the server, a reference and the measured one", len(c.Paths))
	}
	var paths []*Editor
	defer func() {
		for _, p := range paths {
			p.Stop()
		}
	}()
	uri := c.URI
	for _, s := range c.Paths {
		p, err := Start(ctx, s.Name, c.Dir, s.Prog, s.Args...)
		if err != nil {
			return Result{}, err
		}
		paths = append(paths, p)
		if err := p.Open("file://"+c.Dir, uri, c.Text); err != nil {
			return Result{}, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	params := fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}`, uri, c.Line-1, c.Col-1)
	for _, p := range paths {
		for range c.Warmup {
			if _, err := p.Call("textDocument/definition", params); err != nil {
				return Result{}, fmt.Errorf("%s: warming up: %w", p.Name, err)
			}
		}
	}
	if res, err := paths[0].Call("textDocument/definition", params); err != nil || string(res) == "null" || string(res) == "[]" {
		return Result{}, fmt.Errorf("%w (answer %s, %v)", ErrNoDefinition, res, err)
	}

	out := Result{Requests: c.Requests}
	all := make([][]time.Duration, len(paths))
	cpuAll := make([]time.Duration, len(paths))
	for run := range c.Runs {
		samples := make([][]time.Duration, len(paths))
		cpu0 := make([]time.Duration, len(paths))
		for i, p := range paths {
			cpu0[i] = proccpu.Of(p.PID)
		}
		for round := range c.Requests {
			// Rotate the order so no path always follows the same one (a
			// server's work after an answer competes with the next request).
			for k := range paths {
				i := (round + k + run) % len(paths)
				t0 := time.Now()
				if _, err := paths[i].Call("textDocument/definition", params); err != nil {
					return Result{}, fmt.Errorf("%s: %w", paths[i].Name, err)
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
		out.Runs = append(out.Runs, summarizeRun(paths, samples, cpu))
	}
	out.Pooled = summarizeRun(paths, all, cpuAll)
	for _, p := range paths {
		if err := p.Shutdown(); err != nil {
			return Result{}, fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	paths = nil
	return out, nil
}

// summarizeRun computes the percentiles and ratios of one run (or of
// all runs' samples pooled); cpu is each path's process CPU time over it.
func summarizeRun(paths []*Editor, samples [][]time.Duration, cpu []time.Duration) RunStats {
	var r RunStats
	for i, p := range paths {
		st := PathStats{Name: p.Name, P50ms: PercentileMS(samples[i], 50), P99ms: PercentileMS(samples[i], 99)}
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
	if paired, ok := PairedAddedRatio(samples[0], samples[1], samples[2]); ok {
		r.PairedAddedP50Ratio = &paired
	}
	r.P99OverDirect = x.P99ms / d.P99ms
	return r
}

// Result is a comparison's runs and their pooled summary.
type Result struct {
	Server   string     `json:"server"`
	Requests int        `json:"requests_per_run"`
	Runs     []RunStats `json:"runs"`
	// Pooled is every run's samples taken together.
	Pooled RunStats `json:"pooled"`
}

// RunStats is one run's (or the pooled runs') percentiles and ratios.
type RunStats struct {
	Paths []PathStats `json:"paths"` // direct, copier, proxy
	// AddedP50Ratio is (proxy p50 − direct p50) / (copier p50 − direct
	// p50): what the proxy adds over what any middle process adds (null
	// when the copier measured no slower than direct).
	AddedP50Ratio *float64 `json:"added_p50_proxy_over_copier"`
	// PairedAddedP50Ratio is median(proxy − direct) / median(copier −
	// direct) over the rounds, each request less its round's direct one
	// (see PairedAddedRatio); null as AddedP50Ratio.
	PairedAddedP50Ratio *float64 `json:"paired_added_p50_proxy_over_copier"`
	P99OverDirect       float64  `json:"p99_proxy_over_direct"`
}

// PathStats is one path's latency and CPU cost.
type PathStats struct {
	Name  string  `json:"name"`
	P50ms float64 `json:"p50_ms"`
	P99ms float64 `json:"p99_ms"`
	// CPUusPerReq is the middle process's CPU time per request (its
	// threads' run time from /proc; 0 for direct or where unavailable).
	CPUusPerReq float64 `json:"cpu_us_per_request,omitempty"`
}
