package indexbench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRunCodeGraph runs CodeGraph's `codegraph init` on a copy of the goapp
// fixture when a codegraph command is at hand ($LSPGRAPH_CODEGRAPH, else
// on PATH; `npm install @colbymchenry/codegraph` puts one in
// node_modules/.bin): the run is measured, its graph directory sized and
// removed, and a second run onto a tree that holds one is refused.
func TestRunCodeGraph(t *testing.T) {
	bin := os.Getenv("LSPGRAPH_CODEGRAPH")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("codegraph"); err != nil {
			t.Skip("no codegraph command (set LSPGRAPH_CODEGRAPH to node_modules/.bin/codegraph)")
		}
	}
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "service/catalog.go", "cmd/goapp/main.go"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "goapp", filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		write(t, dir, f, string(b))
	}
	run, mb, version, err := RunCodeGraph(context.Background(), bin, dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Seconds <= 0 || run.PeakRSSMB <= 0 || mb <= 0 || version == "" {
		t.Errorf("codegraph run %+v, store %.2f MB, version %q", run, mb, version)
	}
	if _, err := os.Stat(filepath.Join(dir, ".codegraph")); !os.IsNotExist(err) {
		t.Errorf(".codegraph left behind: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".codegraph"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := RunCodeGraph(context.Background(), bin, dir); err == nil {
		t.Error("a tree holding .codegraph was indexed")
	}
}
