package workspace

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
)

// sameRev reports whether two revisions name the same commit.
func sameRev(ctx context.Context, root, a, b string) bool {
	ra, err1 := gitOutput(ctx, root, "rev-parse", "--verify", "--quiet", a+"^{commit}")
	rb, err2 := gitOutput(ctx, root, "rev-parse", "--verify", "--quiet", b+"^{commit}")
	return err1 == nil && err2 == nil && strings.TrimSpace(string(ra)) == strings.TrimSpace(string(rb))
}

// gitChanges lists the changed files and lines between base and the work
// tree (or the index), renames followed, untracked files as added.
func gitChanges(ctx context.Context, root, base string, staged bool) ([]impact.FileChange, error) {
	args := []string{"diff", "-U0", "-M", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/"}
	if staged {
		args = append(args, "--cached")
	}
	args = append(args, base, "--")
	out, err := gitOutput(ctx, root, args...)
	if err != nil {
		return nil, fmt.Errorf("listing changes since %s: %w", base, err)
	}
	files, err := impact.ParseUnifiedDiff(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("reading the diff since %s: %w", base, err)
	}
	if staged {
		return files, nil
	}
	out, err = gitOutput(ctx, root, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, fmt.Errorf("listing untracked files: %w", err)
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		b, err := readInRoot(root, p)
		if err != nil {
			continue // vanished or unreadable: nothing to map
		}
		n := bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
		fc := impact.FileChange{Status: "A", Path: p}
		if n > 0 {
			fc.Added = []impact.LineRange{{Start: 1, End: n}}
		}
		files = append(files, fc)
	}
	return files, nil
}

// gitOutput runs git in root and returns its standard output; the error
// carries git's standard error.
func gitOutput(ctx context.Context, root string, args ...string) ([]byte, error) {
	return gitcmd.Run(ctx, root, args...)
}

// shortRev abbreviates a commit for messages.
func shortRev(c string) string { return cmp.Or(gitcmd.ShortCommit(c), "unknown") }
