package overlay

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/syntax"
)

// benchWorkspace clones this module's own repository (its committed HEAD)
// and indexes it with syntax as the base.
func benchWorkspace(b *testing.B) (string, *graph.Store) {
	b.Helper()
	ctx := context.Background()
	src, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Join(b.TempDir(), "repo")
	if out, err := exec.Command("git", "clone", "-q", "--local", src, root).CombinedOutput(); err != nil {
		b.Skipf("cloning %s: %v %s", src, err, out)
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	s, err := graph.Open(filepath.Join(b.TempDir(), "store"), graph.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	sum, err := syntax.Index(ctx, s, syntax.IndexOptions{Root: root, Commit: string(head[:40])})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("base: %d files indexed in %s", sum.Indexed, sum.Duration)
	return root, s
}

// BenchmarkSync measures a sync with nothing changed (the cost of every
// command-line query) and a sync after an edit that changes a widely used
// name's definitions (re-resolution of its dependents; the first such sync
// also extracts the whole workspace once to learn which names each document
// uses).
func BenchmarkSync(b *testing.B) {
	ctx := context.Background()
	root, s := benchWorkspace(b)
	ov, err := New(s, Options{Root: root, StatePath: filepath.Join(b.TempDir(), StateFile)})
	if err != nil {
		b.Fatal(err)
	}
	defer ov.Close()
	if _, err := ov.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if _, err := ov.Sync(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	p := filepath.Join(root, "graph", "facts.go")
	orig, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	// Renaming graph.SourceSyntax changes a name many documents use.
	edits := [][]byte{bytes.Replace(orig, []byte("SourceSyntax = "), []byte("SourceSyntaxRenamed = "), 1), orig}
	if bytes.Equal(edits[0], orig) {
		b.Fatal("graph/facts.go no longer defines SourceSyntax")
	}
	var st SyncStats
	b.Run("edit-body", func(b *testing.B) {
		i := 0
		for b.Loop() {
			// Alternate between a comment-only edit and the original.
			text := append(append([]byte{}, orig...), "\n// edit\n"...)
			if i%2 == 1 {
				text = orig
			}
			i++
			if err := os.WriteFile(p, text, 0o644); err != nil {
				b.Fatal(err)
			}
			if st, err = ov.Sync(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(st.Extracted), "extracted/op")
	})
	b.Run("edit-definitions", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if err := os.WriteFile(p, edits[i%2], 0o644); err != nil {
				b.Fatal(err)
			}
			i++
			if st, err = ov.Sync(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(st.Extracted), "extracted/op")
	})
}
