package syntax

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
)

// The fact cache's files (see FactCache): each process that writes entries
// appends them to a pack of its own, NAME.pack, and lists them in its
// index, NAME.idx, when it flushes. While it writes, it holds a lock on the
// pack (factpack_unix.go): a pack that can be locked is one no writer runs
// on, which may be recovered, merged or removed. A pack is its magic and
// then records:
//
//	key [32] | body length uint32 | SHA-256 of what precedes and the body [32] | body
//
// An index is its magic, the number of its entries (uint32), the entries
// (key [32], offset uint64 and length uint32 of the record) in increasing
// order of key, one per key, and the xxhash64 of all that: a cache finds
// an entry by a binary search of each pack's index, so that opening it
// costs reading the indexes, not building a table of every entry the
// cache holds (a cache at its default size holds some 200,000). An index
// of the first layout (packIndexMagicV1: the entries in the order they
// were written, the last of a key winning, and the SHA-256 of all that)
// is read too, sorted as it is read.
const (
	packMagic        = "lspgraph-facts-pack 1\n"
	packIndexMagic   = "lspgraph-facts-index 2\n"
	packIndexMagicV1 = "lspgraph-facts-index 1\n"
	packExt          = ".pack"
	packIndexExt     = ".idx"
	// recordHeader is the bytes of a record before its body.
	recordHeader = sha256.Size + 4 + sha256.Size
	// packIndexEntry is the bytes of one entry of an index.
	packIndexEntry = sha256.Size + 8 + 4
	// packBufferBytes is what a pack's writer holds before it writes.
	packBufferBytes = 256 << 10
	// stalePack is the age past which a temporary file is taken for that
	// of a write that did not finish (and, where packs cannot be locked,
	// a pack for one no writer runs on: factpack_other.go).
	stalePack = time.Hour
	// tempPrefix starts the files of writes that have not finished.
	tempPrefix = ".tmp-"
)

// factKey is the key of an entry (entryKey).
type factKey [sha256.Size]byte

// factLoc is where an entry lies: a record of a pack. The zero factLoc is
// no entry.
type factLoc struct {
	pack *factPack
	off  int64
	n    int32 // the record's bytes, header included
}

// factPack is a pack that entries are read from, opened on first need.
type factPack struct {
	path    string      // of the pack, .pack included
	index   packIndex   // its entries, read from its index (none for this process's pack)
	w       *packWriter // the pack this process writes, else nil
	open    sync.Once
	f       *os.File
	err     error
	touched atomic.Bool // its time of use was set
}

// file returns the pack opened for reading.
func (p *factPack) file() (*os.File, error) {
	p.open.Do(func() {
		if p.w != nil {
			p.f = p.w.f
			return
		}
		p.f, p.err = os.Open(p.path)
	})
	return p.f, p.err
}

// record returns the bytes of the record at l.
func (l factLoc) record() ([]byte, error) {
	p := l.pack
	if w := p.w; w != nil {
		w.mu.Lock()
		if l.off >= w.written {
			// Still in the writer's buffer.
			i := int(l.off - w.written)
			if i+int(l.n) > len(w.buf) {
				w.mu.Unlock()
				return nil, fmt.Errorf("%w: record past the end of the pack", errCorrupt)
			}
			b := slices.Clone(w.buf[i : i+int(l.n)])
			w.mu.Unlock()
			return b, nil
		}
		w.mu.Unlock()
	}
	f, err := p.file()
	if err != nil {
		return nil, err
	}
	b := make([]byte, l.n)
	if _, err := f.ReadAt(b, l.off); err != nil {
		return nil, err
	}
	if p.w == nil && !p.touched.Swap(true) {
		// Used: Trim keeps the pack longer. Once per pack and cache.
		now := time.Now()
		_ = os.Chtimes(p.path, now, now)
	}
	return b, nil
}

// close closes the pack's file, when it was opened for reading.
func (p *factPack) close() error {
	if p.w != nil {
		return nil // the writer's
	}
	p.open.Do(func() { p.err = errCacheClosed })
	if p.f != nil {
		return p.f.Close()
	}
	return nil
}

// errCacheClosed reports a read from a closed FactCache.
var errCacheClosed = errors.New("syntax: the fact cache is closed")

