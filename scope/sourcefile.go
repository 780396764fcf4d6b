package scope

import (
	"encoding/binary"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/lspgraph/lspgraph/internal/cachefile"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// A SourceCache can be kept in a file (Save) and read back by another
// process (Load), so that a command line answering without a session
// reads only the sources that changed since the last one, not every Go
// file of the work tree (on GOROOT, discovery takes 83 ms reading them
// and 19 ms through a full cache).
//
// The file holds the work tree's root, the entries whose stamps vouch
// for them (of a Go file whose imports do not parse, the error's message)
// and, when its caller named the state it holds for (SetListingState),
// the last discovery's listing, and is laid out as:
//
//	magic "lspgraph-sources\n", version byte
//	root: string
//	build: string (the build context the Go files' matches hold for, see buildKey)
//	listing state: string ("": no listing follows)
//	listing: uvarint count, each a path (a uvarint length shared with the
//	    path before it and the rest as a string); size, mtime: varint
//	strings: uvarint count, each a string (the import paths and specifiers, once each)
//	entries: uvarint count, each
//	    path: string; size, mtime: varint
//	    Go imports' error: string (empty: none)
//	    Go build match: uvarint (0 unknown, 1 built, 2 left out)
//	    Go imports: uvarint count, each a string index and a line (uvarints)
//	    TypeScript specifiers: the same
//	SHA-256 of all the above (as the syntax fact packs' indexes end)
//
// where a string is a uvarint length and its bytes.
const (
	sourceFileMagic   = "lspgraph-sources\n"
	sourceFileVersion = 5
)

// buildKey names the build context (go/build's default: GOOS, GOARCH,
// cgo, tags) whether a Go file is left out depends on, besides the file:
// a cache file written under another holds no match for this process.
func buildKey() string {
	c := build.Default
	return fmt.Sprint(c.GOOS, " ", c.GOARCH, " ", c.CgoEnabled, " ", c.BuildTags, " ", c.ToolTags, " ", c.ReleaseTags)
}

// Save hands the cache, laid out as the file holds it, to write (which
// keeps it at a path Load reads), unless nothing changed since the cache
// was last saved or loaded. An empty cache writes nothing.
func (c *SourceCache) Save(write func([]byte) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// A listing is written when named: the one the file holds stays true
	// of the state it is named for.
	listing := c.listedAt != "" && (c.listingChanged || c.listedAt != c.savedAt)
	if !c.dirty && !listing || c.root == "" {
		return nil
	}
	if err := write(c.encode()); err != nil {
		return fmt.Errorf("scope: saving the source cache: %w", err)
	}
	c.dirty, c.listingChanged, c.savedAt = false, false, c.listedAt
	return nil
}

// Load reads the file at path written by Save into an empty cache, for the
// work tree at root: a file of another root, or none, leaves the cache
// empty. A file that cannot be read as one Save wrote is an error; the
// cache stays empty and the next Save replaces the file.
func (c *SourceCache) Load(root, path string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("scope: loading the source cache: %w", err)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("scope: loading the source cache: %w", err)
	}
	f, err := decodeSources(b)
	if err != nil {
		return fmt.Errorf("scope: loading the source cache %s: %w", path, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.root != "" || f.root != abs {
		return nil
	}
	c.root, c.entries, c.dirty = abs, f.entries, false
	c.listed, c.listedAt, c.savedAt, c.listingChanged = f.listed, f.listedAt, f.listedAt, false
	c.made, c.recent = nil, nil
	return nil
}

// encode lays the cache out as the file holds it. The caller holds c.mu.
func (c *SourceCache) encode() []byte {
	paths := make([]string, 0, len(c.entries))
	for p, e := range c.entries {
		if e.stamp.Vouches() {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	index := map[string]uint64{}
	var strs []string
	intern := func(s string) uint64 {
		i, ok := index[s]
		if !ok {
			i = uint64(len(strs))
			index[s] = i
			strs = append(strs, s)
		}
		return i
	}
	var body []byte
	for _, p := range paths {
		e := c.entries[p]
		body = appendString(body, p)
		body = binary.AppendVarint(body, e.stamp.Size)
		body = binary.AppendVarint(body, e.stamp.MTime)
		goErr := ""
		if e.goErr != nil {
			goErr = e.goErr.Error()
		}
		body = appendString(body, goErr)
		body = binary.AppendUvarint(body, uint64(e.goBuild))
		body = binary.AppendUvarint(body, uint64(len(e.goImports)))
		for _, imp := range e.goImports {
			body = binary.AppendUvarint(body, intern(imp.path))
			body = binary.AppendUvarint(body, uint64(imp.line))
		}
		body = binary.AppendUvarint(body, uint64(len(e.tsSpecs)))
		for _, sp := range e.tsSpecs {
			body = binary.AppendUvarint(body, intern(sp.spec))
			body = binary.AppendUvarint(body, uint64(sp.line))
		}
	}
	b := cachefile.Start(sourceFileMagic, sourceFileVersion)
	b = appendString(b, c.root)
	b = appendString(b, buildKey())
	if c.listedAt == "" || c.listed == nil {
		b = appendString(b, "")
	} else {
		b = appendString(b, c.listedAt)
		b = binary.AppendUvarint(b, uint64(len(c.listed)))
		prev := ""
		for _, f := range c.listed {
			n := commonPrefix(prev, f.rel)
			b = binary.AppendUvarint(b, uint64(n))
			b = appendString(b, f.rel[n:])
			b = binary.AppendVarint(b, f.stamp.Size)
			b = binary.AppendVarint(b, f.stamp.MTime)
			prev = f.rel
		}
	}
	b = binary.AppendUvarint(b, uint64(len(strs)))
	for _, s := range strs {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(paths)))
	b = append(b, body...)
	return cachefile.Seal(b)
}

var appendString = cachefile.AppendString

// commonPrefix returns the length of the longest prefix a and b share.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// sourceFile is what a source cache file holds.
type sourceFile struct {
	root     string
	listedAt string
	listed   []listedFile
	entries  map[string]sourceEntry
}

// decodeSources reads a file Save wrote.
func decodeSources(b []byte) (sourceFile, error) { return decodeSourcesFor(b, buildKey()) }

// decodeSourcesFor is decodeSources in the build context named build
// (buildKey): a file of another keeps no Go file's build match.
func decodeSourcesFor(b []byte, build string) (sourceFile, error) {
	d, err := cachefile.Open(b, sourceFileMagic, sourceFileVersion, "source cache file")
	if err != nil {
		return sourceFile{}, err
	}
	f := sourceFile{root: d.Str()}
	sameBuild := d.Str() == build
	f.listedAt = d.Str()
	if f.listedAt != "" {
		f.listed = make([]listedFile, d.Count(4))
		prev := ""
		for i := range f.listed {
			n := d.Int()
			if d.Err() == nil && n > len(prev) {
				d.Fail("a path shares %d bytes with one of %d", n, len(prev))
			}
			if d.Err() != nil {
				break
			}
			rel := prev[:n] + d.Str()
			f.listed[i] = listedFile{rel, rootfs.Stamp{Size: d.Varint(), MTime: d.Varint()}}
			prev = rel
		}
	}
	strs := make([]string, d.Count(1))
	for i := range strs {
		strs[i] = d.Str()
	}
	str := func() string {
		i := d.Index(len(strs))
		if d.Err() != nil {
			return ""
		}
		return strs[i]
	}
	n := d.Count(6)
	entries := make(map[string]sourceEntry, n)
	for range n {
		p := d.Str()
		e := sourceEntry{stamp: rootfs.Stamp{Size: d.Varint(), MTime: d.Varint()}}
		if msg := d.Str(); msg != "" {
			e.goErr = errors.New(msg) // only its message is used (Workspace.Skipped)
		}
		if m := goBuildMatch(d.Index(int(goBuildExcluded) + 1)); sameBuild {
			e.goBuild = m
		}
		if k := d.Count(2); k > 0 {
			e.goImports = make([]goImport, k)
			for i := range e.goImports {
				e.goImports[i] = goImport{path: str(), line: d.Int()}
			}
		}
		if k := d.Count(2); k > 0 {
			e.tsSpecs = make([]tsSpec, k)
			for i := range e.tsSpecs {
				e.tsSpecs[i] = tsSpec{spec: str(), line: d.Int()}
			}
		}
		if d.Err() != nil {
			break
		}
		if !e.stamp.Vouches() {
			d.Fail("entry %q has no stamp", p)
			break
		}
		entries[p] = e
	}
	if err := d.End(); err != nil {
		return sourceFile{}, err
	}
	f.entries = entries
	return f, nil
}
