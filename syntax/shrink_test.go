package syntax

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

func TestIndexRefusesShrink(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for i := range 6 {
		src := fmt.Sprintf("package p\n\nfunc F%d() { F0() }\n", i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := graph.Open("mem", graph.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	documents := func() (int, string) {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		n := 0
		if err := r.Documents(ctx, func(graph.Document) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		syms, err := r.FindSymbols(ctx, "F0", false, 10)
		if err != nil || len(syms) != 1 {
			t.Fatalf("FindSymbols(F0) = %v, %v; want one symbol", syms, err)
		}
		refs, err := r.References(ctx, syms[0].ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		return n, fmt.Sprint(len(refs), " references to ", syms[0].ID)
	}
	if _, err := Index(ctx, st, IndexOptions{Root: root}); err != nil {
		t.Fatalf("a first index is refused: %v", err)
	}
	n, refs := documents()
	if n != 6 {
		t.Fatalf("first index: %d documents, want 6", n)
	}

	// Two of six files left: refused, the six still served.
	for i := 2; i < 6; i++ {
		if err := os.Remove(filepath.Join(root, fmt.Sprintf("f%d.go", i))); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Index(ctx, st, IndexOptions{Root: root})
	if !errors.Is(err, graph.ErrShrink) || !strings.Contains(err.Error(), "documents 6 → 2") {
		t.Fatalf("indexing 2 of 6 files = %v, want graph.ErrShrink naming 6 → 2", err)
	}
	if n2, refs2 := documents(); n2 != 6 || refs2 != refs {
		t.Errorf("after a refused index readers see %d documents, %s; want 6, %s", n2, refs2, refs)
	}

	// Allowed, it replaces the index; the store takes the next one.
	if _, err := Index(ctx, st, IndexOptions{Root: root, AllowShrink: true}); err != nil {
		t.Fatalf("indexing 2 of 6 files with AllowShrink: %v", err)
	}
	if n, _ := documents(); n != 2 {
		t.Errorf("after an allowed shrink readers see %d documents, want 2", n)
	}
	if _, err := Index(ctx, st, IndexOptions{Root: root}); err != nil {
		t.Fatalf("indexing the same 2 files again: %v", err)
	}
}
