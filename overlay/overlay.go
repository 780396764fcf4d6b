package overlay

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/rootfs"
	"github.com/lspgraph/lspgraph/syntax"
)

// DefaultDebounce is how long an edited buffer waits before re-extraction.
const DefaultDebounce = 200 * time.Millisecond

// StateFile is the record's file name inside a store directory.
const StateFile = "overlay.state"

// Options configure an Overlay.
type Options struct {
	// Root is the workspace root (made absolute).
	Root string
	// StatePath is where the record is kept between processes ("": in
	// memory only).
	StatePath string
	// Debounce delays buffer re-extraction (DefaultDebounce if zero).
	Debounce time.Duration
	// Logf reports errors of debounced buffer syncs (nil: dropped).
	Logf func(format string, args ...any)
}

// Overlay keeps a store's live layer in step with the work tree and the
// editor's buffers. Its methods are safe for concurrent use.
type Overlay struct {
	store *graph.Store
	opts  Options
	fs    *rootfs.Root // every work-tree read goes through it

	ctx    context.Context // for debounced syncs; cancelled by Close
	cancel context.CancelFunc

	mu      sync.Mutex // serializes syncs; guards everything below
	x       *syntax.Extractor
	rec     *record
	changes []freshness.Change  // from the last full Sync
	synced  bool                // changes is valid
	look    *freshness.WorkTree // the look SyncWith was given, during it
	saved   []byte              // a digest of the record as last written to StatePath
	buffers map[string][]byte   // open editor buffers
	pending map[string]bool     // buffers edited since their last extraction
	timer   *time.Timer
	names   nameCache // what resolving against the graph looked up, kept across syncs
}

// record is what the live layer was derived from.
type record struct {
	Version    int
	BaseGen    uint64
	BaseCommit string
	// BaseFinished is when the base generation was last written: an
	// incremental index (graph.BasePatch) changes a generation in place,
	// keeping its number.
	BaseFinished time.Time
	Docs         map[string]*docState
	// Uses maps every workspace document at its base content to the names
	// it uses; built on demand, valid for BaseGen.
	Uses map[string][]string
}

const recordVersion = 3

// docState is one live document the overlay wrote.
type docState struct {
	Hash      string // content hash of the text the facts derive from; "" for a tombstone
	Deleted   bool
	Buffer    bool
	Dependent bool     // unchanged, live only because names it uses changed
	LSP       bool     // left to the language server's facts
	Defs      []defKey // the definitions it contributes now
	BaseDefs  []defKey // the definitions its base version contributes
	Uses      []string // the names it uses now
}

// defKey is the part of a definition that resolution in other documents
// depends on. The defining document is not part of it: it matters only to
// the same-file rule, that is to the defining documents themselves, which
// changed anyway. A field's signature is (x.f.M resolves through the
// declared type of f); a function's is not, so that editing a signature
// does not re-resolve every caller.
type defKey struct {
	Name, ID, Kind, Language, Package, FieldType string
}

// SyncStats count what a sync did.
type SyncStats struct {
	Changed    int `json:"changed"`    // documents that differ from the base (work tree and buffers)
	Live       int `json:"live"`       // documents the overlay owns after the sync
	Extracted  int `json:"extracted"`  // documents (re-)extracted and resolved
	Dependents int `json:"dependents"` // unchanged documents re-resolved because names they use changed
	Tombstones int `json:"tombstones"` // deleted documents hidden (symbolic links included)
	Outside    int `json:"outside"`    // changed paths that are symbolic links leading outside the root: never read, hidden
	Returned   int `json:"returned"`   // documents given back to the base layer
	Kept       int `json:"kept"`       // documents left as they were
	// Indexed counts the documents changed since the base commit that the
	// base holds as they are (a syntax index of the work tree read them
	// after): none of the above.
	Indexed int `json:"indexed"`
}

// New returns an overlay on store. Call Close when done.
func New(store *graph.Store, opts Options) (*Overlay, error) {
	fsys, err := rootfs.Open(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("overlay: %w", err)
	}
	root := fsys.Dir()
	opts.Root = root
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	ctx, cancel := context.WithCancel(context.Background())
	o := &Overlay{
		store:   store,
		opts:    opts,
		fs:      fsys,
		ctx:     ctx,
		cancel:  cancel,
		x:       syntax.NewExtractor(syntax.Options{Root: root, FS: fsys}),
		buffers: map[string][]byte{},
		pending: map[string]bool{},
	}
	if opts.StatePath != "" {
		o.rec = loadRecord(opts.StatePath)
	}
	return o, nil
}

