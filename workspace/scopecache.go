package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/cachefile"
	"github.com/lspgraph/lspgraph/scope"
)

// sourcesFile names the file in the store's directory that keeps what
// discovery read of each source file (scope.SourceCache.Save).
const sourcesFile = "discovered-sources"

// observationsFile names the file in the store's directory that keeps what
// the last analysis observed of each base document
// (scope.Analysis.SaveObservations), for the next process's analysis of
// the same base layer and workspace.
const observationsFile = "observed-dependencies"

// scopeCache keeps the scope analysis between requests. Discovery reads
// the work tree's manifests and Go imports; the analysis maps the graph's
// documents to packages. So the analysis holds while the work tree's state
// (HEAD, and each changed or untracked file with its size and modification
// time, from the session's look) and the store's base layer are those it
// was computed for. Outside a git work tree nothing is kept. Discovery
// itself keeps what it read of each source file (scope.SourceCache), and
// its listing of the tree with the state the look saw: the tree is
// walked again only when HEAD moved (or outside git), and only the
// sources that changed are read.
//
// Between two such requests the live layer changes often (every answer
// the editor's server gives is observed into it), and computing the
// analysis again lists every document of the graph and observes each
// package closure asked for anew: about 190 ms for a context pack on
// GOROOT, against 5 ms brought up to date.
// So while the base generation holds, the kept analysis is brought up to
// date with the documents that changed since (scope.Analysis.Update): the
// live ones (graph.Reader.LiveChangedSince; when the store cannot tell
// which, those live before and those live now) and the base ones a patch
// changed in place (graph.Reader.BaseChangedSince: an incremental index;
// when the store cannot tell which, the analysis is computed again). A work tree that changed
// (a file saved) is discovered again, and the analysis kept when its
// packages are the same (scope.Analysis.UseWorkspace).
type scopeCache struct {
	mu      sync.Mutex // held while an analysis is used: it is not safe for concurrent use
	key     scopeKey
	state   treeState // the work tree state key.tree describes
	version uint64    // the store version the analysis holds for
	live    []string  // the live documents at that version
	a       *scope.Analysis
	sources scope.SourceCache // what discovery read of each source file, for the next discovery
	// sourcesFile, when set, keeps sources on disk (in the store's
	// directory) after each discovery that walked the tree and read
	// sources, and at Close, so that the first discovery of a later
	// process (a command line without a session) reads only the sources
	// that changed since, not all of them: 83 ms on GOROOT, against 19.
	sourcesFile string
	loaded      bool         // sourcesFile was read
	log         *slog.Logger // set with sourcesFile
	// observationsFile, when set, keeps the observations of the last
	// analysis used (observing, of the graph state obsKey, the live
	// documents obsLive left out) when the session closes, if it
	// observed documents since they were read or written (obsSaved): a
	// command line's analysis starts from them, when they are of its
	// base layer and workspace, instead of reading every document of its
	// closure again (half of a context question on GOROOT's source).
	observationsFile string
	observing        *scope.Analysis
	obsKey           string
	obsLive          []string
	obsSaved         int
	// pkgLook and pkgWS are the last discovery by package and the look
	// it was made at, pkgA its analysis of the store at base generation
	// pkgBase and version pkgVersion, when the live layer's documents
	// were pkgLive (see withPackages).
	pkgLook    *freshness.WorkTree
	pkgWS      *scope.Workspace
	pkgA       *scope.Analysis
	pkgBase    uint64
	pkgVersion uint64
	pkgLive    []string
	// obsTook counts the documents whose observations the last analysis
	// took from observationsFile.
	obsTook     int
	hits        int
	updates     int
	rediscovers int
	misses      int
}

// scopeKey is what an analysis is computed anew for: the base generation
// and the work tree's state.
type scopeKey struct {
	base uint64
	tree string
}

// treeState is the work tree state discovery depends on: HEAD, and each
// changed or untracked file with its status, size and modification time.
type treeState struct {
	head  string
	files map[string]treeFile // by path
}

// treeFile is what a look says of one changed file.
type treeFile struct {
	desc    string // status, old path, time and size
	oldPath string // a rename's
}

