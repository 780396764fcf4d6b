package syntax

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
)

// indexIncremental brings the current base generation up to date when it
// is an index of opts.Root by this version with the same options, whose
// documents recorded their lookups: every listed file whose size or time
// differs from its document's record is read and its content hash compared
// with the document's, and the project's answers each file's facts depend
// on are asked again; the files that changed are extracted
// (through the fact cache); the table of definitions is the generation's
// symbols with those files' in their place; the documents resolved again
// are the changed files and every other whose recorded lookups hit a key
// whose definitions changed (lookups.go); they are written, and the
// documents of files gone deleted, in one graph.BasePatch. done is false,
// with nothing written, when the generation does not qualify or too much
// changed: the caller then indexes in full.
func indexIncremental(ctx context.Context, store *graph.Store, opts IndexOptions) (sum IndexSummary, done bool, err error) {
	start := time.Now()
	r, err := store.Reader()
	if err != nil {
		return sum, false, fmt.Errorf("syntax: %w", err)
	}
	defer r.Close()
	m, ok, err := r.Manifest(graph.Base)
	if err != nil || !ok || r.BaseGeneration() == 0 {
		return sum, false, err
	}
	if m.Tool != Tool || m.ToolVersion != Version || m.Root != opts.Root || m.State != graph.StateComplete ||
		m.Extra[extraLookups] != lookupsVersion || m.Extra[extraMaxFileSize] != opts.MaxFileSize {
		return sum, false, nil
	}
	// The fact cache's index is read beside the generation too: the
	// changed files are looked up in it.
	if opts.Cache != nil {
		loaded := make(chan struct{})
		go func() { defer close(loaded); _ = opts.Cache.load() }()
		defer func() { <-loaded }()
	}
	// The listing (each path resolved inside the root: a walk of system
	// calls) runs beside the reads of the generation below.
	type planned struct {
		p   indexPlan
		err error
	}
	planCh := make(chan planned, 1)
	go func() {
		p, err := opts.plan(ctx)
		planCh <- planned{p, err}
	}()
	var plan indexPlan
	gotPlan := false
	defer func() {
		if !gotPlan {
			if pl := <-planCh; pl.err == nil {
				pl.p.fs.Close()
			}
		}
	}()
	// The definitions of the generation, by document: a run of st each,
	// read beside the documents, the listing and the hashing below: from
	// the table the commit left beside the store (deftable.go), or else
	// from the store.
	var st *defStore
	var old map[string][2]int32
	var names *NameTable // the file's indexes, when it holds them
	fromTable := false   // st is the table the generation's commit left
	var mapping []byte   // the table's file, when mapped
	defer func() {
		// Run last, once the read below is done. An index that is
		// not brought up to date here is built in full next, and the
		// table's pages would add to that index's peak memory: four
		// GOROOT copies' (88 MB) took it to 381-407 MB, 296 MB with
		// them released.
		if !done && mapping != nil {
			releaseMapping(mapping)
		}
	}()
	scanned := make(chan error, 1)
	scanCtx, stopScan := context.WithCancel(ctx)
	go func() {
		if dir, ok := defTableDir(store); ok && m.Extra[extraDefTable] != 0 {
			if t, err := readDefTable(dir, m.Extra[extraDefTable], opts.ExitsAfter); err == nil {
				st, old, names, fromTable, mapping = t.st, t.runs, t.names, true, t.mapping
				scanned <- nil
				return
			}
		}
		t, err := storeDefTable(scanCtx, r, m)
		st, old = t.st, t.runs
		scanned <- err
	}()
	waited := false
	defer func() {
		if !waited {
			stopScan()
			<-scanned
		}
		stopScan()
	}()
	// The documents' states: from the file the commit left beside the
	// store (docstates.go), or else from the store.
	var base map[string]docState
	if dir, ok := defTableDir(store); ok && m.Extra[extraDocStates] != 0 {
		base, _ = readDocStates(dir, m.Extra[extraDocStates], opts.ExitsAfter)
	}
	if base == nil {
		if base, err = readStoreDocStates(ctx, r, m.Documents); err != nil {
			return sum, false, err
		}
	}
	pl := <-planCh
	gotPlan = true
	if pl.err != nil {
		return sum, false, pl.err
	}
	plan = pl.p
	defer plan.fs.Close()
	paths := plan.paths
	limit := graph.PatchLimit(len(base))

	// Which files changed: read and hash every one, ask the project again.
	const (
		same = iota
		changed
		unreadable
	)
	state := make([]uint8, len(paths))
	// restat: hashed, unchanged, and now of a time that vouches for it:
	// its record takes the new time, or it is read at every index.
	restat := make([]bool, len(paths))
	// The files found changed are kept as read, for their extraction
	// (up to keepChanged bytes in all): each read resolves its path
	// inside the root again, a system call per directory.
	kept := make([][]byte, len(paths))
	var keptBytes atomic.Int64
	var next atomic.Int64
	var nChanged, hashed atomic.Int64
	err = parallel(ctx, plan.workers, func(ctx context.Context) error {
		x := NewExtractor(plan.extractorOptions(opts))
		defer x.Close()
		files := plan.fs.NewLister()
		defer files.Close()
		// Runs of neighbouring paths, so that a directory's project
		// answers are mostly asked by one worker, whose project keeps
		// them, not by every worker in turn.
		const run = 64
		for i, end := 0, 0; ; i++ {
			if i == end {
				i = int(next.Add(run) - run)
				end = min(i+run, len(paths))
			}
			if i >= len(paths) {
				return nil
			}
			d, ok := base[paths[i]]
			if !ok || !d.hasRec {
				state[i] = changed
				nChanged.Add(1)
				continue
			}
			rec := &d.rec
			// A file whose size and time are as recorded is not read.
			if st := plan.stats[i]; !st.Vouches() || st != rec.stat {
				hashed.Add(1)
				src, err := plan.read(files, i)
				if err != nil {
					state[i] = unreadable
					continue
				}
				if d.hash != lang.HashContent(src) {
					state[i] = changed
					nChanged.Add(1)
					if keptBytes.Add(int64(len(src))) <= keepChanged {
						kept[i] = src
					}
					continue
				}
				restat[i] = plan.stats[i].Vouches() && plan.stats[i] != rec.stat
			}
			if !x.project.stillAnswers(rec.asked) {
				state[i] = changed
				nChanged.Add(1)
			}
		}
	})
	if err != nil {
		return sum, false, err
	}
	listed := make(map[string]bool, len(paths))
	for i, p := range paths {
		if state[i] != unreadable {
			listed[p] = true
		}
	}
	var deleted []string
	for p := range base {
		if !listed[p] {
			deleted = append(deleted, p)
		}
	}
	// Too much changed; or the index loses half the documents or more,
	// which a full index refuses or allows (IndexOptions.AllowShrink).
	if int(nChanged.Load())+len(deleted) > limit || 2*len(deleted) >= len(base) {
		return sum, false, nil
	}

	// The generation's definitions, read while the files were hashed.
	waited = true
	if err := <-scanned; err != nil {
		return sum, false, err
	}
	_ = r.Close()

	// Extract the files that changed, and mark the keys whose
	// definitions changed. Their facts wait in a spill file, as a full
	// index's do, so that memory holds only their definitions.
	sp, err := newSpill(opts.TempDir)
	if err != nil {
		return sum, false, err
	}
	defer sp.close()
	records := make([]spillRecord, len(paths))
	extracted := make([]bool, len(paths))
	kinds := make([]fileKind, len(paths))
	defs := make([][2]int32, len(paths))
	asked := make([][]projectAnswer, len(paths))
	var cached atomic.Int64
	extract := func(which []int) error {
		next.Store(0)
		return parallel(ctx, plan.workers, func(ctx context.Context) error {
			x := NewExtractor(plan.extractorOptions(opts))
			defer x.Close()
			files := plan.fs.NewLister()
			defer files.Close()
			var rec []byte
			for {
				k := int(next.Add(1) - 1)
				if k >= len(which) {
					return nil
				}
				i := which[k]
				src := kept[i]
				kept[i] = nil
				if src == nil {
					var err error
					if src, err = plan.read(files, i); err != nil {
						return fmt.Errorf("syntax: reading %s again: %w", paths[i], err)
					}
				}
				a, err := x.fileAnswered(ctx, opts.Cache, paths[i], src)
				if err != nil {
					return err
				}
				ff := a.ff
				if a.hit {
					cached.Add(1)
				}
				if records[i], err = sp.keep(a, &rec); err != nil {
					return err
				}
				extracted[i], asked[i] = true, cloneAnswers(a.asked)
				kinds[i] = fileKind{ff.Skipped, strings.Clone(ff.Document.Language)}
				if state[i] == changed && ff.Skipped == SkipNone {
					defs[i] = st.add(definitionsOf(ff))
				}
			}
		})
	}
	var todo []int
	for i := range paths {
		if state[i] == changed {
			todo = append(todo, i)
		}
	}
	patch, err := store.BeginPatch(ctx)
	if err != nil {
		return sum, false, fmt.Errorf("syntax: %w", err)
	}
	defer patch.Abort()
	// The documents to be replaced are read into the store's cache beside
	// their extraction: the patch replaces them one at a time.
	var warming sync.WaitGroup
	warmCtx, stopWarming := context.WithCancel(ctx)
	defer func() { stopWarming(); warming.Wait() }()
	warm := func(which []int) {
		ps := make([]string, len(which))
		for k, i := range which {
			ps[k] = paths[i]
		}
		warming.Go(func() { patch.Warm(warmCtx, ps) })
	}
	warm(todo)
	if err := extract(todo); err != nil {
		return sum, false, err
	}
	marked := map[uint32]struct{}{}
	mark := func(k uint32) { marked[k] = struct{}{} }
	// The file's indexes serve when every changed file defines what it
	// defined, in the same order, and no file gone defined anything:
	// the table is then the one they index, each changed file's run its
	// old one.
	reuse := names != nil
	for i, p := range paths {
		switch state[i] {
		case same:
			defs[i] = old[p]
		case changed:
			was, is := st.run(old[p]), st.run(defs[i])
			changedKeys(was, is, mark)
			if slices.Equal(was, is) {
				defs[i] = old[p]
			} else {
				reuse = false
			}
		}
	}
	for _, p := range deleted {
		changedKeys(st.run(old[p]), nil, mark)
		if r := old[p]; r[1] > r[0] {
			reuse = false
		}
	}
	clear(old)

	// The documents a change reaches.
	resolve := todo
	if len(marked) > 0 {
		var reached []int
		for i, p := range paths {
			if d := base[p]; state[i] == same && d.rec.looksUp(marked) {
				reached = append(reached, i)
			}
		}
		if len(todo)+len(reached)+len(deleted) > limit {
			return sum, false, nil
		}
		warm(reached)
		if err := extract(reached); err != nil {
			return sum, false, err
		}
		resolve = append(resolve, reached...)
	}

	// Resolve them against the whole table and patch the generation.
	sum = IndexSummary{Files: plan.listed, Skipped: map[SkipReason]int{}, EdgesByReason: map[string]int{}, Languages: map[string]int{},
		Incremental: true, Hashed: int(hashed.Load()), Changed: len(todo), Resolved: len(resolve), Deleted: len(deleted)}
	maps.Copy(sum.Skipped, plan.skipped)
	for i, p := range paths {
		switch {
		case state[i] == unreadable:
			sum.Unreadable++
		case extracted[i]:
			countFile(&sum, kinds[i].skipped, kinds[i].language)
		default:
			countFile(&sum, base[p].rec.skipped, base[p].language)
		}
	}
	sum.Cached = int(cached.Load())
	if !reuse || len(marked) > 0 {
		names = newNameTable(st, defs)
	}
	rsv := newResolver(names, nil, nil)
	rsv.reach = plan.goReach()
	var mu sync.Mutex
	next.Store(0)
	var written atomic.Int64
	writtenStates := make([]docState, len(resolve))
	err = parallel(ctx, plan.workers, func(ctx context.Context) error {
		rd := spillReader{sp: sp, opts: plan.extractorOptions(opts)}
		defer rd.close()
		for {
			k := int(next.Add(1) - 1)
			if k >= len(resolve) {
				return nil
			}
			i := resolve[k]
			f, err := rd.read(ctx, records[i], paths[i])
			if err != nil {
				return err
			}
			df, err := resolveRecorded(ctx, rsv, f, plan.stats[i], asked[i])
			if err != nil {
				return err
			}
			if err := patch.PutDocument(ctx, df); err != nil {
				return fmt.Errorf("syntax: writing %s: %w", df.Document.Path, err)
			}
			writtenStates[k] = docState{hash: strings.Clone(df.Document.ContentHash), language: strings.Clone(df.Document.Language), lookups: string(df.Lookups)}
			mu.Lock()
			for _, e := range df.Edges {
				sum.EdgesByReason[e.Reason]++
			}
			mu.Unlock()
			if opts.Progress != nil {
				opts.Progress(IndexProgress{Phase: "resolve", Done: int(written.Add(1)), Total: len(resolve)})
			}
		}
	})
	if err != nil {
		return sum, false, err
	}
	for _, p := range deleted {
		if err := patch.DeleteDocument(ctx, p); err != nil {
			return sum, false, fmt.Errorf("syntax: %w", err)
		}
	}
	resolved := make([]bool, len(paths))
	for _, i := range resolve {
		resolved[i] = true
	}
	// The documents' states as the patch leaves them, for the next index.
	for i, p := range paths {
		if restat[i] && state[i] == same && !resolved[i] {
			d := base[p]
			b := d.rec.restat(plan.stats[i])
			if err := patch.PutLookups(p, b); err != nil {
				return sum, false, fmt.Errorf("syntax: %w", err)
			}
			base[p] = docState{hash: d.hash, language: d.language, lookups: string(b)}
		}
	}
	for _, p := range deleted {
		delete(base, p)
	}
	for k, i := range resolve {
		base[paths[i]] = writtenStates[k]
	}
	// The table resolved against is the next index's: the one read, when
	// no definition changed, else written anew (no error if it cannot be:
	// the next index reads the store instead).
	nm := indexManifest(opts, sum, start.UTC())
	token, keepTable := m.Extra[extraDefTable], fromTable && len(marked) == 0
	if !keepTable {
		token = newFileToken()
	}
	nm.Extra[extraDefTable] = token
	var pending []*pendingFile // written while the patch commits
	if dir, ok := defTableDir(store); ok {
		if !keepTable {
			pending = append(pending, startDefTable(dir, token, st, paths, defs, names))
		}
		statesToken := newFileToken()
		nm.Extra[extraDocStates] = statesToken
		pending = append(pending, startDocStates(dir, statesToken, base))
	}
	if err := patch.Commit(ctx, nm); err != nil {
		for _, p := range pending {
			p.discard()
		}
		return sum, false, fmt.Errorf("syntax: committing the changes to generation %d: %w", patch.Generation(), err)
	}
	sum.Generation = patch.Generation()
	for _, p := range pending {
		_ = p.install()
	}
	if r, err := store.Reader(); err == nil {
		if m, ok, err := r.Manifest(graph.Base); err == nil && ok {
			sum.Symbols, sum.Occurrences, sum.Edges = m.Symbols, m.Occurrences, m.Edges
		}
		_ = r.Close()
	}
	sum.Duration = time.Since(start)
	return sum, true, nil
}

