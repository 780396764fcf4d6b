package scip

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
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
	// Runs is how many times the three passes run, one after the other
	// (at least once): one pass of a phase moves by a third from one run
	// to the next on a shared machine, so the result reports each phase's
	// median run.
	Runs int
	// AroundImport, when set, runs the first run's full import phase: it
	// must call run once (e.g. between starting and stopping a CPU
	// profile).
	AroundImport func(run func() error) error
}

// BenchPhase is one measured pass over a dump.
type BenchPhase struct {
	Name       string  `json:"name"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"` // user + system time of the whole process (all goroutines)
	SysSeconds float64 `json:"sys_seconds"` // of which system time
	// MinorFaults are the pages the process touched for the first time
	// (or again after handing them back) during the phase: each costs the
	// kernel a fault, several microseconds on a virtual machine.
	MinorFaults int64   `json:"minor_faults"`
	MBPerSec    float64 `json:"mb_per_sec"`
	MBPerCPUSec float64 `json:"mb_per_cpu_sec"`
	OccPerSec   float64 `json:"occurrences_per_sec"`
	Documents   int     `json:"documents"`
	Occurrences int     `json:"occurrences"`
	PeakRSSMB   float64 `json:"peak_rss_mb"` // VmHWM during the phase (reset before it when the kernel allows)
}

// BenchResult is what [Bench] measured.
type BenchResult struct {
	File  string `json:"file"`
	Bytes int64  `json:"bytes"`
	Runs  int    `json:"runs"`
	// Phases are decode only, decode + convert, full import and the
	// sstables alone, each the pass of its median run by wall clock. The
	// last writes the imported generation's records, read back into memory
	// in key order, to sstables as the import's last step writes them
	// (graph.TableFloor): what any import writing these records pays,
	// however it produces them.
	Phases []BenchPhase `json:"phases"`
	// Ratio is the full import's throughput over decode-only's, by wall
	// clock (of the median passes) and by CPU time (of the median CPU
	// times; it does not depend on how busy the machine is).
	Ratio    float64 `json:"import_over_decode"`
	CPURatio float64 `json:"import_over_decode_cpu"`
	// RunRatios is Ratio within each run, in order.
	RunRatios   []float64 `json:"import_over_decode_per_run"`
	PeakResetOK bool      `json:"peak_rss_per_phase"`
	// The imported store (the last run's): its size on disk after the
	// import, and the facts it holds (occurrences + edges + symbols of
	// the summary).
	StoreBytes    uint64  `json:"store_bytes"`
	Facts         int     `json:"facts"`
	BytesPerFact  float64 `json:"store_bytes_per_fact"`
	Symbols       int     `json:"symbols"`
	Edges         int     `json:"edges"`
	ImportSummary Summary `json:"import_summary"`
	// The records the sstables-alone phase wrote, their keys' and values'
	// bytes (uncompressed), and the tables they made.
	FloorRecords int   `json:"floor_records"`
	FloorBytes   int64 `json:"floor_record_bytes"`
	FloorTables  int   `json:"floor_tables"`
}

// Bench measures a dump three ways, in one process, one after the other:
// decoding alone with the SCIP bindings (the floor), decoding and
// converting without a store (the importer's own cost), and a full
// [Import] into a new store in a temporary directory; then the imported
// records' sstables written alone (the store's floor); opts.Runs times
// over; then the store's size per fact.
func Bench(ctx context.Context, file string, opts BenchOptions) (BenchResult, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return BenchResult{}, fmt.Errorf("scip: opening the dump: %w", err)
	}
	res := BenchResult{File: file, Bytes: fi.Size(), Runs: max(opts.Runs, 1)}
	res.PeakResetOK = resetPeakRSS()
	tmp, err := os.MkdirTemp("", "lspgraph-bench-")
	if err != nil {
		return res, fmt.Errorf("scip: creating a temporary store: %w", err)
	}
	defer os.RemoveAll(tmp)
	var passes [3][]BenchPhase
	for run := range res.Runs {
		around := opts.AroundImport
		if run > 0 {
			around = nil
		}
		phases, err := benchRun(ctx, file, res.Bytes, opts.Root, filepath.Join(tmp, fmt.Sprint("store-", run)), around, &res)
		if err != nil {
			return res, err
		}
		for i, p := range phases {
			passes[i] = append(passes[i], p)
		}
		res.RunRatios = append(res.RunRatios, phases[2].MBPerSec/phases[0].MBPerSec)
	}
	floor, err := benchFloor(ctx, filepath.Join(tmp, fmt.Sprint("store-", res.Runs-1)), &res)
	if err != nil {
		return res, err
	}
	for _, ps := range append(passes[:], floor) {
		res.Phases = append(res.Phases, medianBy(ps, func(p BenchPhase) float64 { return p.Seconds }))
	}
	res.Ratio = res.Phases[2].MBPerSec / res.Phases[0].MBPerSec
	cpu := func(p BenchPhase) float64 { return p.CPUSeconds }
	res.CPURatio = medianBy(passes[0], cpu).CPUSeconds / max(medianBy(passes[2], cpu).CPUSeconds, 1e-9)
	return res, nil
}