// packWriter appends the records of one process to its pack, through a
// buffer, and writes the pack's index when flushed.
type packWriter struct {
	path string // of the pack
	mu   sync.Mutex
	f    *os.File
	buf  []byte
	// written is the bytes of the pack on disk; the buffer follows.
	written int64
	err     error // the first failed write: nothing more is written
	entries []packEntry
	// indexed is how many of entries the index on disk lists.
	indexed int
}

// packEntry is one entry of a pack's index.
type packEntry struct {
	key factKey
	off int64
	n   int32
}

// valid reports whether e can locate a record.
func (e packEntry) valid() bool { return e.off >= 0 && e.n >= recordHeader }

// newPackWriter creates a pack of a name no other has in dir.
func newPackWriter(dir string) (*packWriter, error) {
	f, err := os.CreateTemp(dir, "*"+packExt)
	if err != nil {
		return nil, fmt.Errorf("syntax: creating a fact cache pack: %w", err)
	}
	_ = lockPack(f) // without it, others may take the pack for a dead one's: its entries are lost, nothing else
	w := &packWriter{path: f.Name(), f: f, buf: make([]byte, 0, packBufferBytes)}
	w.buf = append(w.buf, packMagic...)
	return w, nil
}

// append adds the record rec of key and returns its offset.
func (w *packWriter) append(key factKey, rec []byte) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	off := w.written + int64(len(w.buf))
	w.buf = append(w.buf, rec...)
	w.entries = append(w.entries, packEntry{key, off, int32(len(rec))})
	if len(w.buf) >= packBufferBytes {
		w.writeBuffer()
	}
	return off, nil
}

// writeBuffer writes the buffer to the pack (w.mu held). After a failed
// write (a full disk) the pack takes no more records: those it holds
// before the failure stay readable, the others are read as corrupt.
func (w *packWriter) writeBuffer() {
	if w.err != nil || len(w.buf) == 0 {
		return
	}
	n, err := w.f.Write(w.buf)
	w.written += int64(n)
	if err != nil {
		w.err = fmt.Errorf("syntax: writing the fact cache pack %s: %w", w.path, err)
		w.buf = nil
		return
	}
	w.buf = w.buf[:0]
}

// flush writes the buffer and then the index of the records on disk.
func (w *packWriter) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeBuffer()
	n := len(w.entries)
	for n > 0 && w.entries[n-1].off+int64(w.entries[n-1].n) > w.written {
		n-- // cut short by a failed write
	}
	if n == w.indexed {
		return w.err
	}
	if err := writePackIndex(w.path, w.entries[:n]); err != nil {
		return errors.Join(w.err, err)
	}
	w.indexed = n
	return w.err
}

// close flushes and closes the pack.
func (w *packWriter) close() error {
	err := w.flush()
	w.mu.Lock()
	defer w.mu.Unlock()
	return errors.Join(err, w.f.Close())
}

// indexPath is the index of the pack at path.
func indexPath(pack string) string { return strings.TrimSuffix(pack, packExt) + packIndexExt }

// packIndex is the entries of a pack's index, packIndexEntry bytes each,
// in increasing order of key, one per key.
type packIndex struct {
	b []byte
}

// newPackIndex is the index of entries (in the order they were written:
// of two with one key, the later wins).
func newPackIndex(entries []packEntry) packIndex {
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b packEntry) int { return bytes.Compare(a.key[:], b.key[:]) })
	b := make([]byte, 0, len(sorted)*packIndexEntry)
	for i, e := range sorted {
		if i+1 < len(sorted) && sorted[i+1].key == e.key {
			continue // written again after
		}
		b = append(b, e.key[:]...)
		b = binary.LittleEndian.AppendUint64(b, uint64(e.off))
		b = binary.LittleEndian.AppendUint32(b, uint32(e.n))
	}
	return packIndex{b}
}

func (ix packIndex) len() int { return len(ix.b) / packIndexEntry }

func (ix packIndex) key(i int) []byte { return ix.b[i*packIndexEntry : i*packIndexEntry+sha256.Size] }

func (ix packIndex) entry(i int) packEntry {
	e := ix.b[i*packIndexEntry:]
	var out packEntry
	copy(out.key[:], e)
	out.off = int64(binary.LittleEndian.Uint64(e[sha256.Size:]))
	out.n = int32(binary.LittleEndian.Uint32(e[sha256.Size+8:]))
	return out
}

