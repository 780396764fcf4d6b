package indexbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/scope"
)

// ScaleOptions configure Scale.
type ScaleOptions struct {
	// Lspgraph is the lspgraph binary the index and import run as.
	Lspgraph string
	// Source is the Go tree copied (GOROOT/src).
	Source string
	// Dump, when set, is a SCIP dump imported at each size, copied as
	// many times as the tree (CopyDump).
	Dump string
	// Dir is the working directory: the copies, the stores and the dumps
	// go there. It is created and must not hold a previous run.
	Dir string
	// Copies are the sizes measured, increasing (e.g. 1, 2, 4).
	Copies []int
	// Targets is the number of functions and methods impact and context
	// are timed on at each size (default 100).
	Targets int
	// Workers is passed to the index (0: its default).
	Workers int
	// Rounds is how many times each size's index and import are timed
	// (default 1). The first round measures everything as the tree grows;
	// each further round times the index and the import of every size
	// again, the sizes in ascending order in odd rounds and descending in
	// even ones, so that neither size always runs first or on a tree just
	// written. The ratios are then of the medians.
	Rounds int
	// Progress, when set, is told what starts.
	Progress func(string)
}

// ScaleSize is what one size measured.
type ScaleSize struct {
	Copies int       `json:"copies"`
	Tree   CopyStats `json:"tree"`
	Index  Run       `json:"index"`
	// IndexSummary is the index's own summary (files, symbols, edges).
	IndexSummary json.RawMessage `json:"index_summary"`
	IndexStoreMB float64         `json:"index_store_mb"`
	// Reindex is the index run again into the same store after Edited
	// Go files (1%) changed, with the fact cache the first run filled.
	Reindex Run `json:"reindex"`
	Edited  int `json:"edited_files"`
	// ReindexRounds are every round's re-index (the first is Reindex),
	// each after a full index of that round and 1% of the files changed
	// anew; ReindexRatios their wall times over that round's full
	// index's, and ReindexRatio the median of those (one re-index of
	// half a second is too short a sample: at 2× one read 4.8% and the
	// next 5.1%).
	ReindexRounds []Run     `json:"reindex_rounds"`
	ReindexRatios []float64 `json:"reindex_ratio_per_round"`
	ReindexRatio  float64   `json:"reindex_ratio"`
	// ReindexSummary is the second run's summary (files read from the cache).
	ReindexSummary json.RawMessage `json:"reindex_summary"`
	// Import is the import of the dump copied Copies times.
	Import        *Run       `json:"import,omitempty"`
	ImportDump    *DumpStats `json:"import_dump,omitempty"`
	ImportStoreMB float64    `json:"import_store_mb,omitempty"`
	// Impact and Context are timed in this process on the index's store.
	Impact  Latency `json:"impact"`
	Context Latency `json:"context"`
	// ImportImpact is impact timed on the import's store.
	ImportImpact *Latency `json:"import_impact,omitempty"`
	// CommandLine is questions asked of the index's store by new
	// processes; CommandLineSession the same questions asked the same
	// way while `lspgraph serve` keeps the store's session (after one
	// untimed round of them).
	CommandLine        CommandLine `json:"command_line"`
	CommandLineSession CommandLine `json:"command_line_session"`
	// SessionStart is the first questions asked of a session just
	// started.
	SessionStart SessionStart `json:"session_start"`
	// IndexRounds and ImportRounds are every round's full index and
	// import (the first is Index and Import); IndexMedian and
	// ImportMedian their medians, by wall and by CPU time separately.
	IndexRounds  []Run   `json:"index_rounds"`
	IndexMedian  Median  `json:"index_median"`
	ImportRounds []Run   `json:"import_rounds,omitempty"`
	ImportMedian *Median `json:"import_median,omitempty"`
}

// CommandLine is questions asked by a new lspgraph process each, as a
// terminal or an agent without a session asks them, on a few functions
// and methods (Targets): wall time, the process's start, the store's
// opening and the work tree's discovery included. Status is the floor:
// a process that opens the store and reads its manifests.
type CommandLine struct {
	Targets int     `json:"targets"`
	Status  Latency `json:"status"`
	Impact  Latency `json:"impact"`
	Context Latency `json:"context"`
	// Search asks for the target's name.
	Search Latency `json:"search"`
}

