package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	bindings "github.com/scip-code/scip/bindings/go/scip"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scip"
)

// runBench dispatches `lspgraph bench SUBJECT`.
func runBench(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(e.stderr, "Usage: lspgraph bench scip [--root DIR] [--json] FILE\n       lspgraph bench index [--ctags PATH] [--workers N] [--json] DIR\n       lspgraph bench scale [--copies 1,2,4] [--source DIR] [--dump FILE] [--targets N] [--json] DIR\n       lspgraph bench mcp [--targets N] [--depth D] [--cli-targets N] [--cli-runs N] [--json] FILE\n       lspgraph bench calibrate --root DIR [--threshold T] [--targets N] [--seed S] [--json] DUMP\n       lspgraph bench proxy [--root DIR] [--file FILE] [--at LINE:COL] [--requests N] [--runs R] [--json] -- SERVER [ARGS...]\n       lspgraph bench search --git DIR [--commits N] [--skip K] [--json] [--out FILE]\n       lspgraph bench search-cost [--store DIR] [--runs N] [--json] TREE\n")
		if len(args) == 0 {
			return fmt.Errorf("%w: missing subject (scip, index, scale, mcp, calibrate, proxy, search, search-cost)", errUsage)
		}
		return nil
	}
	switch args[0] {
	case "scip":
		return runBenchSCIP(ctx, e, args[1:])
	case "index":
		return runBenchIndex(ctx, e, args[1:])
	case "scale":
		return runBenchScale(ctx, e, args[1:])
	case "mcp":
		return runBenchMCP(ctx, e, args[1:])
	case "calibrate":
		return runBenchCalibrate(ctx, e, args[1:])
	case "proxy":
		return runBenchProxy(ctx, e, args[1:])
	case "copier":
		return runBenchCopier(ctx, e, args[1:])
	case "search":
		return runBenchSearch(ctx, e, args[1:])
	case "search-cost":
		return runBenchSearchCost(ctx, e, args[1:])
	}
	return fmt.Errorf("%w: unknown bench subject %q (want scip, index, scale, mcp, calibrate, proxy, search or search-cost)", errUsage, args[0])
}

// benchPhase is one measured pass over a dump.
type benchPhase struct {
	Name        string  `json:"name"`
	Seconds     float64 `json:"seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"` // user + system time of the whole process (all goroutines)
	MBPerSec    float64 `json:"mb_per_sec"`
	MBPerCPUSec float64 `json:"mb_per_cpu_sec"`
	OccPerSec   float64 `json:"occurrences_per_sec"`
	Documents   int     `json:"documents"`
	Occurrences int     `json:"occurrences"`
	PeakRSSMB   float64 `json:"peak_rss_mb"` // VmHWM during the phase (reset before it when the kernel allows)
}

type benchResult struct {
	File   string       `json:"file"`
	Bytes  int64        `json:"bytes"`
	Phases []benchPhase `json:"phases"`
	// Ratio is the full import's throughput over decode-only's, by wall
	// clock and by CPU time (the latter does not depend on how busy the
	// machine is).
	Ratio       float64 `json:"import_over_decode"`
	CPURatio    float64 `json:"import_over_decode_cpu"`
	PeakResetOK bool    `json:"peak_rss_per_phase"`
}