// find returns the entry of key, by a binary search. An entry that
// cannot locate a record is none.
func (ix packIndex) find(key *factKey) (packEntry, bool) {
	n := ix.len()
	i, found := sort.Find(n, func(i int) int { return bytes.Compare(key[:], ix.key(i)) })
	if !found {
		return packEntry{}, false
	}
	e := ix.entry(i)
	return e, e.valid()
}

// entries returns every entry of the index, in key order.
func (ix packIndex) entries() []packEntry {
	out := make([]packEntry, ix.len())
	for i := range out {
		out[i] = ix.entry(i)
	}
	return out
}

// writePackIndex writes the index of the pack at path listing entries: to
// a temporary file renamed into place, so that a reader sees the whole
// index or the one it replaces.
func writePackIndex(pack string, entries []packEntry) error {
	ix := newPackIndex(entries)
	b := make([]byte, 0, len(packIndexMagic)+4+len(ix.b)+8)
	b = append(b, packIndexMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(ix.len()))
	b = append(b, ix.b...)
	b = binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
	f, err := os.CreateTemp(filepath.Dir(pack), tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("syntax: writing the index of %s: %w", pack, err)
	}
	_, werr := f.Write(b)
	if err := errors.Join(werr, f.Close()); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("syntax: writing the index of %s: %w", pack, err)
	}
	if err := os.Rename(f.Name(), indexPath(pack)); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("syntax: writing the index of %s: %w", pack, err)
	}
	return nil
}

// readPackIndex reads the entries of the index at path, in key order.
func readPackIndex(path string) ([]packEntry, error) {
	ix, _, err := openPackIndex(path)
	if err != nil {
		return nil, err
	}
	out := ix.entries()
	for _, e := range out {
		if !e.valid() {
			return nil, fmt.Errorf("%w: %s: an entry of %d bytes at %d", errCorrupt, path, e.n, e.off)
		}
	}
	return out, nil
}

// openPackIndex reads the index at path for searching. An index of the
// first layout is sorted as it is read: old is then true.
func openPackIndex(path string) (ix packIndex, old bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return packIndex{}, false, err
	}
	var sumLen int
	switch {
	case bytes.HasPrefix(b, []byte(packIndexMagic)):
		sumLen = 8
	case bytes.HasPrefix(b, []byte(packIndexMagicV1)):
		sumLen = sha256.Size
	default:
		return packIndex{}, false, fmt.Errorf("%w: %s is not a fact cache index", errCorrupt, path)
	}
	head := len(packIndexMagic) + 4 // both magics are of one length
	if len(b) < head+sumLen {
		return packIndex{}, false, fmt.Errorf("%w: %s is cut short", errCorrupt, path)
	}
	body, sum := b[:len(b)-sumLen], b[len(b)-sumLen:]
	n := int(binary.LittleEndian.Uint32(b[len(packIndexMagic):]))
	if len(body) != head+n*packIndexEntry {
		return packIndex{}, false, fmt.Errorf("%w: %s: %d entries in %d bytes", errCorrupt, path, n, len(body))
	}
	entries := body[head:]
	if sumLen == 8 {
		if xxhash.Sum64(body) != binary.LittleEndian.Uint64(sum) {
			return packIndex{}, false, fmt.Errorf("%w: %s: checksum mismatch", errCorrupt, path)
		}
		return packIndex{entries}, false, nil
	}
	if got := sha256.Sum256(body); string(got[:]) != string(sum) {
		return packIndex{}, false, fmt.Errorf("%w: %s: checksum mismatch", errCorrupt, path)
	}
	list := packIndex{entries}.entries() // in the order written
	return newPackIndex(list), true, nil
}

// scanPack recovers the entries of the pack at path from its records, up
// to the first that does not check out (a write cut short).
func scanPack(path string) ([]packEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(string(b), packMagic) {
		return nil, fmt.Errorf("%w: %s is not a fact cache pack", errCorrupt, path)
	}
	var out []packEntry
	for off := len(packMagic); off+recordHeader <= len(b); {
		n := recordHeader + int(binary.LittleEndian.Uint32(b[off+sha256.Size:]))
		if n > len(b)-off {
			break
		}
		key, _, err := checkRecord(b[off : off+n])
		if err != nil {
			break
		}
		out = append(out, packEntry{key, int64(off), int32(n)})
		off += n
	}
	return out, nil
}

