package scip

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
)

// BenchOptions configure [Bench].
type BenchOptions struct {
	// Root is the workspace root for document text (UTF-16 dumps).
	Root string
	// AroundImport, when set, runs the full import phase: it must call
	// run once (e.g. between starting and stopping a CPU profile).
	AroundImport func(run func() error) error
}

// BenchPhase is one measured pass over a dump.
type BenchPhase struct {
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

// BenchResult is what [Bench] measured.
type BenchResult struct {
	File   string       `json:"file"`
	Bytes  int64        `json:"bytes"`
	Phases []BenchPhase `json:"phases"` // decode only, decode + convert, full import
	// Ratio is the full import's throughput over decode-only's, by wall
	// clock and by CPU time (the latter does not depend on how busy the
	// machine is).
	Ratio       float64 `json:"import_over_decode"`
	CPURatio    float64 `json:"import_over_decode_cpu"`
	PeakResetOK bool    `json:"peak_rss_per_phase"`
	// The imported store: its size on disk after the import, and the
	// facts it holds (occurrences + edges + symbols of the summary).
	StoreBytes    uint64  `json:"store_bytes"`
	Facts         int     `json:"facts"`
	BytesPerFact  float64 `json:"store_bytes_per_fact"`
	Symbols       int     `json:"symbols"`
	Edges         int     `json:"edges"`
	ImportSummary Summary `json:"import_summary"`
}

// Bench measures a dump three ways, in one process, one after the other:
// decoding alone with the SCIP bindings (the floor), decoding and
// converting without a store (the importer's own cost), and a full
// [Import] into a new store in a temporary directory; then the store's
// size per fact.
func Bench(ctx context.Context, file string, opts BenchOptions) (BenchResult, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return BenchResult{}, fmt.Errorf("scip: opening the dump: %w", err)
	}
	res := BenchResult{File: file, Bytes: fi.Size()}
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
		return res, err
	}
	res.Phases = append(res.Phases, p)

	// 2. Decode and convert, no store.
	p, err = benchPass(res.Bytes, "decode + convert (no store)", func() (int, int, error) {
		f, err := os.Open(file)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		sum, err := ConvertStream(ctx, f, Options{Root: opts.Root, Size: res.Bytes},
			func(context.Context, graph.DocumentFacts) error { return nil })
		return sum.Documents, sum.Occurrences, err
	})
	if err != nil {
		return res, err
	}
	res.Phases = append(res.Phases, p)

	// 3. Full import into a new store.
	tmp, err := os.MkdirTemp("", "lspgraph-bench-")
	if err != nil {
		return res, fmt.Errorf("scip: creating a temporary store: %w", err)
	}
	defer os.RemoveAll(tmp)
	store, err := graph.Open(filepath.Join(tmp, "store"), graph.Options{})
	if err != nil {
		return res, err
	}
	defer store.Close()
	var sum Summary
	p, err = benchPass(res.Bytes, "full import (new store)", func() (int, int, error) {
		f, err := os.Open(file)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		run := func() error {
			var err error
			sum, err = Import(ctx, store, f, Options{Root: opts.Root, Size: res.Bytes})
			return err
		}
		if opts.AroundImport != nil {
			err = opts.AroundImport(run)
		} else {
			err = run()
		}
		return sum.Documents, sum.Occurrences, err
	})
	if err != nil {
		return res, err
	}
	res.Phases = append(res.Phases, p)
	res.Ratio = res.Phases[2].MBPerSec / res.Phases[0].MBPerSec
	res.CPURatio = res.Phases[2].MBPerCPUSec / res.Phases[0].MBPerCPUSec
	res.ImportSummary = sum
	res.StoreBytes = store.DiskUsage()
	res.Symbols, res.Edges = sum.Symbols, sum.Edges
	res.Facts = sum.Occurrences + sum.Edges + sum.Symbols
	if res.Facts > 0 {
		res.BytesPerFact = float64(res.StoreBytes) / float64(res.Facts)
	}
	return res, nil
}

// benchPass runs one phase and measures it.
func benchPass(size int64, name string, run func() (docs, occs int, err error)) (BenchPhase, error) {
	resetPeakRSS()
	runtime.GC()
	cpu0 := cpuSeconds()
	start := time.Now()
	docs, occs, err := run()
	secs := time.Since(start).Seconds()
	cpu := cpuSeconds() - cpu0
	if err != nil {
		return BenchPhase{}, fmt.Errorf("%s: %w", name, err)
	}
	return BenchPhase{
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
