package scope

import (
	"errors"
	"go/build"
	"go/scanner"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// SourceCache keeps what discovery read from each source file (a Go
// file's imports, a TypeScript file's import specifiers) with the file's
// stamp, so that discovering a work tree again reads only the files whose
// stamp changed, or could not vouch for them when they were read
// (rootfs.Stamp.Vouched). Manifests are read every time: they are few.
// The zero SourceCache is empty and ready; one Discover uses it at a time.
type SourceCache struct {
	mu      sync.Mutex
	root    string
	entries map[string]sourceEntry
	listed  []listedFile // the last discovery's listing, for DiscoverChanged
	// listedAt names the work tree's state the listing holds for, as the
	// caller named it (SetListingState): kept with the listing in the
	// file, so that another process told what changed since that state
	// discovers without a walk. "" when unnamed.
	listedAt string
	// savedAt is the listedAt of the last Save or Load, listingChanged
	// whether the listing changed since.
	savedAt        string
	listingChanged bool
	last           SourceCounts
	dirty          bool // entries changed since the last Save or Load
	// made holds the Workspace of the last discovery (by package or
	// not, its byPackage), while no discovery followed: a discovery of
	// changes that leave what it read of each changed file as it was
	// returns it again (sameWorkspace). recent holds what it read of
	// the files whose stamps could not vouch for it (written just
	// before: a file an editor saved), which entries leaves out.
	made   *Workspace
	recent map[string]sourceEntry
}

// SourceCounts says how the last Discover through a SourceCache got its
// sources: Read from the file, or Reused from the cache; and whether it
// Walked the tree (else DiscoverChanged brought the last listing up to
// date).
type SourceCounts struct {
	Read   int  `json:"read"`
	Reused int  `json:"reused"`
	Walked bool `json:"walked"`
}

// sourceEntry is what was read from one source file at its stamp.
type sourceEntry struct {
	stamp     rootfs.Stamp
	goImports []goImport
	goErr     error
	goBuild   goBuildMatch
	tsSpecs   []tsSpec
}

// goBuildMatch is whether the build (go/build's default context) leaves a
// Go file out, read from its build constraints and name, when known.
type goBuildMatch uint8

const (
	goBuildUnknown goBuildMatch = iota
	goBuildIncluded
	goBuildExcluded
)

// tsSpec is one module specifier a TypeScript or JavaScript file imports.
type tsSpec struct {
	spec string
	line int
}

// Discover is the package's Discover, reading through the cache.
func (c *SourceCache) Discover(root string) (*Workspace, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, err := discover(root, false, c)
	c.last.Walked, c.made = err == nil, w
	return w, err
}

// DiscoverPackages is the package's DiscoverPackages, reading through the
// cache.
func (c *SourceCache) DiscoverPackages(root string) (*Workspace, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, err := discover(root, true, c)
	c.last.Walked, c.made = err == nil, w
	return w, err
}

// DiscoverChanged is Discover for a work tree whose files have changed
// since the last Discover through c only at the paths changed
// (root-relative, slash-separated; a path that is no file, or none
// discovery reads, is taken for removed): the last listing, brought up to
// date at those paths, stands for a walk of the tree. A file changed
// elsewhere is not seen until the next Discover. Without a listing of
// root it is Discover.
func (c *SourceCache) DiscoverChanged(root string, changed []string) (*Workspace, error) {
	return c.discoverChanged(root, changed, false)
}

// DiscoverPackagesChanged is DiscoverChanged by package, as
// DiscoverPackages discovers.
func (c *SourceCache) DiscoverPackagesChanged(root string, changed []string) (*Workspace, error) {
	return c.discoverChanged(root, changed, true)
}

func (c *SourceCache) discoverChanged(root string, changed []string, byPackage bool) (*Workspace, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	abs, fsys, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	files, walked := c.listed, c.root != abs || c.listed == nil
	if walked {
		if files, err = walkListed(fsys); err != nil {
			return nil, err
		}
	} else {
		files = relisted(fsys, files, changed)
		if w := c.sameWorkspace(abs, fsys, byPackage, files, changed); w != nil {
			return w, nil
		}
	}
	w := discoverListed(abs, fsys, byPackage, c, files)
	c.last.Walked = walked
	c.made = w
	return w, nil
}

// lastRead returns what the last discovery read of the source rel.
func (c *SourceCache) lastRead(rel string) (sourceEntry, bool) {
	if e, ok := c.entries[rel]; ok {
		return e, true
	}
	e, ok := c.recent[rel]
	return e, ok
}

// sameWorkspace returns the last discovery's Workspace when a discovery
// of files, the last listing brought up to date at the paths changed,
// would make the same: the last discovery was the same kind (byPackage),
// of root, with no other since; files lists the same paths; and each
// changed path is a source whose imports (and whether the build leaves it
// out, when known) read as they were, or one whose text discovery does
// not read (a Python source lists its package). Their entries and stamps
// are then the cache's, as a discovery would leave them. Else nil. An
// editor saving a file mostly changes no import: discovering every
// listed file again took 24-45 ms on 45,912 of them. The caller holds
// c.mu.
func (c *SourceCache) sameWorkspace(abs string, fsys *rootfs.Root, byPackage bool, files []listedFile, changed []string) *Workspace {
	w := c.made
	if w == nil || w.Root != abs || w.byPackage != byPackage || len(files) != len(c.listed) {
		return nil
	}
	for i := range files {
		if files[i].rel != c.listed[i].rel {
			return nil
		}
	}
	stamps := make(map[string]rootfs.Stamp, len(changed))
	for _, p := range changed {
		stamps[path.Clean(p)] = rootfs.Stamp{}
	}
	for _, f := range files {
		if _, ok := stamps[f.rel]; ok {
			stamps[f.rel] = f.stamp
		}
	}
	next := map[string]sourceEntry{}
	var buf []byte
	for _, p := range changed {
		rel := path.Clean(p)
		st := stamps[rel]
		if st == (rootfs.Stamp{}) {
			continue // not discovery's
		}
		name := path.Base(rel)
		start := time.Now()
		var e sourceEntry
		switch {
		case lang.Of(name) == "go":
			old, ok := c.lastRead(rel)
			if !ok || old.goErr != nil {
				return nil
			}
			abs := filepath.Join(abs, filepath.FromSlash(rel))
			if e.goImports, e.goErr = readGoImports(abs, &buf); e.goErr != nil || !slices.Equal(e.goImports, old.goImports) {
				return nil
			}
			if old.goBuild != goBuildUnknown {
				if e.goBuild = goBuildOf(abs); e.goBuild != old.goBuild {
					return nil
				}
			}
		case isTSFile(name):
			old, ok := c.lastRead(rel)
			if !ok {
				return nil
			}
			b, err := fsys.ReadFile(rel) // as discovery reads it (tsSpecsOf)
			if err != nil {
				return nil
			}
			if e.tsSpecs = tsImportSpecs(string(b)); !slices.Equal(e.tsSpecs, old.tsSpecs) {
				return nil
			}
		case lang.Of(name) == "python":
			continue
		default:
			return nil // a manifest
		}
		e.stamp = st.Vouched(start)
		next[rel] = e
	}
	for rel, e := range next {
		if e.stamp.Vouches() {
			c.entries[rel] = e
			delete(c.recent, rel)
		} else {
			delete(c.entries, rel) // read again by the next discovery
			c.recent[rel] = e
		}
	}
	c.listed, c.listedAt, c.listingChanged, c.dirty = files, "", true, true
	c.last = SourceCounts{Read: len(next), Reused: len(files) - len(next)}
	return w
}

// relisted returns the listing files brought up to date at the paths
// changed: each one a walk would list (a regular file discovery reads, in
// no skipped directory, reached without a link) with its stamp now, the
// others left out.
func relisted(fsys *rootfs.Root, files []listedFile, changed []string) []listedFile {
	now := make(map[string]rootfs.Stamp, len(changed))
	for _, p := range changed {
		rel := path.Clean(p)
		if _, seen := now[rel]; seen || !walkable(rel) {
			continue
		}
		now[rel] = rootfs.Stamp{}
		dir, name := path.Split(rel)
		dir = path.Clean(dir)
		real, fis, errs, err := fsys.LstatIn(dir, []string{name})
		if err == nil && real == dir && errs[0] == nil && fis[0].Mode().IsRegular() {
			now[rel] = rootfs.StampOf(fis[0])
		}
	}
	if len(now) == 0 {
		return files
	}
	// Files still listed at their places, as an editor's saves leave
	// them: their stamps are replaced in order, not the listing sorted
	// again.
	at := make(map[string]int, len(now))
	for i, f := range files {
		if st, ok := now[f.rel]; ok && st != (rootfs.Stamp{}) {
			at[f.rel] = i
		}
	}
	if len(at) == len(now) {
		out := slices.Clone(files)
		for rel, i := range at {
			out[i].stamp = now[rel]
		}
		return out
	}
	out := make([]listedFile, 0, len(files)+len(now))
	for _, f := range files {
		if _, ok := now[f.rel]; !ok {
			out = append(out, f)
		}
	}
	for rel, st := range now {
		if st != (rootfs.Stamp{}) {
			out = append(out, listedFile{rel, st})
		}
	}
	slices.SortFunc(out, func(a, b listedFile) int { return compareWalkOrder(a.rel, b.rel) })
	return out
}

// walkable reports whether a walk by walkListed could list the
// root-relative path rel: one discovery reads, below the root, in no
// directory skipDir leaves out.
func walkable(rel string) bool {
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") || !discovered(rel) {
		return false
	}
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if SkipDir(path.Base(d)) {
			return false
		}
	}
	return true
}