// encodeRecord is the record of a body under key.
func encodeRecord(key factKey, body []byte) []byte {
	rec := make([]byte, recordHeader, recordHeader+len(body))
	return sealRecord(key, append(rec, body...))
}

// sealRecord fills in the header of rec, a record's body after room for
// its header, as the record of that body under key, and returns it.
func sealRecord(key factKey, rec []byte) []byte {
	copy(rec, key[:])
	binary.LittleEndian.PutUint32(rec[sha256.Size:], uint32(len(rec)-recordHeader))
	h := sha256.New()
	h.Write(rec[:sha256.Size+4])
	h.Write(rec[recordHeader:])
	h.Sum(rec[sha256.Size+4 : sha256.Size+4])
	return rec
}

// checkRecord checks a record and returns its key and body.
func checkRecord(rec []byte) (factKey, []byte, error) {
	var key factKey
	if len(rec) < recordHeader {
		return key, nil, fmt.Errorf("%w: record cut short", errCorrupt)
	}
	copy(key[:], rec)
	body := rec[recordHeader:]
	if int(binary.LittleEndian.Uint32(rec[sha256.Size:])) != len(body) {
		return key, nil, fmt.Errorf("%w: record of another length", errCorrupt)
	}
	h := sha256.New()
	h.Write(rec[:sha256.Size+4])
	h.Write(body)
	var sum [sha256.Size]byte
	if string(h.Sum(sum[:0])) != string(rec[sha256.Size+4:recordHeader]) {
		return key, nil, fmt.Errorf("%w: checksum mismatch", errCorrupt)
	}
	return key, body, nil
}

// loadPacks reads the indexes of the packs in dir, and returns the packs
// in the order they are searched: an entry is the copy of the index
// written last. A pack whose index does not check out, and a pack without
// one that no writer holds (its process died before flushing), is scanned
// instead, indexed, and searched first. Packs being written by other
// processes, not yet indexed, are left out.
func loadPacks(dir string) ([]*factPack, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("syntax: reading the fact cache: %w", err)
	}
	type indexed struct {
		pack    string
		written time.Time
	}
	packs := map[string]fs.FileInfo{}
	var indexes []indexed
	for _, de := range des {
		name := de.Name()
		switch {
		case strings.HasPrefix(name, tempPrefix) || de.IsDir():
		case strings.HasSuffix(name, packExt):
			if fi, err := de.Info(); err == nil {
				packs[name] = fi
			}
		case strings.HasSuffix(name, packIndexExt):
			if fi, err := de.Info(); err == nil {
				indexes = append(indexes, indexed{strings.TrimSuffix(name, packIndexExt) + packExt, fi.ModTime()})
			}
		}
	}
	slices.SortFunc(indexes, func(a, b indexed) int { return a.written.Compare(b.written) })
	var out []*factPack // the one to search first last
	add := func(name string, ix packIndex) {
		out = append(out, &factPack{path: filepath.Join(dir, name), index: ix})
	}
	recoverPack := func(name string) {
		path := filepath.Join(dir, name)
		list, err := scanPack(path)
		if err != nil {
			return
		}
		add(name, newPackIndex(list))
		_ = writePackIndex(path, list)
	}
	for _, ix := range indexes {
		if _, ok := packs[ix.pack]; !ok {
			continue // removed by Trim; Trim removes its index too
		}
		path := filepath.Join(dir, ix.pack)
		index, old, err := openPackIndex(indexPath(path))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		delete(packs, ix.pack)
		if err != nil {
			recoverPack(ix.pack)
			continue
		}
		add(ix.pack, index)
		if old {
			// Written again in the current layout, unless its writer
			// (a process of an earlier version) runs on.
			if release, ok := claimPack(path); ok {
				_ = writePackIndex(path, index.entries())
				release()
			}
		}
	}
	for name := range packs {
		if release, ok := claimPack(filepath.Join(dir, name)); ok {
			recoverPack(name)
			release()
		}
	}
	slices.Reverse(out)
	return out, nil
}