// SessionStart times the first two context questions a command line asks
// of a `lspgraph serve` started that moment (an agent's first calls to the
// MCP server it has just started are asked of such a session), each about
// another target: the first from the start of serve (it waits for the
// session to serve), the second from its own start.
type SessionStart struct {
	FirstContextMs  float64 `json:"first_context_ms"`
	SecondContextMs float64 `json:"second_context_ms"`
}

// commandLineTargets is how many targets CommandLine is timed on.
const commandLineTargets = 7

// Median is the median wall and CPU time of a size's rounds.
type Median struct {
	Seconds    float64 `json:"wall_seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	// UserSeconds is the median of the CPU time outside the kernel: what
	// the program computes, without the page faults and page-cache copies
	// a virtual machine charges a run by how many pages new to it the run
	// touches (see Run.SysSeconds).
	UserSeconds float64 `json:"user_seconds"`
}

// Latency is the distribution of one query's time over the targets.
type Latency struct {
	Targets int     `json:"targets"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
	Maxms   float64 `json:"max_ms"`
}

// ScaleResult is the whole benchmark. Each ratio is the figure at the
// largest size over the smallest's (their medians over the rounds), next
// to the ratio of their sizes: at most that ratio is at most linear
// growth. The round ratios are the same figure within each round, whose
// spread shows how far one round can be trusted, and their median (with
// the interval that holds the median ratio at 95%) is the growth with the
// machine's drift taken out: a round times both sizes within a minute,
// while the medians over rounds compare runs up to the whole benchmark
// apart.
type ScaleResult struct {
	Source            string      `json:"source"`
	Dump              string      `json:"dump,omitempty"`
	Rounds            int         `json:"rounds"`
	Sizes             []ScaleSize `json:"sizes"`
	SizeRatio         float64     `json:"size_ratio"`
	IndexWallRatio    float64     `json:"index_wall_ratio"`
	IndexCPURatio     float64     `json:"index_cpu_ratio"`
	IndexUserRatio    float64     `json:"index_user_cpu_ratio"`
	IndexRoundRatios  []float64   `json:"index_wall_ratio_per_round"`
	IndexRoundMedian  *RoundRatio `json:"index_wall_ratio_rounds,omitempty"`
	ImportWallRatio   float64     `json:"import_wall_ratio,omitempty"`
	ImportCPURatio    float64     `json:"import_cpu_ratio,omitempty"`
	ImportUserRatio   float64     `json:"import_user_cpu_ratio,omitempty"`
	ImportRoundRatios []float64   `json:"import_wall_ratio_per_round,omitempty"`
	ImportRoundMedian *RoundRatio `json:"import_wall_ratio_rounds,omitempty"`
	MaxIndexRSSMB     float64     `json:"max_index_peak_rss_mb"`
	MaxReindexRatio   float64     `json:"max_reindex_ratio"`
	// The command line's context and search at the largest size over the
	// smallest, by median.
	ContextCommandRatio float64 `json:"context_command_ratio"`
	SearchCommandRatio  float64 `json:"search_command_ratio"`
	// The same through a session `lspgraph serve` keeps.
	ContextSessionRatio float64 `json:"context_session_ratio"`
	SearchSessionRatio  float64 `json:"search_session_ratio"`
}

