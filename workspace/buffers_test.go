package workspace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

func TestChangedLines(t *testing.T) {
	lines := func(s string) []byte { return []byte(strings.ReplaceAll(s, " ", "\n")) }
	for _, tc := range []struct {
		name, old, cur string
		added, removed string
	}{
		{"same", "a b c ", "a b c ", "[]", "[]"},
		{"one changed", "a b c ", "a X c ", "[{2 2}]", "[{2 2}]"},
		{"inserted", "a b c ", "a b N M c ", "[{3 4}]", "[{3 2}]"},
		{"deleted", "a b c d ", "a d ", "[{2 1}]", "[{2 3}]"},
		{"two hunks", "a b c d e f ", "a X c d e Y f ", "[{2 2} {6 6}]", "[{2 2} {6 5}]"},
		{"appended", "a b ", "a b c ", "[{3 3}]", "[{3 2}]"},
		{"from empty", "", "a b ", "[{1 2}]", "[{1 0}]"},
		{"no final newline", "a b", "a b ", "[{2 2}]", "[{2 2}]"},
		{"repeated lines", "x } x } ", "x } y } x } ", "[{3 4}]", "[{3 2}]"},
	} {
		added, removed := changedLines(lines(tc.old), lines(tc.cur))
		if got := fmt.Sprint(added); got != tc.added {
			t.Errorf("%s: added %s, want %s", tc.name, got, tc.added)
		}
		if got := fmt.Sprint(removed); got != tc.removed {
			t.Errorf("%s: removed %s, want %s", tc.name, got, tc.removed)
		}
	}
}

// didChange returns a didChange notification's params for uri.
func didChange(t testing.TB, uri string, changes ...any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": changes})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rangeChange is one incremental change of a didChange.
func rangeChange(sl, sc, el, ec int, text string) map[string]any {
	pos := func(l, c int) map[string]int { return map[string]int{"line": l, "character": c} }
	return map[string]any{"range": map[string]any{"start": pos(sl, sc), "end": pos(el, ec)}, "text": text}
}

// TestBufferChanges: a didChange's changes apply one after another, each
// to the text the previous one left, with columns in the session's
// encoding; the text handed off for an earlier notification stays as it
// was; a change that does not fit the buffer loses it.
func TestBufferChanges(t *testing.T) {
	root := t.TempDir()
	b := newBuffers(root)
	defer b.close()
	uri := "file://" + filepath.ToSlash(filepath.Join(root, "a.go"))
	var handed [][]byte
	follow := func(method string, params json.RawMessage) error {
		return b.follow(method, params, textpos.UTF16, func(_ string, _ bufferEvent, text []byte) { handed = append(handed, text) })
	}
	open, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri, "version": 1, "text": "a😀b\r\nline two\nend"}})
	if err := follow("textDocument/didOpen", open); err != nil {
		t.Fatal(err)
	}
	// In UTF-16 the emoji is two units: column 3 is after it.
	err := follow("textDocument/didChange", didChange(t, uri,
		rangeChange(0, 3, 0, 4, "B"),    // a😀B
		rangeChange(1, 0, 1, 4, "LINE"), // LINE two
		rangeChange(0, 4, 1, 0, " | "),  // a😀B | LINE two (the CRLF joined)
		rangeChange(1, 3, 1, 3, "!"),    // end! (now line 1)
		rangeChange(0, 0, 0, 0, "\n"),   // an empty first line
	))
	if err != nil {
		t.Fatal(err)
	}
	want := "\na😀B | LINE two\nend!"
	if got, _ := b.get("a.go"); string(got) != want {
		t.Fatalf("buffer %q, want %q", got, want)
	}
	if string(handed[0]) != "a😀b\r\nline two\nend" || string(handed[1]) != want {
		t.Fatalf("handed off %q, want the opened text and then %q", handed, want)
	}
	// A whole-text change among incremental ones.
	if err := follow("textDocument/didChange", didChange(t, uri, rangeChange(0, 0, 0, 0, "x"), map[string]any{"text": "new\n"}, rangeChange(1, 0, 1, 0, "tail"))); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.get("a.go"); string(got) != "new\ntail" || string(handed[1]) != want {
		t.Fatalf("buffer %q (want %q); earlier hand-off now %q", got, "new\ntail", handed[1])
	}
	// Past the end of a line: the buffer is lost, not guessed at.
	if err := follow("textDocument/didChange", didChange(t, uri, rangeChange(0, 9, 0, 9, "?"))); err == nil {
		t.Fatal("a change past the end of a line was applied")
	}
	if _, ok := b.get("a.go"); ok {
		t.Fatal("buffer kept after a change that did not fit it")
	}
}

// BenchmarkBufferChanges: one didChange of 100 single-character edits,
// last first as editors send a multi-cursor edit, to a buffer holding
// GOROOT's largest source file.
func BenchmarkBufferChanges(b *testing.B) {
	text, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src/cmd/compile/internal/ssa/rewriteAMD64.go"))
	if err != nil {
		b.Skip(err)
	}
	root := b.TempDir()
	bufs := newBuffers(root)
	defer bufs.close()
	uri := "file://" + filepath.ToSlash(filepath.Join(root, "a.go"))
	lines := bytes.Count(text, []byte("\n"))
	var changes []any
	for i := 99; i >= 0; i-- {
		changes = append(changes, rangeChange(i*lines/100, 0, i*lines/100, 0, "x"))
	}
	change := didChange(b, uri, changes...)
	open, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri, "version": 1, "text": string(text)}})
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if err := bufs.follow("textDocument/didOpen", open, textpos.UTF16, func(string, bufferEvent, []byte) {}); err != nil {
			b.Fatal(err)
		}
		if err := bufs.follow("textDocument/didChange", change, textpos.UTF16, func(string, bufferEvent, []byte) {}); err != nil {
			b.Fatal(err)
		}
	}
}
