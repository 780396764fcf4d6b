package scip

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
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
	// CPUProfile, when set, is a file for a CPU profile of the first
	// run's full import (go tool pprof).
	CPUProfile string
	// Program, when set, is a command that runs one pass in a process of
	// its own: a program calling [ServeBenchPass] on its standard input
	// and output (lspgraph's is `lspgraph bench scip --pass`). Each pass
	// then starts as a command does, on a heap of its own: run in one
	// process, a pass inherits the heap the passes before it grew and
	// handed back (the import took 14k page faults there, 2.5k as
	// `lspgraph scip import`; decoding alone 4k there, 8-9k on its own).
	// Nil runs every pass in this process.
	Program []string
}

// The passes of a run, and the sstables alone.
const (
	passDecode  = "decode"
	passConvert = "convert"
	passImport  = "import"
	passFloor   = "floor"
)

// passRequest is one pass to run, as a process running one reads it.
type passRequest struct {
	Pass       string `json:"pass"`
	File       string `json:"file"`
	Size       int64  `json:"size"`
	Root       string `json:"root,omitempty"`
	Store      string `json:"store,omitempty"`       // import: the new store; floor: the imported one
	CPUProfile string `json:"cpu_profile,omitempty"` // import only
}

// passResult is what a pass measured, and of an import and the sstables
// alone what they made.
type passResult struct {
	Phase        BenchPhase `json:"phase"`
	Summary      Summary    `json:"summary"`     // import
	StoreBytes   uint64     `json:"store_bytes"` // import
	FloorRecords int        `json:"floor_records"`
	FloorBytes   int64      `json:"floor_record_bytes"`
	FloorTables  int        `json:"floor_tables"`
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
	// Processes: each pass ran in a process of its own (BenchOptions.Program).
	Processes bool `json:"processes"`
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

// Bench measures a dump three ways, one after the other: decoding alone
// with the SCIP bindings (the floor), decoding and converting without a
// store (the importer's own cost), and a full [Import] into a new store in
// a temporary directory; then the imported records' sstables written alone
// (the store's floor); opts.Runs times over; then the store's size per
// fact. Each pass runs in a process of its own when opts.Program is set.
func Bench(ctx context.Context, file string, opts BenchOptions) (BenchResult, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return BenchResult{}, fmt.Errorf("scip: opening the dump: %w", err)
	}
	res := BenchResult{File: file, Bytes: fi.Size(), Runs: max(opts.Runs, 1), Processes: opts.Program != nil}
	res.PeakResetOK = resetPeakRSS()
	tmp, err := os.MkdirTemp("", "lspgraph-bench-")
	if err != nil {
		return res, fmt.Errorf("scip: creating a temporary store: %w", err)
	}
	defer os.RemoveAll(tmp)
	run := runPass
	if opts.Program != nil {
		run = func(ctx context.Context, req passRequest) (passResult, error) {
			return runPassProcess(ctx, opts.Program, req)
		}
	}
	var passes [4][]BenchPhase
	var store string
	for i := range res.Runs {
		store = filepath.Join(tmp, fmt.Sprint("store-", i))
		var phases [3]BenchPhase
		for p, name := range []string{passDecode, passConvert, passImport} {
			req := passRequest{Pass: name, File: file, Size: res.Bytes, Root: opts.Root, Store: store}
			if name == passImport && i == 0 {
				req.CPUProfile = opts.CPUProfile
			}
			out, err := run(ctx, req)
			if err != nil {
				return res, err
			}
			phases[p] = out.Phase
			passes[p] = append(passes[p], out.Phase)
			if name == passImport {
				sum := out.Summary
				res.ImportSummary, res.StoreBytes = sum, out.StoreBytes
				res.Symbols, res.Edges = sum.Symbols, sum.Edges
				res.Facts = sum.Occurrences + sum.Edges + sum.Symbols
				if res.Facts > 0 {
					res.BytesPerFact = float64(res.StoreBytes) / float64(res.Facts)
				}
			}
		}
		res.RunRatios = append(res.RunRatios, phases[2].MBPerSec/phases[0].MBPerSec)
	}
	// The sstables alone of the last run's store, as many times.
	for range res.Runs {
		out, err := run(ctx, passRequest{Pass: passFloor, File: file, Size: res.Bytes, Store: store})
		if err != nil {
			return res, err
		}
		out.Phase.Documents, out.Phase.Occurrences = res.ImportSummary.Documents, res.ImportSummary.Occurrences
		out.Phase.OccPerSec = float64(out.Phase.Occurrences) / out.Phase.Seconds
		passes[3] = append(passes[3], out.Phase)
		res.FloorRecords, res.FloorBytes, res.FloorTables = out.FloorRecords, out.FloorBytes, out.FloorTables
	}
	for _, ps := range passes {
		res.Phases = append(res.Phases, medianBy(ps, func(p BenchPhase) float64 { return p.Seconds }))
	}
	res.Ratio = res.Phases[2].MBPerSec / res.Phases[0].MBPerSec
	cpu := func(p BenchPhase) float64 { return p.CPUSeconds }
	res.CPURatio = medianBy(passes[0], cpu).CPUSeconds / max(medianBy(passes[2], cpu).CPUSeconds, 1e-9)
	return res, nil
}