// Scale builds the synthetic monorepo at each size in turn (adding copies
// to the tree of the size before) and measures it: `lspgraph index` into a
// new store as a child process (wall, CPU, peak RSS), the import of the
// dump copied as many times (when there is one), and impact (depth 3,
// default bound) and a context pack (8,000 tokens) for a sample of
// functions and methods of the index, in this process.
func Scale(ctx context.Context, o ScaleOptions) (ScaleResult, error) {
	res := ScaleResult{Source: o.Source, Dump: o.Dump}
	if len(o.Copies) == 0 || !slices.IsSorted(o.Copies) || o.Copies[0] < 1 {
		return res, fmt.Errorf("scale: sizes must be increasing copy counts from 1 up, got %v", o.Copies)
	}
	if o.Targets <= 0 {
		o.Targets = 100
	}
	o.Rounds = max(o.Rounds, 1)
	res.Rounds = o.Rounds
	say := func(format string, args ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(format, args...))
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return res, fmt.Errorf("scale: %w", err)
	}
	tree := filepath.Join(o.Dir, "tree")
	if _, err := os.Stat(tree); err == nil {
		return res, fmt.Errorf("scale: %s holds a previous run; remove it or pick another directory", o.Dir)
	}
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return res, fmt.Errorf("scale: %w", err)
	}
	defer os.Remove(filepath.Join(o.Dir, "parked")) // empty by then
	if o.Dump != "" {
		defer func() {
			for _, n := range o.Copies {
				os.Remove(o.dumpPath(n))
			}
		}()
	}
	var total CopyStats
	have := 0
	for _, n := range o.Copies {
		for have < n {
			have++
			say("copying %s as copy %d", o.Source, have)
			st, err := CopyTree(o.Source, filepath.Join(tree, "copy"+strconv.Itoa(have)), have)
			if err != nil {
				return res, err
			}
			total.Files += st.Files
			total.GoFiles += st.GoFiles
			total.GoLines += st.GoLines
			total.Bytes += st.Bytes
			total.Rewritten += st.Rewritten
		}
		size, err := o.measure(ctx, n, tree, say)
		if err != nil {
			return res, err
		}
		size.Tree = total
		res.Sizes = append(res.Sizes, size)
	}
	for round := 2; round <= o.Rounds; round++ {
		for j := range res.Sizes {
			i := j
			if round%2 == 0 {
				i = len(res.Sizes) - 1 - j
			}
			if err := o.again(ctx, &res.Sizes[i], tree, round, say); err != nil {
				return res, err
			}
		}
	}
	for i := range res.Sizes {
		s := &res.Sizes[i]
		s.IndexMedian = median(s.IndexRounds)
		s.ReindexRatio = medianOf(s.ReindexRatios)
		if len(s.ImportRounds) > 0 {
			m := median(s.ImportRounds)
			s.ImportMedian = &m
		}
	}
	first, last := res.Sizes[0], res.Sizes[len(res.Sizes)-1]
	res.SizeRatio = float64(last.Copies) / float64(first.Copies)
	res.IndexWallRatio = last.IndexMedian.Seconds / first.IndexMedian.Seconds
	res.IndexCPURatio = last.IndexMedian.CPUSeconds / first.IndexMedian.CPUSeconds
	res.IndexUserRatio = last.IndexMedian.UserSeconds / max(first.IndexMedian.UserSeconds, 1e-9)
	for r := range first.IndexRounds {
		res.IndexRoundRatios = append(res.IndexRoundRatios, last.IndexRounds[r].Seconds/first.IndexRounds[r].Seconds)
	}
	res.IndexRoundMedian = roundRatio(res.IndexRoundRatios)
	if first.ImportMedian != nil {
		res.ImportWallRatio = last.ImportMedian.Seconds / first.ImportMedian.Seconds
		res.ImportCPURatio = last.ImportMedian.CPUSeconds / first.ImportMedian.CPUSeconds
		res.ImportUserRatio = last.ImportMedian.UserSeconds / max(first.ImportMedian.UserSeconds, 1e-9)
		for r := range first.ImportRounds {
			res.ImportRoundRatios = append(res.ImportRoundRatios, last.ImportRounds[r].Seconds/first.ImportRounds[r].Seconds)
		}
		res.ImportRoundMedian = roundRatio(res.ImportRoundRatios)
	}
	for _, s := range res.Sizes {
		for _, r := range slices.Concat(s.IndexRounds, s.ReindexRounds) { // the first of each is Index, Reindex
			res.MaxIndexRSSMB = max(res.MaxIndexRSSMB, r.PeakRSSMB)
		}
		res.MaxReindexRatio = max(res.MaxReindexRatio, s.ReindexRatio)
	}
	res.ContextCommandRatio = last.CommandLine.Context.P50ms / max(first.CommandLine.Context.P50ms, 1e-9)
	res.SearchCommandRatio = last.CommandLine.Search.P50ms / max(first.CommandLine.Search.P50ms, 1e-9)
	res.ContextSessionRatio = last.CommandLineSession.Context.P50ms / max(first.CommandLineSession.Context.P50ms, 1e-9)
	res.SearchSessionRatio = last.CommandLineSession.Search.P50ms / max(first.CommandLineSession.Search.P50ms, 1e-9)
	return res, nil
}