// ListingState returns the name SetListingState gave the state the
// cache's listing holds for ("" when there is no listing, or it has no
// name).
func (c *SourceCache) ListingState() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listed == nil {
		return ""
	}
	return c.listedAt
}

// SetListingState names the state of the work tree the last discovery's
// listing holds for (the caller's name: the commit checked out and each
// changed file's state, say). Save keeps a named listing, so that a later
// process whose work tree changed since that state only at known paths
// (DiscoverChanged) reads it instead of walking the tree. "" forgets the
// name: the listing is then not saved.
func (c *SourceCache) SetListingState(state string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listedAt = state
}

// Counts returns how the last Discover got its sources.
func (c *SourceCache) Counts() SourceCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// sourceReads is one discovery's reading of sources: the stamp the walk
// saw of each, the entries of the cache before it (read-only while it
// runs), and the entries it makes. A nil sourceReads reads every file.
type sourceReads struct {
	stamps    map[string]rootfs.Stamp
	prev      map[string]sourceEntry
	mu        sync.Mutex // guards next, unvouched and counts: Go files are read on every core
	next      map[string]sourceEntry
	unvouched map[string]sourceEntry // read, their stamps vouching for nothing
	counts    SourceCounts
}

// reads starts a discovery of root, whose listing is files, through c
// (nil: no cache). The caller holds c.mu.
func (c *SourceCache) reads(root string, files []listedFile) *sourceReads {
	if c == nil {
		return nil
	}
	if c.root != root {
		c.root, c.entries, c.dirty = root, nil, true
	}
	if !slices.Equal(c.listed, files) {
		c.listingChanged = true
	}
	c.listed, c.listedAt = files, "" // named by the caller, if at all
	c.made = nil                     // until the caller keeps what this one makes
	s := &sourceReads{stamps: make(map[string]rootfs.Stamp, len(files)), prev: c.entries, next: make(map[string]sourceEntry, len(c.entries)), unvouched: map[string]sourceEntry{}}
	for _, f := range files {
		s.stamps[f.rel] = f.stamp
	}
	return s
}