// Close stops pending buffer syncs and releases the parsers and the root.
func (o *Overlay) Close() error {
	o.cancel()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.timer != nil {
		o.timer.Stop()
	}
	if o.x != nil {
		o.x.Close()
		o.x = nil
		return o.fs.Close()
	}
	return nil
}

// Sync is a one-shot sync for the command line: the record is kept in the
// store's directory.
func Sync(ctx context.Context, store *graph.Store, root string) (SyncStats, error) {
	o, err := New(store, Options{Root: root, StatePath: filepath.Join(store.Dir(), StateFile)})
	if err != nil {
		return SyncStats{}, err
	}
	defer o.Close()
	return o.Sync(ctx)
}

// Sync lists the work tree's changes since the base commit and brings the
// live layer up to date with them and with the open buffers.
func (o *Overlay) Sync(ctx context.Context) (SyncStats, error) {
	return o.SyncWith(ctx, nil)
}

// SyncWith is Sync with a look at the work tree already taken
// (freshness.Look with the base layer's commit), so that an answer's sync
// and its freshness block share one; nil takes one.
func (o *Overlay) SyncWith(ctx context.Context, w *freshness.WorkTree) (SyncStats, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ctx.Err() != nil {
		return SyncStats{}, errors.New("overlay: closed")
	}
	o.look = w
	defer func() { o.look = nil }()
	return o.sync(ctx, true)
}

// Flush applies buffer edits still waiting for their debounce, with the
// work-tree changes of the last Sync.
func (o *Overlay) Flush(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ctx.Err() != nil {
		return errors.New("overlay: closed")
	}
	if len(o.pending) == 0 {
		return nil
	}
	_, err := o.sync(ctx, !o.synced)
	return err
}

// BufferChanged records an editor buffer's full text (path relative to the
// root); it is extracted after the debounce.
func (o *Overlay) BufferChanged(path string, text []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buffers[path] = bytes.Clone(text)
	o.pending[path] = true
	o.schedule()
}

// BufferClosed returns a document to its on-disk state.
func (o *Overlay) BufferClosed(path string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.buffers[path]; !ok {
		return
	}
	delete(o.buffers, path)
	o.pending[path] = true
	o.schedule()
}

