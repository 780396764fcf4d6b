package graph

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configure Open.
type Options struct {
	// ReadOnly opens for queries only. Pebble locks a store exclusively
	// even for reading, so a read-only Open of a store another process
	// holds fails with ErrLocked as well.
	ReadOnly bool
	// InMemory uses an in-memory filesystem (tests); Dir is then a name only.
	InMemory bool
}

// Sentinel errors; match them with errors.Is.
var (
	ErrLocked   = errors.New("graph: store is in use by another process")
	ErrSchema   = errors.New("graph: store has another schema version")
	ErrNotFound = errors.New("graph: not found")
	ErrClosed   = errors.New("graph: store is closed")
	// ErrReadOnly is returned by writes to a store opened read-only.
	ErrReadOnly = errors.New("graph: store is open read-only")
)

// Store is an open graph store. Its methods are safe for concurrent use;
// writes are serialized, and at most one GenerationWriter is active.
type Store struct {
	dir      string
	db       *pebble.DB
	fs       vfs.FS
	opts     *pebble.Options
	lock     *dirLock
	readOnly bool
	inMemory bool
	closed   atomic.Bool

	mu  sync.Mutex        // serializes writes to the live layer and meta records
	gen *GenerationWriter // the active generation writer, if any; under mu
	// patch is the active BasePatch, if any; under mu. A store has a
	// generation writer or a patch, never both.
	patch *BasePatch

	readersMu sync.Mutex
	readers   map[*Reader]struct{} // open readers, closed by Close

	// commitMu orders the commits, so that the version each writes is
	// one more than the last; version is the last one written.
	commitMu sync.Mutex
	version  atomic.Uint64
	// liveChanges and baseChanges note the version of each live or base
	// document's last change.
	liveChanges, baseChanges changeLog
	// baseTerms keeps the term totals of the base layer of one base
	// version (Reader.TermStats).
	baseTerms baseTermsCache

	// genSyms translates the symbol ids of one base generation's space
	// for every reader of it: a generation's space is never reused and
	// an id keeps its string for the life of its space, so translations
	// outlive the reader that made them (a session opens a reader per
	// answer). Replaced when readers move to another generation.
	genSymsMu    sync.Mutex
	genSyms      *symCache
	genSymsSpace uint64

	// warmMu is held by Warm while it reads a chunk, and by Close before
	// it closes the database: Close waits for that chunk, and no chunk
	// starts after it.
	warmMu sync.Mutex
}

// genSymCache returns the translations of a base generation's space.
func (s *Store) genSymCache(space uint64) *symCache {
	s.genSymsMu.Lock()
	defer s.genSymsMu.Unlock()
	if s.genSyms == nil || s.genSymsSpace != space {
		s.genSyms, s.genSymsSpace = &symCache{}, space
	}
	return s.genSyms
}

// Version counts the writes readers can see, over the store's life: it is
// kept in the store, each write raising it in the same atomic batch. Two
// readers of one version, in this process or another, see the same facts,
// so an answer computed from one holds for the other.
func (s *Store) Version() uint64 { return s.version.Load() }

// commit commits a batch with the next version in it.
func (s *Store) commit(b *pebble.Batch, opts *pebble.WriteOptions) error {
	return s.commitLayer(b, opts, Live)
}

// commitBase commits b, a write that replaces what readers see of the
// base layer whole (a new base generation): its version is recorded as
// the base's (Reader.BaseVersion).
func (s *Store) commitBase(b *pebble.Batch, opts *pebble.WriteOptions) error {
	return s.commitNoting(b, opts, Base, layerChange{cleared: true})
}

func (s *Store) commitLayer(b *pebble.Batch, opts *pebble.WriteOptions, layer Layer) error {
	return s.commitNoting(b, opts, layer, layerChange{})
}

// layerChange is what a commit changes of its layer's documents: the
// paths, or all of them.
type layerChange struct {
	paths   []string
	cleared bool
}

// commitNoting is commitLayer noting a change of the layer's documents
// first (see changeLog).
func (s *Store) commitNoting(b *pebble.Batch, opts *pebble.WriteOptions, layer Layer, change layerChange) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	next := s.version.Load() + 1
	log := &s.liveChanges
	if layer == Base {
		log = &s.baseChanges
	}
	switch {
	case change.cleared:
		log.clear(next)
	case len(change.paths) > 0:
		log.note(next, change.paths)
	}
	if err := putChanges(b, next, layer, change); err != nil {
		return err
	}
	v := binary.BigEndian.AppendUint64(nil, next)
	if err := b.Set(appendMetaKey(nil, kindVersion), v, nil); err != nil {
		return err
	}
	if layer == Base {
		if err := b.Set(appendMetaKey(nil, kindBaseVersion), v, nil); err != nil {
			return err
		}
	}
	if err := b.Commit(opts); err != nil {
		return err
	}
	s.version.Store(next)
	return nil
}

