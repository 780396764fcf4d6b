package syntax

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/internal/lang"
)

// FactCache keeps the extracted facts of files (pass 1 of an index: what
// Extractor.File yields, before any name resolution) on disk, one entry per
// file version, so that the same version of a file is never parsed twice —
// across indexes, generations, branch switches and stores of the same
// tree. An entry is keyed by the extractor's Version, the codec's version,
// the file's path, the hash of its content and the size limit, and holds
// the answers the file's project gave its walk (the package a go.mod
// makes of its directory, …): it is reused only when the project still
// gives them. Each entry carries a checksum; one that does not check out
// or decode (a torn or corrupt record) is ignored and the file extracted
// again, never trusted.
//
// Entries are packed, not one file each (a file per entry cost an index of
// a large tree more in creating inodes than in writing facts): each
// process that writes entries appends them to a pack file of its own name
// (factpack.go) and, when flushed, writes the pack's index (key, offset
// and length of each record, 44 bytes an entry) beside it, to a temporary
// file renamed into place. Opening the cache reads the indexes, not the
// packs, and builds nothing from them: an entry is found by a binary
// search of each index (in key order), and read with one positioned read.
// So concurrent indexes (several processes) share a cache with no lock:
// each writes only its own pack, a reader sees an index whole or not at
// all, and two processes that write the same entry both wrote the same
// facts, either copy serving (the index written last wins). Entries a process writes are readable by
// it at once (pass 2 of an index reads them back), by others once it
// flushes (Flush, Close; Build flushes when done). A writer holds a lock on
// its pack while it runs (released by the kernel if it dies): the pack of
// a process that died before flushing is recovered by the next one to
// open the cache, from its records up to the first that does not check
// out; so is a pack whose index does not check out. Trim keeps the cache
// under its size by removing whole packs, those used least recently
// first: reading an entry marks its pack used, so the pack of the files
// an index reads survives while the packs of versions no index reads any
// more go. It also merges small packs (the entries of indexes that
// changed little) into one, so that their number stays small.
//
// Name resolution (pass 2) is not cached: a file's edges depend on every
// other file's definitions, so it runs again over all files at each index.
type FactCache struct {
	dir      string
	maxBytes int64

	loaded sync.Once
	mu     sync.RWMutex
	// entries are the entries this process wrote, and those it found
	// damaged (the zero factLoc): they come before the packs'.
	entries map[factKey]factLoc
	packs   []*factPack // the packs read, in the order they are searched
	retired []*factPack // packs read, merged into another since: to close
	loadErr error

	wmu sync.Mutex
	w   *packWriter // this process's pack, made at the first entry written
	wp  *factPack
}

// DefaultFactCacheBytes bounds a cache opened with a size of zero.
const DefaultFactCacheBytes = 2 << 30

// DefaultFactCacheDir is the cache shared by a user's indexes:
// os.UserCacheDir()/lspgraph/facts.
func DefaultFactCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("syntax: finding the user cache directory: %w", err)
	}
	return filepath.Join(d, "lspgraph", "facts"), nil
}

// OpenFactCache opens (creating it) the cache in dir (DefaultFactCacheDir
// if empty), holding at most maxBytes after Trim (DefaultFactCacheBytes if
// zero). The packs' indexes are read on first use.
func OpenFactCache(dir string, maxBytes int64) (*FactCache, error) {
	if dir == "" {
		var err error
		if dir, err = DefaultFactCacheDir(); err != nil {
			return nil, err
		}
	}
	if maxBytes <= 0 {
		maxBytes = DefaultFactCacheBytes
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("syntax: creating the fact cache: %w", err)
	}
	return &FactCache{dir: dir, maxBytes: maxBytes}, nil
}

// Dir is the cache's directory.
func (c *FactCache) Dir() string { return c.dir }

// load reads the packs' indexes, once.
func (c *FactCache) load() error {
	c.loaded.Do(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.entries = map[factKey]factLoc{}
		c.packs, c.loadErr = loadPacks(c.dir)
	})
	return c.loadErr
}

// entryKey is the key of a file version's entry.
func entryKey(p, contentHash string, maxFileSize int) factKey {
	h := sha256.New()
	for _, part := range []string{Version, strconv.Itoa(factCodecVersion), p, contentHash, strconv.Itoa(maxFileSize)} {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write([]byte(part))
	}
	var k factKey
	h.Sum(k[:0])
	return k
}

