package graph

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// A generation is written by sorting its records in chunks, spilling each
// full chunk to a run file, and merging the runs into sstables ingested at
// the end: nothing reads a generation before Commit, so its records need
// neither the write-ahead log nor the memtable, whose skiplist inserts
// dominate the cost of writing small keys in random order. Because the
// merged tables do not overlap, Pebble puts them in the bottom level and
// compacts nothing; ingesting each chunk instead made every chunk overlap
// the others and cost a compaction of the whole generation. The merge is
// cut into key ranges, each written to its own table, so that it runs on
// every core. Keeping the sorted chunks in memory instead of run files
// measured no cheaper: the files stay in the page cache, and a new chunk's
// memory costs as much to fault in as a run file costs to write. With run
// files compressed, holding a generation's first four chunks in memory
// made the pebble corpus import about a tenth faster (0.735 s against
// 0.815 s, median of eight fresh processes), but its peak RSS then grew
// with the dump up to what was held (156 MB at four times the dump
// became 303 MB: the collector's headroom doubles what is held); holding
// two kept the growth within TestMemoryBounded's bound and measured no
// faster (0.830 s). Records with large values bypass the chunks and runs
// (see largeValue): their values are written once to a value file, and
// only their keys are sorted.

// chunkBytes bounds the memory a generation writer holds before spilling.
// With symbol ids in the keys, 16 MiB chunks cost the pebble corpus import
// the same CPU time as 64 MiB ones (2.31-2.44 against 2.01-2.57 CPU-s in
// one sitting) at less than half the peak RSS (145-154 MB against 341 MB):
// more, smaller runs merge no slower, and each sorts while the documents
// after it are converted. 8 MiB measured the same again (1.54 against 1.56
// CPU-s) and took 20 MB less at the peak, twice that with the collector's
// headroom: the two chunks are most of what an import holds. With the
// large values in the value file, 4 MiB made a new process's import of
// the pebble corpus faster in five alternated pairs out of five
// (0.73-0.77 against 0.77-0.81 s, 5-15 MB less at the peak: fewer fresh
// pages to fault in) and an index of one or four GOROOTs no slower.
const chunkBytes = 4 << 20

// maxRunRecord bounds the key and value lengths a run file's record header
// may declare: a chunk's offsets are 32-bit. A record is never cut, so one
// large document's record may exceed a chunk.
const maxRunRecord = math.MaxUint32

// ingestPrefix starts the names of the sstables a generation writer
// creates in the store directory before ingesting them.
const ingestPrefix = "lspgraph-ingest-"

// chunk accumulates records in one arena.
type chunk struct {
	arena   []byte
	ents    []chunkEntry
	scratch []chunkEntry // for partitioning
	// reserve, when set, is the arena's first capacity: a generation's
	// chunk is allocated once at the size that spills it (the pages are
	// touched only as records arrive), not doubled up to it, which copied
	// and touched each byte twice over.
	reserve int
}

// chunkEntry locates a record: key = arena[k:v], value = arena[v:end].
type chunkEntry struct{ k, v, end uint32 }

func (c *chunk) add(k, v []byte) {
	c.grow(len(k) + len(v))
	e := chunkEntry{k: uint32(len(c.arena))}
	c.arena = append(c.arena, k...)
	e.v = uint32(len(c.arena))
	c.arena = append(c.arena, v...)
	e.end = uint32(len(c.arena))
	c.ents = append(c.ents, e)
}

// grow makes room for n more bytes, doubling up to chunkBytes, so that a
// full chunk does not hold twice the memory it uses. A chunk is spilled
// after a whole document, so one large document can take it past
// chunkBytes: from there it grows by half, never by the bytes needed only,
// which would copy the arena on every record.
func (c *chunk) grow(n int) {
	need := len(c.arena) + n
	if need <= cap(c.arena) {
		return
	}
	if cap(c.arena) == 0 && c.reserve > 0 {
		c.arena = make([]byte, 0, max(need, c.reserve))
		return
	}
	next := min(2*cap(c.arena), chunkBytes)
	if need > chunkBytes {
		next = cap(c.arena) + cap(c.arena)/2
	}
	a := make([]byte, len(c.arena), max(need, next, 64<<10))
	copy(a, c.arena)
	c.arena = a
}

// addAll appends the records of o.
func (c *chunk) addAll(o *chunk) {
	c.grow(len(o.arena))
	base := uint32(len(c.arena))
	c.arena = append(c.arena, o.arena...)
	for _, e := range o.ents {
		c.ents = append(c.ents, chunkEntry{k: e.k + base, v: e.v + base, end: e.end + base})
	}
}

func (c *chunk) key(e chunkEntry) []byte   { return c.arena[e.k:e.v] }
func (c *chunk) value(e chunkEntry) []byte { return c.arena[e.v:e.end] }
func (c *chunk) size() int                 { return len(c.arena) + 12*len(c.ents) }
func (c *chunk) empty() bool               { return len(c.ents) == 0 }

func (c *chunk) reset() {
	c.arena, c.ents = c.arena[:0], c.ents[:0]
}

