package graph

import (
	"context"
	"reflect"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestRecordedChanges: a reader of another process (the store reopened)
// tells what changed since a version from the writes' records; a write
// without its record (dropped as more than changeRecords writes old, or
// written by a release that kept none) or with a damaged one leaves it
// unknown, as does a write that replaced the layer.
func TestRecordedChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	put := func(p string) uint64 {
		t.Helper()
		if err := s.PutDocument(ctx, Live, DocumentFacts{Document: Document{Path: p, Language: "go"}}); err != nil {
			t.Fatal(err)
		}
		return s.Version()
	}
	reopen := func() {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = Open(dir, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	changed := func(v uint64) ([]string, bool) {
		t.Helper()
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, ok := r.store.liveChanges.changedSince(v); ok && v < r.Version() {
			t.Fatalf("changes since %d are known in memory: the test reads no record", v)
		}
		return r.LiveChangedSince(v)
	}
	v0 := put("a.go")
	v1 := put("b.go")
	put("c.go")
	put("b.go")
	reopen()
	if got, ok := changed(v0); !ok || !reflect.DeepEqual(got, []string{"b.go", "c.go"}) {
		t.Errorf("since %d: %q, %v; want b.go, c.go", v0, got, ok)
	}
	if got, ok := changed(s.Version()); !ok || len(got) != 0 {
		t.Errorf("since now: %q, %v; want nothing", got, ok)
	}

	// A write without its record, and one with a damaged record.
	if err := s.db.Delete(appendChangesKey(nil, v1+1), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if got, ok := changed(v1); ok {
		t.Errorf("a record missing: since %d = %q, true; want unknown", v1, got)
	}
	if got, ok := changed(v1 + 1); !ok || !reflect.DeepEqual(got, []string{"b.go"}) {
		t.Errorf("after the missing record: %q, %v; want b.go", got, ok)
	}
	if err := s.db.Set(appendChangesKey(nil, v1+2), []byte{byte(Live), 0, 5, 1}, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if got, ok := changed(v1 + 1); ok {
		t.Errorf("a damaged record: %q, true; want unknown", got)
	}

	// The layer replaced.
	v2 := put("d.go")
	if err := s.ClearLayer(ctx, Live); err != nil {
		t.Fatal(err)
	}
	put("e.go")
	reopen()
	if got, ok := changed(v2); ok {
		t.Errorf("since before a clear: %q, true; want unknown", got)
	}
	if got, ok := changed(v2 + 1); !ok || !reflect.DeepEqual(got, []string{"e.go"}) {
		t.Errorf("since the clear: %q, %v; want e.go", got, ok)
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	if got, cleared, ok := r.LiveWritesSince(v2 - 1); !ok || !cleared || !reflect.DeepEqual(got, []string{"e.go"}) {
		t.Errorf("writes since before the clear: %q, cleared %v, %v; want e.go written after a clear", got, cleared, ok)
	}
	if got, cleared, ok := r.LiveWritesSince(v2 + 1); !ok || cleared || !reflect.DeepEqual(got, []string{"e.go"}) {
		t.Errorf("writes since the clear: %q, cleared %v, %v; want e.go", got, cleared, ok)
	}
	r.Close()

	// Records dropped past changeRecords.
	v3 := s.Version()
	for range changeRecords {
		put("f.go")
	}
	reopen()
	if got, ok := changed(v3 - 1); ok {
		t.Errorf("since %d, %d writes ago: %d paths, true; want unknown", v3-1, s.Version()-v3+1, len(got))
	}
	if got, ok := changed(v3); !ok || !reflect.DeepEqual(got, []string{"f.go"}) {
		t.Errorf("since %d, %d writes ago: %q, %v; want f.go", v3, s.Version()-v3, got, ok)
	}
	n := 0
	err = scanPrefix(ctx, s.db, appendMetaKey(nil, kindChanges), func(k, v []byte) error { n++; return nil })
	if err != nil || n != changeRecords {
		t.Errorf("%d records kept (%v), want %d", n, err, changeRecords)
	}
}
