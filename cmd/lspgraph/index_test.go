package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/syntax"
)

// TestIndexThenImpact runs the fresh-checkout flow: `lspgraph index` builds
// a syntax-only base generation, and `lspgraph impact` answers from it.
func TestIndexThenImpact(t *testing.T) {
	ctx := context.Background()
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", "goapp"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "store")
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := run(ctx, e, []string{"index", "--store", dir, "--json", root}); code != 0 {
		t.Fatalf("index exited %d: %s", code, stderr.String())
	}
	var sum struct {
		Root    string `json:"root"`
		Commit  string `json:"commit"`
		Files   int    `json:"files"`
		Indexed int    `json:"indexed"`
		Symbols int    `json:"symbols"`
		Edges   int    `json:"edges"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("index --json: %v\n%s", err, stdout.String())
	}
	if sum.Root != root || sum.Files != 7 || sum.Indexed != 7 || sum.Symbols == 0 || sum.Edges == 0 {
		t.Errorf("summary = %+v, want 7 Go files of %s indexed with symbols and edges", sum, root)
	}

	st, err := graph.Open(dir, graph.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	m, ok, err := r.Manifest(graph.Base)
	r.Close()
	st.Close()
	if err != nil || !ok {
		t.Fatalf("base manifest: ok=%v err=%v", ok, err)
	}
	if m.Tool != syntax.Tool || m.ToolVersion != syntax.Version || m.State != graph.StateComplete || m.Documents != 7 {
		t.Errorf("manifest = %+v", m)
	}
	if head := gitHead(ctx, root); m.Commit != head || sum.Commit != head {
		t.Errorf("manifest commit %q, summary's %q, want HEAD %q", m.Commit, sum.Commit, head)
	}

	stdout.Reset()
	if code := run(ctx, e, []string{"impact", "--store", dir, "--root", root, "Catalog.Save"}); code != 0 {
		t.Fatalf("impact exited %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Catalog.Import") {
		t.Errorf("impact of Catalog.Save does not name its caller Catalog.Import:\n%s", stdout.String())
	}

	// The human summary names the skip reasons and the confidence table rows.
	stdout.Reset()
	if code := run(ctx, e, []string{"index", "--full", "--store", dir, root}); code != 0 {
		t.Fatalf("index exited %d: %s", code, stderr.String())
	}
	for _, want := range []string{"7 listed, 7 indexed, 0 skipped", "syntax:receiver-type", "files/s", "tool lspgraph-syntax"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout.String())
		}
	}
}

// TestIndexRelaunchBeforeProfile indexes a new store with --cpuprofile:
// the relaunch (an exec) comes before the CPU profile starts, whose timer
// would outlive the exec and kill the new process with SIGPROF.
func TestIndexRelaunchBeforeProfile(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", "goapp"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	profile := filepath.Join(dir, "index.pprof")
	var relaunched []string
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" },
		relaunch: func(setting string) error {
			// StartCPUProfile fails while a profile runs.
			if err := pprof.StartCPUProfile(io.Discard); err != nil {
				relaunched = append(relaunched, setting+" while profiling")
			} else {
				pprof.StopCPUProfile()
				relaunched = append(relaunched, setting)
			}
			return errors.New("not relaunched in a test")
		}}
	args := []string{"index", "--store", filepath.Join(dir, "store"), "--no-fact-cache", "--cpuprofile", profile, root}
	if code := run(context.Background(), e, args); code != 0 {
		t.Fatalf("index exited %d: %s", code, stderr.String())
	}
	if !slices.Equal(relaunched, []string{"madvdontneed=0"}) {
		t.Errorf("relaunched %q; want once, with madvdontneed=0, before the profile starts", relaunched)
	}
	if fi, err := os.Stat(profile); err != nil || fi.Size() == 0 {
		t.Errorf("the CPU profile: %v", err)
	}
}