// measure measures one size of the tree.
func (o ScaleOptions) measure(ctx context.Context, n int, tree string, say func(string, ...any)) (ScaleSize, error) {
	size := ScaleSize{Copies: n}
	store := filepath.Join(o.Dir, "index-"+strconv.Itoa(n))
	cache := filepath.Join(o.Dir, "facts-"+strconv.Itoa(n))
	defer os.RemoveAll(cache)
	args := o.indexArgs(store, cache, tree)
	say("indexing %d copies", n)
	settle()
	run, out, _, err := Measure(ctx, "lspgraph index", "", o.Lspgraph, args...)
	if err != nil {
		return size, err
	}
	files, err := summaryFiles(out)
	if err != nil {
		return size, err
	}
	run.Files = files
	run.FilesPerS = float64(files) / max(run.Seconds, 1e-9)
	size.Index, size.IndexSummary = run, json.RawMessage(strings.TrimSpace(string(out)))
	size.IndexRounds = []Run{run}
	if size.IndexStoreMB, err = dirMB(store); err != nil {
		return size, err
	}
	if size.Edited, err = EditFiles(tree, 100); err != nil {
		return size, err
	}
	say("indexing %d copies again after changing %d files", n, size.Edited)
	settle()
	rerun, out, _, err := Measure(ctx, "lspgraph index (1% changed)", "", o.Lspgraph, args...)
	if err != nil {
		return size, err
	}
	rerun.Files = files
	rerun.FilesPerS = float64(files) / max(rerun.Seconds, 1e-9)
	size.Reindex, size.ReindexSummary = rerun, json.RawMessage(strings.TrimSpace(string(out)))
	size.ReindexRounds = []Run{rerun}
	size.ReindexRatios = []float64{rerun.Seconds / run.Seconds}
	say("timing impact and context on %d copies", n)
	if size.Impact, size.Context, err = timeQueries(ctx, store, tree, o.Targets, true); err != nil {
		return size, err
	}
	say("timing the command line on %d copies, without and with a session", n)
	if size.CommandLine, size.CommandLineSession, size.SessionStart, err = o.timeCommandLine(ctx, store, tree); err != nil {
		return size, err
	}
	if err := os.RemoveAll(store); err != nil {
		return size, fmt.Errorf("scale: %w", err)
	}
	if o.Dump == "" {
		return size, nil
	}
	dump := o.dumpPath(n)
	say("writing %s copied %d times", o.Dump, n)
	ds, err := CopyDump(o.Dump, dump, n)
	if err != nil {
		return size, err
	}
	size.ImportDump = &ds
	istore, iroot := filepath.Join(o.Dir, "import-"+strconv.Itoa(n)), filepath.Join(o.Dir, "import-root")
	if err := os.MkdirAll(iroot, 0o755); err != nil {
		return size, fmt.Errorf("scale: %w", err)
	}
	say("importing it")
	irun, err := o.importDump(ctx, dump, istore, iroot)
	if err != nil {
		return size, err
	}
	size.Import = &irun
	size.ImportRounds = []Run{irun}
	if size.ImportStoreMB, err = dirMB(istore); err != nil {
		return size, err
	}
	imp, _, err := timeQueries(ctx, istore, iroot, o.Targets, false)
	if err != nil {
		return size, err
	}
	size.ImportImpact = &imp
	return size, os.RemoveAll(istore)
}

// indexArgs is the command line of a timed index of tree into store, with
// the fact cache at cache.
func (o ScaleOptions) indexArgs(store, cache, tree string) []string {
	args := []string{"index", "--json", "--store", store, "--fact-cache", cache, "--root", tree}
	if o.Workers > 0 {
		args = append(args, "--workers", strconv.Itoa(o.Workers))
	}
	return args
}

