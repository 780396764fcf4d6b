package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
)

// storeDir resolves the store directory from --store and --root.
func storeDir(storeFlag, root string) (string, error) {
	if storeFlag != "" {
		abs, err := filepath.Abs(storeFlag)
		if err != nil {
			return "", fmt.Errorf("resolving --store %s: %w", storeFlag, err)
		}
		if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
			return "", fmt.Errorf("%w: --store %s is a file, not a store directory", errUsage, storeFlag)
		}
		return abs, nil
	}
	if root == "" {
		root = defaultRoot()
	}
	return graph.DefaultDir(root)
}

// workspaceAndStore resolves --root (workspaceRoot) and --store
// (storeDir) together.
func workspaceAndStore(ctx context.Context, rootFlag, storeFlag string) (root, dir string, err error) {
	if root, err = workspaceRoot(ctx, rootFlag); err != nil {
		return "", "", err
	}
	dir, err = storeDir(storeFlag, root)
	return root, dir, err
}

// defaultRoot returns the git top level of the current directory, else the
// current directory.
func defaultRoot() string {
	cwd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return gitTopLevel(cwd)
}

// gitTopLevel returns the nearest directory at or above dir that holds a
// .git entry (a repository's directory, or the file of a worktree or
// submodule): the work tree's top level, found without running git. dir
// itself when there is none.
func gitTopLevel(dir string) string {
	if top, ok := gitcmd.TopLevel(dir); ok {
		return top
	}
	return dir
}

// rootOrDefault returns root, or defaultRoot() when it is empty.
func rootOrDefault(root string) string {
	if root != "" {
		return root
	}
	return defaultRoot()
}

// absTarget makes the FILE of a FILE:LINE[:COL] target absolute when it
// names a file relative to the current directory, as command-line
// arguments are; other targets pass through.
func absTarget(target string) string {
	i := strings.Index(target, ":")
	if i <= 0 || strings.ContainsAny(target, " #") {
		return target
	}
	file := target[:i]
	if filepath.IsAbs(file) {
		return target
	}
	if fi, err := os.Stat(file); err != nil || fi.IsDir() {
		return target
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return target
	}
	return abs + target[i:]
}