// benchRun runs the three passes once, the import into a new store at
// dir, and records that store's size and summary in res.
func benchRun(ctx context.Context, file string, size int64, root, dir string, around func(func() error) error, res *BenchResult) ([]BenchPhase, error) {
	var phases []BenchPhase
	// 1. Decode only: the bindings' ParseStreaming over a buffered reader,
	// every message unmarshalled, nothing else.
	p, err := benchPass(size, "decode only (bindings ParseStreaming)", func() (int, int, error) {
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
		return nil, err
	}
	phases = append(phases, p)

	// 2. Decode and convert, no store.
	p, err = benchPass(size, "decode + convert (no store)", func() (int, int, error) {
		f, err := os.Open(file)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		sum, err := ConvertStream(ctx, f, Options{Root: root, Size: size},
			func(context.Context, graph.DocumentFacts) error { return nil })
		return sum.Documents, sum.Occurrences, err
	})
	if err != nil {
		return nil, err
	}
	phases = append(phases, p)

	// 3. Full import into a new store.
	store, err := graph.Open(dir, graph.Options{})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	var sum Summary
	p, err = benchPass(size, "full import (new store)", func() (int, int, error) {
		f, err := os.Open(file)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		run := func() error {
			var err error
			sum, err = Import(ctx, store, f, Options{Root: root, Size: size})
			return err
		}
		if around != nil {
			err = around(run)
		} else {
			err = run()
		}
		return sum.Documents, sum.Occurrences, err
	})
	if err != nil {
		return nil, err
	}
	phases = append(phases, p)
	res.ImportSummary = sum
	res.StoreBytes = store.DiskUsage()
	res.Symbols, res.Edges = sum.Symbols, sum.Edges
	res.Facts = sum.Occurrences + sum.Edges + sum.Symbols
	if res.Facts > 0 {
		res.BytesPerFact = float64(res.StoreBytes) / float64(res.Facts)
	}
	return phases, nil
}

// benchFloor measures the sstables alone of the store at dir (the last
// run's import), res.Runs times, after every run: the records it holds
// in memory would otherwise stand in the other phases' peaks.
func benchFloor(ctx context.Context, dir string, res *BenchResult) ([]BenchPhase, error) {
	store, err := graph.Open(dir, graph.Options{})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	floor, err := store.NewTableFloor(ctx)
	if err != nil {
		return nil, err
	}
	res.FloorRecords, res.FloorBytes = floor.Records, floor.Bytes
	sum := res.ImportSummary
	var passes []BenchPhase
	for range res.Runs {
		p, err := benchPass(res.Bytes, "sstables alone (the import's records)", func() (int, int, error) {
			var err error
			res.FloorTables, err = floor.Write()
			return sum.Documents, sum.Occurrences, err
		})
		if err != nil {
			return nil, err
		}
		passes = append(passes, p)
	}
	return passes, nil
}

// medianBy returns the pass whose by is the median of ps (of an even
// number, the lower of the middle two).
func medianBy(ps []BenchPhase, by func(BenchPhase) float64) BenchPhase {
	sorted := slices.Clone(ps)
	slices.SortFunc(sorted, func(a, b BenchPhase) int { return cmp.Compare(by(a), by(b)) })
	return sorted[(len(sorted)-1)/2]
}

// benchPass runs one phase and measures it.
func benchPass(size int64, name string, run func() (docs, occs int, err error)) (BenchPhase, error) {
	// Memory an earlier pass left to the collector goes back to the
	// system first, or it would stand as this pass's peak.
	debug.FreeOSMemory()
	resetPeakRSS()
	before := rusage()
	start := time.Now()
	docs, occs, err := run()
	secs := time.Since(start).Seconds()
	after := rusage()
	if err != nil {
		return BenchPhase{}, fmt.Errorf("%s: %w", name, err)
	}
	cpu := after.cpu - before.cpu
	return BenchPhase{
		Name: name, Seconds: secs, CPUSeconds: cpu,
		SysSeconds:  after.sys - before.sys,
		MinorFaults: after.minflt - before.minflt,
		MBPerSec:    float64(size) / 1e6 / secs,
		MBPerCPUSec: float64(size) / 1e6 / max(cpu, 1e-9),
		OccPerSec:   float64(occs) / secs,
		Documents:   docs,
		Occurrences: occs,
		PeakRSSMB:   float64(peakRSSKB()) / 1024,
	}, nil
}

// usage is what getrusage says of this process: its user and system
// time, the system time alone, and its minor page faults.
type usage struct {
	cpu, sys float64
	minflt   int64
}

// rusage returns this process's usage so far (zero when unknown).
func rusage() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}
	}
	return usage{
		cpu:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds(),
		sys:    time.Duration(ru.Stime.Nano()).Seconds(),
		minflt: int64(ru.Minflt),
	}
}

// cpuSeconds returns the user and system time this process has used.
func cpuSeconds() float64 { return rusage().cpu }

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
