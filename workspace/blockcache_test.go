package workspace

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"
)

// waitWarmed waits for a warm-up of a generation other than not.
func waitWarmed(t *testing.T, s *Session, not uint64) *WarmReport {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if rep := s.blocks.report(); rep != nil && rep.Generation != not {
			return rep
		}
	}
	t.Fatalf("no warm-up of the block cache after a minute (last: %+v)", s.blocks.report())
	return nil
}

// TestBlockCacheWarmUp checks that a long-lived session warms the block
// cache when it opens and again after a new base generation, and that a
// one-shot session does not.
func TestBlockCacheWarmUp(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	oneShot := openSession(t, root, dir)
	st, err := oneShot.Command(context.Background(), CommandStatus, Call{})
	if err != nil {
		t.Fatal(err)
	}
	if oneShot.blocks != nil || st.(Status).BlockCache != nil {
		t.Fatal("a one-shot session warms the block cache")
	}
	if err := oneShot.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler), Background: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := waitWarmed(t, s, 0)
	if first.Error != "" || first.End != "complete" || first.Bytes == 0 || first.Bytes > WarmBudget {
		t.Fatalf("warm-up on open: %+v, want the whole fixture read", first)
	}

	arg, err := json.Marshal(ImportRequest{File: otherToolDump(t, "goapp.scip"), Commit: "fixture"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Command(context.Background(), CommandImport, Call{Args: []json.RawMessage{arg}}); err != nil {
		t.Fatal(err)
	}
	again := waitWarmed(t, s, first.Generation)
	if again.Error != "" || again.End != "complete" || again.Generation <= first.Generation {
		t.Fatalf("warm-up after an import: %+v (first %+v), want the new generation read", again, first)
	}
	st, err = s.Command(context.Background(), CommandStatus, Call{})
	if err != nil {
		t.Fatal(err)
	}
	if rep := st.(Status).BlockCache; rep == nil || rep.Generation != again.Generation {
		t.Errorf("status shows warm-up %+v, want %+v", rep, again)
	}
}