// lookState returns the state of work tree w and its key; ok is false
// when it cannot be told: outside git, unless the look is one a session's
// watcher vouches for (its number then is the key: a new look, a change).
func lookState(w *freshness.WorkTree) (treeState, string, bool) {
	if w != nil && !w.Git && w.Look != 0 {
		return treeState{}, fmt.Sprintf("look %d", w.Look), true
	}
	if w == nil || !w.Git || w.BaseErr != nil {
		return treeState{}, "", false
	}
	st := treeState{head: w.Head, files: make(map[string]treeFile, len(w.Changes))}
	k := w.Head
	for _, c := range w.Changes {
		d := c.Status + " " + c.OldPath + " " + c.Path
		if fi, err := os.Lstat(filepath.Join(w.Root, filepath.FromSlash(c.Path))); err == nil {
			d += fmt.Sprintf("\x00%d %d", fi.ModTime().UnixNano(), fi.Size())
		}
		st.files[c.Path] = treeFile{d, c.OldPath}
		k += "\x00" + d
	}
	return st, k, true
}

// changedSince returns the paths whose state differs between prev and t
// (a rename's old path with its new one); false when HEAD moved, which
// may have changed any file.
func (t treeState) changedSince(prev treeState) ([]string, bool) {
	if t.head != prev.head || t.files == nil || prev.files == nil {
		return nil, false
	}
	var out []string
	note := func(p string, f treeFile) {
		out = append(out, p)
		if f.oldPath != "" {
			out = append(out, f.oldPath)
		}
	}
	for p, f := range t.files {
		if g, ok := prev.files[p]; !ok || g != f {
			note(p, f)
			if ok {
				note(p, g)
			}
		}
	}
	for p, g := range prev.files {
		if _, ok := t.files[p]; !ok {
			note(p, g)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// with runs fn with the analysis for reader r and work tree w: the kept
// one when it holds, brought up to date with the live layer when only
// that changed, else a new one.
func (c *scopeCache) with(ctx context.Context, root string, r *graph.Reader, w *freshness.WorkTree, fn func(*scope.Analysis) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	state, tree, ok := lookState(w)
	key := scopeKey{r.BaseGeneration(), tree}
	var ws *scope.Workspace // discovered again for a changed work tree
	if ok && c.a != nil && c.key.base == key.base && c.key.tree != key.tree {
		var err error
		if ws, err = c.discoverAt(root, state, ok, false); err != nil {
			return err
		}
		if c.a.UseWorkspace(ws) {
			c.rediscovers++
			c.key.tree, c.state = tree, state
		}
	}
	if ok && c.a != nil && c.key == key {
		if r.Version() == c.version {
			c.hits++
			c.a.UseReader(r)
			return c.use(r, c.a, fn)
		}
		if changed, known := changedSince(r, c.version, c.live); known {
			if err := c.a.Update(ctx, r, changed); err != nil {
				c.a = nil
				return err
			}
			c.updates++
			c.version, c.live = r.Version(), r.LiveDocuments()
			return c.use(r, c.a, fn)
		}
	}
	c.misses++
	if ws == nil {
		var err error
		if ws, err = c.discoverAt(root, state, ok, false); err != nil {
			return err
		}
	}
	a, err := scope.Analyze(ctx, ws, r)
	if err != nil {
		return err
	}
	c.loadObservations(ctx, a, r)
	c.a, c.key, c.state = nil, scopeKey{}, treeState{}
	if ok {
		c.a, c.key, c.state, c.version, c.live = a, key, state, r.Version(), r.LiveDocuments()
	}
	return c.use(r, a, fn)
}

// prepared reports whether the cache holds an analysis.
func (c *scopeCache) prepared() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.a != nil
}

// WarmScope prepares what a session's first context answer otherwise
// builds (with): the work tree discovered by module and the graph's scope
// analysis, once no command is under way. On four GOROOT copies that was
// most of the first answer (868 ms, then 14 ms for the next).
func (s *Session) WarmScope(ctx context.Context) error {
	if err := s.fg.wait(ctx); err != nil {
		return err
	}
	// The watcher's first look, as the first sync takes it: looking
	// with git meanwhile would be one more walk of the tree.
	s.looks.waitStarted(ctx)
	if s.scopes.prepared() {
		return nil // a first answer came first
	}
	w := s.look(ctx)
	r, err := s.reader()
	if err != nil {
		return err
	}
	defer r.Close()
	return s.scopes.with(ctx, s.root, r, w, func(*scope.Analysis) error { return nil })
}

// changedSince returns the documents of r's base generation and live
// layer written since version, live being the live layer's documents at
// version; known is false when the store does not tell.
func changedSince(r *graph.Reader, version uint64, live []string) (changed []string, known bool) {
	patched, known := r.BaseChangedSince(version)
	if !known {
		return nil, false
	}
	changed, known = r.LiveChangedSince(version)
	if !known {
		changed = append(slices.Clone(live), r.LiveDocuments()...)
	}
	return slices.Compact(slices.Sorted(slices.Values(append(changed, patched...)))), true
}

// use runs fn with analysis a of reader r, and notes a as the one whose
// observations are kept at close. The caller holds c.mu.
func (c *scopeCache) use(r *graph.Reader, a *scope.Analysis, fn func(*scope.Analysis) error) error {
	c.observing, c.obsKey, c.obsLive = a, observationsKey(r), r.LiveDocuments()
	return fn(a)
}

// observationsKey names the state of r's graph that observations hold
// for: its base generation and the store's version (any write, the live
// layer's too, can move where a symbol is defined).
func observationsKey(r *graph.Reader) string {
	return fmt.Sprintf("%d/%d", r.BaseGeneration(), r.Version())
}

// loadObservations gives a new analysis of r the observations kept in
// observationsFile, when they are of r's base layer and a's workspace,
// but for r's live documents: of r's state, or of an earlier version of
// its base generation whose changes since the store tells (its records
// of the last writes), but for the documents changed since. The caller
// holds c.mu.
func (c *scopeCache) loadObservations(ctx context.Context, a *scope.Analysis, r *graph.Reader) {
	c.obsSaved, c.obsTook = 0, 0
	if c.observationsFile == "" {
		return
	}
	b, err := os.ReadFile(c.observationsFile)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Warn("the closures' documents are observed again", "err", err)
		}
		return
	}
	live := liveSet(r.LiveDocuments())
	now := observationsKey(r)
	var changed []string // since the observations' state, when earlier
	earlier := false
	accept := func(key string) bool {
		if key == now {
			return true
		}
		var gen, version uint64
		if _, err := fmt.Sscanf(key, "%d/%d", &gen, &version); err != nil || gen != r.BaseGeneration() || version >= r.Version() {
			return false
		}
		// Observed at an earlier version of the same base generation: kept
		// but for the documents written since (a patch, an overlay's
		// sync), as a session keeps its analysis (Analysis.Update). The
		// observations are of base documents not live then, taken for
		// those not live now: a live layer replaced whole since (the
		// overlay's, after a patch) changes none of them.
		base, ok := r.BaseChangedSince(version)
		if !ok {
			return false
		}
		lives, _, ok := r.LiveWritesSince(version)
		if !ok {
			return false
		}
		changed, earlier = slices.Compact(slices.Sorted(slices.Values(append(base, lives...)))), true
		return true
	}
	took, err := a.LoadObservations(b, accept, func(p string) bool { return !live[p] })
	if err == nil && took && earlier {
		err = a.Update(ctx, r, changed)
	}
	if err != nil {
		c.log.Warn("the closures' documents are observed again", "err", err)
		return
	}
	if took {
		c.obsSaved, c.obsTook = a.ObservedDocuments(), a.ObservedDocuments()
		if earlier {
			c.obsSaved = 0 // saved again under the graph's state now
		}
	}
}

