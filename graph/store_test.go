package graph

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

func openDisk(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSchemaMismatch(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	if err := s.db.Set(appendMetaKey(nil, kindSchema), binary.AppendUvarint(nil, 99), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(dir, Options{})
	if !errors.Is(err, ErrSchema) {
		t.Fatalf("Open = %v, want ErrSchema", err)
	}
	for _, want := range []string{fmt.Sprintf("has schema version 99, this lspgraph needs %d", SchemaVersion), "delete " + dir, "new --store"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestOpenCreatesPrivateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "store")
	s := openDisk(t, dir, Options{})
	defer s.Close()
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("store directory mode %v, want 0700", st.Mode().Perm())
	}
	if s.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", s.Dir(), dir)
	}
}

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, err := Open(filepath.Join(dir, "missing"), Options{ReadOnly: true})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("read-only Open of a missing store = %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read-only Open created the store directory")
	}
	s := openDisk(t, dir, Options{})
	if err := s.PutDocument(ctx, Base, DocumentFacts{Document: Document{Path: "a.go"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openDisk(t, dir, Options{ReadOnly: true})
	defer s.Close()
	if err := s.PutDocument(ctx, Live, DocumentFacts{Document: Document{Path: "b.go"}}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("PutDocument on a read-only store = %v, want ErrReadOnly", err)
	}
	if _, err := s.BeginGeneration(ctx); !errors.Is(err, ErrReadOnly) {
		t.Errorf("BeginGeneration on a read-only store = %v, want ErrReadOnly", err)
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok, err := r.Document(ctx, "a.go"); !ok || err != nil {
		t.Errorf("Document(a.go) on the read-only store = %v, %v", ok, err)
	}
}

func TestRejectsInvalidFacts(t *testing.T) {
	ctx := context.Background()
	s, err := Open("mem", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bad := []DocumentFacts{
		{Document: Document{Path: ""}},
		{Document: Document{Path: "a\x00.go"}},
		{Document: Document{Path: "a.go"}, Symbols: []Symbol{{ID: "s\x00"}}},
		{Document: Document{Path: "a.go"}, Symbols: []Symbol{{ID: ""}}},
		{Document: Document{Path: "a.go"}, Occurrences: []Occurrence{{Symbol: "x\x00y"}}},
		{Document: Document{Path: "a.go"}, Edges: []Edge{{From: "a", Kind: EdgeCalls}}},
		{Document: Document{Path: "a.go"}, Edges: []Edge{{From: "a", Kind: EdgeCalls, To: "b\x00"}}},
	}
	for _, f := range bad {
		if err := s.PutDocument(ctx, Base, f); err == nil {
			t.Errorf("PutDocument(%+v) succeeded, want an error", f)
		}
	}
	if err := s.RenameDocument(ctx, Base, "a.go", "b\x00.go"); err == nil {
		t.Errorf("RenameDocument to a path with NUL succeeded")
	}
}

func TestOpenRemovesUnfinishedGeneration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.PutDocument(ctx, DocumentFacts{Document: Document{Path: "a.go"}}); err != nil {
		t.Fatal(err)
	}
	if err := g.Flush(); err != nil {
		t.Fatal(err)
	}
	s.Close() // without Commit or Abort
	s = openDisk(t, dir, Options{})
	defer s.Close()
	empty, err := s.isEmptyRange(spaceStart(firstGenSpace), nil)
	if err != nil || !empty {
		t.Errorf("generation space not empty after reopening (%v)", err)
	}
	if g, err = s.BeginGeneration(ctx); err != nil {
		t.Fatalf("BeginGeneration after reopening: %v", err)
	}
	if g.Generation() != 2 {
		t.Errorf("generation numbers were reused: got %d, want 2", g.Generation())
	}
	if err := g.Abort(); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/cache")
	t.Setenv("HOME", "/home/u")
	a, err := DefaultDir("/w/repo")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := DefaultDir("/w/x/../repo/")
	if a != b {
		t.Errorf("DefaultDir differs for the same root: %q, %q", a, b)
	}
	c, _ := DefaultDir("/w/other")
	if a == c {
		t.Errorf("DefaultDir is the same for different roots")
	}
	if !strings.HasPrefix(a, filepath.Join("/cache", "lspgraph")+"/") || len(filepath.Base(a)) != 16 {
		t.Errorf("DefaultDir = %q, want /cache/lspgraph/<16 hex>", a)
	}
}

func TestClosed(t *testing.T) {
	s, err := Open("mem", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutDocument(context.Background(), Base, DocumentFacts{Document: Document{Path: "a"}}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // closes r too
		t.Fatal(err)
	}
	if err := s.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}
	if _, err := r.References(context.Background(), "x", 0); !errors.Is(err, ErrClosed) {
		t.Errorf("References on a reader of a closed store = %v, want ErrClosed", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("closing a reader the store closed = %v", err)
	}
	if _, err := s.Reader(); !errors.Is(err, ErrClosed) {
		t.Errorf("Reader after Close = %v, want ErrClosed", err)
	}
	if err := s.PutDocument(context.Background(), Live, DocumentFacts{Document: Document{Path: "a"}}); !errors.Is(err, ErrClosed) {
		t.Errorf("PutDocument after Close = %v, want ErrClosed", err)
	}
}

func TestCancelledReads(t *testing.T) {
	s, err := Open("mem", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f := DocumentFacts{Document: Document{Path: "a.go"}, Edges: []Edge{{From: "a", Kind: EdgeCalls, To: "b"}}}
	if err := s.PutDocument(context.Background(), Base, f); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.References(ctx, "b", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("References with a cancelled context = %v", err)
	}
	if _, _, err := r.Traverse(ctx, []string{"b"}, TraverseOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Traverse with a cancelled context = %v", err)
	}
	if err := r.Documents(ctx, func(Document) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Documents with a cancelled context = %v", err)
	}
}

func TestCloseDuringGeneration(t *testing.T) {
	ctx := context.Background()
	s, err := Open("mem", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.PutDocument(ctx, DocumentFacts{Document: Document{Path: "a.go"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.PutDocument(ctx, DocumentFacts{Document: Document{Path: "b.go"}}); !errors.Is(err, ErrClosed) {
		t.Errorf("PutDocument after Store.Close = %v, want ErrClosed", err)
	}
	if err := g.Commit(ctx, Manifest{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Commit after Store.Close = %v, want ErrClosed", err)
	}
	if err := g.Abort(); err != nil {
		t.Errorf("Abort after Store.Close = %v", err)
	}
}

func TestAbortRemovesIngestedRecords(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	for _, flush := range []bool{false, true} {
		g, err := s.BeginGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.PutDocument(ctx, DocumentFacts{Document: Document{Path: "a.go"}}); err != nil {
			t.Fatal(err)
		}
		if flush {
			if err := g.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Abort(); err != nil {
			t.Fatal(err)
		}
		if empty, err := s.isEmptyRange(spaceStart(firstGenSpace), nil); err != nil || !empty {
			t.Errorf("flushed %v: generation space not empty after Abort (%v)", flush, err)
		}
	}
}

// TestDiskUsageCountsFilesBeside: a file a producer keeps in the store's
// directory (the syntax index's table of definitions) counts in the
// store's disk usage, as the tables do.
func TestDiskUsageCountsFilesBeside(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	defer s.Close()
	before := s.DiskUsage()
	if before == 0 {
		t.Fatal("a new store uses no disk")
	}
	if err := os.WriteFile(filepath.Join(dir, "beside"), make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if after := s.DiskUsage(); after != before+1<<20 {
		t.Errorf("disk usage %d after a 1 MiB file beside the tables, want %d", after, before+1<<20)
	}
}
