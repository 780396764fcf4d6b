package history

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn returns a runner of git in dir, with a fixed identity, that fails
// the test on error and returns git's trimmed output.
func gitIn(t *testing.T, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}

// repo makes a git repository whose commits are given as lists of files
// to touch, oldest first, and returns its directory and the commit hashes.
func repo(t *testing.T, commits [][]string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	git := gitIn(t, dir)
	git("init", "-q")
	var hashes []string
	for i, files := range commits {
		for _, f := range files {
			p := filepath.Join(dir, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			fh, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			fh.WriteString(strings.Repeat("x", i+1) + "\n")
			fh.Close()
		}
		git("add", "-A")
		git("commit", "-q", "-m", "c")
		hashes = append(hashes, git("rev-parse", "HEAD"))
	}
	return dir, hashes
}

func TestCoupledWeighsSizeAndHonoursRevision(t *testing.T) {
	dir, hashes := repo(t, [][]string{
		{"a.go", "b.go"},                         // a-b tied alone
		{"a.go", "c.go", "d.go", "e.go", "f.go"}, // a sweeping commit
		{"a.go", "b.go"},
		{"z.go"},
		{"a.go", "late.go"}, // after the revision asked for below
	})
	ctx := context.Background()
	l, err := Load(ctx, dir, hashes[3], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Commit != hashes[3] || l.Commits != 4 {
		t.Errorf("read %d commits at %s; want 4 at %s", l.Commits, l.Commit, hashes[3])
	}
	got := l.Coupled("a.go", 10)
	if len(got) != 5 || got[0].Path != "b.go" || got[0].Commits != 2 {
		t.Fatalf("Coupled(a.go) = %+v; want b.go first (2 commits), then c..f", got)
	}
	for _, c := range got {
		if c.Path == "late.go" {
			t.Errorf("a commit after the revision was read: %+v", got)
		}
		if c.Weight <= 0 || c.Weight > 1 {
			t.Errorf("weight %v of %s outside (0, 1]", c.Weight, c.Path)
		}
	}
	// b: two of a's three commits, alone with it; c: one commit shared
	// with four files (and older than b's last).
	if !(got[0].Weight > 0.6 && got[1].Weight < 0.1) {
		t.Errorf("weights %+v: b.go should hold most of a.go's weight, c.go a quarter of one commit", got)
	}
	head, err := Load(ctx, dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := head.Coupled("a.go", 2); len(c) != 2 || c[0].Path != "b.go" || c[1].Path != "late.go" {
		t.Errorf("at HEAD late.go follows b.go: %+v", c)
	}
	if _, err := Load(ctx, dir, "no-such-rev", Options{}); err == nil || !strings.Contains(err.Error(), "names no commit") {
		t.Errorf("unknown revision: %v", err)
	}
	if _, err := Load(ctx, dir, "--all", Options{}); err == nil {
		t.Errorf("an option as revision must be refused")
	}
	big, err := Load(ctx, dir, hashes[3], Options{MaxFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	if c := big.Coupled("a.go", 10); len(c) != 1 || c[0].Path != "b.go" {
		t.Errorf("MaxFiles 2 must skip the sweeping commit: %+v", c)
	}
}
