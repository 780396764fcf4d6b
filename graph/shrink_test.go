package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCheckShrink(t *testing.T) {
	prev := Manifest{Layer: Base, Tool: "scip-go", Root: "/w", Documents: 739}
	cases := []struct {
		name string
		next Manifest
		want bool // refused
	}{
		{"cut short", Manifest{Tool: "scip-go", Root: "/w", Documents: 70}, true},
		{"just under half", Manifest{Tool: "scip-go", Root: "/w", Documents: 369}, true},
		{"just over half", Manifest{Tool: "scip-go", Root: "/w", Documents: 370}, false},
		{"same size", Manifest{Tool: "scip-go", Root: "/w", Documents: 739}, false},
		{"grown", Manifest{Tool: "scip-go", Root: "/w", Documents: 2000}, false},
		{"another tool", Manifest{Tool: "lspgraph-syntax", Root: "/w", Documents: 70}, false},
		{"another root", Manifest{Tool: "scip-go", Root: "/v", Documents: 70}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckShrink(prev, c.next)
			if got := errors.Is(err, ErrShrink); got != c.want {
				t.Fatalf("CheckShrink(739 → %d) = %v, want refused %v", c.next.Documents, err, c.want)
			}
			if err == nil {
				return
			}
			want := fmt.Sprintf("documents 739 → %d", c.next.Documents)
			if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, "pass --allow-shrink if intended") {
				t.Errorf("error %q lacks %q or the way out", msg, want)
			}
		})
	}
	if err := CheckShrink(Manifest{}, Manifest{Documents: 0}); err != nil {
		t.Errorf("a first generation is refused: %v", err)
	}
}

// writeGeneration commits a base generation of n documents made by tool
// for root, guarded against shrinking unless allow.
func writeGeneration(t *testing.T, s *Store, tool string, n int, allow bool) error {
	t.Helper()
	ctx := context.Background()
	gw, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !allow {
		gw.RefuseShrink()
	}
	for i := range n {
		if err := gw.PutDocument(ctx, DocumentFacts{Document: Document{Path: fmt.Sprintf("f%d.go", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	err = gw.Commit(ctx, Manifest{Tool: tool, Root: "/w"})
	if err != nil {
		if aerr := gw.Abort(); aerr != nil {
			t.Fatal(aerr)
		}
	}
	return err
}

func TestCommitRefusesShrink(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	documents := func() (int, uint64) {
		t.Helper()
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		m, _, err := r.Manifest(Base)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		if err := r.Documents(context.Background(), func(Document) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		if n != m.Documents {
			t.Errorf("readers see %d documents, the manifest says %d", n, m.Documents)
		}
		return n, r.BaseGeneration()
	}
	if err := writeGeneration(t, s, "t", 10, false); err != nil {
		t.Fatalf("a first generation is refused: %v", err)
	}
	_, gen := documents()
	err := writeGeneration(t, s, "t", 4, false)
	if !errors.Is(err, ErrShrink) || !strings.Contains(err.Error(), "documents 10 → 4") {
		t.Fatalf("committing 4 documents over 10 = %v, want ErrShrink naming 10 → 4", err)
	}
	if n, g := documents(); n != 10 || g != gen {
		t.Errorf("after a refused commit readers see %d documents of generation %d, want 10 of %d", n, g, gen)
	}
	for _, c := range []struct {
		tool  string
		n     int
		allow bool
	}{
		{"t", 5, false},  // half remains
		{"t", 1, true},   // allowed
		{"t", 1, false},  // same size
		{"u", 0, false},  // another tool
		{"u", 30, false}, // grown
	} {
		if err := writeGeneration(t, s, c.tool, c.n, c.allow); err != nil {
			t.Errorf("%s with %d documents (allow %v): %v", c.tool, c.n, c.allow, err)
		}
		if n, _ := documents(); n != c.n {
			t.Errorf("readers see %d documents, want %d", n, c.n)
		}
	}
}
