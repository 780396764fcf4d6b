package graph

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

// warmStore writes a generation of synthetic documents to a store in a new
// directory, closes it and returns the directory: a store opened on it
// starts with an empty block cache.
func warmStore(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const docs = 300
	for i := range docs {
		if err := g.PutDocument(ctx, synthDoc(rng, i, docs, 40, 120)); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Commit(ctx, Manifest{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readWarmKinds reads every record of the kinds Warm reads, as answers
// would, and returns the block cache's hits and misses meanwhile.
func readWarmKinds(t *testing.T, s *Store) (hits, misses int64) {
	t.Helper()
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	space := genSpace(r.BaseGeneration())
	before := s.db.Metrics().BlockCache
	n := 0
	for _, k := range warmKinds {
		err := scanPrefix(context.Background(), r.kv(), appendPrefix(nil, space, k), func(_, _ []byte) error {
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatal("the generation has no records of the kinds Warm reads")
	}
	after := s.db.Metrics().BlockCache
	return after.Hits - before.Hits, after.Misses - before.Misses
}

func TestWarmFillsBlockCache(t *testing.T) {
	dir := warmStore(t)

	// Without Warm, the first read of the records misses the cache: what
	// Warm is for, and what lets this test fail.
	cold := openDisk(t, dir, Options{ReadOnly: true})
	_, coldMisses := readWarmKinds(t, cold)
	if err := cold.Close(); err != nil {
		t.Fatal(err)
	}
	if coldMisses == 0 {
		t.Fatal("a cold store's first read had no block cache misses")
	}

	s := openDisk(t, dir, Options{ReadOnly: true})
	defer s.Close()
	st, err := s.Warm(context.Background(), CacheSize/2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.End != WarmComplete || st.Generation == 0 || st.Keys == 0 || st.Bytes == 0 || st.BlockBytesRead == 0 {
		t.Fatalf("Warm = %+v, want every kind read from a generation", st)
	}
	if st.Bytes >= CacheSize/2 {
		t.Fatalf("the test's generation (%d bytes) does not fit the budget", st.Bytes)
	}
	// The bytes Warm counts bound what it adds to the cache, about.
	if size := s.db.Metrics().BlockCache.Size; size > st.Bytes*5/4 {
		t.Errorf("the block cache holds %d bytes after Warm counted %d", size, st.Bytes)
	}
	hits, misses := readWarmKinds(t, s)
	t.Logf("warm: %+v; read after: %d hits, %d misses (cold: %d misses)", st, hits, misses, coldMisses)
	if hits == 0 || misses > hits/100 {
		t.Errorf("reading after Warm: %d block cache hits, %d misses; want nearly all hits", hits, misses)
	}
}

func TestWarmBudget(t *testing.T) {
	s := openDisk(t, warmStore(t), Options{ReadOnly: true})
	defer s.Close()
	ctx := context.Background()
	full, err := s.Warm(ctx, CacheSize/2, nil)
	if err != nil {
		t.Fatal(err)
	}
	budget := full.Bytes / 3
	st, err := s.Warm(ctx, budget, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The chunk that reaches the budget ends with the record that does.
	if st.End != WarmBudget || st.Bytes < budget || st.Bytes >= full.Bytes || st.Bytes > budget+1<<10 {
		t.Fatalf("Warm(budget %d) = %+v, want it to stop at the budget (all: %d bytes)", budget, st, full.Bytes)
	}
	// The second pass found every block in the cache.
	if st.BlockBytesRead != 0 || st.BlockBytes == 0 {
		t.Errorf("a second Warm read %d of %d block bytes from the tables, want all from the cache", st.BlockBytesRead, st.BlockBytes)
	}
}

func TestWarmStops(t *testing.T) {
	dir := warmStore(t)
	s := openDisk(t, dir, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if st, err := s.Warm(ctx, CacheSize/2, nil); !errors.Is(err, context.Canceled) || st.Keys != 0 || st.End != WarmStopped {
		t.Errorf("Warm with a done context = %+v, %v; want context.Canceled before reading", st, err)
	}

	// A new generation, committed between two chunks, ends a Warm of
	// the previous one.
	committed := false
	commit := func(context.Context) error {
		if committed {
			return nil
		}
		committed = true
		g, err := s.BeginGeneration(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := g.PutDocument(context.Background(), synthDoc(rand.New(rand.NewPCG(1, 2)), 0, 1, 3, 3)); err != nil {
			t.Fatal(err)
		}
		if err := g.Commit(context.Background(), Manifest{}); err != nil {
			t.Fatal(err)
		}
		return nil
	}
	st, err := s.Warm(context.Background(), CacheSize/2, commit)
	if err != nil || st.End != WarmGenerationChanged || !committed {
		t.Errorf("Warm across a commit = %+v, %v; want it to stop when the generation changed", st, err)
	}
	if st, err := s.Warm(context.Background(), CacheSize/2, nil); err != nil || st.End != WarmComplete {
		t.Errorf("Warm of the new generation = %+v, %v; want it complete", st, err)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Warm(context.Background(), CacheSize/2, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Warm after Close: %v, want ErrClosed", err)
	}
}

// TestWarmDuringClose closes the store while Warm reads it (run it with
// -race): Warm ends with ErrClosed or having read everything, never with a
// read of a closed database.
func TestWarmDuringClose(t *testing.T) {
	s := openDisk(t, warmStore(t), Options{})
	done := make(chan error, 1)
	go func() {
		_, err := s.Warm(context.Background(), CacheSize/2, nil)
		done <- err
	}()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil && !errors.Is(err, ErrClosed) {
		t.Fatalf("Warm during Close: %v, want nil or ErrClosed", err)
	}
}

// TestWarmPauses: Warm asks pause between chunks, and pause's error stops
// it there, with what it read so far.
func TestWarmPauses(t *testing.T) {
	s := openDisk(t, warmStore(t), Options{ReadOnly: true})
	defer s.Close()
	ctx := context.Background()
	full, err := s.Warm(ctx, CacheSize/2, func(context.Context) error { return nil })
	if err != nil || full.End != WarmComplete {
		t.Fatalf("Warm with a pause that never holds = %+v, %v; want it complete", full, err)
	}
	errHeld := errors.New("held")
	calls := 0
	st, err := s.Warm(ctx, CacheSize/2, func(context.Context) error {
		calls++
		if calls == 2 {
			return errHeld
		}
		return nil
	})
	if !errors.Is(err, errHeld) || st.End != WarmStopped || st.Keys == 0 || st.Keys >= full.Keys {
		t.Fatalf("Warm stopped by its pause after two chunks = %+v, %v (all: %d keys); want the pause's error and part of the keys", st, err, full.Keys)
	}
	if calls != 2 {
		t.Errorf("pause called %d times, want 2 (once per chunk, none after it stopped the warm-up)", calls)
	}
}