// readVersion returns the version a snapshot (or the store) holds.
func readVersion(r kvReader) (uint64, error) { return readCounter(r, kindVersion, "version") }

// readCounter reads a meta counter, 0 when absent.
func readCounter(r kvReader, k kind, what string) (uint64, error) {
	v, ok, err := get(r, appendMetaKey(nil, k))
	if err != nil || !ok {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: %s", errBadValue, what)
	}
	return binary.BigEndian.Uint64(v), nil
}

// DefaultDir returns os.UserCacheDir()/lspgraph/<first 16 hex digits of the
// SHA-256 of the absolute, cleaned root>.
func DefaultDir(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("graph: resolving workspace root %q: %w", root, err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("graph: locating the user cache directory: %w", err)
	}
	sum := sha256.Sum256([]byte(filepath.Clean(abs)))
	return filepath.Join(cache, "lspgraph", hex.EncodeToString(sum[:])[:16]), nil
}

// Open opens (creating when absent) the store in dir. The directory is
// made mode 0700, also when it exists with a wider mode, and every file
// the store creates in it is mode 0600, whatever the umask.
// A store locked by another process yields an error wrapping ErrLocked that
// names the path and the holder's pid; a schema mismatch wraps ErrSchema.
// A read-only Open of a store that does not exist wraps ErrNotFound.
func Open(dir string, opts Options) (*Store, error) {
	var fs vfs.FS = privateFS{vfs.Default}
	if opts.InMemory {
		fs = vfs.NewMem()
	} else {
		abs, err := prepareDir(dir, opts.ReadOnly)
		if err != nil {
			return nil, err
		}
		dir = abs
	}
	lock, err := lockDir(dir, fs, opts)
	if err != nil {
		return nil, err
	}
	po := pebbleOptions(fs, lock, opts.ReadOnly)
	db, err := pebble.Open(dir, po)
	if err != nil {
		_ = lock.close()
		return nil, fmt.Errorf("graph: opening store %s: %w", dir, err)
	}
	s := &Store{dir: dir, db: db, fs: fs, opts: po, lock: lock, readOnly: opts.ReadOnly, inMemory: opts.InMemory, readers: map[*Reader]struct{}{}}
	if err := s.init(); err != nil {
		_ = s.Close()
		return nil, err
	}
	v, err := readVersion(db)
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("graph: reading the version of %s: %w", dir, err)
	}
	s.version.Store(v)
	s.liveChanges.start(v)
	s.baseChanges.start(v)
	if err := s.stampBaseVersion(v); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// stampBaseVersion records, in a store written before base versions were
// (schema 5 without kindBaseVersion), the store's version v as its base
// version: the base layer changed last at v or before, and every base
// write from now on records its own. Without it such a store's readers
// all read base version 0, which caches take for unknown.
func (s *Store) stampBaseVersion(v uint64) error {
	if s.readOnly || v == 0 {
		return nil
	}
	if _, ok, err := get(s.db, appendMetaKey(nil, kindBaseVersion)); err != nil || ok {
		return err
	}
	if err := s.db.Set(appendMetaKey(nil, kindBaseVersion), binary.BigEndian.AppendUint64(nil, v), pebble.Sync); err != nil {
		return fmt.Errorf("graph: recording the base version of %s: %w", s.dir, err)
	}
	return nil
}

// prepareDir makes dir absolute and creates it, or narrows its mode, to
// 0700 unless readOnly, in which case it must exist.
func prepareDir(dir string, readOnly bool) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("graph: resolving store directory %q: %w", dir, err)
	}
	if readOnly {
		if _, err := os.Stat(filepath.Join(abs, "CURRENT")); err == nil {
			return abs, nil
		}
		if _, err := os.Stat(filepath.Join(abs, "LOCK")); err != nil {
			return "", &explainedError{sentinel: ErrNotFound,
				msg: fmt.Sprintf("store %s does not exist (run `lspgraph index` or `lspgraph scip import` to build it)", abs)}
		}
		return abs, nil
	}
	if err := os.MkdirAll(abs, dirPerm); err != nil {
		return "", fmt.Errorf("graph: creating store directory: %w", err)
	}
	if err := restrictDir(abs); err != nil {
		return "", fmt.Errorf("graph: making the store directory private: %w", err)
	}
	return abs, nil
}

