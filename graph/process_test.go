package graph_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// helperEnv switches the test binary into a helper process (see TestMain).
const helperEnv = "LSPGRAPH_GRAPH_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "kill-load":
		exitOn(helperKillLoad(os.Getenv("STORE")))
	case "hold":
		exitOn(helperHold(os.Getenv("STORE")))
	default:
		exitOn(fmt.Errorf("unknown helper %q", os.Getenv(helperEnv)))
	}
}

func exitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startHelper runs the test binary as helper name on the store in dir and
// waits for it to print ready.
func startHelper(t *testing.T, name, dir, ready string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+name, "STORE="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if sc.Text() == ready {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return cmd, stdin
		}
	}
	t.Fatalf("helper %s exited before printing %q: %v", name, ready, sc.Err())
	return nil, nil
}

// killLoadDocs is the size of generation 1 in the kill test.
const killLoadDocs = 50

// numberedDoc is document i of a synthetic generation tagged tag: it
// defines sym<i>, references "shared" once and calls "shared".
func numberedDoc(i int, tag string) graph.DocumentFacts {
	path := fmt.Sprintf("pkg%d/f%d.go", i%7, i)
	def := textpos.Range{Start: textpos.Position{Line: 1, Col: 5}, End: textpos.Position{Line: 1, Col: 9}}
	ref := textpos.Range{Start: textpos.Position{Line: 3, Col: 2}, End: textpos.Position{Line: 3, Col: 8}}
	sym := "sym" + strconv.Itoa(i)
	return graph.DocumentFacts{
		Document: graph.Document{Path: path, Package: fmt.Sprintf("pkg%d", i%7), Digest: tag},
		Symbols:  []graph.Symbol{{ID: sym, DisplayName: sym, Kind: "function", Def: graph.Location{Path: path, Range: def}}},
		Occurrences: []graph.Occurrence{
			{Range: def, Symbol: sym, Roles: graph.RoleDefinition},
			{Range: ref, Symbol: "shared", Roles: graph.RoleReference | graph.RoleCall, Enclosing: sym + tag},
		},
		Edges: []graph.Edge{{From: sym, Kind: graph.EdgeCalls, To: "shared", Confidence: 1, Count: 1}},
	}
}

// helperKillLoad commits generation 1, then loads generation 2 forever.
func helperKillLoad(dir string) error {
	ctx := context.Background()
	s, err := graph.Open(dir, graph.Options{})
	if err != nil {
		return err
	}
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		return err
	}
	for i := range killLoadDocs {
		if err := g.PutDocument(ctx, numberedDoc(i, "g1")); err != nil {
			return err
		}
	}
	if err := g.Commit(ctx, graph.Manifest{Commit: "c1", Tool: "test"}); err != nil {
		return err
	}
	if g, err = s.BeginGeneration(ctx); err != nil {
		return err
	}
	for i := 0; ; i++ {
		if err := g.PutDocument(ctx, numberedDoc(i, "g2")); err != nil {
			return err
		}
		if i == 200 {
			if err := g.Flush(); err != nil {
				return err
			}
			fmt.Println("loading")
		}
	}
}

// TestKillMidLoad kills a process in the middle of loading generation 2
// and checks that generation 1 survives whole and generation 2 is removed.
func TestKillMidLoad(t *testing.T) {
	dir := t.TempDir()
	cmd, _ := startHelper(t, "kill-load", dir, "loading")
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	// Read-only opening does not clean up: generation 2's keys are there,
	// yet readers see generation 1.
	ro, err := graph.Open(dir, graph.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := countDumpLines(t, ro, "gen2/"); n == 0 {
		t.Errorf("no generation 2 keys before cleanup: the load was not interrupted mid-way")
	}
	checkGeneration1(t, ro)
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := countDumpLines(t, s, "gen2/"); n != 0 {
		t.Errorf("%d generation 2 keys remain after Open", n)
	}
	if n := countDumpLines(t, s, "meta/pending"); n != 0 {
		t.Errorf("in-progress marker remains after Open")
	}
	checkGeneration1(t, s)
}

func checkGeneration1(t *testing.T, s *graph.Store) {
	t.Helper()
	ctx := context.Background()
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m, ok, err := r.Manifest(graph.Base)
	if err != nil || !ok || m.Generation != 1 || m.State != graph.StateComplete || m.Documents != killLoadDocs {
		t.Fatalf("base manifest = %+v, %v, %v; want generation 1 complete with %d documents", m, ok, err, killLoadDocs)
	}
	refs, err := r.References(ctx, "shared", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != killLoadDocs {
		t.Errorf("References(shared) = %d occurrences, want %d", len(refs), killLoadDocs)
	}
	for _, o := range refs {
		if !strings.HasSuffix(o.Enclosing, "g1") {
			t.Errorf("reference %v comes from another generation", o)
		}
	}
	in, err := r.Incoming(ctx, "shared", graph.EdgeFilter{})
	if err != nil || len(in) != killLoadDocs {
		t.Errorf("Incoming(shared) = %d edges, %v; want %d", len(in), err, killLoadDocs)
	}
}

// countDumpLines counts the dump lines starting with prefix.
func countDumpLines(t *testing.T, s *graph.Store, prefix string) int {
	t.Helper()
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b strings.Builder
	if err := r.Dump(&b); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// helperHold opens the store and keeps it until stdin closes.
func helperHold(dir string) error {
	s, err := graph.Open(dir, graph.Options{})
	if err != nil {
		return err
	}
	fmt.Println("open")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return s.Close()
}

// TestLockedByAnotherProcess checks that a store held by another process
// is refused, read-write and read-only, with the holder's pid, and opens
// once the holder is gone.
func TestLockedByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	cmd, stdin := startHelper(t, "hold", dir, "open")
	pid := strconv.Itoa(cmd.Process.Pid)
	for _, ro := range []bool{false, true} {
		_, err := graph.Open(dir, graph.Options{ReadOnly: ro})
		if !errors.Is(err, graph.ErrLocked) {
			t.Fatalf("Open(ReadOnly=%v) = %v, want ErrLocked", ro, err)
		}
		want := "store " + dir + " is in use by process " + pid + " (another lspgraph"
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "pass --store") {
			t.Errorf("Open(ReadOnly=%v) error %q lacks %q", ro, err, want)
		}
		if ro && !strings.Contains(err.Error(), "even read-only") {
			t.Errorf("read-only Open error %q does not say read-only opening is impossible too", err)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	s, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatalf("Open after the holder exited: %v", err)
	}
	s.Close()
}

// TestLockedInProcess checks a second Open in the same process.
func TestLockedInProcess(t *testing.T) {
	dir := t.TempDir()
	s, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = graph.Open(dir, graph.Options{})
	if !errors.Is(err, graph.ErrLocked) || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) &&
		!strings.Contains(err.Error(), "this process") {
		t.Fatalf("second Open = %v, want ErrLocked naming this process", err)
	}
}
