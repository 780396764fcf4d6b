package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/graph"
)

// openStore opens the store of a command: storeFlag when set, else the
// default store of root (defaultRoot() when root is empty). The errors say
// what to do (ErrLocked names the holder's pid; a read-only open of a
// missing store wraps graph.ErrNotFound).
func openStore(e *env, storeFlag, root string, readOnly bool) (*graph.Store, error) {
	dir, err := storeDir(storeFlag, root)
	if err != nil {
		return nil, err
	}
	return graph.Open(dir, graph.Options{ReadOnly: readOnly})
}

// storeDir resolves the store directory from --store and --root.
func storeDir(storeFlag, root string) (string, error) {
	if storeFlag != "" {
		return filepath.Abs(storeFlag)
	}
	if root == "" {
		root = defaultRoot()
	}
	return graph.DefaultDir(root)
}

// defaultRoot returns the git top level of the current directory, else the
// current directory.
func defaultRoot() string {
	cwd, err := os.Getwd()
	if err != nil {
		return "."
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", cwd, "rev-parse", "--show-toplevel").Output()
	if top := strings.TrimSpace(string(out)); err == nil && top != "" {
		return top
	}
	return cwd
}

// rootOrDefault returns root, or defaultRoot() when it is empty.
func rootOrDefault(root string) string {
	if root != "" {
		return root
	}
	return defaultRoot()
}