// lookup returns the cached facts of a file version, when there are facts
// that the project x still answers for, and where they lie. An entry that
// does not check out is forgotten.
func (c *FactCache) lookup(x *Extractor, p string, contentHash string) (*FileFacts, []projectAnswer, factLoc, bool) {
	if c.load() != nil {
		return nil, nil, factLoc{}, false
	}
	key := entryKey(p, contentHash, x.opts.MaxFileSize)
	loc, ok := c.find(&key)
	if !ok {
		return nil, nil, factLoc{}, false
	}
	ff, asked, err := loc.facts(&key, p)
	if err != nil || ff.Document.ContentHash != contentHash {
		c.mu.Lock()
		if cur, mine := c.entries[key]; !mine || cur == loc {
			c.entries[key] = factLoc{} // never trusted; this index writes it anew
		}
		c.mu.Unlock()
		return nil, nil, factLoc{}, false
	}
	if !x.project.stillAnswers(asked) {
		return nil, nil, factLoc{}, false
	}
	return ff, asked, loc, true
}

// find returns where the entry of key lies: among the entries this
// process wrote, else in the first pack whose index lists it.
func (c *FactCache) find(key *factKey) (factLoc, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if loc, ok := c.entries[*key]; ok {
		return loc, loc.pack != nil
	}
	for _, p := range c.packs {
		if e, ok := p.index.find(key); ok {
			return factLoc{p, e.off, e.n}, true
		}
	}
	return factLoc{}, false
}

// facts reads the entry at l, which must hold the facts of path p (and,
// when key is not nil, be that key's).
func (l factLoc) facts(key *factKey, p string) (*FileFacts, []projectAnswer, error) {
	rec, err := l.record()
	if err != nil {
		return nil, nil, err
	}
	k, body, err := checkRecord(rec)
	if err != nil {
		return nil, nil, err
	}
	if key != nil && k != *key {
		return nil, nil, fmt.Errorf("%w: record of another key", errCorrupt)
	}
	ff, asked, err := decodeEntry(body)
	if err != nil {
		return nil, nil, err
	}
	if ff.Document.Path != p {
		return nil, nil, fmt.Errorf("%w: entry of %s, not %s", errCorrupt, ff.Document.Path, p)
	}
	return ff, asked, nil
}

// store appends the entry of a file version to this process's pack and
// returns where it lies.
func (c *FactCache) store(x *Extractor, ff *FileFacts, asked []projectAnswer) (factLoc, error) {
	if err := c.load(); err != nil {
		return factLoc{}, err
	}
	key := entryKey(ff.Document.Path, ff.Document.ContentHash, x.opts.MaxFileSize)
	// The record is made in the extractor's buffer, kept from file to
	// file; the pack's writer copies it.
	var header [recordHeader]byte // filled in by sealRecord
	x.enc.reset(appendAnswers(append(x.rec[:0], header[:]...), asked))
	rec := sealRecord(key, x.enc.facts(ff))
	x.rec = rec
	c.wmu.Lock()
	if c.w == nil {
		w, err := newPackWriter(c.dir)
		if err != nil {
			c.wmu.Unlock()
			return factLoc{}, err
		}
		c.w, c.wp = w, &factPack{path: w.path, w: w}
	}
	w, wp := c.w, c.wp
	c.wmu.Unlock()
	off, err := w.append(key, rec)
	if err != nil {
		return factLoc{}, err
	}
	loc := factLoc{wp, off, int32(len(rec))}
	c.mu.Lock()
	c.entries[key] = loc
	c.mu.Unlock()
	return loc, nil
}

// Flush makes the entries written so far readable by other processes:
// it writes this process's pack and its index. Entries written after are
// listed by the next Flush.
func (c *FactCache) Flush() error {
	c.wmu.Lock()
	w := c.w
	c.wmu.Unlock()
	if w == nil {
		return nil
	}
	return w.flush()
}

