package gitcmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunAndTopLevel(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if _, ok := TopLevel(dir); ok && os.Getenv("GIT_DIR") == "" {
		// t.TempDir lies outside any repository on every machine we run on.
		t.Fatalf("TopLevel(%s) found a work tree", dir)
	}
	ctx := context.Background()
	_, err := Run(ctx, dir, "rev-parse", "HEAD")
	if err == nil || !strings.Contains(err.Error(), "git rev-parse HEAD") || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("Run outside a repository: %v; want the command and git's message", err)
	}
	if _, err := Run(ctx, dir, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if top, ok := TopLevel(sub); !ok || top != dir {
		t.Errorf("TopLevel(%s) = %s, %v; want %s", sub, top, ok, dir)
	}
	out, err := Run(ctx, sub, "rev-parse", "--show-prefix")
	if err != nil || strings.TrimSpace(string(out)) != "a/b/" {
		t.Errorf("Run in a subdirectory: %q, %v", out, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(cctx, dir, "status"); err == nil {
		t.Errorf("Run with a cancelled context succeeded")
	}
}

// TestRunTakesNoOptionalLock checks that a status in a work tree whose
// file times changed leaves the index as it was: git would write the
// refreshed times under the index's lock, which the user's own git
// commands then find taken.
func TestRunTakesNoOptionalLock(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	ctx := context.Background()
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "root"},
	} {
		if _, err := Run(ctx, dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, dir, "add", "f"); err != nil { // a lock it needs: taken
		t.Fatal(err)
	}
	index := filepath.Join(dir, ".git", "index")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(f, later, later); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"status", "--porcelain"}, {"diff", "--name-only", "HEAD"}} {
		if _, err := Run(ctx, dir, args...); err != nil {
			t.Fatal(err)
		}
		if after, err := os.ReadFile(index); err != nil || !bytes.Equal(after, before) {
			t.Errorf("git %s rewrote the index (%v): it took the index's lock", strings.Join(args, " "), err)
		}
	}
}

func TestShortCommit(t *testing.T) {
	for in, want := range map[string]string{
		"":             "",
		"abc":          "abc",
		"0123456789ab": "0123456789ab",
		"0965231086e58c35dc372205dc480a5eb7768447": "0965231086e5",
	} {
		if got := ShortCommit(in); got != want {
			t.Errorf("ShortCommit(%q) = %q, want %q", in, got, want)
		}
	}
}
