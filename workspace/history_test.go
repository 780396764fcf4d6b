package workspace

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// TestContextHistoryKeptAcrossSessions: the history log a context question
// read is kept in the store's directory, so that a later session (a
// command line's) at the same commit reads it from there, not from git,
// and answers the same; a new commit, or a damaged file, is read from git
// again, and the file replaced.
func TestContextHistoryKeptAcrossSessions(t *testing.T) {
	ctx := context.Background()
	root, dir, git := gitFixture(t)
	file := filepath.Join(dir, historyFile)
	type counts struct{ git, file int }
	session := func(what string) (counts, string) {
		t.Helper()
		s, err := Open(Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		out, err := s.Command(ctx, CommandContext, Call{Args: []json.RawMessage{json.RawMessage(`{"symbol":"Catalog.Save","budget":4000}`)}})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		return counts{s.history.fromGit, s.history.fromFile}, string(b)
	}
	first, answer := session("first session")
	if first != (counts{1, 0}) {
		t.Fatalf("first session: %+v, want the log read from git", first)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the first session kept no history: %v", err)
	}
	if c, again := session("second session"); c != (counts{0, 1}) || again != answer {
		t.Errorf("second session: %+v, want the log read from the file, and the same answer (%v)", c, again == answer)
	}
	git("commit", "-q", "--allow-empty", "-m", "another")
	if c, _ := session("after a commit"); c != (counts{1, 0}) {
		t.Errorf("after a commit: %+v, want the log read from git", c)
	}
	if c, _ := session("at that commit"); c != (counts{0, 1}) {
		t.Errorf("at that commit: %+v, want the log read from the file", c)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if c, _ := session("damaged file"); c != (counts{1, 0}) {
		t.Errorf("after the file was damaged: %+v, want the log read from git", c)
	}
	if c, _ := session("replaced file"); c != (counts{0, 1}) {
		t.Errorf("the damaged file was not replaced: %+v", c)
	}
}
