package syntax

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// ListFiles returns the source files under root that have a grammar, as
// root-relative slash paths in sorted order. In a git work tree the list
// comes from `git ls-files -co --exclude-standard` (tracked and untracked
// files, minus what .gitignore excludes); otherwise the tree is walked. In
// both cases paths inside vendor/, node_modules/ or a hidden directory are
// left out, and a walk also leaves out directories tagged as caches
// (holding a CACHEDIR.TAG file, like Cargo's target/).
func ListFiles(ctx context.Context, root string) ([]string, error) {
	var files []string
	if isGitWorkTree(ctx, root) {
		cmd := exec.CommandContext(ctx, "git", "ls-files", "-z", "-co", "--exclude-standard")
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("syntax: listing files with git ls-files in %s: %w: %s", root, err, strings.TrimSpace(stderr.String()))
		}
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" && keepPath(p) {
				files = append(files, p)
			}
		}
	} else {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root {
					return err
				}
				return nil // unreadable entries are left out
			}
			rel, rerr := filepath.Rel(root, p)
			if rerr != nil {
				return rerr
			}
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel != "." && (skipDir(d.Name()) || isCacheDir(p)) {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && keepPath(rel) {
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("syntax: walking %s: %w", root, err)
		}
	}
	sort.Strings(files)
	return files, nil
}

func isGitWorkTree(ctx context.Context, root string) bool {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--is-inside-work-tree")
	cmd.Dir = root
	out, err := cmd.Output()
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

func skipDir(name string) bool {
	return name == "vendor" || name == "node_modules" || (strings.HasPrefix(name, ".") && name != ".")
}

// isCacheDir reports whether dir is tagged as a cache (it holds a
// CACHEDIR.TAG file, as Cargo's target/ does): build output, not source.
func isCacheDir(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, "CACHEDIR.TAG"))
	return err == nil
}

// keepPath reports whether a root-relative path is a source file to index.
func keepPath(p string) bool {
	if grammarFor(p) == "" {
		return false
	}
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if skipDir(d) {
			return false
		}
	}
	return true
}
