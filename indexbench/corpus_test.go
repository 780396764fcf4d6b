package indexbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/syntax"
)

func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCopyTree copies a standard-library-like tree twice and indexes both
// copies: each copy's call into its own package resolves to that copy's
// function, by the imported-package rule, and no copy shares a symbol.
func TestCopyTree(t *testing.T) {
	src := t.TempDir()
	write(t, src, "go.mod", "module std\n\ngo 1.26\n")
	write(t, src, "a/a.go", "package a\n\nfunc F() int { return 1 }\n")
	write(t, src, "b/b.go", "package b\n\nimport (\n\t\"a\"\n\t\"fmt\"\n)\n\nfunc G() { fmt.Println(a.F()) }\n")
	old := time.Now().Add(-48 * time.Hour).Truncate(time.Second)
	for _, f := range []string{"go.mod", "a/a.go", "b/b.go"} {
		if err := os.Chtimes(filepath.Join(src, f), old, old); err != nil {
			t.Fatal(err)
		}
	}
	tree := t.TempDir()
	for n := 1; n <= 2; n++ {
		st, err := CopyTree(src, filepath.Join(tree, "copy"+string(rune('0'+n))), n)
		if err != nil {
			t.Fatal(err)
		}
		if st.GoFiles != 2 || st.Rewritten != 1 || st.Files != 3 {
			t.Errorf("copy %d: %+v, want 3 files, 2 Go files, 1 import rewritten", n, st)
		}
	}
	b, err := os.ReadFile(filepath.Join(tree, "copy2", "b", "b.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\t\"scale.example/copy2/a\"\n\t\"fmt\"") {
		t.Errorf("copy 2's imports not rewritten as expected:\n%s", b)
	}
	// Rewritten or not, a copy has its source's time, as a checkout made
	// a while ago has.
	for _, f := range []string{"go.mod", "a/a.go", "b/b.go"} {
		fi, err := os.Stat(filepath.Join(tree, "copy2", f))
		if err != nil {
			t.Fatal(err)
		}
		if !fi.ModTime().Equal(old) {
			t.Errorf("copy of %s modified at %v, want the source's %v", f, fi.ModTime(), old)
		}
	}
	if _, err := CopyTree(src, filepath.Join(tree, "copy2"), 2); err == nil {
		t.Error("copying onto an existing copy succeeded")
	}
	edges := map[string]string{} // caller → callee, by copy
	_, err = syntax.Build(context.Background(), syntax.IndexOptions{Root: tree}, func(_ context.Context, df graph.DocumentFacts) error {
		for _, e := range df.Edges {
			if e.Kind == graph.EdgeCalls && strings.HasSuffix(e.To, "F") {
				edges[e.From] = e.To + " " + e.Reason
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(edges) != 2 {
		t.Fatalf("calls of F: %v, want one per copy", edges)
	}
	for from, to := range edges {
		copyOf := func(id string) string { i := strings.Index(id, "scale.example/copy"); return id[i : i+19] }
		if copyOf(from) != copyOf(to) || !strings.HasSuffix(to, syntax.ReasonImported) {
			t.Errorf("%s calls %s: want its own copy's F by the imported-package rule", from, to)
		}
	}
}
