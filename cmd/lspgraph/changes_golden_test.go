package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/workspace"
)

// TestChangesDeletedSameFileCallers deletes serve.writeNotModified from
// testdata/gobreak (modeled on net/http's fs.go) and leaves its three calls
// in the same file and the one in cache.go: all four callers break, and
// the combined tree labels each node with its own depth. The golden is
// checked by hand against the fixture's source (testdata/README.md).
func TestChangesDeletedSameFileCallers(t *testing.T) {
	ctx := context.Background()
	dir, head := gitRepo(t, "gobreak")
	storeDir := filepath.Join(t.TempDir(), "store")
	st, err := graph.Open(storeDir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(repoRoot(t), "testdata", "scip", "gobreak.scip"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = scip.Import(ctx, st, f, scip.Options{Root: dir, Commit: head})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	edit(t, dir, "serve/fs.go", "func writeNotModified(w *Response) {\n\tw.Status = 304\n\tdelete(w.Headers, \"Content-Type\")\n\tdelete(w.Headers, \"Content-Length\")\n}\n\n", "")
	var a impact.Answer
	if err := askSession(ctx, nil, "cli", dir, storeDir, workspace.CommandChanges, workspace.ChangesRequest{}, &a, false); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := writeChangesAnswer(&b, &a, false, "text"); err != nil {
		t.Fatal(err)
	}
	out := strings.ReplaceAll(b.String(), head[:12], "HEAD")
	golden(t, filepath.Join("testdata", "changes", "scip-gobreak-delete-writenotmodified.txt"), []byte(out))
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			if d.Depth != g.Depth {
				t.Errorf("%s listed at d=%d carries depth %d", d.Name, g.Depth, d.Depth)
			}
		}
	}
	if a.Risk.Level == impact.RiskLow || a.Risk.Level == impact.RiskUnknown && len(a.Depths[0].Dependents) == 0 {
		t.Errorf("risk %s (%s) although four callers break", a.Risk.Level, a.Risk.Rule)
	}
}
