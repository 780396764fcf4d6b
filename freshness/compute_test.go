package freshness

import (
	"context"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/internal/lang"
)

func reader(t *testing.T, s *graph.Store) *graph.Reader {
	t.Helper()
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func TestComputeNoBase(t *testing.T) {
	s := graphtest.Open(t)
	b, err := Compute(context.Background(), reader(t, s), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !b.Partial || len(b.Reasons) != 1 || !strings.HasPrefix(b.Reasons[0], "no base layer") {
		t.Errorf("block = %+v", b)
	}
}

func TestCompute(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.go", body("a"))
	r.write("b.go", body("b"))
	base := r.commit("base")
	s := graphtest.Open(t)
	gw, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.go", "b.go"} {
		if err := gw.PutDocument(ctx, graph.DocumentFacts{Document: graph.Document{Path: p, Language: "go", Source: graph.SourceSyntax}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := gw.Commit(ctx, graph.Manifest{Layer: graph.Base, Commit: base, Tool: "lspgraph-syntax", ToolVersion: "0.1.0", State: graph.StateComplete}); err != nil {
		t.Fatal(err)
	}

	b, err := Compute(ctx, reader(t, s), r.root)
	if err != nil {
		t.Fatal(err)
	}
	if b.Partial || b.BaseCommit != base || b.Head != base || len(b.Changed) != 0 || b.BaseTool != "lspgraph-syntax" || b.BaseState != "complete" {
		t.Errorf("at the base: %+v", b)
	}

	text := body("a") + "func A() {}\n"
	r.write("a.go", text)
	head := r.commit("change a")
	b, err = Compute(ctx, reader(t, s), r.root)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Partial || b.Head != head || len(b.Changed) != 1 || b.Changed[0] != "a.go" || len(b.Live) != 0 {
		t.Errorf("a.go changed, not overlaid: %+v", b)
	}

	// The live layer covers it, from an unsaved buffer.
	live := graph.DocumentFacts{Document: graph.Document{Path: "a.go", Language: "go", Source: graph.SourceSyntax, Digest: DigestBuffer + lang.HashContent([]byte("unsaved"))}}
	if err := s.PutDocument(ctx, graph.Live, live); err != nil {
		t.Fatal(err)
	}
	b, err = Compute(ctx, reader(t, s), r.root)
	if err != nil {
		t.Fatal(err)
	}
	if b.Partial || len(b.Live) != 1 || len(b.Dirty) != 1 || b.Dirty[0] != "a.go" || len(b.Notes) != 1 {
		t.Errorf("a.go overlaid from a buffer: %+v", b)
	}

	// A base commit the repository does not have.
	if err := s.SetManifest(ctx, graph.Manifest{Layer: graph.Base, Commit: strings.Repeat("0", 40), State: graph.StateComplete}); err != nil {
		t.Fatal(err)
	}
	b, err = Compute(ctx, reader(t, s), r.root)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Partial || len(b.Reasons) != 1 || !strings.Contains(b.Reasons[0], "is not in this repository") {
		t.Errorf("unknown base commit: %+v", b)
	}

	// Not a git work tree.
	b, err = Compute(ctx, reader(t, s), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !b.Partial || b.Head != "" || !strings.Contains(strings.Join(b.Reasons, " "), "is not a git work tree") {
		t.Errorf("not a git work tree: %+v", b)
	}
}
