package freshness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
)

// Change is one document that differs between the base commit and the work
// tree. Paths are relative to the workspace root, with forward slashes.
type Change struct {
	// Status is "A" (added), "M" (modified), "D" (deleted), "R" (renamed
	// from OldPath to Path) or "?" (untracked, not ignored).
	Status  string `json:"status"`
	Path    string `json:"path"`
	OldPath string `json:"oldPath,omitempty"`
}

// ErrNotGit is returned by [Changes] when root is not inside a git work tree.
var ErrNotGit = errors.New("freshness: not a git work tree")

// ErrUnknownBase is returned by [Changes] when the base commit is not in the
// repository (a shallow clone, or an index built elsewhere).
var ErrUnknownBase = errors.New("freshness: base commit not in the repository")

// git runs git in root and returns its standard output.
func git(ctx context.Context, root string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
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

// insideWorkTree reports whether root lies inside a git work tree.
func insideWorkTree(ctx context.Context, root string) bool {
	out, err := git(ctx, root, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// Head returns the commit checked out in root. It returns "" and no error when
// root is not a git work tree or the repository has no commit yet.
func Head(ctx context.Context, root string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if !insideWorkTree(ctx, root) {
		return "", nil
	}
	out, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		// Unborn branch: a repository without commits.
		return "", nil
	}
	return strings.TrimSpace(string(out)), nil
}

// Changes lists the documents that differ between base and the work tree:
// what was committed since base, staged and unstaged modifications,
// deletions and renames (one `git diff --name-status -M BASE`, which compares
// the commit with the work tree), and untracked files that are not ignored.
// An empty base compares with HEAD. Paths are relative to root, and only
// documents under root are listed. The result is sorted by path.
func Changes(ctx context.Context, root, base string) ([]Change, error) {
	if !insideWorkTree(ctx, root) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("freshness: listing changes in %s: %w", root, ErrNotGit)
	}
	if base == "" {
		head, err := Head(ctx, root)
		if err != nil {
			return nil, err
		}
		base = head
	}
	var changes []Change
	if base != "" {
		if _, err := git(ctx, root, "cat-file", "-e", base+"^{commit}"); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("freshness: base %s in %s: %w", base, root, ErrUnknownBase)
		}
		out, err := git(ctx, root, "diff", "--name-status", "-z", "-M", "--relative", "--no-ext-diff", base, "--")
		if err != nil {
			return nil, fmt.Errorf("freshness: listing changes since %s: %w", short(base), err)
		}
		changes, err = parseNameStatus(out)
		if err != nil {
			return nil, fmt.Errorf("freshness: listing changes since %s: %w", short(base), err)
		}
	} else {
		// No commit yet: every tracked file is new.
		out, err := git(ctx, root, "ls-files", "-z", "--cached")
		if err != nil {
			return nil, fmt.Errorf("freshness: listing files of %s: %w", root, err)
		}
		for _, p := range splitZ(out) {
			changes = append(changes, Change{Status: "A", Path: p})
		}
	}
	out, err := git(ctx, root, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("freshness: listing untracked files of %s: %w", root, err)
	}
	for _, p := range splitZ(out) {
		changes = append(changes, Change{Status: "?", Path: p})
	}
	sort.Slice(changes, func(i, j int) bool {
		if changes[i].Path != changes[j].Path {
			return changes[i].Path < changes[j].Path
		}
		return changes[i].Status < changes[j].Status
	})
	return changes, nil
}

// parseNameStatus parses `git diff --name-status -z` output: a status field,
// then one path, or two for renames and copies.
func parseNameStatus(out []byte) ([]Change, error) {
	fields := splitZ(out)
	var changes []Change
	for i := 0; i < len(fields); {
		status := fields[i]
		i++
		if status == "" {
			return nil, fmt.Errorf("empty status field at %d", i)
		}
		switch status[0] {
		case 'R', 'C':
			if i+1 >= len(fields) {
				return nil, fmt.Errorf("status %s without two paths", status)
			}
			from, to := fields[i], fields[i+1]
			i += 2
			if status[0] == 'R' {
				changes = append(changes, Change{Status: "R", Path: to, OldPath: from})
			} else {
				changes = append(changes, Change{Status: "A", Path: to})
			}
		default:
			if i >= len(fields) {
				return nil, fmt.Errorf("status %s without a path", status)
			}
			p := fields[i]
			i++
			switch status[0] {
			case 'A':
				changes = append(changes, Change{Status: "A", Path: p})
			case 'D':
				changes = append(changes, Change{Status: "D", Path: p})
			default: // M, T (type change), U (unmerged), X
				changes = append(changes, Change{Status: "M", Path: p})
			}
		}
	}
	return changes, nil
}

// splitZ splits NUL-terminated fields.
func splitZ(out []byte) []string {
	s := strings.TrimSuffix(string(out), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// short abbreviates a commit for messages.
func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