// summaryFiles reads the number of files from an index's JSON summary.
func summaryFiles(out []byte) (int, error) {
	var sum struct {
		Files int `json:"files"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		return 0, fmt.Errorf("scale: reading the index summary: %w", err)
	}
	return sum.Files, nil
}

// dumpPath is where the dump copied n times is written; it stays there
// for the later rounds.
func (o ScaleOptions) dumpPath(n int) string {
	return filepath.Join(o.Dir, "dump-"+strconv.Itoa(n)+".scip")
}

// importDump times the import of dump into a new store at istore, which
// it leaves for the caller.
func (o ScaleOptions) importDump(ctx context.Context, dump, istore, iroot string) (Run, error) {
	settle()
	run, _, _, err := Measure(ctx, "lspgraph scip import", "", o.Lspgraph,
		"scip", "import", "--json", "--store", istore, "--root", iroot, "--commit", "scale", dump)
	return run, err
}

// again times a size's full index (a new store and fact cache) and its
// import once more, with the copies beyond the size moved out of the tree
// meanwhile.
func (o ScaleOptions) again(ctx context.Context, size *ScaleSize, tree string, round int, say func(string, ...any)) (err error) {
	n := size.Copies
	parked := filepath.Join(o.Dir, "parked")
	if err := os.MkdirAll(parked, 0o755); err != nil {
		return fmt.Errorf("scale: %w", err)
	}
	var moved []string
	defer func() {
		for _, name := range moved {
			if rerr := os.Rename(filepath.Join(parked, name), filepath.Join(tree, name)); rerr != nil {
				err = errors.Join(err, fmt.Errorf("scale: putting %s back: %w", name, rerr))
			}
		}
	}()
	for k := n + 1; ; k++ {
		name := "copy" + strconv.Itoa(k)
		if _, err := os.Stat(filepath.Join(tree, name)); err != nil {
			break
		}
		if err := os.Rename(filepath.Join(tree, name), filepath.Join(parked, name)); err != nil {
			return fmt.Errorf("scale: setting %s aside: %w", name, err)
		}
		moved = append(moved, name)
	}
	store := filepath.Join(o.Dir, "index-"+strconv.Itoa(n))
	cache := filepath.Join(o.Dir, "facts-"+strconv.Itoa(n))
	defer os.RemoveAll(store)
	defer os.RemoveAll(cache)
	args := o.indexArgs(store, cache, tree)
	say("round %d: indexing %d copies", round, n)
	settle()
	run, out, _, err := Measure(ctx, "lspgraph index", "", o.Lspgraph, args...)
	if err != nil {
		return err
	}
	if run.Files, err = summaryFiles(out); err != nil {
		return err
	}
	run.FilesPerS = float64(run.Files) / max(run.Seconds, 1e-9)
	size.IndexRounds = append(size.IndexRounds, run)
	edited, err := EditFiles(tree, 100)
	if err != nil {
		return err
	}
	say("round %d: indexing %d copies again after changing %d files", round, n, edited)
	settle()
	rerun, _, _, err := Measure(ctx, "lspgraph index (1% changed)", "", o.Lspgraph, args...)
	if err != nil {
		return err
	}
	rerun.Files = run.Files
	rerun.FilesPerS = float64(rerun.Files) / max(rerun.Seconds, 1e-9)
	size.ReindexRounds = append(size.ReindexRounds, rerun)
	size.ReindexRatios = append(size.ReindexRatios, rerun.Seconds/run.Seconds)
	if o.Dump == "" {
		return nil
	}
	say("round %d: importing the dump copied %d times", round, n)
	istore := filepath.Join(o.Dir, "import-"+strconv.Itoa(n))
	defer os.RemoveAll(istore)
	irun, err := o.importDump(ctx, o.dumpPath(n), istore, filepath.Join(o.Dir, "import-root"))
	if err != nil {
		return err
	}
	size.ImportRounds = append(size.ImportRounds, irun)
	return nil
}

// median returns the median wall and CPU time of runs (the mean of the
// middle two of an even number).
func median(runs []Run) Median {
	if len(runs) == 0 {
		return Median{}
	}
	mid := func(f func(Run) float64) float64 {
		x := make([]float64, len(runs))
		for i, r := range runs {
			x[i] = f(r)
		}
		return medianOf(x)
	}
	return Median{
		Seconds:     mid(func(r Run) float64 { return r.Seconds }),
		CPUSeconds:  mid(func(r Run) float64 { return r.CPUSeconds }),
		UserSeconds: mid(func(r Run) float64 { return r.CPUSeconds - r.SysSeconds }),
	}
}

// medianOf returns the median of x (the mean of the middle two of an even
// number; 0 for none).
func medianOf(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	x = slices.Clone(x)
	slices.Sort(x)
	if len(x)%2 == 1 {
		return x[len(x)/2]
	}
	return (x[len(x)/2-1] + x[len(x)/2]) / 2
}

// RoundRatio is the median of the rounds' ratios and the interval that
// holds the median of the ratios' distribution with probability
// Confidence, whatever that distribution: Low and High are the k-th
// smallest and k-th largest ratio, for the largest k that keeps
// Confidence at least 95%. Five rounds cannot: their interval is the
// smallest and largest ratio, at 93.75%.
type RoundRatio struct {
	Median     float64 `json:"median"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
}

// roundRatio returns the RoundRatio of x, or nil for fewer than two
// ratios.
func roundRatio(x []float64) *RoundRatio {
	if len(x) < 2 {
		return nil
	}
	sorted := slices.Sorted(slices.Values(x))
	k, conf := medianOrder(len(x), 0.95)
	return &RoundRatio{Median: medianOf(x), Low: sorted[k-1], High: sorted[len(x)-k], Confidence: conf}
}

// medianOrder returns the largest k (at least 1) for which the k-th
// smallest and k-th largest of n draws hold the median between them with
// probability at least want, and that probability: each draw falls below
// the median with probability one half, so the interval misses it when
// fewer than k fall on one side, 2·P(Binomial(n, ½) < k).
func medianOrder(n int, want float64) (k int, confidence float64) {
	term := math.Pow(0.5, float64(n)) // P(Binomial(n, ½) = j-1)
	tail := term                      // P(Binomial(n, ½) <= j-1)
	k, confidence = 1, 1-2*tail
	for j := 2; 2*j <= n; j++ {
		term *= float64(n-j+2) / float64(j-1)
		tail += term
		c := 1 - 2*tail
		if c < want {
			break
		}
		k, confidence = j, c
	}
	return k, confidence
}

// EditFiles changes one Go file in every `every` under tree (in the order
// of a walk) by appending a comment line, and returns how many it changed.
func EditFiles(tree string, every int) (int, error) {
	seen, edited := 0, 0
	err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "/testdata/") {
			return err
		}
		seen++
		if seen%every != 0 {
			return nil
		}
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, werr := f.WriteString("\n// changed by the scale benchmark\n")
		if err := errors.Join(werr, f.Close()); err != nil {
			return err
		}
		edited++
		return nil
	})
	if err != nil {
		return edited, fmt.Errorf("scale: changing files: %w", err)
	}
	return edited, nil
}