// A cache that many indexes wrote a few entries each (a tree indexed again
// after small changes) holds many small packs: they are merged into one.
const (
	compactBelow = 8 << 20   // the size of a pack merged with others
	compactAt    = 16        // the small packs that make a merge
	compactBytes = 128 << 20 // the most one merge reads
)

// compact merges the small indexed packs of the cache into one, when
// there are compactAt of them, and removes them. The merged pack takes
// the latest time of use of its sources, and holds one copy of each entry
// (the copy indexed last). Not a pack a writer runs on (this process's, or
// another's that flushed and writes on). A process that has read
// the index of a source but not opened it finds it gone: its entries are
// misses, extracted again.
func (c *FactCache) compact() error {
	des, err := os.ReadDir(c.dir)
	if err != nil {
		return err
	}
	type source struct {
		pack    string
		size    int64
		used    time.Time
		indexed time.Time
	}
	c.wmu.Lock()
	own := ""
	if c.w != nil {
		own = filepath.Base(c.w.path)
	}
	c.wmu.Unlock()
	small := map[string]fs.FileInfo{} // by pack name
	var sources []source
	for _, de := range des {
		fi, err := de.Info()
		if err != nil || de.IsDir() {
			continue
		}
		if name := de.Name(); strings.HasSuffix(name, packExt) && name != own && fi.Size() < compactBelow {
			small[name] = fi
		}
	}
	for _, de := range des {
		fi, err := de.Info()
		if name := de.Name(); err == nil && strings.HasSuffix(name, packIndexExt) {
			pack := strings.TrimSuffix(name, packIndexExt) + packExt
			if p, ok := small[pack]; ok {
				sources = append(sources, source{pack, p.Size(), p.ModTime(), fi.ModTime()})
			}
		}
	}
	if len(sources) < compactAt {
		return nil
	}
	// The sources indexed last first: their copy of an entry wins.
	slices.SortFunc(sources, func(a, b source) int { return b.indexed.Compare(a.indexed) })
	w, err := newPackWriter(c.dir)
	if err != nil {
		return err
	}
	seen := map[factKey]bool{}
	var merged []string
	var releases []func()
	defer func() {
		for _, release := range releases {
			release()
		}
	}()
	var used time.Time
	var read int64
	for _, s := range sources {
		if read += s.size; read > compactBytes {
			break // the next merge takes the rest
		}
		path := filepath.Join(c.dir, s.pack)
		release, ok := claimPack(path)
		if !ok {
			continue // its writer runs (it flushed, and writes on)
		}
		releases = append(releases, release)
		entries, err := readPackIndex(indexPath(path))
		if err != nil {
			continue // recovered by the next open, merged by a later compaction
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if seen[e.key] || e.off < 0 || e.off+int64(e.n) > int64(len(data)) {
				continue
			}
			rec := data[e.off : e.off+int64(e.n)]
			if k, _, err := checkRecord(rec); err != nil || k != e.key {
				continue
			}
			seen[e.key] = true
			if _, err := w.append(e.key, rec); err != nil {
				break
			}
		}
		merged = append(merged, path)
		if s.used.After(used) {
			used = s.used
		}
	}
	if err := w.close(); err != nil {
		_ = os.Remove(indexPath(w.path))
		_ = os.Remove(w.path)
		return err
	}
	_ = os.Chtimes(w.path, used, used)
	c.repoint(merged, w)
	for _, path := range merged {
		_ = os.Remove(indexPath(path))
		_ = os.Remove(path)
	}
	return nil
}

// repoint puts the pack w wrote in the place of the packs merged into it
// among those the cache searches.
func (c *FactCache) repoint(merged []string, w *packWriter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		return // never read
	}
	from := map[string]bool{}
	for _, path := range merged {
		from[path] = true
	}
	p := &factPack{path: w.path, index: newPackIndex(w.entries)}
	var search []*factPack
	for _, q := range c.packs {
		if !from[q.path] {
			search = append(search, q)
			continue
		}
		if p != nil {
			search = append(search, p) // where the first of them was
			p = nil
		}
		c.retired = append(c.retired, q)
	}
	if p != nil {
		search = append(search, p)
	}
	c.packs = search
}
