package workspace

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// TestWarmUpGivesWay: a session's search warm-up waits while a command is
// under way and goes on once none is; a command counts as under way from
// its start to its answer.
func TestWarmUpGivesWay(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := goTree(t, 3000)
	s := openSession(t, root, filepath.Join(t.TempDir(), "store"))
	ctx := context.Background()
	if _, err := s.Command(ctx, CommandIndex, Call{}); err != nil {
		t.Fatal(err)
	}
	underWay := func() bool {
		s.fg.mu.Lock()
		defer s.fg.mu.Unlock()
		return s.fg.n > 0
	}
	if underWay() {
		t.Fatal("a command counts as under way after its answer")
	}
	warm := func() <-chan error {
		done := make(chan error, 1)
		go func() { done <- s.WarmSearch(ctx) }()
		return done
	}

	// Held: the warm-up waits, and goes on when let go.
	s.fg.enter()
	warmed := warm()
	select {
	case err := <-warmed:
		t.Fatalf("the warm-up ended (%v) while a command was under way", err)
	case <-time.After(300 * time.Millisecond):
	}
	s.fg.leave()
	select {
	case err := <-warmed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the warm-up did not go on once no command was under way")
	}

	// A full index with no fact cache (a second or more) is under way
	// from its start to its answer: a warm-up begun meanwhile ends after.
	raw, err := json.Marshal(IndexRequest{Full: true, NoFactCache: true})
	if err != nil {
		t.Fatal(err)
	}
	indexed := make(chan error, 1)
	go func() {
		_, err := s.Command(ctx, CommandIndex, Call{Args: []json.RawMessage{raw}})
		indexed <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); !underWay(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the index asked is not counted as under way")
		}
	}
	warmed = warm()
	select {
	case err := <-warmed:
		// The index is the only command: if it is still under way, the
		// warm-up did not wait for it.
		if underWay() {
			t.Fatalf("the warm-up ended (%v) while the index was under way", err)
		}
		if err := <-indexed; err != nil {
			t.Fatal(err)
		}
	case err := <-indexed:
		if err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-warmed:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the warm-up did not go on after the index")
		}
	}
}
