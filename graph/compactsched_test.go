package graph

import (
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestCompactionSchedulerCompacts: with the scheduler that has no ticker,
// a Pebble database whose level 0 fills past its compaction threshold
// (flushes that overlap) still compacts it, on the flushes' and the
// compactions' own events; and closing it returns.
func TestCompactionSchedulerCompacts(t *testing.T) {
	o := pebbleOptions(vfs.Default, nil, false)
	o.L0CompactionThreshold = 2
	db, err := pebble.Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 12 {
		for i := range 200 {
			k := fmt.Appendf(nil, "key-%04d", i)
			if err := db.Set(k, fmt.Appendf(nil, "value %d", round), pebble.NoSync); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		m := db.Metrics()
		if m.Compact.Count > 0 && m.Levels[0].TablesCount <= int64(o.L0CompactionThreshold) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("level 0 still holds %d tables after %d compactions", m.Levels[0].TablesCount, m.Compact.Count)
		}
		time.Sleep(10 * time.Millisecond)
	}
	got, closer, err := db.Get([]byte("key-0007"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "value 11" {
		t.Errorf("key-0007 = %q after compactions, want the last round's value", got)
	}
	closer.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