// keepChanged bounds the bytes of changed files an incremental index
// keeps from hashing them to extracting them; the others are read again.
const keepChanged = 32 << 20

// fileKind is what a summary counts of an extracted file.
type fileKind struct {
	skipped  SkipReason
	language string
}

// countFile counts one file in a summary: indexed in its language, or
// skipped for its reason.
func countFile(sum *IndexSummary, skipped SkipReason, language string) {
	if skipped != SkipNone {
		sum.Skipped[skipped]++
		return
	}
	sum.Indexed++
	sum.Languages[language]++
}

// storeDefTable reads the table of definitions of r's base generation,
// whose manifest is m, from the store: every document's symbols, package
// and module symbols left out.
func storeDefTable(ctx context.Context, r *graph.Reader, m graph.Manifest) (defTable, error) {
	st := newDefStore()
	st.reserve(m.Symbols)
	runs := make(map[string][2]int32, m.Documents)
	var doc string
	lo := int32(-1)
	err := r.BaseSymbols(ctx, func(path string, s graph.Symbol) error {
		if path != doc {
			if lo >= 0 {
				runs[doc] = [2]int32{lo, st.len()}
			}
			doc, lo = strings.Clone(path), -1
		}
		if s.Kind != "package" && s.Kind != "module" {
			d := definitionOf(&s)
			if i := st.addOne(&d); lo < 0 {
				lo = i
			}
		}
		return nil
	})
	if lo >= 0 {
		runs[doc] = [2]int32{lo, st.len()}
	}
	return defTable{st: st, runs: runs}, err
}