func runBenchSCIP(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench scip", "bench scip [--root DIR] [--json] FILE")
	root := fs.String("root", "", "workspace root for document text (UTF-16 dumps); default none")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one dump file", errUsage)
	}
	file := fs.Arg(0)
	fi, err := os.Stat(file)
	if err != nil {
		return fmt.Errorf("opening the dump: %w", err)
	}
	res := benchResult{File: file, Bytes: fi.Size()}
	res.PeakResetOK = resetPeakRSS()

	// 1. Decode only: the bindings' ParseStreaming over a buffered reader,
	// every message unmarshalled, nothing else.
	p, err := benchPass(res.Bytes, "decode only (bindings ParseStreaming)", func() (int, int, error) {
		f, err := os.Open(file)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		docs, occs := 0, 0
		v := bindings.IndexVisitor{
			VisitMetadata: func(context.Context, *bindings.Metadata) error { return nil },
			VisitDocument: func(_ context.Context, d *bindings.Document) error {
				docs++
				occs += len(d.Occurrences)
				return nil
			},
			VisitExternalSymbol: func(context.Context, *bindings.SymbolInformation) error { return nil },
		}
		return docs, occs, v.ParseStreaming(ctx, bufio.NewReaderSize(f, 1<<20))
	})
	if err != nil {
		return err
	}
	res.Phases = append(res.Phases, p)

	// 2. Decode and convert, no store: what the importer itself costs.
	p, err = benchPass(res.Bytes, "decode + convert (no store)", func() (int, int, error) {
		f, err := os.Open(file)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		sum, err := scip.ConvertStream(ctx, f, scip.Options{Root: *root, Size: res.Bytes},
			func(context.Context, graph.DocumentFacts) error { return nil })
		return sum.Documents, sum.Occurrences, err
	})
	if err != nil {
		return err
	}
	res.Phases = append(res.Phases, p)

	// 3. Full import into a fresh store in a temporary directory.
	tmp, err := os.MkdirTemp("", "lspgraph-bench-")
	if err != nil {
		return fmt.Errorf("creating a temporary store: %w", err)
	}
	defer os.RemoveAll(tmp)
	p, err = benchPass(res.Bytes, "full import (new store)", func() (int, int, error) {
		store, err := graph.Open(filepath.Join(tmp, "store"), graph.Options{})
		if err != nil {
			return 0, 0, err
		}
		defer store.Close()
		f, err := os.Open(file)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		sum, err := scip.Import(ctx, store, f, scip.Options{Root: *root, Size: res.Bytes})
		return sum.Documents, sum.Occurrences, err
	})
	if err != nil {
		return err
	}
	res.Phases = append(res.Phases, p)
	res.Ratio = res.Phases[2].MBPerSec / res.Phases[0].MBPerSec
	res.CPURatio = res.Phases[2].MBPerCPUSec / res.Phases[0].MBPerCPUSec

	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "%s: %.1f MB\n", file, float64(res.Bytes)/1e6)
	for _, p := range res.Phases {
		fmt.Fprintf(e.stdout, "  %-40s %6.2fs %7.1f MB/s %9.0f occ/s | cpu %6.2fs %7.1f MB/cpu-s | %d docs, %d occurrences, peak RSS %.0f MB\n",
			p.Name, p.Seconds, p.MBPerSec, p.OccPerSec, p.CPUSeconds, p.MBPerCPUSec, p.Documents, p.Occurrences, p.PeakRSSMB)
	}
	fmt.Fprintf(e.stdout, "  import / decode-only throughput: %.2f× by wall clock, %.2f× by CPU time\n", res.Ratio, res.CPURatio)
	if !res.PeakResetOK {
		fmt.Fprintln(e.stdout, "  (peak RSS could not be reset between phases: each figure is the process peak so far)")
	}
	return nil
}

// benchPass runs one phase and measures it.
func benchPass(size int64, name string, run func() (docs, occs int, err error)) (benchPhase, error) {
	resetPeakRSS()
	runtime.GC()
	cpu0 := cpuSeconds()
	start := time.Now()
	docs, occs, err := run()
	secs := time.Since(start).Seconds()
	cpu := cpuSeconds() - cpu0
	if err != nil {
		return benchPhase{}, fmt.Errorf("%s: %w", name, err)
	}
	return benchPhase{
		Name: name, Seconds: secs, CPUSeconds: cpu,
		MBPerSec:    float64(size) / 1e6 / secs,
		MBPerCPUSec: float64(size) / 1e6 / max(cpu, 1e-9),
		OccPerSec:   float64(occs) / secs,
		Documents:   docs,
		Occurrences: occs,
		PeakRSSMB:   float64(peakRSSKB()) / 1024,
	}, nil
}

// cpuSeconds returns the user and system time this process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// resetPeakRSS resets the kernel's peak resident set size of this process
// (Linux: "5" into /proc/self/clear_refs); false when it cannot.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSSKB reads VmHWM from /proc/self/status; 0 when unavailable.
func peakRSSKB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}