// timeQueries times impact (and, when withContext, a context pack) for
// a sample of the functions and methods of the store at dir.
func timeQueries(ctx context.Context, dir, root string, n int, withContext bool) (Latency, Latency, error) {
	var imp, cpack Latency
	st, err := graph.Open(dir, graph.Options{ReadOnly: true})
	if err != nil {
		return imp, cpack, fmt.Errorf("scale: opening %s: %w", dir, err)
	}
	defer st.Close()
	r, err := st.Reader()
	if err != nil {
		return imp, cpack, fmt.Errorf("scale: reading %s: %w", dir, err)
	}
	defer r.Close()
	targets, err := SampleTargets(ctx, r, n, "")
	if err != nil {
		return imp, cpack, err
	}
	o := impact.DefaultOptions()
	o.Freshness = &freshness.Block{BaseCommit: "scale", Head: "scale"}
	var lat []time.Duration
	for _, t := range targets {
		t0 := time.Now()
		if _, err := impact.Compute(ctx, r, t, o); err != nil {
			return imp, cpack, fmt.Errorf("scale: impact of %s: %w", t.ID, err)
		}
		lat = append(lat, time.Since(t0))
	}
	imp = latency(lat)
	if !withContext {
		return imp, cpack, nil
	}
	ws, err := scope.Discover(root)
	if err != nil {
		return imp, cpack, fmt.Errorf("scale: %w", err)
	}
	a, err := scope.Analyze(ctx, ws, r)
	if err != nil {
		return imp, cpack, fmt.Errorf("scale: %w", err)
	}
	lat = lat[:0]
	for _, t := range targets {
		t0 := time.Now()
		if _, err := contextpack.Build(ctx, r, a, t, contextpack.Options{Budget: 8000, Source: contextpack.Source{Root: root}}); err != nil {
			return imp, cpack, fmt.Errorf("scale: context of %s: %w", t.ID, err)
		}
		lat = append(lat, time.Since(t0))
	}
	return imp, latency(lat), nil
}

