package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// runStatusCmd runs `lspgraph status args...` and returns its exit code,
// stdout and stderr.
func runStatusCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code := run(context.Background(), e, append([]string{"status", "--root", t.TempDir()}, args...))
	return code, out.String(), errb.String()
}

func TestStatusEmptyStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	code, out, errOut := runStatusCmd(t, "--store", dir)
	want := "store " + dir + ": empty (no base layer yet; run `lspgraph index` or `lspgraph scip import`)\n"
	if code != 0 || out != want {
		t.Errorf("status of a missing store: exit %d, stdout %q, stderr %q; want stdout %q", code, out, errOut, want)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("status created the store directory")
	}
}

// writeStatusStore makes a store with a committed base generation and one
// live document.
func writeStatusStore(t *testing.T, dir string) {
	ctx := context.Background()
	s, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.go", "b.go"} {
		f := graph.DocumentFacts{Document: graph.Document{Path: p}, Occurrences: []graph.Occurrence{{Symbol: "s"}}}
		if err := g.PutDocument(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Commit(ctx, graph.Manifest{Commit: "c0ffee", Tool: "scip-go", ToolVersion: "v0.2.9", Extra: map[string]int{"reused_documents": 1},
		Packages: map[string]string{"scip-go gomod example.com/b": "v2", "scip-go gomod example.com/a": "c0ffee"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDocument(ctx, graph.Live, graph.DocumentFacts{Document: graph.Document{Path: "a.go"}}); err != nil {
		t.Fatal(err)
	}
}

func TestStatusLayers(t *testing.T) {
	dir := t.TempDir()
	writeStatusStore(t, dir)
	code, out, errOut := runStatusCmd(t, "--store", dir)
	if code != 0 {
		t.Fatalf("status: exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"store " + dir + " (schema " + strconv.Itoa(graph.SchemaVersion) + ", ",
		"base: generation 1, commit c0ffee, scip-go v0.2.9, complete\n",
		"  2 documents, 0 symbols, 2 occurrences, 0 edges\n",
		"  reused_documents 1\n",
		"  packages scip-go gomod example.com/a c0ffee, scip-go gomod example.com/b v2\n",
		"live documents: 1 (a.go)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = runStatusCmd(t, "--store", dir, "--json")
	if code != 0 {
		t.Fatalf("status --json: exit %d, stderr %q", code, errOut)
	}
	var rep statusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("status --json output does not parse: %v\n%s", err, out)
	}
	if rep.Empty || len(rep.Layers) != 1 || rep.Layers[0].Generation != 1 || rep.Layers[0].Documents != 2 ||
		rep.Layers[0].Finished == nil || len(rep.LiveDocuments) != 1 || rep.DiskBytes == 0 || rep.Layers[0].Packages["scip-go gomod example.com/b"] != "v2" {
		t.Errorf("status --json = %+v", rep)
	}
}

func TestStatusLockedStore(t *testing.T) {
	dir := t.TempDir()
	s, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	code, out, errOut := runStatusCmd(t, "--store", dir)
	want := "store " + dir + " is in use by process " + strconv.Itoa(os.Getpid())
	if code != 1 || !strings.Contains(errOut, want) || strings.Contains(errOut, "goroutine") {
		t.Errorf("status of a locked store: exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, want)
	}
}