// keep makes a discovery's entries the cache's: the files it did not see
// leave it. The caller holds c.mu.
func (c *SourceCache) keep(s *sourceReads) {
	if c == nil || s == nil {
		return
	}
	if s.counts.Read > 0 || len(s.next) != len(c.entries) {
		c.dirty = true
	}
	c.entries, c.last, c.recent = s.next, s.counts, s.unvouched
}

// cached returns the entry of rel if its stamp is the walk's, and keeps
// it for the next discovery.
func (s *sourceReads) cached(rel string) (sourceEntry, bool) {
	if s == nil {
		return sourceEntry{}, false
	}
	e, ok := s.prev[rel]
	if !ok || !e.stamp.Vouches() || e.stamp != s.stamps[rel] {
		return sourceEntry{}, false
	}
	s.mu.Lock()
	s.next[rel] = e
	s.counts.Reused++
	s.mu.Unlock()
	return e, true
}

// store keeps what was read from rel, starting at start, if its stamp
// vouches for it.
func (s *sourceReads) store(rel string, start time.Time, e sourceEntry) {
	if s == nil {
		return
	}
	e.stamp = s.stamps[rel].Vouched(start)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts.Read++
	if e.stamp.Vouches() {
		s.next[rel] = e
	} else {
		s.unvouched[rel] = e
	}
}

