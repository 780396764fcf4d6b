package scope

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// A SourceCache can be kept in a file (Save) and read back by another
// process (Load), so that a command line answering without a session
// reads only the sources that changed since the last one, not every Go
// file of the work tree (on GOROOT, discovery takes 83 ms reading them
// and 19 ms through a full cache).
//
// The file holds the work tree's root and the entries whose stamps vouch
// for them (of a Go file whose imports do not parse, the error's message),
// and is laid out as:
//
//	magic "lspgraph-sources\n", version byte
//	root: string
//	strings: uvarint count, each a string (the import paths and specifiers, once each)
//	entries: uvarint count, each
//	    path: string; size, mtime: varint
//	    Go imports' error: string (empty: none)
//	    Go imports: uvarint count, each a string index and a line (uvarints)
//	    TypeScript specifiers: the same
//	SHA-256 of all the above (as the syntax fact packs' indexes end)
//
// where a string is a uvarint length and its bytes.
const (
	sourceFileMagic   = "lspgraph-sources\n"
	sourceFileVersion = 3
)

// Save hands the cache, laid out as the file holds it, to write (which
// keeps it at a path Load reads), unless nothing changed since the cache
// was last saved or loaded. An empty cache writes nothing.
func (c *SourceCache) Save(write func([]byte) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty || c.root == "" {
		return nil
	}
	if err := write(c.encode()); err != nil {
		return fmt.Errorf("scope: saving the source cache: %w", err)
	}
	c.dirty = false
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
	saved, entries, err := decodeSources(b)
	if err != nil {
		return fmt.Errorf("scope: loading the source cache %s: %w", path, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.root != "" || saved != abs {
		return nil
	}
	c.root, c.entries, c.dirty = abs, entries, false
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
	b := append([]byte(sourceFileMagic), sourceFileVersion)
	b = appendString(b, c.root)
	b = binary.AppendUvarint(b, uint64(len(strs)))
	for _, s := range strs {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(paths)))
	b = append(b, body...)
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodeSources reads a file Save wrote: its root and entries.
func decodeSources(b []byte) (string, map[string]sourceEntry, error) {
	if len(b) < len(sourceFileMagic)+1+sha256.Size || string(b[:len(sourceFileMagic)]) != sourceFileMagic {
		return "", nil, errors.New("not a source cache file")
	}
	if v := b[len(sourceFileMagic)]; v != sourceFileVersion {
		return "", nil, fmt.Errorf("source cache file version %d, not %d", v, sourceFileVersion)
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); string(got[:]) != string(sum) {
		return "", nil, errors.New("source cache file is damaged (checksum)")
	}
	d := sourceDecoder{b: body, off: len(sourceFileMagic) + 1}
	root := d.string()
	strs := make([]string, d.count(1))
	for i := range strs {
		strs[i] = d.string()
	}
	str := func() string {
		i := d.uvarint()
		if d.err == nil && i >= uint64(len(strs)) {
			d.fail("string %d of %d", i, len(strs))
		}
		if d.err != nil {
			return ""
		}
		return strs[i]
	}
	n := d.count(6)
	entries := make(map[string]sourceEntry, n)
	for range n {
		p := d.string()
		e := sourceEntry{stamp: rootfs.Stamp{Size: d.varint(), MTime: d.varint()}}
		if msg := d.string(); msg != "" {
			e.goErr = errors.New(msg) // only its message is used (Workspace.Skipped)
		}
		if k := d.count(2); k > 0 {
			e.goImports = make([]goImport, k)
			for i := range e.goImports {
				e.goImports[i] = goImport{path: str(), line: d.int()}
			}
		}
		if k := d.count(2); k > 0 {
			e.tsSpecs = make([]tsSpec, k)
			for i := range e.tsSpecs {
				e.tsSpecs[i] = tsSpec{spec: str(), line: d.int()}
			}
		}
		if d.err != nil {
			break
		}
		if !e.stamp.Vouches() {
			d.fail("entry %q has no stamp", p)
			break
		}
		entries[p] = e
	}
	if d.err == nil && d.off != len(d.b) {
		d.fail("%d bytes after the entries", len(d.b)-d.off)
	}
	if d.err != nil {
		return "", nil, d.err
	}
	return root, entries, nil
}

// sourceDecoder reads a source cache file; the first error sticks and
// every read after it gives zero.
type sourceDecoder struct {
	b   []byte
	off int
	err error
}

func (d *sourceDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("source cache file is damaged at byte %d: %s", d.off, fmt.Sprintf(format, args...))
	}
}

func (d *sourceDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail("bad number")
		return 0
	}
	d.off += n
	return v
}

// varint reads a signed number as binary.AppendVarint writes it (zig-zag
// over a uvarint).
func (d *sourceDecoder) varint() int64 {
	x := d.uvarint()
	v := int64(x >> 1)
	if x&1 != 0 {
		v = ^v
	}
	return v
}

// int reads a uvarint that must fit an int.
func (d *sourceDecoder) int() int {
	v := d.uvarint()
	if v > uint64(maxInt) {
		d.fail("number %d too large", v)
		return 0
	}
	return int(v)
}

const maxInt = int(^uint(0) >> 1)

// count reads a count of items each at least min bytes long, no more than
// the bytes left can hold.
func (d *sourceDecoder) count(min int) int {
	v := d.uvarint()
	if d.err == nil && v > uint64((len(d.b)-d.off)/min) {
		d.fail("count %d exceeds what is left", v)
	}
	if d.err != nil {
		return 0
	}
	return int(v)
}

func (d *sourceDecoder) string() string {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)-d.off) {
		d.fail("string of %d bytes exceeds what is left", n)
	}
	if d.err != nil {
		return ""
	}
	s := string(d.b[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}