// pebbleOptions tunes Pebble for bulk loads of small keys.
func pebbleOptions(fs vfs.FS, lock *dirLock, readOnly bool) *pebble.Options {
	o := &pebble.Options{
		FS:                 fs,
		ReadOnly:           readOnly,
		FormatMajorVersion: pebble.FormatNewest,
		CacheSize:          CacheSize,
		// Generations are ingested as sstables, so the memtable holds only
		// the live layer, patches and the meta records. At 64 MiB it was
		// slower for them than small ones (9,000 live writes of 3,000
		// documents rewritten three times: 56 s, against 17-19 s at 4 to
		// 16 MiB; the reads of a document's old records walk the
		// versions it holds), and each store kept a write-ahead log
		// preallocated to 1.1 times its size on disk (70 MB).
		MemTableSize:                8 << 20,
		MemTableStopWritesThreshold: 4,
		L0CompactionThreshold:       4,
		// L0 is compacted into the base level, which Pebble puts at the
		// bottom while the bottom holds less than LBaseMaxBytes (64 MiB
		// by default): there, every base generation smaller than that.
		// A base patch's records (a re-index or a re-import of a few
		// documents) touch the whole key space of the generation, so
		// their first compaction rewrote all of it: 0.2 s of a 0.34 s
		// re-import of the pebble corpus with 8 documents changed. With
		// the base level above the bottom, it rewrites the patches alone
		// (0.11 s), and what reaches the bottom later goes a level at a
		// time.
		LBaseMaxBytes:         1 << 20,
		L0StopWritesThreshold: 32,
		Logger:                quietLogger{},
	}
	if lock != nil {
		o.Lock = lock.pebble
	}
	// 16 KiB blocks (Pebble's default is 4): with a symbol's neighbours
	// side by side in the key space (see symbolHash), a context pack of
	// the pebble corpus built with nothing cached reads 21 blocks instead
	// of 57 for no more CPU, and the store is 10% smaller.
	o.Levels[0].BlockSize = 16 << 10
	o.Experimental.CompactionScheduler = newCompactionScheduler()
	o.EnsureDefaults()
	// MinLZ at every level: a generation's tables are written once, at
	// the end of a load, and snappy was a tenth of its cost.
	o.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionFastest })
	return o
}

// quietLogger drops Pebble's informational messages; errors go to stderr
// through Pebble's default logger.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}
func (quietLogger) Errorf(format string, args ...any) {
	pebble.DefaultLogger.Errorf(format, args...)
}
func (quietLogger) Fatalf(format string, args ...any) {
	pebble.DefaultLogger.Fatalf(format, args...)
}

// init checks the schema version (recording it in a new store) and, when
// writable, removes generations that are neither current nor live.
func (s *Store) init() error {
	v, ok, err := get(s.db, appendMetaKey(nil, kindSchema))
	if err != nil {
		return fmt.Errorf("graph: reading schema version of %s: %w", s.dir, err)
	}
	if ok {
		got, n := binary.Uvarint(v)
		if n <= 0 || got != SchemaVersion {
			return s.schemaError(fmt.Sprint(got))
		}
		return s.removeLeftovers()
	}
	empty, err := s.isEmpty()
	if err != nil {
		return err
	}
	if !empty {
		return s.schemaError("unknown")
	}
	if s.readOnly {
		return nil
	}
	err = s.db.Set(appendMetaKey(nil, kindSchema), binary.AppendUvarint(nil, SchemaVersion), pebble.Sync)
	if err != nil {
		return fmt.Errorf("graph: recording schema version in %s: %w", s.dir, err)
	}
	return nil
}

func (s *Store) schemaError(have string) error {
	return &explainedError{sentinel: ErrSchema, msg: fmt.Sprintf(
		"store %s has schema version %s, this lspgraph needs %d; the graph is rebuildable: "+
			"delete %s or run `lspgraph index`/`lspgraph scip import` with a new --store",
		s.dir, have, SchemaVersion, s.dir)}
}

// explainedError is a sentinel error with a message for the user that
// replaces the sentinel's own text; errors.Is matches the sentinel and the
// cause.
type explainedError struct {
	sentinel error
	msg      string
	cause    error
}

func (e *explainedError) Error() string { return e.msg }

func (e *explainedError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.sentinel}
	}
	return []error{e.sentinel, e.cause}
}

func (s *Store) isEmpty() (bool, error) { return s.isEmptyRange(nil, nil) }

// isEmptyRange reports whether [lower, upper) holds no key (nil: unbounded).
func (s *Store) isEmptyRange(lower, upper []byte) (bool, error) {
	empty := true
	err := scanRange(context.Background(), s.db, lower, upper, func(k, v []byte) error {
		empty = false
		return errStop
	})
	return empty, err
}