// goFileOf returns the imports of the Go file rel and, with match,
// whether the build leaves it out, from the cache when its stamp holds.
// Whether the build leaves a file out is read from its head again
// (go/build's MatchFile) unless the cache knows: a discovery by package
// asked it of every file, the cache's reused imports notwithstanding,
// which was most of such a discovery's time. buf is scratch space for
// readGoImports.
func (w *Workspace) goFileOf(rel string, match bool, buf *[]byte) fileImports {
	e, cached := w.src.cached(rel)
	if cached && (!match || e.goBuild != goBuildUnknown) {
		return fileImports{imports: e.goImports, err: e.goErr, excluded: e.goBuild == goBuildExcluded}
	}
	start := time.Now()
	abs := filepath.Join(w.Root, filepath.FromSlash(rel))
	if !cached { // e is empty
		e.goImports, e.goErr = readGoImports(abs, buf)
	}
	if match {
		e.goBuild = goBuildOf(abs)
	}
	var syntax scanner.ErrorList
	if e.goErr == nil || errors.As(e.goErr, &syntax) {
		// What the file says; a failure to read it may pass.
		w.src.store(rel, start, e)
	}
	return fileImports{imports: e.goImports, err: e.goErr, excluded: e.goBuild == goBuildExcluded}
}

// goBuildOf returns whether the build (go/build's default context) leaves
// the Go file at abs out: another GOOS/GOARCH, or `//go:build ignore`.
func goBuildOf(abs string) goBuildMatch {
	if ok, err := build.Default.MatchFile(filepath.Dir(abs), filepath.Base(abs)); err == nil && !ok {
		return goBuildExcluded
	}
	return goBuildIncluded
}

// tsSpecsOf returns the module specifiers the TypeScript or JavaScript
// file rel imports (tsImportSpecs), from the cache when its stamp holds;
// false if it cannot be read (noted in Skipped).
func (w *Workspace) tsSpecsOf(rel string) ([]tsSpec, bool) {
	if e, ok := w.src.cached(rel); ok {
		return e.tsSpecs, true
	}
	start := time.Now()
	b, ok := w.readFile(rel)
	if !ok {
		return nil, false
	}
	specs := tsImportSpecs(string(b))
	w.src.store(rel, start, sourceEntry{tsSpecs: specs})
	return specs, true
}