// liveSet is a set of the live documents paths.
func liveSet(paths []string) map[string]bool {
	set := make(map[string]bool, len(paths))
	for _, p := range paths {
		set[p] = true
	}
	return set
}

// saveObservations writes the observations of the last analysis used to
// observationsFile, if it observed documents since they were read or
// written. The caller holds c.mu.
func (c *scopeCache) saveObservations() {
	a := c.observing
	if c.observationsFile == "" || a == nil || a.ObservedDocuments() <= c.obsSaved {
		return
	}
	live := liveSet(c.obsLive)
	b, err := a.SaveObservations(c.obsKey, func(p string) bool { return !live[p] })
	if err == nil {
		err = graph.WritePrivateFile(c.observationsFile, b)
	}
	if err != nil {
		c.log.Debug("the observations stay in memory", "err", err)
		return
	}
	c.obsSaved = a.ObservedDocuments()
}

// discoverAt discovers the work tree at root (by package, as `lspgraph
// scope` answers, when byPackage), whose state is state when known,
// through the source cache: from its listing, with only the paths
// whose state changed since the one it holds for listed again, when that
// state is named and had the same HEAD (a command line after another:
// no walk of the tree); else with a walk. The listing is then named for
// state (unnamed when not known). The cache is saved when the tree was
// walked, else when the session closes. The caller holds c.mu.
func (c *scopeCache) discoverAt(root string, state treeState, known, byPackage bool) (*scope.Workspace, error) {
	c.load(root)
	var ws *scope.Workspace
	var err error
	if prev, ok := decodeTreeState(c.sources.ListingState()); known && ok {
		if changed, ok := state.changedSince(prev); ok {
			if byPackage {
				ws, err = c.sources.DiscoverPackagesChanged(root, changed)
			} else {
				ws, err = c.sources.DiscoverChanged(root, changed)
			}
		}
	}
	if ws == nil && err == nil {
		if byPackage {
			ws, err = c.sources.DiscoverPackages(root)
		} else {
			ws, err = c.sources.Discover(root)
		}
	}
	if err != nil {
		return nil, err
	}
	name := ""
	if known {
		name = state.encode()
	}
	c.sources.SetListingState(name)
	if c.sources.Counts().Walked {
		c.saveSources()
	}
	return ws, nil
}

