package lspbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
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
	Warmup    int    // unmeasured requests per path before each run
	// Settle bounds the wait, before each run's warm-up, for the
	// machine to be quiet (a new server loads its workspace in the
	// background); 0 does not wait.
	Settle time.Duration
	// Paths are compared in order; the first is the baseline (the server
	// itself), the second the reference middle process and the third the
	// middle process measured against it.
	Paths []Path
}

// ErrNoDefinition is returned when the first path answers the definition
// request with nothing: the position is not on an identifier.
var ErrNoDefinition = errors.New("no definition")

// Compare measures c.Runs runs (see measureRun). Each run starts every
// path afresh, opens the document in each, warms them up and sends
// textDocument/definition to them in rounds of balanced order, so that
// drift on a busy machine affects all alike; then it shuts them down. It
// returns each run's percentiles, CPU per request and ratios, those of all
// runs pooled, and the pooled added-p50 ratio's 95% interval.
//
// A run's paths are new processes, each with a server of its own: a
// server process keeps its speed relative to another for its life (its
// heap, its caches, the core it settles on), so paths kept across runs
// carried the same bias into every run, and pooling runs did not average
// it out.
func Compare(ctx context.Context, c Config) (Result, error) {
	if len(c.Paths) != 3 {
		return Result{}, fmt.Errorf("comparing %d paths: want the server, a reference and the measured one", len(c.Paths))
	}
	params := fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}`, c.URI, c.Line-1, c.Col-1)
	out := Result{Requests: c.Requests}
	cpuAll := make([]time.Duration, len(c.Paths))
	var perRun [][][]time.Duration
	var names []string
	for _, p := range c.Paths {
		names = append(names, p.Name)
	}
	for run := range c.Runs {
		samples, cpu, err := measureRun(ctx, c, params, run)
		if err != nil {
			return Result{}, err
		}
		perRun = append(perRun, samples)
		for i := range c.Paths {
			cpuAll[i] += cpu[i]
		}
		out.Runs = append(out.Runs, summarizeRun(names, samples, cpu))
	}
	all := make([][]time.Duration, len(c.Paths))
	for _, samples := range perRun {
		for i := range all {
			all[i] = append(all[i], samples[i]...)
		}
	}
	out.Pooled = summarizeRun(names, all, cpuAll)
	if lo, hi, ok := AddedInterval(perRun, 2000); ok {
		out.AddedP50Interval = &[2]float64{lo, hi}
	}
	return out, nil
}

// AddedInterval is the 95% interval of the pooled added-p50 ratio, (middle
// p50 − direct p50) / (reference p50 − direct p50), by a bootstrap over
// runs: resamples times, as many runs as there are drawn with
// replacement, their samples pooled. runs[r][i] are run r's latencies of
// path i (direct, reference, middle). Runs, each with new processes, are
// the unit that varies most (a process's speed stays with it), so they are
// what is resampled. False with fewer than two runs or when no resample
// gave a ratio. The draws are seeded: the same runs give the same
// interval.
func AddedInterval(runs [][][]time.Duration, resamples int) (lo, hi float64, ok bool) {
	if len(runs) < 2 || resamples < 1 {
		return 0, 0, false
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var ratios []float64
	pooled := make([][]time.Duration, 3)
	for range resamples {
		for i := range pooled {
			pooled[i] = pooled[i][:0]
		}
		for range runs {
			r := runs[rng.IntN(len(runs))]
			for i := range pooled {
				pooled[i] = append(pooled[i], r[i]...)
			}
		}
		var p50 [3]time.Duration
		for i, ds := range pooled {
			if len(ds) == 0 {
				return 0, 0, false
			}
			slices.Sort(ds)
			p50[i] = ds[(len(ds)-1)/2]
		}
		if ref := p50[1] - p50[0]; ref > 0 {
			ratios = append(ratios, float64(p50[2]-p50[0])/float64(ref))
		}
	}
	if len(ratios) == 0 {
		return 0, 0, false
	}
	slices.Sort(ratios)
	at := func(q float64) float64 { return ratios[int(q*float64(len(ratios)-1)+0.5)] }
	return at(0.025), at(0.975), true
}

// roundOrders are the orders in which a round asks the three paths, taken
// in turn. A server's work after an answer competes with the next request,
// so the order must not favour a path: over six rounds each path follows
// each other path three times. Rotating one order (0 1 2, 1 2 0, 2 0 1)
// put the copier after the server twice as often as after the proxy.
var roundOrders = [6][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}

// measureRun starts c's paths, warms them up and times c.Requests rounds
// of params on them: each path's latencies and CPU time, in c.Paths'
// order.
//
// In every other run the reference and the measured path trade places
// (the order they start in and their turns in each round): a copier
// measured against a second copier in the third place gave 0.81-0.95
// over 16 runs, every time below 1, with nothing in the two places that
// differs by design. Trading places every run cancels what the place
// itself costs.
func measureRun(ctx context.Context, c Config, params string, run int) ([][]time.Duration, []time.Duration, error) {
	place := [3]int{0, 1, 2} // place[k] is the path at place k
	if run%2 == 1 {
		place = [3]int{0, 2, 1}
	}
	paths := make([]*Editor, len(c.Paths)) // by place
	defer func() {
		for _, p := range paths {
			if p != nil {
				p.Stop()
			}
		}
	}()
	// Started in a different order each run.
	for _, k := range roundOrders[(run/2)%len(roundOrders)] {
		s := c.Paths[place[k]]
		p, err := Start(ctx, s.Name, c.Dir, s.Prog, s.Args...)
		if err != nil {
			return nil, nil, err
		}
		paths[k] = p
		if err := p.Open("file://"+c.Dir, c.URI, c.Text); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	// A new server loads its workspace in the background: ask nothing
	// until the machine is quiet; then warm up in rounds, as measured.
	settle(ctx, c.Settle)
	for round := range c.Warmup {
		for _, k := range roundOrders[round%len(roundOrders)] {
			if _, err := paths[k].Call("textDocument/definition", params); err != nil {
				return nil, nil, fmt.Errorf("%s: warming up: %w", paths[k].Name, err)
			}
		}
	}
	if res, err := paths[0].Call("textDocument/definition", params); err != nil || string(res) == "null" || string(res) == "[]" {
		return nil, nil, fmt.Errorf("%w (answer %s, %v)", ErrNoDefinition, res, err)
	}
	samples := make([][]time.Duration, len(paths)) // by path
	cpu := make([]time.Duration, len(paths))
	for k, p := range paths {
		cpu[place[k]] = -proccpu.Of(p.PID)
	}
	for round := range c.Requests {
		for _, k := range roundOrders[(round+run)%len(roundOrders)] {
			t0 := time.Now()
			if _, err := paths[k].Call("textDocument/definition", params); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", paths[k].Name, err)
			}
			samples[place[k]] = append(samples[place[k]], time.Since(t0))
		}
	}
	for k, p := range paths {
		cpu[place[k]] += proccpu.Of(p.PID)
	}
	for _, p := range paths {
		if err := p.Shutdown(); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	paths = nil
	return samples, cpu, nil
}

// summarizeRun computes the percentiles and ratios of one run (or of
// all runs' samples pooled); cpu is each path's process CPU time over it.
func summarizeRun(names []string, samples [][]time.Duration, cpu []time.Duration) RunStats {
	var r RunStats
	for i, name := range names {
		st := PathStats{Name: name, P50ms: PercentileMS(samples[i], 50), P99ms: PercentileMS(samples[i], 99)}
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
	// AddedP50Interval is the 95% interval of Pooled.AddedP50Ratio (see
	// AddedInterval); null with one run.
	AddedP50Interval *[2]float64 `json:"added_p50_interval_95"`
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

// settle waits until the machine's processors were less than a tenth busy
// over a quarter of a second, or until limit has passed; at once where
// /proc/stat cannot be read.
func settle(ctx context.Context, limit time.Duration) {
	deadline := time.Now().Add(limit)
	busy0, total0, ok := cpuTimes()
	for ok && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(250 * time.Millisecond):
		}
		busy, total, read := cpuTimes()
		if !read {
			return
		}
		if total > total0 && float64(busy-busy0) < 0.1*float64(total-total0) {
			return
		}
		busy0, total0 = busy, total
	}
}

// cpuTimes returns the machine's busy and total processor time so far, in
// clock ticks, from the first line of /proc/stat.
func cpuTimes() (busy, total uint64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, false
	}
	for i, s := range f[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total, true
}