// Dirty returns the open buffers whose text differs from the file, sorted.
func (o *Overlay) Dirty() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	if o.rec != nil {
		for p, d := range o.rec.Docs {
			if d.Buffer {
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// schedule (re)starts the debounce timer. The caller holds o.mu.
func (o *Overlay) schedule() {
	if o.timer != nil {
		o.timer.Stop()
	}
	o.timer = time.AfterFunc(o.opts.Debounce, func() {
		if err := o.Flush(o.ctx); err != nil && o.ctx.Err() == nil && o.opts.Logf != nil {
			o.opts.Logf("overlay: syncing edited buffers: %v", err)
		}
	})
}

// want is the desired live state of one changed document.
type want struct {
	deleted bool
	buffer  bool
	text    []byte
	hash    string
}

// sync does the work of Sync and Flush. The caller holds o.mu.
func (o *Overlay) sync(ctx context.Context, refresh bool) (SyncStats, error) {
	var st SyncStats
	r, err := o.store.Reader()
	if err != nil {
		return st, fmt.Errorf("overlay: %w", err)
	}
	base, haveBase, err := r.Manifest(graph.Base)
	gen := r.BaseGeneration()
	_ = r.Close()
	if err != nil {
		return st, fmt.Errorf("overlay: reading the base manifest: %w", err)
	}
	if !haveBase || gen == 0 {
		return st, nil // nothing to overlay; freshness reports the missing base
	}
	if o.rec == nil || o.rec.Version != recordVersion || o.rec.BaseGen != gen || o.rec.BaseCommit != base.Commit ||
		!o.rec.BaseFinished.Equal(base.Finished) {
		// Unknown provenance: start again from the base. Over the same
		// base, the language server's facts stay (they describe texts,
		// not the base); a new base replaces everything.
		keepLSP := o.rec == nil || (o.rec.BaseGen == gen && o.rec.BaseFinished.Equal(base.Finished))
		if err := o.resetLive(ctx, keepLSP); err != nil {
			return st, err
		}
		o.rec = &record{Version: recordVersion, BaseGen: gen, BaseCommit: base.Commit, BaseFinished: base.Finished, Docs: map[string]*docState{}}
	}
	if refresh {
		o.changes = nil
		if base.Commit != "" {
			ch, err := o.changesSince(ctx, base.Commit)
			switch {
			case errors.Is(err, freshness.ErrNotGit), errors.Is(err, freshness.ErrUnknownBase):
				// Only buffers can be overlaid; freshness says why.
			case err != nil:
				return st, fmt.Errorf("overlay: %w", err)
			default:
				o.changes = ch
			}
		}
		o.synced = true
	}
	wants, err := o.wanted(&st)
	if err != nil {
		return st, err
	}
	if base.Tool == syntax.Tool {
		if err := o.dropIndexed(ctx, wants, &st); err != nil {
			return st, err
		}
	}
	st.Changed = len(wants)
	clear(o.pending)
	if err := o.apply(ctx, base, wants, &st); err != nil {
		return st, err
	}
	if o.opts.StatePath != "" {
		saved, err := saveRecord(o.opts.StatePath, o.rec, o.saved)
		if err != nil {
			return st, err
		}
		o.saved = saved
	}
	return st, nil
}

// resetLive removes the live layer's documents, those from the language
// server excepted when keepLSP is set.
func (o *Overlay) resetLive(ctx context.Context, keepLSP bool) error {
	if !keepLSP {
		if err := o.store.ClearLayer(ctx, graph.Live); err != nil {
			return fmt.Errorf("overlay: clearing the live layer: %w", err)
		}
		return nil
	}
	r, err := o.store.Reader()
	if err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	var drop []string
	for _, p := range r.LiveDocuments() {
		d, ok, err := r.Document(ctx, p)
		if err != nil {
			_ = r.Close()
			return fmt.Errorf("overlay: reading live %s: %w", p, err)
		}
		if !ok || d.Source != graph.SourceLSP {
			drop = append(drop, p)
		}
	}
	_ = r.Close()
	for _, p := range drop {
		if err := o.store.DeleteDocument(ctx, graph.Live, p); err != nil {
			return fmt.Errorf("overlay: removing live %s: %w", p, err)
		}
	}
	return nil
}

// wanted lists the documents that differ from the base now, with their text.
// Only documents a syntax grammar handles take part. A changed path that is
// a symbolic link is hidden like a deleted file: the index records a link
// to a file inside the root under that file's own path, and never reads
// one that leads outside (counted in st.Outside).
func (o *Overlay) wanted(st *SyncStats) (map[string]*want, error) {
	wants := map[string]*want{}
	read := func(p string) *want {
		if text, ok := o.buffers[p]; ok {
			disk, err := o.readDisk(p)
			return &want{text: text, hash: lang.HashContent(text), buffer: err != nil || !bytes.Equal(disk, text)}
		}
		text, err := o.readDisk(p)
		if err != nil {
			if errors.Is(err, rootfs.ErrOutside) {
				st.Outside++
			}
			return &want{deleted: true}
		}
		return &want{text: text, hash: lang.HashContent(text)}
	}
	for _, c := range o.changes {
		if c.OldPath != "" && inWorkspace(c.OldPath) {
			if _, open := o.buffers[c.OldPath]; !open {
				wants[c.OldPath] = &want{deleted: true}
			}
		}
		if !inWorkspace(c.Path) {
			continue
		}
		if c.Status == "D" {
			if _, open := o.buffers[c.Path]; !open {
				wants[c.Path] = &want{deleted: true}
				continue
			}
		}
		wants[c.Path] = read(c.Path)
	}
	for p := range o.buffers {
		if _, ok := wants[p]; ok || !inWorkspace(p) {
			continue
		}
		if w := read(p); w.buffer {
			wants[p] = w
		}
	}
	return wants, nil
}

// dropIndexed leaves out of wants the documents the base layer holds as
// they are (freshness.IndexedAsIs): changed since the base commit, but a
// syntax index of the work tree read them after, so that the base answers
// for them as the overlay would. After `lspgraph index` nothing is
// extracted again, however many files differ from HEAD.
func (o *Overlay) dropIndexed(ctx context.Context, wants map[string]*want, st *SyncStats) error {
	r, err := o.store.Reader()
	if err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	defer func() { _ = r.Close() }()
	bv := r.BaseView()
	for p, w := range wants {
		if w.deleted || w.buffer {
			continue
		}
		d, ok, err := bv.Document(ctx, p)
		if err != nil {
			return fmt.Errorf("overlay: reading the base document %s: %w", p, err)
		}
		if ok && freshness.IndexedAsIs(d) && d.ContentHash == w.hash {
			delete(wants, p)
			st.Indexed++
		}
	}
	return nil
}

// errLink refuses a changed path that is a symbolic link to a file inside
// the root: that file is a document of its own.
var errLink = errors.New("overlay: a symbolic link, not a document")

// readDisk returns the text of a work-tree document: a regular file
// reached without a symbolic link. Errors wrap rootfs.ErrOutside for a
// link leading outside the root.
func (o *Overlay) readDisk(p string) ([]byte, error) {
	real, err := o.fs.RealPath(p)
	if err != nil {
		return nil, err
	}
	if real != p {
		return nil, fmt.Errorf("%w: %s", errLink, p)
	}
	return o.fs.ReadFile(p)
}

// apply brings the live layer to wants. The caller holds o.mu.
func (o *Overlay) apply(ctx context.Context, base graph.Manifest, wants map[string]*want, st *SyncStats) error {
	rec := o.rec
	r, err := o.store.Reader()
	if err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	defer func() { _ = r.Close() }()
	pm := &preciseMap{source: preciseSource(base), defs: map[string]map[string]string{}, origin: map[string]string{}}
	for _, c := range o.changes {
		if c.OldPath != "" {
			pm.origin[c.Path] = c.OldPath
		}
	}

	// What every changed document defines now, and before.
	extracted := map[string]*syntax.FileFacts{}
	extract := func(p string, text []byte) (*syntax.FileFacts, error) {
		if f, ok := extracted[p]; ok {
			return f, nil
		}
		f, err := o.x.File(ctx, p, text)
		if err != nil {
			return nil, fmt.Errorf("overlay: extracting %s: %w", p, err)
		}
		extracted[p] = f
		return f, nil
	}
	delta := map[string]bool{} // documents whose content differs from what the live layer (or base) holds
	oldDefs := map[string][]defKey{}
	newDefs := map[string][]defKey{}
	newState := map[string]*docState{}
	for p, w := range wants {
		prev := rec.Docs[p]
		ns := &docState{Deleted: w.deleted, Buffer: w.buffer, Hash: w.hash}
		if prev != nil {
			ns.BaseDefs = prev.BaseDefs
		} else {
			syms, err := r.BaseDocumentSymbols(ctx, p)
			if err != nil {
				return fmt.Errorf("overlay: reading the base symbols of %s: %w", p, err)
			}
			ns.BaseDefs = keysOf(syms)
		}
		switch {
		case w.deleted:
		case prev != nil && !prev.Dependent && !prev.Deleted && prev.Hash == ns.Hash:
			// Same text as last time: same definitions and uses.
			ns.Defs, ns.Uses = prev.Defs, prev.Uses
		default:
			f, err := extract(p, w.text)
			if err != nil {
				return err
			}
			dm, err := pm.defMap(ctx, r, f)
			if err != nil {
				return err
			}
			ns.Defs = keysOf(mapSymbols(f.Symbols, dm))
			ns.Uses = usedNames(f)
		}
		newState[p] = ns
		if prev == nil {
			delta[p] = true
			oldDefs[p] = ns.BaseDefs
		} else {
			// A dependent that changed, or a change of text, deletion or
			// buffer state (the digest differs).
			delta[p] = prev.Dependent || prev.Hash != ns.Hash || prev.Deleted != ns.Deleted || prev.Buffer != ns.Buffer
			oldDefs[p] = prev.Defs
		}
		newDefs[p] = ns.Defs
	}
	// Documents that return to the base: their definitions become the base's.
	for p, prev := range rec.Docs {
		if _, ok := wants[p]; ok || prev.Dependent {
			continue
		}
		delta[p] = true
		oldDefs[p] = prev.Defs
		newDefs[p] = prev.BaseDefs
	}
	changedNames := diffNames(oldDefs, newDefs, delta)

	// Names whose definitions differ from the base's: their users are
	// dependents when the base is a syntax index.
	baseNames := map[string]bool{}
	baseDefs, curDefs := map[string][]defKey{}, map[string][]defKey{}
	all := map[string]bool{}
	for p, ns := range newState {
		baseDefs[p], curDefs[p] = ns.BaseDefs, ns.Defs
		all[p] = true
	}
	baseNames = diffNames(baseDefs, curDefs, all)
	dependents := map[string]bool{}
	if base.Tool == syntax.Tool && len(baseNames) > 0 {
		uses, err := o.useIndex(ctx)
		if err != nil {
			return err
		}
		for p, names := range uses {
			if _, changed := wants[p]; changed {
				continue
			}
			for _, n := range names {
				if baseNames[n] {
					dependents[p] = true
					break
				}
			}
		}
	}

	// 1. Give back what is no longer live.
	for p := range rec.Docs {
		if _, ok := wants[p]; ok || dependents[p] {
			continue
		}
		if err := o.store.DeleteDocument(ctx, graph.Live, p); err != nil {
			return fmt.Errorf("overlay: returning %s to the base: %w", p, err)
		}
		delete(rec.Docs, p)
		st.Returned++
	}
	// 2. Tombstones.
	for p, ns := range newState {
		if !ns.Deleted {
			continue
		}
		if prev := rec.Docs[p]; prev == nil || !prev.Deleted {
			tomb := graph.DocumentFacts{Document: graph.Document{Path: p, Language: lang.Of(p), Source: graph.SourceSyntax, Digest: freshness.DigestDeleted}}
			if err := o.store.PutDocument(ctx, graph.Live, tomb); err != nil {
				return fmt.Errorf("overlay: hiding deleted %s: %w", p, err)
			}
		} else {
			st.Kept++
		}
		rec.Docs[p] = ns
		st.Tombstones++
	}
	// 3. What to (re-)resolve: changed documents whose text moved, new
	// dependents, and any live document using a name whose definitions
	// changed.
	uses := func(names []string) bool {
		for _, n := range names {
			if changedNames[n] {
				return true
			}
		}
		return false
	}
	var jobs []resolveJob
	for p, ns := range newState {
		if ns.Deleted {
			continue
		}
		prev := rec.Docs[p]
		if prev != nil && !delta[p] && !uses(ns.Uses) {
			st.Kept++
			continue
		}
		if d, ok, err := r.Document(ctx, p); err != nil {
			return fmt.Errorf("overlay: reading %s: %w", p, err)
		} else if ok && d.Layer == graph.Live && d.Source == graph.SourceLSP && d.ContentHash == ns.Hash {
			ns.LSP = true // the language server's facts for this very text
			rec.Docs[p] = ns
			st.Kept++
			continue
		}
		jobs = append(jobs, resolveJob{p, ns, wants[p].text})
	}
	for p := range dependents {
		prev := rec.Docs[p]
		if prev != nil && prev.Dependent && !uses(prev.Uses) {
			st.Kept++
			continue
		}
		text, err := o.fs.ReadFile(p)
		if err != nil {
			return fmt.Errorf("overlay: reading dependent %s: %w", p, err)
		}
		ns := &docState{Dependent: true, Hash: lang.HashContent(text)}
		jobs = append(jobs, resolveJob{p, ns, text})
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].path < jobs[j].path })
	if len(jobs) > 0 {
		if err := o.resolve(ctx, jobs, extract, pm, st); err != nil {
			return err
		}
	}
	st.Dependents = len(dependents)
	st.Live = len(rec.Docs)
	return o.setLiveManifest(ctx, st)
}

// resolveJob is one document to extract, resolve and write.
type resolveJob struct {
	path  string
	state *docState
	text  []byte
}

// resolve extracts the jobs' documents and resolves them together against
// the graph as it is after the give-backs and tombstones, then writes them.
func (o *Overlay) resolve(ctx context.Context, jobs []resolveJob, extract func(string, []byte) (*syntax.FileFacts, error), pm *preciseMap, st *SyncStats) error {
	r, err := o.store.Reader()
	if err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	defer func() { _ = r.Close() }()
	files := make([]*syntax.FileFacts, len(jobs))
	for i, j := range jobs {
		f, err := extract(j.path, j.text)
		if err != nil {
			return err
		}
		files[i] = f
		if j.state.Dependent {
			j.state.Defs = keysOf(f.Symbols)
			j.state.BaseDefs = j.state.Defs
			j.state.Uses = usedNames(f)
		}
	}
	if err := o.names.at(ctx, r); err != nil {
		return err
	}
	find := o.names.finder(r)
	var lookup syntax.Lookup = find
	var aliases *aliasLookup
	if pm.source != "" {
		aliases = newAliasLookup(find, pm.source)
		lookup = aliases
	}
	res := syntax.NewResolver(files, lookup)
	for i, j := range jobs {
		f := files[i]
		var df graph.DocumentFacts
		if f.Skipped != syntax.SkipNone {
			df = graph.DocumentFacts{Document: f.Document}
		} else {
			df, err = res.Document(ctx, f)
			if err != nil {
				return fmt.Errorf("overlay: resolving %s: %w", j.path, err)
			}
			if pm.source != "" {
				dm, err := pm.defMap(ctx, r, f)
				if err != nil {
					return err
				}
				be, err := pm.baseEdges(ctx, r, j.path)
				if err != nil {
					return err
				}
				toPrecise(&df, dm, aliases, pm.source, be)
				pm.baseNames(&df)
			}
		}
		df.Document.ContentHash = j.state.Hash
		if j.state.Buffer {
			df.Document.Digest = freshness.DigestBuffer + j.state.Hash
		} else {
			df.Document.Digest = freshness.DigestDisk + j.state.Hash
		}
		if err := o.store.PutDocument(ctx, graph.Live, df); err != nil {
			return fmt.Errorf("overlay: writing %s: %w", j.path, err)
		}
		o.rec.Docs[j.path] = j.state
		st.Extracted++
	}
	return nil
}

// setLiveManifest records the live layer's manifest.
func (o *Overlay) setLiveManifest(ctx context.Context, st *SyncStats) error {
	var head string
	if o.look != nil {
		head = o.look.Head
	} else if h, err := freshness.Head(ctx, o.opts.Root); err == nil {
		head = h
	}
	extra := map[string]int{"dependents": st.Dependents, "tombstones": st.Tombstones}
	buffers := 0
	for _, d := range o.rec.Docs {
		if d.Buffer {
			buffers++
		}
	}
	extra["buffers"] = buffers
	now := time.Now().UTC()
	m := graph.Manifest{
		Layer:       graph.Live,
		Commit:      head,
		Root:        o.opts.Root,
		Tool:        syntax.Tool,
		ToolVersion: syntax.Version,
		State:       graph.StateComplete,
		Documents:   len(o.rec.Docs),
		Extra:       extra,
		Started:     now,
		Finished:    now,
	}
	if o.manifestUnchanged(m) {
		return nil // a sync that changed nothing writes nothing
	}
	if err := o.store.SetManifest(ctx, m); err != nil {
		return fmt.Errorf("overlay: recording the live manifest: %w", err)
	}
	return nil
}

// manifestUnchanged reports whether the live layer's manifest already says
// what m says, its times aside.
func (o *Overlay) manifestUnchanged(m graph.Manifest) bool {
	r, err := o.store.Reader()
	if err != nil {
		return false
	}
	defer r.Close()
	old, ok, err := r.Manifest(graph.Live)
	if err != nil || !ok {
		return false
	}
	return old.Commit == m.Commit && old.Root == m.Root && old.Tool == m.Tool && old.ToolVersion == m.ToolVersion &&
		old.State == m.State && old.Documents == m.Documents && maps.Equal(old.Extra, m.Extra)
}

// useIndex returns, for every workspace document, the names it uses at its
// base content, extracting the workspace once per base generation.
func (o *Overlay) useIndex(ctx context.Context) (map[string][]string, error) {
	if o.rec.Uses != nil {
		return o.rec.Uses, nil
	}
	files, err := syntax.ListFiles(ctx, o.opts.Root)
	if err != nil {
		return nil, fmt.Errorf("overlay: %w", err)
	}
	changed := map[string]bool{}
	for _, c := range o.changes {
		changed[c.Path] = true
	}
	uses := map[string][]string{}
	for _, p := range files {
		var text []byte
		if changed[p] {
			// Its base content: the use index describes the base.
			out, err := gitShow(ctx, o.opts.Root, o.rec.BaseCommit, p)
			if err != nil {
				continue // not in the base
			}
			text = out
		} else if text, err = o.fs.ReadFile(p); err != nil {
			continue
		}
		f, err := o.x.File(ctx, p, text)
		if err != nil {
			return nil, fmt.Errorf("overlay: extracting %s: %w", p, err)
		}
		if f.Skipped == syntax.SkipNone {
			uses[p] = usedNames(f)
		}
	}
	o.rec.Uses = uses
	return uses, nil
}

// keysOf returns the definitions' keys, sorted.
func keysOf(syms []graph.Symbol) []defKey {
	out := make([]defKey, 0, len(syms))
	for _, s := range syms {
		k := defKey{Name: s.DisplayName, ID: s.ID, Kind: s.Kind, Language: s.Language, Package: s.Package}
		if s.Kind == "field" {
			k.FieldType = s.Signature
		}
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return lessKey(out[i], out[j]) })
	return out
}