// timeCommandLine times status, impact, context and search, each a new
// process, on the store at dir of the work tree root, for
// commandLineTargets functions and methods, the commands taking turns.
// The targets are copy 1's at every size: the same questions, asked of a
// larger tree. Spread over the copies, the larger sizes' questions met
// closures no question had observed before (each copy's packages are its
// own), which the smaller sizes' had (a context question keeps what it
// observed for the next process).
func (o ScaleOptions) timeCommandLine(ctx context.Context, dir, root string) (alone, session CommandLine, start SessionStart, err error) {
	st, err := graph.Open(dir, graph.Options{ReadOnly: true})
	if err != nil {
		return alone, session, start, fmt.Errorf("scale: opening %s: %w", dir, err)
	}
	r, err := st.Reader()
	if err != nil {
		st.Close()
		return alone, session, start, fmt.Errorf("scale: reading %s: %w", dir, err)
	}
	targets, err := SampleTargets(ctx, r, commandLineTargets, "copy1/")
	r.Close()
	st.Close()
	if err != nil {
		return alone, session, start, err
	}
	if alone, err = o.askEach(ctx, dir, root, targets); err != nil {
		return alone, session, start, err
	}
	if start, err = o.timeSessionStart(ctx, dir, root, targets); err != nil {
		return alone, session, start, err
	}
	stop, err := o.serve(ctx, dir, root)
	if err != nil {
		return alone, session, start, err
	}
	defer func() {
		if serr := stop(); err == nil {
			err = serr
		}
	}()
	// Once untimed: the session's first questions read what it keeps.
	if _, err = o.askEach(ctx, dir, root, targets); err != nil {
		return alone, session, start, err
	}
	session, err = o.askEach(ctx, dir, root, targets)
	return alone, session, start, err
}

// askEach times status, impact, context and search of each target, each a
// new process, the commands taking turns.
func (o ScaleOptions) askEach(ctx context.Context, dir, root string, targets []graph.Symbol) (CommandLine, error) {
	cl := CommandLine{Targets: len(targets)}
	var status, imp, cpack, search []time.Duration
	for _, t := range targets {
		for _, q := range []struct {
			lat  *[]time.Duration
			args []string
		}{
			{&status, []string{"status", "--store", dir}},
			{&imp, []string{"impact", "--store", dir, t.ID}},
			{&cpack, []string{"context", "--store", dir, "--root", root, "--budget", "8000", t.ID}},
			{&search, []string{"search", "--store", dir, "--root", root, searchQuery(t)}},
		} {
			run, _, _, err := Measure(ctx, "lspgraph "+q.args[0], root, o.Lspgraph, q.args...)
			if err != nil {
				return cl, err
			}
			*q.lat = append(*q.lat, time.Duration(run.Seconds*float64(time.Second)))
		}
	}
	cl.Status, cl.Impact, cl.Context, cl.Search = latency(status), latency(imp), latency(cpack), latency(search)
	return cl, nil
}