// sortDedup sorts the entries by key; of equal keys the last added wins.
// All keys must be in one space, so they order by kind byte first: the
// entries are partitioned by kind and the kinds sorted in parallel.
func (c *chunk) sortDedup() {
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, r := range c.partitionByKind() {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			c.sortRun(c.ents[r[0]:r[1]], c.scratch[r[0]:r[1]])
			<-sem
		}()
	}
	wg.Wait()
	w := 0
	for i := range c.ents {
		if w > 0 && bytes.Equal(c.key(c.ents[w-1]), c.key(c.ents[i])) {
			c.ents[w-1] = c.ents[i]
			continue
		}
		c.ents[w] = c.ents[i]
		w++
	}
	c.ents = c.ents[:w]
}

// partitionByKind reorders the entries stably by their kind byte and
// returns where the run of each kind present starts and ends. c.scratch
// is left as long as c.ents, and free to use.
func (c *chunk) partitionByKind() [][2]int {
	var count [256]int
	for _, e := range c.ents {
		count[c.arena[e.k+8]]++
	}
	var start [256]int
	n := 0
	for k := range count {
		start[k], n = n, n+count[k]
	}
	c.scratch = slices.Grow(c.scratch[:0], len(c.ents))[:len(c.ents)]
	next := start
	for _, e := range c.ents {
		k := c.arena[e.k+8]
		c.scratch[next[k]] = e
		next[k]++
	}
	c.ents, c.scratch = c.scratch, c.ents
	var runs [][2]int
	for k := range count {
		if count[k] > 0 {
			runs = append(runs, [2]int{start[k], start[k] + count[k]})
		}
	}
	return runs
}

// sortRun sorts entries of one kind by the rest of the key, then by
// insertion order. Keys of a kind often share a long prefix (SCIP symbols
// start with the same scheme, manager and package), so each entry carries
// the 8 bytes that follow the common prefix as a number, which a stable
// radix sort orders without reading the keys; entries whose numbers tie
// are sorted again, by the 8 bytes that follow their own common prefix (a
// multikey sort). The keys are read twice per round, in order: comparing
// full keys instead cost a sort most of its time in cache misses. Its
// scratch is allocated for the sort, not kept with the chunk: kept, the
// two chunks' made an import's peak 6 MB larger.
func (c *chunk) sortRun(run, orig []chunkEntry) {
	if len(run) < 2 {
		return
	}
	copy(orig, run)
	ents := make([]abbrEntry, 2*len(run))
	ents, scratch := ents[:len(run)], ents[len(run):]
	for i, e := range orig {
		ents[i] = abbrEntry{i: uint32(i), n: e.v - e.k}
	}
	rs := runSorter{arena: c.arena, run: orig}
	rs.sortTied(ents, 9, scratch)
	for i, a := range ents {
		run[i] = orig[a.i]
	}
}

// runSorter sorts the entries of a run, in insertion order.
type runSorter struct {
	arena []byte
	run   []chunkEntry
}

// abbrEntry stands for an entry of the run being sorted: its index, the
// length of its key, and 8 bytes of the key as a number.
type abbrEntry struct {
	abbr uint64
	i, n uint32
}

func (rs *runSorter) key(a abbrEntry) []byte {
	k := rs.run[a.i].k
	return rs.arena[k : k+a.n]
}

// sortTied sorts ents, which are in insertion order and whose keys agree
// before off, by key, then by insertion order. scratch is as long as ents
// at least.
func (rs *runSorter) sortTied(ents []abbrEntry, off int, scratch []abbrEntry) {
	// A key that ends by off is a prefix of every longer one: those come
	// first, shortest first.
	ended := 0
	for _, a := range ents {
		if int(a.n) <= off {
			ended++
		}
	}
	if ended > 0 {
		rest := scratch[:0]
		w := 0
		for _, a := range ents {
			if int(a.n) <= off {
				ents[w] = a
				w++
			} else {
				rest = append(rest, a)
			}
		}
		copy(ents[w:], rest)
		slices.SortStableFunc(ents[:ended], func(a, b abbrEntry) int { return cmp.Compare(a.n, b.n) })
		ents = ents[ended:]
	}
	if len(ents) < 2 {
		return
	}
	off += rs.commonPrefix(ents, off)
	for i := range ents {
		ents[i].abbr = abbreviate(rs.key(ents[i]), off)
	}
	sortAbbrStable(ents, scratch)
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && ents[j].abbr == ents[i].abbr {
			j++
		}
		if j-i > 1 {
			rs.sortTied(ents[i:j], off+8, scratch)
		}
		i = j
	}
}

// commonPrefix returns the length of the prefix the keys of ents, all
// longer than off, share from off on.
func (rs *runSorter) commonPrefix(ents []abbrEntry, off int) int {
	first := rs.key(ents[0])[off:]
	n := len(first)
	for _, a := range ents[1:] {
		if n = commonPrefixLen(first[:n], rs.key(a)[off:]); n == 0 {
			break
		}
	}
	return n
}

