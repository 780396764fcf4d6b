package scope

import (
	"errors"
	"go/scanner"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

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
	last    SourceCounts
}

// SourceCounts says how the last Discover through a SourceCache got its
// sources: Read from the file, or Reused from the cache.
type SourceCounts struct {
	Read   int `json:"read"`
	Reused int `json:"reused"`
}

// sourceEntry is what was read from one source file at its stamp.
type sourceEntry struct {
	stamp     rootfs.Stamp
	goImports []goImport
	goErr     error
	tsSpecs   []tsSpec
}

// tsSpec is one module specifier a TypeScript or JavaScript file imports.
type tsSpec struct {
	spec string
	line int
}

// Discover is the package's Discover, reading through the cache.
func (c *SourceCache) Discover(root string) (*Workspace, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return discover(root, false, c)
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
	stamps map[string]rootfs.Stamp
	prev   map[string]sourceEntry
	mu     sync.Mutex // guards next and counts: Go files are read on every core
	next   map[string]sourceEntry
	counts SourceCounts
}

// reads starts a discovery of root through c (nil: no cache). The
// caller holds c.mu.
func (c *SourceCache) reads(root string, files int) *sourceReads {
	if c == nil {
		return nil
	}
	if c.root != root {
		c.root, c.entries = root, nil
	}
	return &sourceReads{stamps: make(map[string]rootfs.Stamp, files), prev: c.entries, next: make(map[string]sourceEntry, len(c.entries))}
}

// keep makes a discovery's entries the cache's: the files it did not see
// leave it. The caller holds c.mu.
func (c *SourceCache) keep(s *sourceReads) {
	if c == nil || s == nil {
		return
	}
	c.entries, c.last = s.next, s.counts
}

// listed notes the stamp the walk saw of a source file.
func (s *sourceReads) listed(rel string, fi fs.FileInfo) {
	if s != nil {
		s.stamps[rel] = rootfs.StampOf(fi)
	}
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
	}
}

// goImports returns the imports of the Go file rel, from the cache when
// its stamp holds. buf is scratch space for readGoImports.
func (w *Workspace) goImportsOf(rel string, buf *[]byte) ([]goImport, error) {
	if e, ok := w.src.cached(rel); ok {
		return e.goImports, e.goErr
	}
	start := time.Now()
	imps, err := readGoImports(filepath.Join(w.Root, filepath.FromSlash(rel)), buf)
	var syntax scanner.ErrorList
	if err == nil || errors.As(err, &syntax) {
		// What the file says; a failure to read it may pass.
		w.src.store(rel, start, sourceEntry{goImports: imps, goErr: err})
	}
	return imps, err
}

// tsSpecsOf returns the module specifiers the TypeScript or JavaScript
// file rel imports (tsImportSpecs), from the cache when its stamp holds; false
// if it cannot be read (noted in Skipped).
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
