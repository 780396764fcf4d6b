package graph

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

func TestTableFloor(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	defer s.Close()
	if _, err := s.NewTableFloor(ctx); err == nil || !strings.Contains(err.Error(), "no base generation") {
		t.Fatalf("floor of an empty store: %v, want the no-generation error", err)
	}

	// Two generations: the floor holds the current one's records only.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2 {
		g, err := s.BeginGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 40 {
			if err := g.PutDocument(ctx, synthDoc(rng, i, 40, 30, 50)); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Commit(ctx, Manifest{}); err != nil {
			t.Fatal(err)
		}
	}
	gen, err := currentGen(s.db)
	if err != nil {
		t.Fatal(err)
	}
	var want int
	var wantBytes int64
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: spaceStart(genSpace(gen)), UpperBound: spaceStart(genSpace(gen) + 1)})
	if err != nil {
		t.Fatal(err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		want++
		wantBytes += int64(len(it.Key()) + len(it.Value()))
	}
	it.Close()

	f, err := s.NewTableFloor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.Records != want || f.Bytes != wantBytes || want == 0 {
		t.Errorf("floor holds %d records (%d bytes), generation %d has %d (%d bytes)", f.Records, f.Bytes, gen, want, wantBytes)
	}
	n, err := f.Write()
	if err != nil || n == 0 {
		t.Fatalf("Write: %d tables, %v", n, err)
	}
	if _, err := f.Write(); err != nil { // again: nothing is consumed
		t.Fatal(err)
	}
	names, err := s.fs.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasPrefix(name, ingestPrefix) {
			t.Errorf("%s left in the store directory", name)
		}
	}
	// The store is untouched: the floor reads the same records again.
	again, err := s.NewTableFloor(ctx)
	if err != nil || again.Records != want || again.Bytes != wantBytes {
		t.Errorf("after Write: %d records (%d bytes), %v", again.Records, again.Bytes, err)
	}
	s.Close()

	// A read-only store is refused: Write would create files beside it.
	ro := openDisk(t, dir, Options{ReadOnly: true})
	defer ro.Close()
	if _, err := ro.NewTableFloor(ctx); !errors.Is(err, ErrReadOnly) {
		t.Errorf("floor of a read-only store: %v, want ErrReadOnly", err)
	}
}