// sortAbbrStable sorts ents by abbr, keeping the order of equal ones: by
// insertion for a few entries, else by a least significant digit radix
// sort, through scratch (as long as ents at least), that skips the bytes
// all entries share.
func sortAbbrStable(ents, scratch []abbrEntry) {
	if len(ents) <= 32 {
		for i := 1; i < len(ents); i++ {
			for j := i; j > 0 && ents[j].abbr < ents[j-1].abbr; j-- {
				ents[j], ents[j-1] = ents[j-1], ents[j]
			}
		}
		return
	}
	var counts [8][256]int
	for _, a := range ents {
		for b := range 8 {
			counts[b][byte(a.abbr>>(8*b))]++
		}
	}
	src, dst := ents, scratch[:len(ents)]
	for b := range 8 {
		cnt := &counts[b]
		if cnt[byte(src[0].abbr>>(8*b))] == len(src) {
			continue // every entry has this byte
		}
		var next [256]int
		n := 0
		for d := range 256 {
			next[d], n = n, n+cnt[d]
		}
		for _, a := range src {
			d := byte(a.abbr >> (8 * b))
			dst[next[d]] = a
			next[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ents[0] {
		copy(ents, src)
	}
}

// commonPrefixLen returns the length of the longest common prefix of a
// and b.
func commonPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// abbreviate returns the 8 bytes of k from off, zero-padded, as a number
// whose order agrees with the order of k[off:].
func abbreviate(k []byte, off int) uint64 {
	if off+8 <= len(k) {
		return binary.BigEndian.Uint64(k[off:])
	}
	var b [8]byte
	if off < len(k) {
		copy(b[:], k[off:])
	}
	return binary.BigEndian.Uint64(b[:])
}

// mergeSizes are the sizes a generation writer merges with.
type mergeSizes struct {
	table int64 // roughly where the sstables written from a merge are cut
	mark  int64 // how far apart the marks of a run file are
	fanIn int   // how many runs of one level are merged into one run
	// workers is how many goroutines merge ranges at once (0: GOMAXPROCS).
	workers int
}

// mergers returns how many goroutines merge ranges at once.
func (sz mergeSizes) mergers() int { return cmp.Or(sz.workers, runtime.GOMAXPROCS(0)) }

// defaultMergeSizes: tables of 32 MiB, marks every 32 KiB, runs merged 512
// at a time. Every table's merge reads each run from the mark before its
// range to the mark after it: with marks far apart a large generation
// (many runs, many tables) read and buffered each run's marks' span for
// every table, a cost that grew with the square of the generation. Each
// run a merge reads holds a block (see runReader) in every merging
// goroutine, about 64 KB per run on two cores; runs are merged into larger
// ones as they accumulate (see GenerationWriter.compactRuns), so that a
// final merge reads 511 runs of each level at most (about 33 MB of
// blocks). At
// 4 MiB chunks no generation of less than 2 GiB of records is merged twice:
// merging 128 at a time merged four GOROOTs' index (138 runs of 8 MiB)
// twice, 2.7 CPU-s more of its 35.
var defaultMergeSizes = mergeSizes{table: 32 << 20, mark: 32 << 10, fanIn: 512}

// runFile is a sorted run file and where its records start: a mark every
// mergeSizes.mark bytes or so, the first at offset 0.
type runFile struct {
	path  string
	size  int64 // bytes in the file
	raw   int64 // bytes of its records (the file less its blocks' lengths)
	marks []runMark
	level int   // 0 for a spilled chunk, n+1 for a merge of runs of level n
	recs  int64 // records in the file
}

// runMark is the offset of a record in a run file, its key, and how many
// bytes of records and how many records precede it.
type runMark struct {
	key  []byte
	off  int64
	raw  int64
	recs int64
}

// spillChunk sorts c and writes it to the run file r.path: the records in
// key order, each as uvarint length of the prefix its key shares with the
// previous record's, uvarint length of the rest of the key, uvarint value
// length, the rest of the key, the value. Sorted keys share most of their
// bytes with their neighbours (the space, the kind, a symbol id, a path).
// The records are written in blocks of about mergeSizes.mark bytes, each
// framed by its uvarint length; a mark is at every block, whose first
// record shares nothing, so that reading can start there. The blocks are
// not compressed: they were (minlz, fastest) while the runs held large
// values too, but with those in the value file (see largeValue) the
// compression cost the pebble corpus's import 7% of its CPU time and the
// merge its decompression, and an index of four GOROOTs was no faster
// with it (18.9 and 22.5 s against 18.3 and 19.9 s).
// Run files are never synced: a generation that does not commit is
// discarded, and Open removes their remains.
func (s *Store) spillChunk(c *chunk, r *runFile, sizes mergeSizes) error {
	c.sortDedup()
	w, err := s.createRun(r, sizes)
	if err != nil {
		return err
	}
	for _, e := range c.ents {
		w.add(c.key(e), c.value(e))
	}
	return w.close()
}

// runWriter writes records, in key order, to a run file (see spillChunk).
// Each block is written to the file as it fills, its frame's header
// reserved at its start: no buffer of the file's (through a buffer of 1
// MiB, every byte of a run was copied once more, and each run file
// allocated and touched its megabyte anew).
type runWriter struct {
	s     *Store
	r     *runFile
	f     vfs.File
	err   error // the first write's error, reported by close
	sizes mergeSizes
	off   int64 // bytes written
	raw   int64 // bytes of records written
	recs  int64 // records written
	prev  []byte
	blk   []byte // the block being filled, after blockHeader bytes kept for its frame
}

// blockHeader is the room a run block keeps for its frame's uvarint.
const blockHeader = binary.MaxVarintLen64

// createRun creates the run file r.path to be written through a runWriter.
func (s *Store) createRun(r *runFile, sizes mergeSizes) (*runWriter, error) {
	f, err := s.fs.Create(r.path, "")
	if err != nil {
		return nil, fmt.Errorf("graph: creating %s: %w", r.path, err)
	}
	return &runWriter{s: s, r: r, f: f, sizes: sizes, blk: make([]byte, blockHeader, blockHeader+sizes.mark+sizes.mark/4)}, nil
}

// add writes the record k, v; its key follows the previous record's.
func (w *runWriter) add(k, v []byte) {
	shared := 0
	if len(w.r.marks) == 0 || int64(len(w.blk)-blockHeader) >= w.sizes.mark {
		w.flushBlock()
		w.r.marks = append(w.r.marks, runMark{slices.Clone(k), w.off, w.raw, w.recs})
	} else {
		shared = commonPrefixLen(w.prev, k)
	}
	w.prev = append(w.prev[:0], k...)
	w.blk = binary.AppendUvarint(w.blk, uint64(shared))
	w.blk = binary.AppendUvarint(w.blk, uint64(len(k)-shared))
	w.blk = binary.AppendUvarint(w.blk, uint64(len(v)))
	w.blk = append(w.blk, k[shared:]...)
	w.blk = append(w.blk, v...)
	w.recs++
}

// flushBlock writes the block filled so far, framed: its length's uvarint
// is put at the end of the room kept before it. A write's error is kept
// for close to report.
func (w *runWriter) flushBlock() {
	size := len(w.blk) - blockHeader
	if size == 0 {
		return
	}
	w.raw += int64(size)
	var hdr [blockHeader]byte
	n := binary.PutUvarint(hdr[:], uint64(size))
	frame := w.blk[blockHeader-n:]
	copy(frame, hdr[:n])
	if w.err == nil {
		_, w.err = w.f.Write(frame)
	}
	w.off += int64(len(frame))
	w.blk = w.blk[:blockHeader]
}

// close writes the last block and closes the file, which is removed if
// anything failed.
func (w *runWriter) close() error {
	w.flushBlock()
	w.r.size, w.r.raw, w.r.recs = w.off, w.raw, w.recs
	err := w.err
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = w.s.fs.Remove(w.r.path)
		return fmt.Errorf("graph: writing %s: %w", w.r.path, err)
	}
	return nil
}

// mergeRuns merges runs (oldest first; of equal keys the newest wins) into
// the run file out, of the level after theirs. The runs are left for the
// caller to remove.
func (s *Store) mergeRuns(runs []*runFile, out *runFile, sizes mergeSizes) (err error) {
	srcs := make([]mergeSource, 0, len(runs))
	defer func() {
		for _, src := range srcs {
			_ = src.(*runSource).f.Close()
		}
	}()
	for _, r := range runs {
		rs, err := s.openRun(r, nil, nil)
		if err != nil {
			return err
		}
		srcs = append(srcs, rs)
		out.level = max(out.level, r.level+1)
	}
	m, err := newMerger(srcs, nil, nil)
	if err != nil {
		return err
	}
	w, err := s.createRun(out, sizes)
	if err != nil {
		return err
	}
	for !m.done() {
		k, v := m.current()
		w.add(k, v)
		if err = m.next(); err != nil {
			break
		}
	}
	if cerr := w.close(); err == nil {
		return cerr
	}
	_ = s.fs.Remove(out.path)
	return fmt.Errorf("graph: merging %d runs into %s: %w", len(runs), out.path, err)
}

// ingestMerged merges the sorted run files (oldest first), the chunk c
// (newest) and the records of the value file vf (nil: none; no key of
// which is in c or the runs) into sstables that do not overlap, and
// ingests them in one step: Pebble places them in the bottom level, so no
// compaction follows. Of equal keys the newest wins. names yields the name
// of each sstable. The run files are removed.
//
// The key space is cut into ranges of about sizes.table, from the marks of
// the runs and the chunk's keys, and each range is merged and written to
// its own sstable independently of the others, several at once: no
// merge of the whole generation runs on one core.
func (s *Store) ingestMerged(ctx context.Context, runs []*runFile, c *chunk, vf *valueFile, sizes mergeSizes, names func() string) (err error) {
	defer func() {
		for _, r := range runs {
			_ = s.fs.Remove(r.path)
		}
	}()
	c.sortDedup()
	if vf != nil {
		if err := vf.finishWriting(); err != nil {
			return err
		}
	}
	tables, err := s.writeMerged(runs, c, vf, sizes, names)
	defer func() {
		for _, t := range tables {
			_ = s.fs.Remove(t) // ingestion links or copies the files
		}
	}()
	if err != nil || len(tables) == 0 {
		return err
	}
	if err := s.db.Ingest(ctx, tables); err != nil {
		return fmt.Errorf("graph: ingesting %d sstables: %w", len(tables), err)
	}
	return nil
}

// writeMerged merges the records of runs, the sorted chunk c and the
// value file vf (nil: none; its refs sorted) into sstables that do not
// overlap, one per key range (see cutRanges), several at once, and returns
// the paths of those written. On error it removes
// what it wrote.
func (s *Store) writeMerged(runs []*runFile, c *chunk, vf *valueFile, sizes mergeSizes, names func() string) ([]string, error) {
	bounds := cutRanges(runs, c, vf, sizes)
	tables := make([]string, len(bounds)+1)
	for i := range tables {
		tables[i] = s.fs.PathJoin(s.dir, names())
	}
	// Each run is opened once, its blocks read from every range's
	// goroutine (ReadAt): opened by each range, four GOROOTs' index opened
	// and closed its 250 runs 40 times over, a cost that grew with the
	// square of the generation (0.25 s of CPU there, 3 ms at one copy).
	files := make([]vfs.File, len(runs))
	defer func() {
		for _, f := range files {
			if f != nil {
				_ = f.Close()
			}
		}
	}()
	for i, r := range runs {
		f, err := s.fs.Open(r.path)
		if err != nil {
			return nil, fmt.Errorf("graph: opening %s: %w", r.path, err)
		}
		files[i] = f
	}
	written := make([]bool, len(tables))
	errs := make([]error, len(tables)+1)
	var syncs tableSyncs
	var wg sync.WaitGroup
	workers := min(sizes.mergers(), len(tables))
	queue := newRangeQueue(len(tables), workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One reader per run, kept from range to range: a buffer per
			// run and range made a generation allocate (and clear) memory
			// that grew with the square of its size.
			srcs := make([]*runSource, len(runs))
			for j := range srcs {
				srcs[j] = &runSource{r: &runReader{}}
			}
			prev := -2 // the range taken last, when it was written whole
			for {
				i, ok := queue.take(w)
				if !ok {
					return
				}
				var lo, hi []byte
				if i > 0 {
					lo = bounds[i-1]
				}
				if i < len(bounds) {
					hi = bounds[i]
				}
				for j, src := range srcs {
					if i == prev+1 {
						src.extend(hi)
					} else {
						src.seek(runs[j], files[j], lo, hi)
					}
				}
				written[i], errs[i] = s.writeRange(srcs, c, vf, lo, hi, tables[i], &syncs)
				prev = i
				if errs[i] != nil {
					prev = -2
				}
			}
		}()
	}
	wg.Wait()
	errs[len(tables)] = syncs.wait()
	if err := errors.Join(errs...); err != nil {
		for _, t := range tables {
			_ = s.fs.Remove(t)
		}
		return nil, err
	}
	var out []string
	for i, t := range tables {
		if written[i] {
			out = append(out, t)
		}
	}
	return out, nil
}

// recordWeight is what a record costs a merge beside its bytes, counted
// as bytes, in cutting it into ranges: the pebble corpus's ranges of
// large values (doc-first records) were written in 16-25 ms, those of as
// many bytes of index records (ten times as many records) in 35-51 ms,
// about 0.3 us a record more, what 128 bytes cost. Cut by bytes alone,
// the index records' ranges came last and one core merged the last one
// alone.
const recordWeight = 128

// cutRanges returns the keys that cut the records of runs, c and vf (nil:
// none) into ranges of about sizes.table bytes each, in increasing order,
// each record counting recordWeight bytes more than its own. The bytes
// counted are the records' own, keys and values, wherever they are:
// counted as the files' (when runs were compressed), a generation of 100
// MB of records looked like one table's worth and was merged on one core.
func cutRanges(runs []*runFile, c *chunk, vf *valueFile, sizes mergeSizes) [][]byte {
	total := int64(len(c.arena)) + recordWeight*int64(len(c.ents))
	for _, r := range runs {
		total += r.raw + recordWeight*r.recs
	}
	if vf != nil {
		total += vf.raw + recordWeight*int64(len(vf.refs.ents))
	}
	if total <= sizes.table {
		return nil
	}
	// Four ranges a core at least, down to an eighth of the table size:
	// with a few large ranges the last one was merged on one core while
	// the others idled.
	table := min(sizes.table, max(total/int64(4*sizes.mergers()), sizes.table/8))
	type sample struct {
		key    []byte
		weight int64 // the cost of the records from key to the next sample
	}
	var samples []sample
	for _, r := range runs {
		for i, m := range r.marks {
			end, recs := r.raw, r.recs
			if i+1 < len(r.marks) {
				end, recs = r.marks[i+1].raw, r.marks[i+1].recs
			}
			samples = append(samples, sample{m.key, end - m.raw + recordWeight*(recs-m.recs)})
		}
	}
	// A sorted chunk's entries are sampled every sizes.mark bytes, as a
	// run's marks are.
	sampleChunk := func(c *chunk, weight func(chunkEntry) int64) {
		var acc int64
		var last []byte
		for _, e := range c.ents {
			if acc == 0 {
				last = c.key(e)
			}
			acc += weight(e) + recordWeight
			if acc >= sizes.mark {
				samples = append(samples, sample{last, acc})
				acc = 0
			}
		}
		if acc > 0 {
			samples = append(samples, sample{last, acc})
		}
	}
	sampleChunk(c, func(e chunkEntry) int64 { return int64(e.end - e.k) })
	if vf != nil {
		sampleChunk(&vf.refs, func(e chunkEntry) int64 {
			_, n, _ := valueRef(vf.refs.value(e))
			return int64(e.v-e.k) + int64(n)
		})
	}
	slices.SortFunc(samples, func(a, b sample) int { return bytes.Compare(a.key, b.key) })
	var bounds [][]byte
	var acc int64
	for _, sm := range samples {
		if acc >= table && (len(bounds) == 0 || bytes.Compare(sm.key, bounds[len(bounds)-1]) > 0) {
			bounds = append(bounds, sm.key)
			acc = 0
		}
		acc += sm.weight
	}
	return bounds
}

// writeRange merges the records of the runs read by runs (placed to read
// the range: runSource.seek, extend), c and vf (nil: none) with keys in
// [lo, hi) (nil for no bound) into the sstable at path; the table is
// synced and closed through syncs. written is false when the range holds
// no record; then no file is left at path.
func (s *Store) writeRange(runs []*runSource, c *chunk, vf *valueFile, lo, hi []byte, path string, syncs *tableSyncs) (written bool, err error) {
	srcs := make([]mergeSource, 0, len(runs)+2)
	for _, r := range runs {
		srcs = append(srcs, r)
	}
	start, end := chunkSpan(c, lo, hi)
	srcs = append(srcs, &chunkSource{c: c, i: start, end: end})
	if vf != nil {
		start, end := chunkSpan(&vf.refs, lo, hi)
		srcs = append(srcs, &valueFileSource{vf: vf, i: start, end: end})
	}
	m, err := newMerger(srcs, lo, hi)
	if err != nil {
		return false, err
	}
	if m.done() {
		return false, nil
	}
	f, err := s.fs.Create(path, "")
	if err != nil {
		return false, fmt.Errorf("graph: creating %s: %w", path, err)
	}
	// Pebble's default block size: 16 KiB blocks made writing a generation
	// about 5% cheaper in CPU but queries 7-13% slower.
	opts := s.opts.MakeWriterOptions(6, s.db.TableFormat())
	w := sstable.NewWriter(newTableFile(f, syncs), opts)
	for !m.done() {
		k, v := m.current()
		if err = w.Set(k, v); err != nil {
			break
		}
		if err = m.next(); err != nil {
			break
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("graph: writing %s: %w", path, err)
	}
	return true, nil
}

// openRun opens the run file r to be read from its last mark not after lo
// to its first mark at or after hi (nil: the end).
func (s *Store) openRun(r *runFile, lo, hi []byte) (*runSource, error) {
	f, err := s.fs.Open(r.path)
	if err != nil {
		return nil, fmt.Errorf("graph: opening %s: %w", r.path, err)
	}
	rs := &runSource{r: &runReader{}, f: f}
	rs.seek(r, f, lo, hi)
	return rs, nil
}

// rangeQueue hands a final merge's ranges to its goroutines. Each starts
// on a share of consecutive ranges and takes them in order, so that each
// run's reader goes on from where the range before left it (see
// runSource.extend): the block of every run at a boundary is read once,
// not again by the range that starts there. Ranges and runs both grow
// with a generation, and those reads with its square: 330 MB of blocks
// read twice at four GOROOT copies, 0.3 s of CPU. A goroutine whose share
// is done takes the second half of the largest share left, so that the
// cores stay as balanced as when every range was handed out in turn.
type rangeQueue struct {
	mu     sync.Mutex
	shares [][2]int // each goroutine's ranges left: [next, end)
}

// newRangeQueue shares n ranges among workers goroutines.
func newRangeQueue(n, workers int) *rangeQueue {
	q := &rangeQueue{shares: make([][2]int, workers)}
	for w := range workers {
		q.shares[w] = [2]int{w * n / workers, (w + 1) * n / workers}
	}
	return q
}

// take returns the next range of goroutine w; false when none is left.
func (q *rangeQueue) take(w int) (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	own := &q.shares[w]
	if own[0] == own[1] {
		left := func(v int) int { return q.shares[v][1] - q.shares[v][0] }
		v := 0
		for j := range q.shares {
			if left(j) > left(v) {
				v = j
			}
		}
		if left(v) == 0 {
			return 0, false
		}
		other := &q.shares[v]
		mid := other[0] + left(v)/2
		*own = [2]int{mid, other[1]}
		other[1] = mid
	}
	i := own[0]
	own[0]++
	return i, true
}

// runReader reads the records of a run file's blocks (see spillChunk), a
// block at a time: every block starts at a mark, so each is read whole,
// with one read, from its mark to the next. A merge holds one per run and
// merging goroutine, a block (about 32 KiB); through a buffered reader of
// 256 KiB, 30 runs (four times the pebble corpus's dump) took 18 MB in a
// merge on two cores.
type runReader struct {
	f     io.ReaderAt
	marks []runMark // the run's marks: block i is from marks[i] to marks[i+1] (or size)
	size  int64
	next  int    // the block to read next
	last  int    // the block to stop before
	buf   []byte // the block read last
	raw   []byte // its records: buf past the block's length
	pos   int    // how far into raw reading is
}

// seek makes rr read the run r, open as f, from its last mark not after
// lo to its first mark at or after hi (nil: the end).
func (rr *runReader) seek(r *runFile, f io.ReaderAt, lo, hi []byte) {
	first := 0
	if lo != nil {
		i, found := slices.BinarySearchFunc(r.marks, lo, byMarkKey)
		if !found {
			i--
		}
		first = max(i, 0)
	}
	*rr = runReader{f: f, marks: r.marks, size: r.size, next: first, buf: rr.buf[:0]}
	rr.extend(hi)
}

// extend makes rr read on to the first mark at or after hi (nil: the
// end). The records from a mark whose key is hi or after are all past a
// range that ends at hi.
func (rr *runReader) extend(hi []byte) {
	rr.last = len(rr.marks)
	if hi != nil {
		j, _ := slices.BinarySearchFunc(rr.marks, hi, byMarkKey)
		rr.last = max(j, rr.next)
	}
}

func byMarkKey(m runMark, k []byte) int { return bytes.Compare(m.key, k) }

// block reads the next block; io.EOF at the end.
func (rr *runReader) block() error {
	if rr.next >= rr.last {
		return io.EOF
	}
	off, next := rr.marks[rr.next].off, rr.size
	if rr.next+1 < len(rr.marks) {
		next = rr.marks[rr.next+1].off
	}
	rr.next++
	if next <= off || next-off > maxRunRecord {
		return fmt.Errorf("corrupt marks: a block from byte %d to %d", off, next)
	}
	rr.buf = slices.Grow(rr.buf[:0], int(next-off))[:next-off]
	if _, err := rr.f.ReadAt(rr.buf, off); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	n, h := binary.Uvarint(rr.buf)
	if h <= 0 || n != uint64(len(rr.buf)-h) {
		return fmt.Errorf("corrupt block at byte %d: its length does not span it", off)
	}
	rr.raw, rr.pos = rr.buf[h:], 0
	return nil
}

// mergeSource is a sorted sequence of records without duplicate keys.
type mergeSource interface {
	// next advances to the next record; ok is false at the end. The
	// slices stay valid until the following call.
	next() (k, v []byte, ok bool, err error)
}

// chunkSource reads the entries [i, end) of a sorted chunk.
type chunkSource struct {
	c      *chunk
	i, end int
}

func (s *chunkSource) next() ([]byte, []byte, bool, error) {
	if s.i >= s.end {
		return nil, nil, false, nil
	}
	e := s.c.ents[s.i]
	s.i++
	return s.c.key(e), s.c.value(e), true, nil
}

// runSource reads a run file written by spillChunk.
type runSource struct {
	path string
	f    io.Closer // the file, when the source owns it (openRun)
	r    *runReader
	key  []byte // the current record's key; the next shares a prefix of it
	val  []byte // the current record's value
	// held: the current record is past the range a merger read (see
	// merger.past), and next returns it again, for the range after.
	held bool
}

// seek makes s read the run r, open as f, as runReader.seek does.
func (s *runSource) seek(r *runFile, f io.ReaderAt, lo, hi []byte) {
	s.path, s.key, s.val, s.held = r.path, s.key[:0], nil, false
	s.r.seek(r, f, lo, hi)
}

// extend makes s, which a merger has read to the end of a range, read on
// to hi (nil: the end) for the range that starts there: the record past
// the range it holds first, then the rest.
func (s *runSource) extend(hi []byte) { s.r.extend(hi) }

// next parses the next record straight from the block in memory: a
// record never spans blocks. The value is a slice of the block, valid
// until the following call as mergeSource asks.
func (s *runSource) next() ([]byte, []byte, bool, error) {
	if s.held {
		s.held = false
		return s.key, s.val, true, nil
	}
	rr := s.r
	if rr.pos == len(rr.raw) {
		if err := rr.block(); err == io.EOF {
			return nil, nil, false, nil
		} else if err != nil {
			return nil, nil, false, fmt.Errorf("graph: reading %s: %w", s.path, err)
		}
	}
	b := rr.raw[rr.pos:]
	shared, n1 := binary.Uvarint(b)
	kl, n2 := uvarintAt(b, n1)
	vl, n3 := uvarintAt(b, n1+n2)
	hdr := n1 + n2 + n3
	if n1 <= 0 || n2 <= 0 || n3 <= 0 || shared > uint64(len(s.key)) || kl > uint64(len(b)-hdr) || vl > uint64(len(b)-hdr)-kl {
		return nil, nil, false, fmt.Errorf("graph: reading %s: corrupt record at byte %d of a block", s.path, rr.pos)
	}
	k := b[hdr : hdr+int(kl)]
	v := b[hdr+int(kl) : hdr+int(kl)+int(vl)]
	rr.pos += hdr + int(kl) + int(vl)
	s.key, s.val = append(s.key[:shared], k...), v
	return s.key, v, true, nil
}

// uvarintAt decodes the uvarint at b[off:]; n ≤ 0 as binary.Uvarint when
// there is none.
func uvarintAt(b []byte, off int) (uint64, int) {
	if off <= 0 || off > len(b) {
		return 0, 0
	}
	return binary.Uvarint(b[off:])
}

// merger merges the records of sources with keys in [lo, hi) (nil for no
// bound) in key order; of equal keys, the source added last wins. It keeps
// a binary heap of the sources' current records.
type merger struct {
	heads   []mergeHead // a heap by key, then newest source first
	hi      []byte
	scratch []byte
}

type mergeHead struct {
	src  mergeSource
	rank int // index of the source: higher is newer
	k, v []byte
	// bounded: the source ends before the merger's upper bound (a chunk
	// or a value file cut to the range), so its keys need no comparison
	// with it, and they stay valid as it advances.
	bounded bool
	// The key's first 16 bytes as numbers (zero-padded), which decide
	// most comparisons without a call: keys of a generation share their
	// first 8 bytes, and the 8 after them are a kind byte and, in most
	// records, the start of a symbol id, a hash.
	a0, a1 uint64
}

func (h *mergeHead) set(k, v []byte) {
	h.k, h.v = k, v
	h.a0, h.a1 = abbreviate(k, 0), abbreviate(k, 8)
}

func newMerger(srcs []mergeSource, lo, hi []byte) (*merger, error) {
	m := &merger{hi: hi}
	for i, src := range srcs {
		k, v, ok, err := src.next()
		for ok && err == nil && lo != nil && bytes.Compare(k, lo) < 0 {
			k, v, ok, err = src.next()
		}
		if err != nil {
			return nil, err
		}
		bounded := false
		switch src.(type) {
		case *chunkSource, *valueFileSource:
			bounded = true // cut to the range, its keys stable
		}
		if ok && (bounded || m.below(k)) {
			h := mergeHead{src: src, rank: i, bounded: bounded}
			h.set(k, v)
			m.heads = append(m.heads, h)
		} else if ok {
			past(src)
		}
	}
	for i := len(m.heads)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m, nil
}

func (m *merger) done() bool { return len(m.heads) == 0 }

// current returns the smallest key and the newest value for it.
func (m *merger) current() (k, v []byte) { return m.heads[0].k, m.heads[0].v }

// next moves past the current key in every source holding it.
func (m *merger) next() error {
	key := m.heads[0].k
	if !m.heads[0].bounded {
		// Advance the top first (a run file's slices are reused),
		// remembering the key; a chunk's stay valid.
		m.scratch = append(m.scratch[:0], key...)
		key = m.scratch
	}
	for len(m.heads) > 0 && bytes.Equal(m.heads[0].k, key) {
		if err := m.advanceTop(); err != nil {
			return err
		}
	}
	return nil
}

// advanceTop replaces the top record by its source's next one.
func (m *merger) advanceTop() error {
	h := &m.heads[0]
	k, v, ok, err := h.src.next()
	if err != nil {
		return err
	}
	if ok && (h.bounded || m.below(k)) {
		h.set(k, v)
	} else {
		if ok {
			past(h.src)
		}
		last := len(m.heads) - 1
		m.heads[0] = m.heads[last]
		m.heads = m.heads[:last]
	}
	if len(m.heads) > 0 {
		m.down(0)
	}
	return nil
}

// past notes that the record src read last is at or past a merger's
// upper bound: a run source holds it for the range that starts there.
// Other sources are cut to their range and never read past it.
func past(src mergeSource) {
	if rs, ok := src.(*runSource); ok {
		rs.held = true
	}
}

// below reports whether k is before the merger's upper bound.
func (m *merger) below(k []byte) bool { return m.hi == nil || bytes.Compare(k, m.hi) < 0 }

func (m *merger) less(i, j int) bool {
	a, b := &m.heads[i], &m.heads[j]
	if a.a0 != b.a0 {
		return a.a0 < b.a0
	}
	if a.a1 != b.a1 {
		return a.a1 < b.a1
	}
	if c := bytes.Compare(a.k, b.k); c != 0 {
		return c < 0
	}
	return a.rank > b.rank
}

func (m *merger) down(i int) {
	n := len(m.heads)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && m.less(r, l) {
			j = r
		}
		if !m.less(j, i) {
			return
		}
		m.heads[i], m.heads[j] = m.heads[j], m.heads[i]
		i = j
	}
}

// removeIngestLeftovers deletes sstables a killed generation writer left
// before ingesting them.
func (s *Store) removeIngestLeftovers() error {
	names, err := s.fs.List(s.dir)
	if err != nil {
		return fmt.Errorf("graph: listing %s: %w", s.dir, err)
	}
	for _, n := range names {
		if strings.HasPrefix(n, ingestPrefix) {
			if err := s.fs.Remove(s.fs.PathJoin(s.dir, n)); err != nil {
				return fmt.Errorf("graph: removing %s: %w", n, err)
			}
		}
	}
	return nil
}

// tableFile is where a generation's sstable is written: a file behind a
// buffer of tableBuffer bytes, synced when finished. Pebble's own
// (objstorageprovider.NewFileWritable) buffers 4 KiB, one system call per
// 4 KiB of a generation's tables.
type tableFile struct {
	f     vfs.File
	bw    *bufio.Writer
	syncs *tableSyncs
}

// tableBuffer is tableFile's buffer.
const tableBuffer = 256 << 10

// newTableFile returns f behind a buffer; when it is finished, syncs
// syncs and closes it.
func newTableFile(f vfs.File, syncs *tableSyncs) *tableFile {
	return &tableFile{f: f, bw: bufio.NewWriterSize(f, tableBuffer), syncs: syncs}
}

func (t *tableFile) Write(p []byte) error {
	_, err := t.bw.Write(p)
	return err
}

// Finish writes out what is buffered and hands the file to be synced
// and closed.
func (t *tableFile) Finish() error {
	if err := t.bw.Flush(); err != nil {
		return errors.Join(err, t.f.Close())
	}
	t.syncs.start(t.f)
	return nil
}

// tableSyncs syncs and closes the sstables of a merge, each in a goroutine
// of its own started when its writer finished, so that the merge goes on
// with its next range meanwhile: synced in the merging goroutine, the
// pebble corpus's eight tables kept a core idle for 2-7 ms each. Ingestion
// needs them synced (pebble.DB.Ingest); wait is called before.
type tableSyncs struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
}

func (ts *tableSyncs) start(f vfs.File) {
	ts.wg.Go(func() {
		if err := errors.Join(f.Sync(), f.Close()); err != nil {
			ts.mu.Lock()
			ts.err = errors.Join(ts.err, err)
			ts.mu.Unlock()
		}
	})
}

// wait waits for the files started and returns their errors.
func (ts *tableSyncs) wait() error {
	ts.wg.Wait()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.err
}

func (t *tableFile) Abort() { _ = t.f.Close() }