// ServeBenchPass runs the one pass of [Bench] that r holds, in this
// process, and writes what it measured to w: the other side of
// BenchOptions.Program.
func ServeBenchPass(ctx context.Context, r io.Reader, w io.Writer) error {
	var req passRequest
	if err := json.NewDecoder(r).Decode(&req); err != nil {
		return fmt.Errorf("scip: reading the pass to run: %w", err)
	}
	out, err := runPass(ctx, req)
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(out)
}

// runPassProcess runs req in a process of program's, which reads it on
// its standard input and writes the result to its standard output.
func runPassProcess(ctx context.Context, program []string, req passRequest) (passResult, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return passResult{}, err
	}
	cmd := exec.CommandContext(ctx, program[0], program[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return passResult{}, fmt.Errorf("scip: the %s pass (%s): %w: %s", req.Pass, strings.Join(program, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	var out passResult
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return passResult{}, fmt.Errorf("scip: the %s pass (%s) printed no result: %w", req.Pass, strings.Join(program, " "), err)
	}
	return out, nil
}

// runPass runs one pass in this process.
func runPass(ctx context.Context, req passRequest) (passResult, error) {
	var out passResult
	var err error
	switch req.Pass {
	case passDecode:
		// The bindings' ParseStreaming over a buffered reader, every
		// message unmarshalled, nothing else.
		out.Phase, err = benchPass(req.Size, "decode only (bindings ParseStreaming)", func() (int, int, error) {
			f, err := os.Open(req.File)
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
	case passConvert:
		out.Phase, err = benchPass(req.Size, "decode + convert (no store)", func() (int, int, error) {
			f, err := os.Open(req.File)
			if err != nil {
				return 0, 0, err
			}
			defer f.Close()
			sum, err := ConvertStream(ctx, f, Options{Root: req.Root, Size: req.Size},
				func(context.Context, graph.DocumentFacts) error { return nil })
			return sum.Documents, sum.Occurrences, err
		})
	case passImport:
		err = importPass(ctx, req, &out)
	case passFloor:
		err = floorPass(ctx, req, &out)
	default:
		err = fmt.Errorf("scip: no pass %q", req.Pass)
	}
	return out, err
}

// importPass imports the dump into a new store at req.Store.
func importPass(ctx context.Context, req passRequest, out *passResult) error {
	store, err := graph.Open(req.Store, graph.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	out.Phase, err = benchPass(req.Size, "full import (new store)", func() (int, int, error) {
		f, err := os.Open(req.File)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		if req.CPUProfile != "" {
			prof, err := os.Create(req.CPUProfile)
			if err != nil {
				return 0, 0, err
			}
			defer prof.Close()
			if err := pprof.StartCPUProfile(prof); err != nil {
				return 0, 0, err
			}
			defer pprof.StopCPUProfile()
		}
		out.Summary, err = Import(ctx, store, f, Options{Root: req.Root, Size: req.Size})
		return out.Summary.Documents, out.Summary.Occurrences, err
	})
	out.StoreBytes = store.DiskUsage()
	return err
}

// floorPass writes the records of the store at req.Store (an import's) to
// sstables once, as the import's last step writes them
// (graph.TableFloor), after reading them into memory.
func floorPass(ctx context.Context, req passRequest, out *passResult) error {
	store, err := graph.Open(req.Store, graph.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	floor, err := store.NewTableFloor(ctx)
	if err != nil {
		return err
	}
	out.FloorRecords, out.FloorBytes = floor.Records, floor.Bytes
	out.Phase, err = benchPass(req.Size, "sstables alone (the import's records)", func() (int, int, error) {
		var err error
		out.FloorTables, err = floor.Write()
		return 0, 0, err
	})
	return err
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