// savedTreeState is a treeState as a source cache names its listing's
// state: each changed file's description and old path by path.
type savedTreeState struct {
	Head  string               `json:"head"`
	Files map[string][2]string `json:"files"`
}

// encode names t for a source cache's listing.
func (t treeState) encode() string {
	files := make(map[string][2]string, len(t.files))
	for p, f := range t.files {
		files[p] = [2]string{f.desc, f.oldPath}
	}
	b, err := json.Marshal(savedTreeState{t.head, files})
	if err != nil {
		return "" // unnamed
	}
	return string(b)
}

// decodeTreeState reads a state encode named; false when s names none.
func decodeTreeState(s string) (treeState, bool) {
	var saved savedTreeState
	if s == "" || json.Unmarshal([]byte(s), &saved) != nil || saved.Head == "" {
		return treeState{}, false
	}
	t := treeState{head: saved.Head, files: make(map[string]treeFile, len(saved.Files))}
	for p, f := range saved.Files {
		t.files[p] = treeFile{desc: f[0], oldPath: f[1]}
	}
	return t, true
}

// withPackages runs fn with an analysis of reader r in the work tree at
// root discovered by Go and Python package, as `lspgraph scope` answers:
// discovered with a walk, through the same source cache, which holds what
// either discovery reads. The discovery is kept with w, the session's look
// it was made at (nil: none), and is used again while the look is the same
// one (its watcher saw nothing change); the analysis while the store's
// base generation is r's and a new discovery finds the same packages,
// brought up to date with the documents written since (Analysis.Update)
// when the store's version moved: a session following an editor writes
// its live layer at every change, and saving a file changes the look. On
// four GOROOT copies in git, discovering again was most of each
// lspgraph.scope through serve, analysing again most of the rest.
func (c *scopeCache) withPackages(ctx context.Context, root string, r *graph.Reader, w *freshness.WorkTree, fn func(*scope.Analysis) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w == nil || w != c.pkgLook {
		state, _, known := lookState(w)
		ws, err := c.discoverAt(root, state, known, true)
		if err != nil {
			return err
		}
		if c.pkgA != nil && (w == nil || !c.pkgA.UseWorkspace(ws)) {
			c.pkgA = nil // the packages changed: documents may have moved
		}
		c.pkgLook, c.pkgWS = w, ws
	}
	if a := c.pkgA; a != nil && c.pkgBase == r.BaseGeneration() {
		if c.pkgVersion == r.Version() {
			a.UseReader(r)
			return fn(a)
		}
		if changed, known := changedSince(r, c.pkgVersion, c.pkgLive); known {
			if err := a.Update(ctx, r, changed); err != nil {
				c.pkgA = nil
				return err
			}
			c.pkgVersion, c.pkgLive = r.Version(), r.LiveDocuments()
			return fn(a)
		}
	}
	a, err := scope.Analyze(ctx, c.pkgWS, r)
	if err != nil {
		return err
	}
	if w != nil {
		c.pkgA, c.pkgBase, c.pkgVersion, c.pkgLive = a, r.BaseGeneration(), r.Version(), r.LiveDocuments()
	}
	return fn(a)
}

// load reads the source cache from sourcesFile the first time. The caller
// holds c.mu.
func (c *scopeCache) load(root string) {
	if !c.loaded && c.sourcesFile != "" {
		c.loaded = true
		if err := c.sources.Load(root, c.sourcesFile); err != nil {
			c.log.Log(context.Background(), cacheLevel(err), "discovery reads every source file again", "err", err)
		}
	}
}

// saveSources writes the source cache to sourcesFile if it changed. The
// caller holds c.mu.
func (c *scopeCache) saveSources() {
	if c.sourcesFile == "" {
		return
	}
	write := func(b []byte) error { return graph.WritePrivateFile(c.sourcesFile, b) }
	if err := c.sources.Save(write); err != nil {
		c.log.Debug("the source cache stays in memory", "err", err)
	}
}

// cacheLevel is the level a cache file refused with err is logged at: a
// warning when damaged, a debug message when another release wrote it.
func cacheLevel(err error) slog.Level {
	if errors.Is(err, cachefile.ErrVersion) {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}

// close saves what discovery read since the last save.
func (c *scopeCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.saveSources()
	c.saveObservations()
}
