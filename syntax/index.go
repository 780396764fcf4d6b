package syntax

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// MemoryLimit is the soft limit of the Go heap `lspgraph index` sets
// (runtime/debug.SetMemoryLimit) unless GOMEMLIMIT sets one: Build keeps
// only the definitions of a tree live between files, and the collector
// holds the heap near that rather than letting it grow to twice the live
// size. Parsers (C memory) and the store's cache come on top.
const MemoryLimit = 256 << 20

// BoundHeap holds the Go heap of an index about to run under MemoryLimit
// more than the process holds now (runtime/debug.SetMemoryLimit), unless
// a limit is set already (GOMEMLIMIT). It returns the function that puts
// the previous limit back. The command line's process holds a few
// megabytes before its index; a session holds its caches (a session of
// four GOROOT copies held 395 MB, and without a bound its index took it
// to 807-824 MB, against 318-330 MB for the command line's index alone).
func BoundHeap() (restore func()) {
	old := debug.SetMemoryLimit(-1)
	if old != math.MaxInt64 {
		return func() {}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	debug.SetMemoryLimit(int64(ms.Sys-ms.HeapReleased) + MemoryLimit)
	return func() { debug.SetMemoryLimit(old) }
}

// spillBytes is the generation writer's chunk (see
// graph.GenerationWriter.SetSpillBytes) while an index runs: small enough
// that its two chunks stay well under MemoryLimit. 4 MiB chunks (against
// 8) made a full index of one GOROOT copy 5% faster (4.70 against 4.97 s,
// peak RSS 191 against 208 MB) and of four copies 6-8% (20.1 against
// 21.5 s, 38.5 against 41.1 CPU-s), alternated: a smaller chunk sorts in
// the processor's caches, and its pair is 8 MB less of a heap that
// presses MemoryLimit at four copies.
const spillBytes = 4 << 20

// IndexOptions configure Build and Index.
type IndexOptions struct {
	// Root is the absolute workspace root.
	Root string
	// Files overrides the listing (root-relative slash paths); nil lists
	// the root with ListFiles. Either way files are read through a
	// [rootfs.Root] on Root, and symbolic links are treated as ListFiles
	// says (counted in IndexSummary.Skipped as SkipLink and SkipOutside).
	Files []string
	// Workers is the number of parallel extractors (runtime.NumCPU() if zero).
	Workers      int
	ParseTimeout time.Duration
	MaxFileSize  int
	// Commit is recorded in the manifest (Index only).
	Commit string
	// AllowShrink accepts a generation that keeps fewer than half the
	// documents of the previous syntax index of the same root (Index
	// only). Without it such an index is refused (an error wrapping
	// graph.ErrShrink) and the previous generation stays current, so
	// that a listing gone wrong never silently replaces a whole index.
	// See graph.CheckShrink.
	AllowShrink bool
	// Cache, when set, holds the extracted facts of file versions seen
	// before: they are read instead of parsed, and those extracted are
	// added (see FactCache). Resolution runs over every file either way.
	Cache *FactCache
	// TempDir is where the index spills the extracted facts between
	// extraction and resolution (the system's temporary directory if
	// empty). The file is removed when the index ends.
	TempDir string
	// Progress, when set, is called from several goroutines as files are
	// extracted and written.
	Progress func(IndexProgress)
	// Full makes Index build a whole new generation even when it could
	// bring the current one up to date incrementally.
	Full bool
	// ExitsAfter says the process ends after this index (the command
	// line's index, not a session's): an incremental index may then map
	// the table of definitions from its file and leave it mapped, where
	// reading it into fresh memory was a seventh of the index's time.
	// A process that lives on must not set it: each index would keep its
	// table's file mapped, a replaced one included.
	ExitsAfter bool
	// Listing is the listing of Root started ahead (StartListing, with
	// these options), taken by the index instead of listing when it needs
	// to; nil lists then.
	Listing *Listing

	// poisonReads overwrites each file's content once it is extracted,
	// the memory the next file is read into (tests: nothing may keep a
	// file's content past its extraction).
	poisonReads bool
}

// poison overwrites b with bytes no source holds.
func poison(b []byte) {
	for k := range b {
		b[k] = 0xff
	}
}

// A Listing is the listing of an index's root (every file, with its size
// and time), started before the index needs it so that the walk's system
// calls run while the caller opens the store and the fact cache: the walk
// is most of the first part of an incremental index, which cannot begin
// before the store is open. An index takes it once; another lists again.
type Listing struct {
	done  chan struct{}
	plan  indexPlan
	err   error
	taken atomic.Bool
}

// StartListing begins listing opts.Root (opts.Files, Workers) in the
// background, for an index with the same options (IndexOptions.Listing).
// The caller closes it.
func StartListing(ctx context.Context, opts IndexOptions) *Listing {
	opts.Listing = nil
	l := &Listing{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.plan, l.err = opts.plan(ctx)
	}()
	return l
}

// take returns the listing's plan, waiting for it, unless an index took
// it already (false).
func (l *Listing) take() (p indexPlan, ok bool, err error) {
	if l == nil || l.taken.Swap(true) {
		return indexPlan{}, false, nil
	}
	<-l.done
	return l.plan, true, l.err
}

// Close releases the listing, if no index took it (waiting for its walk).
func (l *Listing) Close() {
	if p, ok, err := l.take(); ok && err == nil {
		p.fs.Close()
	}
}

// IndexProgress reports how far an index got.
type IndexProgress struct {
	Phase string // "extract" or "resolve"
	Done  int
	Total int
}

// IndexSummary describes a finished index.
type IndexSummary struct {
	Files       int                `json:"files"`   // files listed
	Indexed     int                `json:"indexed"` // files extracted
	Skipped     map[SkipReason]int `json:"skipped"` // files skipped, by reason
	Unreadable  int                `json:"unreadable"`
	Bytes       int64              `json:"bytes"` // bytes of the indexed files
	Symbols     int                `json:"symbols"`
	Occurrences int                `json:"occurrences"`
	Edges       int                `json:"edges"`
	// EdgesByReason counts edges by their reason (the confidence table's rows).
	EdgesByReason map[string]int `json:"edges_by_reason"`
	Languages     map[string]int `json:"languages"` // indexed files by language
	Duration      time.Duration  `json:"duration_ns"`
	// Cached counts the files whose facts came from IndexOptions.Cache.
	Cached     int    `json:"cached,omitempty"`
	Generation uint64 `json:"generation,omitempty"`
	// Incremental is set when the index brought the current generation up
	// to date instead of writing a new one: then Changed files had
	// another content (or were new), Resolved documents were resolved
	// and written again (the changed ones and those whose lookups a
	// change of definitions reached), Deleted documents went, and the
	// rest were kept as they were. Symbols, Occurrences and Edges are then
	// the generation's; EdgesByReason counts the edges of the documents
	// written.
	// Hashed files were read to compare their content (the others' size
	// and modification time were those their documents recorded).
	Incremental bool `json:"incremental,omitempty"`
	Hashed      int  `json:"hashed,omitempty"`
	Changed     int  `json:"changed,omitempty"`
	Resolved    int  `json:"resolved,omitempty"`
	Deleted     int  `json:"deleted,omitempty"`
}

// indexPlan is what an index reads, and how.
type indexPlan struct {
	fs        *rootfs.Root       // the root every file is read through; closed by the caller
	tree      *treeListing       // what the walk saw of project files (nil: no walk)
	goModules []string           // the modules of the listing's go.mod files (nil: no listing; see goModulesOf)
	paths     []string           // real root-relative paths to read, sorted, each once
	stats     []rootfs.Stamp     // each path's size and modification time when listed (zero: unknown, or too recent to vouch when read: see read)
	listed    int                // paths listed (opts.Files, or the listing)
	skipped   map[SkipReason]int // listed paths left out before reading: symbolic links
	workers   int                // parallel workers
}

// plan opens opts.Root and returns the files to index (opts.Files, else
// the listing of opts.Root, with symbolic links resolved) and the number
// of parallel workers. The caller closes plan.fs.
func (opts IndexOptions) plan(ctx context.Context) (indexPlan, error) {
	if p, ok, err := opts.Listing.take(); ok {
		return p, err
	}
	var p indexPlan
	if p.workers = opts.Workers; p.workers <= 0 {
		p.workers = runtime.NumCPU()
	}
	fsys, err := rootfs.Open(opts.Root)
	if err != nil {
		return p, fmt.Errorf("syntax: %w", err)
	}
	listed, stated := opts.Files, []stat(nil)
	if listed == nil {
		var goMods []string
		if listed, stated, p.tree, goMods, err = listFiles(ctx, fsys, opts.Root, p.workers); err != nil {
			fsys.Close()
			return p, err
		}
		p.goModules = goModulesOf(opts.Root, fsys, p.tree, goMods)
	}
	p.fs, p.listed = fsys, len(listed)
	p.paths, p.stats, p.skipped = realFiles(fsys, listed, stated)
	return p, nil
}

// goReach returns what a Go module of the plan's tree reaches: the tree's
// modules known from the listing's go.mod files.
func (p *indexPlan) goReach() goReach {
	if p.goModules == nil {
		return goReach{}
	}
	modules := make(map[string]bool, len(p.goModules))
	for _, m := range p.goModules {
		modules[m] = true
	}
	return goReach{modules: modules}
}

// goModulesOf returns the paths of the modules of the go.mod files in the
// directories dirs of root, sorted; nil when dirs is.
func goModulesOf(root string, fsys *rootfs.Root, tree *treeListing, dirs []string) []string {
	if dirs == nil {
		return nil
	}
	pr := newProject(root, fsys)
	pr.tree = tree
	defer pr.close()
	modules := []string{}
	for _, d := range dirs {
		if m := pr.goModuleOf(d); m.dir == d && m.path != "" {
			modules = append(modules, m.path)
		}
	}
	slices.Sort(modules)
	return slices.Compact(modules)
}

// extractorOptions are the options of an extractor of the plan's files.
func (p *indexPlan) extractorOptions(opts IndexOptions) Options {
	return Options{Root: opts.Root, FS: p.fs, ParseTimeout: opts.ParseTimeout, MaxFileSize: opts.MaxFileSize, tree: p.tree, goModules: p.goModules}
}

// read reads the i-th file through l, a lister of p.fs that one worker
// reads its files through in order. A stamp that cannot vouch for what
// was read (rootfs.Stamp.Vouched) is recorded as zero: the file is read
// again next time.
func (p *indexPlan) read(l *rootfs.Lister, i int) ([]byte, error) { return p.readInto(l, i, nil) }

// readInto is read into buf's memory when the file fits its capacity
// (rootfs.Lister.ReadFileInto).
func (p *indexPlan) readInto(l *rootfs.Lister, i int, buf []byte) ([]byte, error) {
	start := time.Now()
	src, err := l.ReadFileInto(p.paths[i], buf)
	p.stats[i] = p.stats[i].Vouched(start)
	return src, err
}

// maxReadBuffer bounds the read buffer an extracting worker keeps from
// file to file (see build): larger files are read into memory of their
// own.
const maxReadBuffer = 4 << 20

// FilesPerSecond is the listed files over the wall time.
func (s IndexSummary) FilesPerSecond() float64 {
	return float64(s.Files) / max(s.Duration.Seconds(), 1e-9)
}

// Build lists, extracts and resolves a tree and hands each document's facts
// to put, from several goroutines at once. Skipped files are handed over as
// documents without facts (flagged generated where that is the reason), so
// the graph knows they exist.
//
// Memory stays bounded by what resolution must look names up in: pass 1
// extracts the files in parallel and writes each one's facts to a spill
// file as it is extracted, keeping only its definitions (definitionsOf);
// pass 2 reads each file back, resolves its uses against the table of all
// definitions and hands it to put. The result is the same as resolving
// every file's facts held in memory (Resolve).
func Build(ctx context.Context, opts IndexOptions, put func(context.Context, graph.DocumentFacts) error) (IndexSummary, error) {
	sum, _, err := build(ctx, opts, put)
	return sum, err
}

// builtTable is the table of definitions a full index resolved against:
// st, the run of each path of paths, and the NameTable made of them.
type builtTable struct {
	st    *defStore
	paths []string
	runs  [][2]int32
	names *NameTable
}

// build is Build, returning the table of definitions too.
func build(ctx context.Context, opts IndexOptions, put func(context.Context, graph.DocumentFacts) error) (IndexSummary, builtTable, error) {
	start := time.Now()
	sum := IndexSummary{Skipped: map[SkipReason]int{}, EdgesByReason: map[string]int{}, Languages: map[string]int{}}
	plan, err := opts.plan(ctx)
	if err != nil {
		return sum, builtTable{}, err
	}
	defer plan.fs.Close()
	paths, workers := plan.paths, plan.workers
	sum.Files = plan.listed
	maps.Copy(sum.Skipped, plan.skipped)
	progress := func(phase string, done int) {
		if opts.Progress != nil {
			opts.Progress(IndexProgress{Phase: phase, Done: done, Total: len(paths)})
		}
	}
	sp, err := newSpill(opts.TempDir)
	if err != nil {
		return sum, builtTable{}, err
	}
	defer sp.close()

	// Pass 1: extract every file in parallel, one Extractor (and parser)
	// per worker, spill its facts and keep its definitions.
	records := make([]spillRecord, len(paths))
	read := make([]bool, len(paths)) // false: unreadable
	st := newDefStore()
	defs := make([][2]int32, len(paths))         // each file's run of st
	asked := make([][]projectAnswer, len(paths)) // kept with each document
	var next, done atomic.Int64
	var unreadable, bytes, cached atomic.Int64
	err = parallel(ctx, workers, func(ctx context.Context) error {
		x := NewExtractor(plan.extractorOptions(opts))
		defer x.Close()
		files := plan.fs.NewLister()
		defer files.Close()
		var rec []byte
		// Each file is read into the memory of the one before: nothing
		// of a file's content outlives its extraction (its facts are
		// spilled, its definitions copied into st).
		var buf []byte
		for {
			i := int(next.Add(1) - 1)
			if i >= len(paths) {
				return nil
			}
			src, err := plan.readInto(files, i, buf)
			if err != nil {
				unreadable.Add(1) // deleted since listing, or not a regular file
			} else {
				a, err := x.fileAnswered(ctx, opts.Cache, paths[i], src)
				if err != nil {
					return err
				}
				ff := a.ff
				asked[i] = cloneAnswers(a.asked)
				if a.hit {
					cached.Add(1)
				}
				if records[i], err = sp.keep(a, &rec); err != nil {
					return err
				}
				read[i] = true
				if ff.Skipped == SkipNone {
					defs[i] = st.add(definitionsOf(ff))
					bytes.Add(int64(len(src)))
				}
				if cap(src) <= maxReadBuffer {
					if opts.poisonReads {
						poison(src[:cap(src)])
					}
					buf = src[:0]
				}
			}
			progress("extract", int(done.Add(1)))
		}
	})
	if err != nil {
		return sum, builtTable{}, err
	}
	sum.Unreadable, sum.Bytes, sum.Cached = int(unreadable.Load()), bytes.Load(), int(cached.Load())

	// Pass 2: resolve each file against every definition, in parallel,
	// and hand it over.
	names := newNameTable(st, defs)
	r := newResolver(names, nil, nil)
	r.reach = plan.goReach()
	var mu sync.Mutex
	next.Store(0)
	done.Store(0)
	err = parallel(ctx, workers, func(ctx context.Context) error {
		rd := spillReader{sp: sp, opts: plan.extractorOptions(opts)}
		defer rd.close()
		for {
			i := int(next.Add(1) - 1)
			if i >= len(paths) {
				return nil
			}
			if !read[i] {
				continue
			}
			f, err := rd.read(ctx, records[i], paths[i])
			if err != nil {
				return err
			}
			df, err := resolveRecorded(ctx, r, f, plan.stats[i], asked[i])
			if err != nil {
				return err
			}
			asked[i] = nil
			// The facts' strings share the spilled record's memory; what
			// put keeps (the writer keeps each path) must not hold every
			// record alive.
			df.Document = cloneDocument(df.Document)
			if err := put(ctx, df); err != nil {
				return fmt.Errorf("syntax: writing %s: %w", df.Document.Path, err)
			}
			mu.Lock()
			if f.Skipped != SkipNone {
				sum.Skipped[f.Skipped]++
			} else {
				sum.Indexed++
				sum.Languages[f.Document.Language]++
			}
			sum.Symbols += len(df.Symbols)
			sum.Occurrences += len(df.Occurrences)
			sum.Edges += len(df.Edges)
			for _, e := range df.Edges {
				sum.EdgesByReason[e.Reason]++
			}
			mu.Unlock()
			progress("resolve", int(done.Add(1)))
		}
	})
	if err != nil {
		return sum, builtTable{}, err
	}
	// Flushed (for other processes to read the entries written) and
	// trimmed after the second pass, which reads the entries back. An
	// entry that cannot be written is no error.
	if opts.Cache != nil {
		_ = opts.Cache.Flush()
		if _, err := opts.Cache.Trim(); err != nil {
			return sum, builtTable{}, err
		}
	}
	sum.Duration = time.Since(start)
	return sum, builtTable{st, paths, defs, names}, err
}

// resolveRecorded resolves one extracted file with r (a skipped one has
// no facts), recording in the result what the next index needs to know
// whether it must resolve the file again: the project's answers its facts
// depend on, and the keys its resolution looked up (lookups.go).
func resolveRecorded(ctx context.Context, r *Resolver, f *FileFacts, st rootfs.Stamp, asked []projectAnswer) (graph.DocumentFacts, error) {
	if f.Skipped != SkipNone {
		return graph.DocumentFacts{Document: f.Document, Lookups: encodeDocRecord(st, f.Skipped, asked, nil)}, nil
	}
	f.looked = map[uint32]struct{}{}
	defer func() { f.looked = nil }()
	df, err := r.Document(ctx, f)
	if err != nil {
		return df, err
	}
	df.Lookups = encodeDocRecord(st, SkipNone, asked, f.looked)
	return df, nil
}

// cloneDocument copies d's strings into memory of their own.
func cloneDocument(d graph.Document) graph.Document {
	d.Path, d.Language, d.Package = strings.Clone(d.Path), strings.Clone(d.Language), strings.Clone(d.Package)
	d.ContentHash, d.Digest, d.Source = strings.Clone(d.ContentHash), strings.Clone(d.Digest), strings.Clone(d.Source)
	return d
}

// Index builds a syntax-only base generation of opts.Root in store: a new
// generation holding every listed document, switched to atomically with a
// manifest naming the commit, this tool and its counts. On error the new
// generation is discarded and the previous one stays current.
//
// When the current base generation is an index of the same root by this
// version, with the same options, and few files changed since, the index
// is incremental instead (see indexIncremental): only the documents whose
// facts can have changed are resolved again, and they replace theirs in
// the current generation at once (graph.BasePatch); the facts are those a
// full index would write.
func Index(ctx context.Context, store *graph.Store, opts IndexOptions) (IndexSummary, error) {
	if !opts.Full {
		sum, done, err := indexIncremental(ctx, store, opts)
		if opts.Cache != nil {
			_ = opts.Cache.Flush() // the entries of the files it extracted
		}
		if err != nil {
			return sum, err
		}
		if done {
			// Each incremental index leaves a small pack: trimmed, which
			// merges small packs, so that a tree re-indexed after every
			// pull does not leave its next index more packs to open.
			if opts.Cache != nil {
				if _, err := opts.Cache.Trim(); err != nil {
					return sum, err
				}
			}
			return sum, nil
		}
	}
	gw, err := store.BeginGeneration(ctx)
	if err != nil {
		return IndexSummary{}, fmt.Errorf("syntax: starting a generation: %w", err)
	}
	if !opts.AllowShrink {
		gw.RefuseShrink()
	}
	gw.SetSpillBytes(spillBytes)
	started := time.Now().UTC()
	dir, keepFiles := defTableDir(store)
	put := gw.PutDocument
	token, statesToken := newFileToken(), newFileToken()
	var states *docStatesWriter // the documents' states, for the next index
	if keepFiles {
		if states, err = newDocStatesWriter(dir, statesToken); err == nil {
			put = func(ctx context.Context, f graph.DocumentFacts) error {
				if err := gw.PutDocument(ctx, f); err != nil {
					return err
				}
				states.addWritten(&f)
				return nil
			}
		}
	}
	sum, table, err := build(ctx, opts, put)
	if err != nil {
		_ = gw.Abort()
		if states != nil {
			states.discard()
		}
		return sum, err
	}
	m := indexManifest(opts, sum, started)
	// The table of definitions and the documents' states are written
	// while the generation commits, and put in place once it has. A file
	// that cannot be written is no error: the next index reads the store
	// instead.
	var pending []*pendingFile
	if keepFiles {
		m.Extra[extraDefTable] = token
		pending = append(pending, startDefTable(dir, token, table.st, table.paths, table.runs, table.names))
		if states != nil {
			m.Extra[extraDocStates] = statesToken
			pending = append(pending, startFile(dir, docStatesFile, "the documents' states", states.finish))
		}
	}
	if err := gw.Commit(ctx, m); err != nil {
		_ = gw.Abort()
		for _, p := range pending {
			p.discard()
		}
		return sum, fmt.Errorf("syntax: committing the generation: %w", err)
	}
	sum.Generation = gw.Generation()
	for _, p := range pending {
		_ = p.install()
	}
	return sum, nil
}

// The manifest's extra counts an incremental index checks: the version of
// the documents' records (0 or absent: none) and the size limit the index
// ran with.
const (
	extraLookups     = "lookups"
	extraMaxFileSize = "max_file_size"
)

// indexManifest is the manifest of an index of opts.Root that sum
// describes.
func indexManifest(opts IndexOptions, sum IndexSummary, started time.Time) graph.Manifest {
	extra := map[string]int{"files": sum.Files, "indexed": sum.Indexed, "unreadable": sum.Unreadable,
		extraLookups: lookupsVersion, extraMaxFileSize: opts.MaxFileSize}
	for _, r := range sortedReasons(sum.Skipped) {
		extra["skipped_"+string(r)] = sum.Skipped[r]
	}
	return graph.Manifest{
		Layer:       graph.Base,
		Commit:      opts.Commit,
		Root:        opts.Root,
		Tool:        Tool,
		ToolVersion: Version,
		State:       graph.StateComplete,
		Extra:       extra,
		Started:     started,
	}
}

func sortedReasons(m map[SkipReason]int) []SkipReason {
	out := make([]SkipReason, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// parallel runs n copies of fn and returns the first error; the others'
// context is cancelled when one fails.
func parallel(ctx context.Context, n int, fn func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return first
}
