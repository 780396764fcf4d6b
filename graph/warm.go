package graph

import (
	"bytes"
	"context"
	"fmt"
	"runtime"

	"github.com/cockroachdb/pebble/v2"
)

// CacheSize is the size of the store's block cache, in bytes: the blocks
// of the tables that reads loaded last, decompressed.
const CacheSize = 64 << 20

// warmKinds are the record kinds Warm reads, most useful first: a
// budget smaller than the generation keeps the first ones. They are what
// answers about a symbol read: its id's string (every index key holds
// ids), its records, its definitions and the names searched (these four
// small), its edges out and in, then the symbols and records of the
// documents answers point into, and last its references (large, and read
// a few at a time). On the Pebble repository's graph (SCIP, 740
// documents) the first four are 12 MB of records, the edges 18 MB each
// way, the documents' symbols 17 MB and the references 16 MB; a block
// holds about its records' bytes in the cache.
var warmKinds = []kind{kindSymID, kindSym, kindDef, kindName, kindOut, kindIn, kindDocSym, kindDoc, kindRef}

// warmChunk is the bytes Warm reads between two looks at whether to go
// on (the context, the store closing, the generation changing), yielding
// the processor in between.
const warmChunk = 256 << 10

// WarmEnd says why Warm stopped.
type WarmEnd int

const (
	// WarmStopped: an error stopped it (the context's, ErrClosed).
	WarmStopped WarmEnd = iota
	// WarmComplete: every record kind Warm reads was read.
	WarmComplete
	// WarmBudget: the bytes read reached the budget.
	WarmBudget
	// WarmGenerationChanged: another base generation became current.
	WarmGenerationChanged
	// WarmNoGeneration: the store has no base generation.
	WarmNoGeneration
)

func (e WarmEnd) String() string {
	switch e {
	case WarmStopped:
		return "stopped"
	case WarmComplete:
		return "complete"
	case WarmBudget:
		return "budget"
	case WarmGenerationChanged:
		return "generation changed"
	case WarmNoGeneration:
		return "no generation"
	}
	return fmt.Sprintf("WarmEnd(%d)", int(e))
}

// WarmStats is what Warm read.
type WarmStats struct {
	Generation uint64 // the base generation read
	Keys       int64  // records read
	// Bytes is the keys' and values' bytes read: what the budget bounds.
	// A block holds its records' bytes less the prefixes keys share with
	// the one before, plus a little framing, so the cache grows by about
	// this much (the blocks a read shares with answers already cached
	// add nothing).
	Bytes int64
	// BlockBytes is the bytes of the blocks loaded, as stored (compressed),
	// and BlockBytesRead those of them not already in the cache.
	BlockBytes, BlockBytesRead uint64
	End                        WarmEnd
}

// Warm reads the records answers read of the current base generation, in
// order of use (see warmKinds), so that their blocks land in the block
// cache before the first answer needs them. It reads through ordinary
// iterators, a chunk (warmChunk) at a time, and stops when the bytes read
// reach budget, when every kind was read, when another generation becomes
// current, or with an error: ctx's when it is done, ErrClosed when the
// store closes (Close waits for at most the chunk in progress). A budget
// of half CacheSize or less leaves the answers' own blocks room.
//
// Warm is meant for a goroutine of its own; between chunks it yields the
// processor, and it holds no lock an answer takes. pause, when not nil,
// is called between chunks too: it returns when the warm-up may go on
// (a session's, once no answer is under way), or with an error that
// stops it.
func (s *Store) Warm(ctx context.Context, budget int64, pause func(context.Context) error) (WarmStats, error) {
	var st WarmStats
	gen, err := s.warmGen()
	if err != nil || gen == 0 {
		st.End = WarmNoGeneration
		return st, err
	}
	st.Generation = gen
	space := genSpace(gen)
	for _, k := range warmKinds {
		lower, upper := appendPrefix(nil, space, k), prefixEnd(appendPrefix(nil, space, k))
		for lower != nil {
			if err := ctx.Err(); err != nil {
				return st, err
			}
			if st.Bytes >= budget {
				st.End = WarmBudget
				return st, nil
			}
			cur, err := s.warmGen()
			if err != nil {
				return st, err
			}
			if cur != gen {
				st.End = WarmGenerationChanged
				return st, nil
			}
			if lower, err = s.warmChunk(ctx, lower, upper, min(warmChunk, budget-st.Bytes), &st); err != nil {
				return st, err
			}
			runtime.Gosched()
			if pause != nil {
				if err := pause(ctx); err != nil {
					return st, err
				}
			}
		}
	}
	st.End = WarmComplete
	return st, nil
}

// warmGen returns the current base generation, or ErrClosed.
func (s *Store) warmGen() (uint64, error) {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if s.closed.Load() {
		return 0, ErrClosed
	}
	gen, err := currentGen(s.db)
	if err != nil {
		return 0, fmt.Errorf("graph: warming the block cache of %s: %w", s.dir, err)
	}
	return gen, nil
}

// warmChunk reads [lower, upper) until n bytes are read, and returns the
// key to go on from (nil when the range is done).
func (s *Store) warmChunk(ctx context.Context, lower, upper []byte, n int64, st *WarmStats) (next []byte, err error) {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, fmt.Errorf("graph: warming the block cache of %s: %w", s.dir, err)
	}
	defer func() {
		is := it.Stats().InternalStats
		st.BlockBytes += is.BlockBytes
		st.BlockBytesRead += is.BlockBytes - is.BlockBytesInCache
		if cerr := it.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("graph: warming the block cache of %s: %w", s.dir, cerr)
		}
	}()
	var read int64
	for valid := it.First(); valid; valid = it.Next() {
		if read >= n {
			st.Bytes += read
			return bytes.Clone(it.Key()), nil
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, fmt.Errorf("graph: warming the block cache of %s: %w", s.dir, err)
		}
		read += int64(len(it.Key()) + len(v))
		st.Keys++
	}
	st.Bytes += read
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("graph: warming the block cache of %s: %w", s.dir, err)
	}
	return nil, nil
}
