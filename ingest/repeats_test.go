package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/ingest"
)

// An exchange that changed nothing is not worked out again while the
// graph, the buffers and the files it read stay as they were; any change
// to one of them has it worked out (and its facts written) again.
func TestLiveRepeatedExchangeSkipped(t *testing.T) {
	root := workspace(t)
	s := graphtest.Open(t)
	var bufText []byte
	var bufVersion uint64
	l := ingest.New(s, ingest.Options{
		Root: root,
		Buffer: func(path string) ([]byte, bool) {
			if path == "a/a.go" && bufText != nil {
				return bufText, true
			}
			return nil, false
		},
		BufferVersion: func() uint64 { return bufVersion },
	})
	// Every look at the clock is a recheck later: every repeat looks at
	// its files again (TestLiveRepeatsRecheck covers the moment between).
	clock := time.Now()
	ingest.SetClock(l, func() time.Time { clock = clock.Add(ingest.Recheck); return clock })
	a, b := uri(root, "a/a.go"), uri(root, "b/b.go")
	params := fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":5,"character":%d}}`, a, addCol16)
	def := `[{"uri":"` + b + `","range":` + rng(3, 5, 3, 8) + `}]`
	ask := func() { exchange(t, l, "textDocument/definition", params, def) }
	// check asks again and says whether that was worked out and whether
	// it wrote.
	check := func(step string, wantWorked, wantWrote bool) {
		t.Helper()
		before := l.Stats()
		ask()
		after := l.Stats()
		worked := after.Repeated == before.Repeated
		wrote := after.Documents > before.Documents
		if worked != wantWorked || wrote != wantWrote {
			t.Errorf("%s: worked out %v (want %v), wrote %v (want %v); stats %+v", step, worked, wantWorked, wrote, wantWrote, after)
		}
	}
	check("first answer", true, true)
	check("first repeat (after its own write)", true, false)
	check("second repeat", false, false)
	check("third repeat", false, false)
	want := facts(t, s)

	// The graph changed: the live layer was cleared. The repeat brings
	// its facts back.
	if err := s.ClearLayer(context.Background(), graph.Live); err != nil {
		t.Fatal(err)
	}
	check("after the live layer was cleared", true, true)
	if got := facts(t, s); got != want {
		t.Errorf("facts after clearing and repeating:\n%s\nwant:\n%s", got, want)
	}
	check("repeat after rewrite", true, false)
	check("repeat", false, false)

	// A file it read changed on disk, to the same size: only its
	// modification time tells.
	abs := filepath.Join(root, "b", "b.go")
	if err := os.WriteFile(abs, []byte(files["b/b.go"]), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(abs, later, later); err != nil {
		t.Fatal(err)
	}
	check("after b.go was touched", true, false)
	check("repeat after the touch", false, false)
	// A different text of the target file is written against.
	writeFiles(t, root, map[string]string{"b/b.go": files["b/b.go"] + "// more\n"})
	check("after b.go changed", true, true)

	// The buffers changed: a.go is open with the file's text.
	check("repeat before the buffer", true, false)
	bufText, bufVersion = []byte(files["a/a.go"]), bufVersion+1
	check("after a buffer opened", true, false)
	check("repeat with the buffer", false, false)
	bufText, bufVersion = []byte(files["a/a.go"]+"\n// unsaved\n"), bufVersion+1
	check("after the buffer changed", true, true)
	check("repeat after the buffer write", true, false)
	check("repeat with the changed buffer", false, false)

	// A document that cannot be read is never taken as unchanged.
	if err := os.Remove(abs); err != nil {
		t.Fatal(err)
	}
	check("b.go removed", true, false)
	check("b.go still removed", true, false)
}

// Without a buffer version every exchange is worked out: a buffer change
// could not be told.
func TestLiveRepeatsNeedBufferVersion(t *testing.T) {
	root := workspace(t)
	s := graphtest.Open(t)
	l := ingest.New(s, ingest.Options{Root: root, Buffer: func(string) ([]byte, bool) { return nil, false }})
	a, b := uri(root, "a/a.go"), uri(root, "b/b.go")
	params := fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":5,"character":%d}}`, a, addCol16)
	def := `[{"uri":"` + b + `","range":` + rng(3, 5, 3, 8) + `}]`
	for range 4 {
		exchange(t, l, "textDocument/definition", params, def)
	}
	if st := l.Stats(); st.Repeated != 0 || st.Exchanges != 4 {
		t.Errorf("stats = %+v, want 4 exchanges worked out", st)
	}
}

// A file looked at less than a recheck ago is not looked at again: a
// change to it within that moment is noticed once the moment has passed.
func TestLiveRepeatsRecheck(t *testing.T) {
	root := workspace(t)
	s := graphtest.Open(t)
	l := ingest.New(s, ingest.Options{Root: root})
	clock := time.Now()
	ingest.SetClock(l, func() time.Time { return clock })
	a, b := uri(root, "a/a.go"), uri(root, "b/b.go")
	params := fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":5,"character":%d}}`, a, addCol16)
	def := `[{"uri":"` + b + `","range":` + rng(3, 5, 3, 8) + `}]`
	// Written; worked out again and remembered; a repeat, whose files
	// are looked at now.
	for range 3 {
		exchange(t, l, "textDocument/definition", params, def)
	}
	if got := l.Stats().Repeated; got != 1 {
		t.Fatalf("repeated %d, want 1", got)
	}
	writeFiles(t, root, map[string]string{"b/b.go": files["b/b.go"] + "// more\n"})
	exchange(t, l, "textDocument/definition", params, def)
	if got := l.Stats().Repeated; got != 2 {
		t.Errorf("within the moment: repeated %d, want 2 (the change not looked for yet)", got)
	}
	clock = clock.Add(ingest.Recheck)
	written := l.Stats().Documents
	exchange(t, l, "textDocument/definition", params, def)
	if st := l.Stats(); st.Repeated != 2 || st.Documents == written {
		t.Errorf("a recheck later: %+v, want the change noticed and written", st)
	}
}