// serve starts `lspgraph serve` for the store at dir and waits until its
// session answers `lspgraph status`; stop interrupts it and waits for it
// to end, so that the store is free again.
func (o ScaleOptions) serve(ctx context.Context, dir, root string) (stop func() error, err error) {
	p, err := o.startServe(dir, root)
	if err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(time.Minute); ; {
		out, err := exec.CommandContext(ctx, o.Lspgraph, "status", "--store", dir, "--json").Output()
		var st struct {
			Session struct {
				PID int `json:"pid"`
			} `json:"session"`
		}
		if err == nil && json.Unmarshal(out, &st) == nil && st.Session.PID == p.cmd.Process.Pid {
			return p.stop, nil
		}
		select {
		case err := <-p.exited:
			return nil, fmt.Errorf("scale: lspgraph serve exited (%v): %s", err, p.log.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("scale: lspgraph serve's session did not answer within a minute: %s", p.log.String())
		}
	}
}

// serveProcess is a `lspgraph serve` started by startServe: exited
// receives its end, log holds its output.
type serveProcess struct {
	cmd    *exec.Cmd
	log    bytes.Buffer
	exited chan error
}

// startServe starts `lspgraph serve` for the store at dir.
func (o ScaleOptions) startServe(dir, root string) (*serveProcess, error) {
	p := &serveProcess{cmd: exec.Command(o.Lspgraph, "serve", "--root", root, "--store", dir, "--idle", "0"), exited: make(chan error, 1)}
	p.cmd.Dir = root
	p.cmd.Stdout, p.cmd.Stderr = &p.log, &p.log
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("scale: starting lspgraph serve: %w", err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	return p, nil
}

// stop interrupts the process and waits for it to end, so that the store
// is free again.
func (p *serveProcess) stop() error {
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
		return nil
	case <-time.After(time.Minute):
		p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("scale: lspgraph serve did not end a minute after an interrupt: %s", p.log.String())
	}
}

// timeSessionStart starts `lspgraph serve` and at once asks it two
// context questions (see SessionStart), then stops it.
func (o ScaleOptions) timeSessionStart(ctx context.Context, dir, root string, targets []graph.Symbol) (st SessionStart, err error) {
	if len(targets) < 2 {
		return st, nil
	}
	start := time.Now()
	p, err := o.startServe(dir, root)
	if err != nil {
		return st, err
	}
	defer func() {
		if serr := p.stop(); err == nil {
			err = serr
		}
	}()
	ask := func(t graph.Symbol) (float64, error) {
		_, _, _, err := Measure(ctx, "lspgraph context", root, o.Lspgraph, "context", "--store", dir, "--root", root, "--budget", "8000", t.ID)
		return float64(time.Since(start)) / float64(time.Millisecond), err
	}
	if st.FirstContextMs, err = ask(targets[0]); err != nil {
		return st, err
	}
	start = time.Now()
	st.SecondContextMs, err = ask(targets[1])
	return st, err
}

// searchQuery is what CommandLine searches for on a target: its name and
// its file's, and its directory's (a name alone may be no searchable word:
// "Or").
func searchQuery(t graph.Symbol) string {
	file := path.Base(t.Def.Path)
	return strings.Join([]string{t.DisplayName, strings.TrimSuffix(file, path.Ext(file)), path.Base(path.Dir(t.Def.Path))}, " ")
}

// SampleTargets returns n functions and methods spread evenly over the
// documents of a graph whose paths start with under (all for ""), in
// document order: every len/n-th (repeating when there are fewer than n).
func SampleTargets(ctx context.Context, r *graph.Reader, n int, under string) ([]graph.Symbol, error) {
	var all []graph.Symbol
	err := r.Documents(ctx, func(d graph.Document) error {
		if !strings.HasPrefix(d.Path, under) {
			return nil
		}
		syms, err := r.DocumentSymbols(ctx, d.Path)
		if err != nil {
			return err
		}
		for _, s := range syms {
			if (s.Kind == "function" || s.Kind == "method") && !strings.HasPrefix(s.ID, "local ") && s.Def.Path != "" {
				all = append(all, s)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing targets: %w", err)
	}
	if len(all) == 0 {
		return nil, errors.New("no callable symbols in the graph")
	}
	out := make([]graph.Symbol, n)
	step := max(1, len(all)/n)
	for i := range out {
		out[i] = all[(i*step)%len(all)]
	}
	return out, nil
}

func latency(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return Latency{Targets: len(s), P50ms: ms(at(0.50)), P99ms: ms(at(0.99)), Maxms: ms(s[len(s)-1])}
}

// dirMB is the size of the files under dir in megabytes.
func dirMB(dir string) (float64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("scale: sizing %s: %w", dir, err)
	}
	return float64(n) / (1 << 20), nil
}

// settle writes the files the benchmark has just written (a copy of the
// tree, an edit, a dump) out to disk before a timed run, so that their
// write-back, which grows with the tree, is not charged to the run: a
// run's system time at 4 copies was up to 15 times that at 1.
func settle() { syscall.Sync() }