// Close flushes the cache and closes its files.
func (c *FactCache) Close() error {
	c.wmu.Lock()
	w := c.w
	c.wmu.Unlock()
	var err error
	if w != nil {
		err = w.close()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range slices.Concat(c.packs, c.retired) {
		err = errors.Join(err, p.close())
	}
	return err
}

// decodeEntry reads the body of an entry's record (checked): the
// project's answers and the facts' record, as store wrote them.
func decodeEntry(body []byte) (*FileFacts, []projectAnswer, error) {
	d := &factDecoder{data: string(body)}
	asked := d.answers()
	if d.err != nil {
		return nil, nil, d.err
	}
	ff, err := decodeFileFacts(d.data[d.off:])
	if err != nil {
		return nil, nil, err
	}
	return ff, asked, nil
}

// FileCached is File through the cache c: a file version whose facts c
// holds (and whose project still answers as recorded) is not parsed; one
// extracted is stored in c. Files skipped before parsing are not cached
// (deciding that costs less than reading an entry), and neither are
// timeouts and failures. hit reports whether the facts came from c. An
// entry that cannot be written is no error: the facts are returned all
// the same.
func (x *Extractor) FileCached(ctx context.Context, c *FactCache, p string, src []byte) (ff *FileFacts, hit bool, err error) {
	a, err := x.fileAnswered(ctx, c, p, src)
	return a.ff, a.hit, err
}

// answered is what fileAnswered returns.
type answered struct {
	ff *FileFacts
	// asked are the project's answers the facts depend on, shared with
	// the extractor until its next file.
	asked []projectAnswer
	hit   bool // the facts came from the cache
	// entry is the cache entry that holds the facts (read or written),
	// the zero factLoc when none does.
	entry factLoc
}

// fileAnswered is FileCached (c may be nil) that also returns the
// project's answers the facts depend on, for an index to check on its next
// run, and the cache entry that holds the facts, for it to read them back
// from there.
func (x *Extractor) fileAnswered(ctx context.Context, c *FactCache, p string, src []byte) (answered, error) {
	if grammarFor(p) == "" || x.skipReason(p, src) != SkipNone {
		ff, err := x.File(ctx, p, src)
		return answered{ff: ff}, err
	}
	if c != nil {
		if ff, asked, loc, ok := c.lookup(x, p, lang.HashContent(src)); ok {
			return answered{ff: ff, asked: asked, hit: true, entry: loc}, nil
		}
	}
	x.project.recording, x.project.asked = true, x.project.asked[:0]
	ff, err := x.File(ctx, p, src)
	x.project.recording = false
	a := answered{ff: ff, asked: x.project.asked}
	if err != nil || ff.Skipped != SkipNone || c == nil {
		return a, err
	}
	a.entry, _ = c.store(x, ff, x.project.asked)
	return a, nil
}

// Trim merges small packs (compact), then removes whole packs, those used
// least recently first, until the cache holds at most its size: never a
// pack a writer runs on (this process's, or another's). It also removes the temporary files of writes that did not
// finish (an hour old or more), the indexes whose pack went and the
// entries of the cache's former layout (a file each, in directories named
// by two hex digits). It returns the bytes the cache holds.
func (c *FactCache) Trim() (int64, error) {
	_ = c.compact() // best effort, as writing entries is
	des, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil // removed meanwhile
	} else if err != nil {
		return 0, fmt.Errorf("syntax: trimming the fact cache: %w", err)
	}
	type pack struct {
		name string
		size int64
		used time.Time
	}
	packs := map[string]*pack{}
	indexes := map[string]int64{} // by pack name
	stale := time.Now().Add(-stalePack)
	for _, de := range des {
		name := de.Name()
		fi, err := de.Info()
		if err != nil {
			continue // removed by a concurrent Trim
		}
		switch {
		case de.IsDir():
			if len(name) == 2 {
				_ = os.RemoveAll(filepath.Join(c.dir, name))
			}
		case strings.HasPrefix(name, tempPrefix):
			if fi.ModTime().Before(stale) {
				_ = os.Remove(filepath.Join(c.dir, name))
			}
		case strings.HasSuffix(name, packExt):
			packs[name] = &pack{name: name, size: fi.Size(), used: fi.ModTime()}
		case strings.HasSuffix(name, packIndexExt):
			indexes[strings.TrimSuffix(name, packIndexExt)+packExt] = fi.Size()
		}
	}
	for name, size := range indexes {
		if p, ok := packs[name]; ok {
			p.size += size
		} else {
			_ = os.Remove(indexPath(filepath.Join(c.dir, name)))
		}
	}
	c.wmu.Lock()
	own := ""
	if c.w != nil {
		own = filepath.Base(c.w.path)
	}
	c.wmu.Unlock()
	var total int64
	var removable []*pack
	for _, p := range packs {
		total += p.size
		if p.name != own {
			removable = append(removable, p)
		}
	}
	slices.SortFunc(removable, func(a, b *pack) int { return a.used.Compare(b.used) })
	for _, p := range removable {
		if total <= c.maxBytes {
			break
		}
		path := filepath.Join(c.dir, p.name)
		release, ok := claimPack(path)
		if !ok {
			continue // a writer runs on it
		}
		// The index first: a reader never finds an index without its pack
		// from this Trim.
		_ = os.Remove(indexPath(path))
		if err := os.Remove(path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= p.size
		}
		release()
	}
	return total, nil
}
