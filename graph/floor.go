package graph

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
)

// TableFloor holds the records of the current base generation in memory,
// in key order, to measure what writing them to sstables costs on its own:
// the last step of a generation's load, which no way of producing the same
// records can avoid. A benchmark compares a load with it (see scip.Bench).
type TableFloor struct {
	s       *Store
	c       chunk
	Records int   // records of the generation
	Bytes   int64 // their keys and values
	written atomic.Int64
}

// NewTableFloor reads the current base generation's records into memory.
// It fails on a store without a base generation, and on a read-only one
// (Write creates files in its directory).
func (s *Store) NewTableFloor(ctx context.Context) (*TableFloor, error) {
	if err := s.writable(); err != nil {
		return nil, err
	}
	gen, err := currentGen(s.db)
	if err != nil {
		return nil, err
	}
	if gen == 0 {
		return nil, errors.New("graph: the store has no base generation to measure")
	}
	space := genSpace(gen)
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: spaceStart(space), UpperBound: spaceStart(space + 1)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	f := &TableFloor{s: s}
	for ok := it.First(); ok; ok = it.Next() {
		if f.Records%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, fmt.Errorf("graph: reading generation %d: %w", gen, err)
		}
		if f.Bytes+int64(len(it.Key())+len(v)) > maxFloorBytes {
			return nil, fmt.Errorf("graph: generation %d holds more than the %d MB of records a floor measures in memory", gen, maxFloorBytes>>20)
		}
		f.c.add(it.Key(), v)
		f.Records++
		f.Bytes += int64(len(it.Key()) + len(v))
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("graph: reading generation %d: %w", gen, err)
	}
	return f, nil
}

// maxFloorBytes bounds the records a TableFloor holds (a chunk's offsets
// are 32-bit).
const maxFloorBytes = 2 << 30

// Write writes the records to new sstables in the store's directory the
// way a generation's load writes its merged records at its end (cut into
// the same key ranges, several at once, with the same options; see
// writeMerged), then removes them. It returns how many tables it wrote.
func (f *TableFloor) Write() (int, error) {
	names := func() string {
		return fmt.Sprintf("%sfloor-%d.sst", ingestPrefix, f.written.Add(1))
	}
	tables, err := f.s.writeMerged(nil, &f.c, nil, defaultMergeSizes, names)
	for _, t := range tables {
		_ = f.s.fs.Remove(t)
	}
	if err != nil {
		return 0, fmt.Errorf("graph: writing the floor's sstables: %w", err)
	}
	return len(tables), nil
}