// removeLeftovers deletes every base generation but the current one: the
// remains of a load that was killed or aborted.
func (s *Store) removeLeftovers() error {
	if s.readOnly {
		return nil
	}
	if err := s.removeIngestLeftovers(); err != nil {
		return err
	}
	cur, err := currentGen(s.db)
	if err != nil {
		return err
	}
	ranges := [][2][]byte{{spaceStart(firstGenSpace), spaceStart(math.MaxUint64)}}
	if cur != 0 {
		sp := genSpace(cur)
		ranges = [][2][]byte{{spaceStart(firstGenSpace), spaceStart(sp)}, {spaceStart(sp + 1), spaceStart(math.MaxUint64)}}
	}
	b := s.db.NewBatch()
	defer b.Close()
	for _, r := range ranges {
		if err := deleteRangeIfAny(s.db, b, r[0], r[1]); err != nil {
			return err
		}
	}
	if err := deleteRangeIfAny(s.db, b, appendMetaKey(nil, kindPending), prefixEnd(appendMetaKey(nil, kindPending))); err != nil {
		return err
	}
	if b.Empty() {
		return nil
	}
	if err := s.commit(b, pebble.Sync); err != nil {
		return fmt.Errorf("graph: removing unfinished generations from %s: %w", s.dir, err)
	}
	return nil
}

// deleteRangeIfAny adds a range deletion to b when [lower, upper) holds keys.
func deleteRangeIfAny(r kvReader, b *pebble.Batch, lower, upper []byte) error {
	any := false
	err := scanRange(context.Background(), r, lower, upper, func(k, v []byte) error {
		any = true
		return errStop
	})
	if err != nil || !any {
		return err
	}
	return b.DeleteRange(lower, upper, nil)
}

// currentGen returns the current base generation, 0 when there is none.
func currentGen(r kvReader) (uint64, error) {
	v, ok, err := get(r, appendMetaKey(nil, kindCurrent))
	if err != nil || !ok {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: current generation", errBadValue)
	}
	return binary.BigEndian.Uint64(v), nil
}

// readManifest returns a layer's manifest.
func readManifest(r kvReader, l Layer) (Manifest, bool, error) {
	v, ok, err := get(r, appendManifestKey(nil, l))
	if err != nil || !ok {
		return Manifest{}, false, err
	}
	var m Manifest
	if err := json.Unmarshal(v, &m); err != nil {
		return Manifest{}, false, fmt.Errorf("graph: decoding %s manifest: %w", l, err)
	}
	return m, true, nil
}

// Close closes the store, and the readers still open on it. It waits for
// writes in progress; an unfinished generation is discarded (the next Open
// removes it) and its writer fails with ErrClosed afterwards.
func (s *Store) Close() error {
	s.mu.Lock()
	g := s.gen
	s.mu.Unlock()
	if g != nil { // lock order: generation writer, then store
		g.mu.Lock()
		defer g.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readersMu.Lock()
	if s.closed.Swap(true) {
		s.readersMu.Unlock()
		return ErrClosed
	}
	var err error
	for r := range s.readers {
		err = cmp.Or(err, r.closeLocked())
	}
	s.readersMu.Unlock()
	s.warmMu.Lock() // a chunk of Warm in progress ends first
	s.warmMu.Unlock()
	err = cmp.Or(err, s.db.Close())
	if s.lock != nil {
		err = cmp.Or(err, s.lock.close())
	}
	if err != nil {
		return fmt.Errorf("graph: closing store %s: %w", s.dir, err)
	}
	return nil
}

// DiskUsage returns the bytes the store occupies on disk (or in memory):
// on disk, every file in its directory, the ones kept beside its tables
// (a producer's cache, like the syntax index's table of definitions)
// included.
func (s *Store) DiskUsage() uint64 {
	if s.closed.Load() {
		return 0
	}
	if s.inMemory {
		return s.db.Metrics().DiskSpaceUsage()
	}
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return s.db.Metrics().DiskSpaceUsage()
	}
	var n uint64
	for _, de := range des {
		if fi, err := de.Info(); err == nil && fi.Mode().IsRegular() {
			n += uint64(fi.Size())
		}
	}
	return n
}

// BlockCacheMisses returns how many blocks the store has read from its
// tables because its block cache did not hold them, since it opened: the
// cold cost of what it answered, counted rather than timed.
func (s *Store) BlockCacheMisses() int64 {
	if s.closed.Load() {
		return 0
	}
	return s.db.Metrics().BlockCache.Misses
}

// Dir returns the store's directory (absolute unless in memory).
func (s *Store) Dir() string { return s.dir }

// OnDisk reports whether the store is a directory on disk (not in
// memory): one where a producer may keep files of its own beside it.
func (s *Store) OnDisk() bool { return !s.inMemory }

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// writable reports why the store cannot be written, if it cannot.
func (s *Store) writable() error {
	if s.closed.Load() {
		return ErrClosed
	}
	if s.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, s.dir)
	}
	return nil
}
