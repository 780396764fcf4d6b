package graph

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
)

// A generation is written by sorting its records in chunks and ingesting
// each chunk as an sstable: nothing reads a generation before Commit, so
// its records need neither the write-ahead log nor the memtable, whose
// skiplist inserts dominate the cost of writing small keys in random order.

// chunkBytes bounds the memory a generation writer holds before ingesting.
const chunkBytes = 64 << 20

// ingestPrefix starts the names of the sstables a generation writer
// creates in the store directory before ingesting them.
const ingestPrefix = "lspgraph-ingest-"

// chunk accumulates records in one arena.
type chunk struct {
	arena   []byte
	ents    []chunkEntry
	scratch []chunkEntry // for partitioning
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

// grow makes room for n more bytes, doubling up to chunkBytes but not
// beyond, so that a full chunk does not hold twice the memory it uses.
func (c *chunk) grow(n int) {
	need := len(c.arena) + n
	if need <= cap(c.arena) {
		return
	}
	a := make([]byte, len(c.arena), max(need, min(2*cap(c.arena), chunkBytes), 64<<10))
	copy(a, c.arena)
	c.arena = a
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
	for _, run := range c.partitionByKind() {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			c.sortRun(run)
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
// returns the run of each kind present.
func (c *chunk) partitionByKind() [][]chunkEntry {
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
	var runs [][]chunkEntry
	for k := range count {
		if count[k] > 0 {
			runs = append(runs, c.ents[start[k]:start[k]+count[k]])
		}
	}
	return runs
}

// sortRun sorts entries of one kind by the rest of the key, then by
// insertion order. Keys of a kind often share a long prefix (SCIP symbols
// start with the same scheme, manager and package), so each entry carries
// the 8 bytes that follow the run's common prefix, and full keys are only
// compared when those are equal.
func (c *chunk) sortRun(run []chunkEntry) {
	if len(run) < 2 {
		return
	}
	off := 9 + c.commonPrefix(run)
	ents := make([]abbrEntry, len(run))
	for i, e := range run {
		ents[i] = abbrEntry{abbreviate(c.key(e), off), e}
	}
	slices.SortFunc(ents, func(a, b abbrEntry) int {
		if a.abbr != b.abbr {
			return cmp.Compare(a.abbr, b.abbr)
		}
		if r := bytes.Compare(c.key(a.e)[off:], c.key(b.e)[off:]); r != 0 {
			return r
		}
		return cmp.Compare(a.e.k, b.e.k) // arena order is insertion order
	})
	for i := range ents {
		run[i] = ents[i].e
	}
}

// abbrEntry is an entry with its abbreviated key.
type abbrEntry struct {
	abbr uint64
	e    chunkEntry
}

// commonPrefix returns the length of the prefix all keys of run share
// after the space and kind.
func (c *chunk) commonPrefix(run []chunkEntry) int {
	first := c.key(run[0])[9:]
	n := len(first)
	for _, e := range run[1:] {
		k := c.key(e)[9:]
		n = min(n, len(k))
		for i := 0; i < n; i++ {
			if k[i] != first[i] {
				n = i
				break
			}
		}
		if n == 0 {
			break
		}
	}
	return n
}

// abbreviate returns the 8 bytes of k from off, zero-padded, as a number
// whose order agrees with the order of k[off:].
func abbreviate(k []byte, off int) uint64 {
	var b [8]byte
	if off < len(k) {
		copy(b[:], k[off:])
	}
	return binary.BigEndian.Uint64(b[:])
}

// ingestChunk writes c as one sstable in the store directory and ingests it.
func (s *Store) ingestChunk(ctx context.Context, c *chunk, name string) error {
	c.sortDedup()
	path := s.fs.PathJoin(s.dir, name)
	if err := s.writeTable(path, c); err != nil {
		_ = s.fs.Remove(path)
		return fmt.Errorf("graph: writing %s: %w", path, err)
	}
	err := s.db.Ingest(ctx, []string{path})
	_ = s.fs.Remove(path) // ingestion links or copies the file
	if err != nil {
		return fmt.Errorf("graph: ingesting %s: %w", path, err)
	}
	return nil
}

func (s *Store) writeTable(path string, c *chunk) error {
	f, err := s.fs.Create(path, "")
	if err != nil {
		return err
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), s.opts.MakeWriterOptions(0, s.db.TableFormat()))
	for _, e := range c.ents {
		if err := w.Set(c.key(e), c.value(e)); err != nil {
			_ = w.Close()
			return err
		}
	}
	return w.Close()
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
