package syntax

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
// or decode (a torn or corrupt file) is removed and the file extracted
// again, never trusted. Entries are written to a temporary file and renamed
// into place, so concurrent indexes (several processes) share a cache
// safely; the last rename wins, and both wrote the same facts. Trim keeps
// the cache under its size by removing the entries used least recently.
//
// Name resolution (pass 2) is not cached: a file's edges depend on every
// other file's definitions, so it runs again over all files at each index.
type FactCache struct {
	dir      string
	maxBytes int64
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

// OpenFactCache opens (creating it) the cache in dir, holding at most
// maxBytes after Trim (DefaultFactCacheBytes if zero).
func OpenFactCache(dir string, maxBytes int64) (*FactCache, error) {
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

// factCacheMagic starts every entry.
const factCacheMagic = "lspgraph-facts\x00"

// entryPath is where the entry of a file version lives.
func (c *FactCache) entryPath(p, contentHash string, maxFileSize int) string {
	h := sha256.New()
	for _, part := range []string{Version, strconv.Itoa(factCodecVersion), p, contentHash, strconv.Itoa(maxFileSize)} {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write([]byte(part))
	}
	k := hex.EncodeToString(h.Sum(nil))
	return filepath.Join(c.dir, k[:2], k[2:])
}

// load returns the cached facts of a file version, when there are facts
// that the project x still answers for. A corrupt entry is removed.
// It also returns the entry's file name.
func (c *FactCache) load(x *Extractor, p string, contentHash string) (*FileFacts, []projectAnswer, string, bool) {
	name := c.entryPath(p, contentHash, x.opts.MaxFileSize)
	ff, asked, err := readEntry(name, p)
	if err != nil || ff.Document.ContentHash != contentHash {
		_ = os.Remove(name) // never trusted; the next index writes it anew
		return nil, nil, "", false
	}
	if !x.project.stillAnswers(asked) {
		return nil, nil, "", false
	}
	now := time.Now()
	_ = os.Chtimes(name, now, now) // used: Trim keeps it longer
	return ff, asked, name, true
}

// readEntry reads the entry in file name, which must hold the facts of
// path p.
func readEntry(name, p string) (*FileFacts, []projectAnswer, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, err
	}
	ff, asked, err := decodeEntry(data)
	if err != nil {
		return nil, nil, err
	}
	if ff.Document.Path != p {
		return nil, nil, fmt.Errorf("%w: entry of %s, not %s", errCorrupt, ff.Document.Path, p)
	}
	return ff, asked, nil
}

// store writes the entry of a file version and returns its file name.
func (c *FactCache) store(x *Extractor, ff *FileFacts, asked []projectAnswer) (string, error) {
	name := c.entryPath(ff.Document.Path, ff.Document.ContentHash, x.opts.MaxFileSize)
	// The entry's directory is made when it is missing, not asked for
	// before every entry (which cost a system call per file).
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
			return "", fmt.Errorf("syntax: writing the fact cache: %w", err)
		}
		f, err = os.CreateTemp(filepath.Dir(name), ".tmp-*")
	}
	if err != nil {
		return "", fmt.Errorf("syntax: writing the fact cache: %w", err)
	}
	_, werr := f.Write(encodeEntry(ff, asked))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("syntax: writing the fact cache: %w", err)
	}
	if err := os.Rename(f.Name(), name); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("syntax: writing the fact cache: %w", err)
	}
	return name, nil
}

// encodeEntry is magic, the SHA-256 of the rest, the project's answers and
// the facts' record.
func encodeEntry(ff *FileFacts, asked []projectAnswer) []byte {
	var body []byte
	body = binary.AppendUvarint(body, uint64(len(asked)))
	for _, q := range asked {
		body = append(body, byte(q.Query))
		for _, s := range []string{q.Arg, q.A, q.B} {
			body = binary.AppendUvarint(body, uint64(len(s)))
			body = append(body, s...)
		}
	}
	body = encodeFileFacts(body, ff)
	sum := sha256.Sum256(body)
	out := make([]byte, 0, len(factCacheMagic)+len(sum)+len(body))
	out = append(out, factCacheMagic...)
	out = append(out, sum[:]...)
	return append(out, body...)
}

// decodeEntry checks and reads an entry.
func decodeEntry(data []byte) (*FileFacts, []projectAnswer, error) {
	head := len(factCacheMagic) + sha256.Size
	if len(data) < head || string(data[:len(factCacheMagic)]) != factCacheMagic {
		return nil, nil, fmt.Errorf("%w: not a fact cache entry", errCorrupt)
	}
	body := data[head:]
	if sum := sha256.Sum256(body); string(sum[:]) != string(data[len(factCacheMagic):head]) {
		return nil, nil, fmt.Errorf("%w: checksum mismatch", errCorrupt)
	}
	d := &factDecoder{data: string(body)}
	n := d.count()
	var asked []projectAnswer
	for range n {
		if d.off >= len(d.data) {
			d.fail("cut short")
			break
		}
		q := projectAnswer{Query: projectQuery(d.data[d.off])}
		d.off++
		plain := func() string {
			k := d.count()
			if d.err != nil {
				return ""
			}
			s := d.data[d.off : d.off+k]
			d.off += k
			return s
		}
		q.Arg, q.A, q.B = plain(), plain(), plain()
		asked = append(asked, q)
	}
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
	// entry is the file name of the cache entry that holds the facts
	// (read or written), "" when none does.
	entry string
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
		if ff, asked, name, ok := c.load(x, p, lang.HashContent(src)); ok {
			return answered{ff: ff, asked: asked, hit: true, entry: name}, nil
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

// Trim removes the entries used least recently until the cache holds at
// most its size, and the temporary files of writes that did not finish
// (an hour old or more). It returns the bytes the cache holds.
func (c *FactCache) Trim() (int64, error) {
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var entries []entry
	var total int64
	stale := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed by a concurrent Trim
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if len(d.Name()) > 4 && d.Name()[:5] == ".tmp-" {
			if fi.ModTime().Before(stale) {
				_ = os.Remove(p)
			}
			return nil
		}
		entries = append(entries, entry{p, fi.Size(), fi.ModTime()})
		total += fi.Size()
		return nil
	})
	if err != nil {
		return total, fmt.Errorf("syntax: trimming the fact cache: %w", err)
	}
	if total <= c.maxBytes {
		return total, nil
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.used.Compare(b.used) })
	for _, e := range entries {
		if total <= c.maxBytes {
			break
		}
		if err := os.Remove(e.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= e.size
		}
	}
	return total, nil
}