func lessKey(a, b defKey) bool {
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return fmt.Sprint(a) < fmt.Sprint(b)
}

// diffNames returns the names whose definitions differ between before and
// after, over the documents in which.
func diffNames(before, after map[string][]defKey, which map[string]bool) map[string]bool {
	count := map[defKey]int{}
	for p := range which {
		for _, k := range before[p] {
			count[k]--
		}
		for _, k := range after[p] {
			count[k]++
		}
	}
	names := map[string]bool{}
	for k, n := range count {
		if n != 0 {
			names[k.Name] = true
		}
	}
	return names
}

// usedNames returns the names a file looks up when it is resolved, sorted
// and unique.
func usedNames(f *syntax.FileFacts) []string {
	set := map[string]bool{}
	for _, u := range f.Uses {
		set[u.Name] = true
		for _, m := range u.Members {
			set[m] = true // an implementing method is matched by name
		}
	}
	for _, imp := range f.Imports {
		if imp.Name != "" {
			set[imp.Name] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// gitShow returns a file's content at a commit.
func gitShow(ctx context.Context, root, commit, p string) ([]byte, error) {
	if commit == "" {
		return nil, errors.New("no commit")
	}
	return runGit(ctx, root, "show", commit+":./"+p)
}

// loadRecord reads a record; a missing or unreadable one is nil.
func loadRecord(path string) *record {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var rec record
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&rec); err != nil || rec.Docs == nil {
		return nil
	}
	return &rec
}

// saveRecord writes a record atomically, mode 0600 like the store's files.
func saveRecord(path string, rec *record, last []byte) ([]byte, error) {
	// JSON orders map keys, so equal records have equal digests (gob
	// writes maps in iteration order).
	digest, err := json.Marshal(rec)
	if err != nil {
		return last, fmt.Errorf("overlay: encoding the record: %w", err)
	}
	if bytes.Equal(digest, last) {
		return last, nil // written already
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(rec); err != nil {
		return last, fmt.Errorf("overlay: encoding the record: %w", err)
	}
	if err := graph.WritePrivateFile(path, buf.Bytes()); err != nil {
		return last, fmt.Errorf("overlay: writing the record: %w", err)
	}
	return digest, nil
}

// inWorkspace reports whether a changed path is one the syntax index
// covers: a file of a language lspgraph knows (each has a grammar) outside
// the directories syntax.ListFiles leaves out (vendor/, node_modules/,
// hidden ones).
func inWorkspace(p string) bool {
	if lang.Of(p) == "" {
		return false
	}
	parts := strings.Split(p, "/")
	for _, d := range parts[:len(parts)-1] {
		if syntax.SkipDir(d) {
			return false
		}
	}
	return true
}

// changesSince lists the work tree's changes since base: from the look
// SyncWith was given when it was taken for that base, else with a new one.
func (o *Overlay) changesSince(ctx context.Context, base string) ([]freshness.Change, error) {
	if w := o.look; w != nil && w.Base == base {
		return w.Result()
	}
	return freshness.Changes(ctx, o.opts.Root, base)
}
