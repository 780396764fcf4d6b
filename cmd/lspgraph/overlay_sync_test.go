package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/workspace"
)

// TestSyncLiveLayerOverSCIP: over a precise base, a changed document is
// answered from syntax in the live layer while unchanged documents keep
// their SCIP facts (no dependents are re-resolved over a precise base).
func TestSyncLiveLayerOverSCIP(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	root := copyGoapp(t)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A")
	git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base")
	head := git("rev-parse", "HEAD")

	dir := filepath.Join(t.TempDir(), "store")
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("..", "..", "testdata", "scip", "goapp.scip"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = scip.Import(ctx, st, f, scip.Options{Root: root, Commit: head})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	p := filepath.Join(root, "service", "catalog.go")
	text, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(text, "\nfunc Added() { _ = Describe(\"a\", \"b\") }\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	// Any query syncs the live layer first.
	if err := askSession(ctx, nil, "cli", root, dir, workspace.CommandImpact, "Describe", nil, true); err != nil {
		t.Fatalf("impact Describe: %v", err)
	}

	r := readStore(t, dir)
	if live := r.LiveDocuments(); len(live) != 1 || live[0] != "service/catalog.go" {
		t.Errorf("live documents = %v; want only the changed service/catalog.go", live)
	}
	d, _, err := r.Document(ctx, "service/catalog.go")
	if err != nil || d.Source != graph.SourceSyntax || d.Layer != graph.Live {
		t.Errorf("service/catalog.go = %+v, %v; want the live syntax document", d, err)
	}
	d, _, err = r.Document(ctx, "store/store.go")
	if err != nil || d.Source != graph.SourceSCIP || d.Layer != graph.Base {
		t.Errorf("store/store.go = %+v, %v; want the base SCIP document", d, err)
	}
	if syms, err := r.FindSymbols(ctx, "Added", false, 0); err != nil || len(syms) != 1 {
		t.Errorf("FindSymbols(Added) = %v, %v", syms, err)
	}
}
