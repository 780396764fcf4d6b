package gitcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Run runs git with args in dir (as `git -C dir ARGS...`) and returns its
// standard output. A failure's error names the command and carries git's
// standard error, and wraps the process error (so a cancelled ctx shows).
func Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return RunInput(ctx, dir, nil, args...)
}

// RunInput is Run with stdin given to git as its standard input.
//
// Git runs without its optional locks (GIT_OPTIONAL_LOCKS=0): a status or
// a diff in the user's work tree, asked in the background for every
// answer, would otherwise write the index's refreshed file times under
// .git/index.lock, so that the user's own commit or add meanwhile failed
// ("Another git process seems to be running"), and a git killed with its
// context left the lock behind for the user to remove. Locks a command
// needs are taken as always.
func RunInput(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// TopLevel returns the nearest directory at or above dir that holds a .git
// entry (a repository's directory, or the file of a worktree or
// submodule): the work tree's top level, found without running git. It
// reports false when there is none and GIT_DIR is unset (with GIT_DIR
// set, dir itself is returned: git decides).
func TopLevel(dir string) (string, bool) {
	if os.Getenv("GIT_DIR") != "" {
		return dir, true
	}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// ShortCommit abbreviates a commit id to 12 characters, the length every
// message of lspgraph prints; "" stays "".
func ShortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
