package gitcmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
