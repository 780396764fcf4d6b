package graph_test

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The stores in testdata/backcompat/vN were written by schema version N.
// Every store of the current schema must open and read back as its .dump
// golden says. Run with -update to rewrite the current version's store.
func TestBackwardsCompat(t *testing.T) {
	current := filepath.Join("testdata", "backcompat", "v6")
	if *update {
		writeBackcompatStore(t, current)
	}
	dir := copyStore(t, current)
	s, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b strings.Builder
	if err := r.Dump(&b); err != nil {
		t.Fatal(err)
	}
	golden := current + ".dump"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("store %s reads back differently; got:\n%s\nwant:\n%s", current, b.String(), want)
	}
	refs, err := r.References(context.Background(), "p.B", 0)
	if err != nil || len(refs) != 2 {
		t.Errorf("References(p.B) = %v, %v; want 2 occurrences", refs, err)
	}
}

// TestOlderSchemaRefused checks that a store of an older schema version
// (testdata/backcompat/v1, v2 with symbol strings in its index keys, v3
// with a doc-sym record per symbol, v4 with symbol ids that are plain
// hashes of their strings, v5 with a ref, out and in record per fact) is
// refused with ErrSchema and the message that
// says to rebuild it, and left as it was: opening it again is refused the
// same way.
func TestOlderSchemaRefused(t *testing.T) {
	for _, v := range []string{"1", "2", "3", "4", "5"} {
		dir := copyStore(t, filepath.Join("testdata", "backcompat", "v"+v))
		for range 2 {
			s, err := graph.Open(dir, graph.Options{})
			if err == nil {
				s.Close()
				t.Fatalf("a schema %s store opened", v)
			}
			if !errors.Is(err, graph.ErrSchema) || !strings.Contains(err.Error(), "schema version "+v+",") ||
				!strings.Contains(err.Error(), "the graph is rebuildable") {
				t.Errorf("opening a schema %s store: %v, want ErrSchema naming version %s and how to rebuild", v, err, v)
			}
		}
	}
}

// writeBackcompatStore writes a small store with a base generation and a
// live document into dir, replacing it.
func writeBackcompatStore(t *testing.T, dir string) {
	ctx := context.Background()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	s, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{
		"a.go": "sym p.A name=A kind=function def=a.go@1:6-1:7 extent=1:1-3:2\nocc p.A 1:6-1:7 def\nocc p.B 2:2-2:3 ref|call enc=p.A\nedge p.A calls p.B conf=1 count=1 reason=scip:reference-in-body",
		"b.go": "sym p.B name=B kind=function lang=go pkg=p sig=func() doc=B-does def=b.go@1:6-1:7\nocc p.B 1:6-1:7 def",
	}
	for _, path := range []string{"a.go", "b.go"} {
		f, err := graphtest.ParseFacts(graph.Document{Path: path, Language: "go", Package: "p", Digest: "d-" + path, Source: graph.SourceSCIP}, docs[path])
		if err != nil {
			t.Fatal(err)
		}
		if err := g.PutDocument(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Commit(ctx, graph.Manifest{Commit: "c1", Tool: "scip-go", ToolVersion: "v0.2.9"}); err != nil {
		t.Fatal(err)
	}
	f, _ := graphtest.ParseFacts(graph.Document{Path: "c.go", Package: "q", Source: graph.SourceSyntax}, "edge q.C calls p.A conf=0.5 source=syntax")
	if err := s.PutDocument(ctx, graph.Live, f); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(dir, "LOCK"))
}

// copyStore copies a store directory to a temporary one, so opening it
// does not change the checked-in files.
func copyStore(t *testing.T, src string) string {
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
