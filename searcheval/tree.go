package searcheval

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/syntax"
)

// parentStore opens a syntax index of the tree at commit's parent: the
// one kept in cache when there is one, else a new one (kept there when
// cache is set, removed by cleanup when not).
func parentStore(ctx context.Context, gitDir, ext, cache, commit string) (*graph.Store, func(), error) {
	parent, err := gitcmd.Run(ctx, gitDir, "rev-parse", commit+"^")
	if err != nil {
		return nil, nil, fmt.Errorf("searcheval: the parent of %.12s: %w", commit, err)
	}
	tmp, err := os.MkdirTemp("", "lspgraph-search-eval-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	dir := filepath.Join(tmp, "store")
	if cache != "" {
		dir = filepath.Join(cache, strings.TrimSpace(string(parent))+ext)
		if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
			st, err := graph.Open(dir, graph.Options{})
			if err != nil {
				cleanup()
				return nil, nil, err
			}
			return st, func() { st.Close(); cleanup() }, nil
		}
		if err := os.RemoveAll(dir); err != nil {
			cleanup()
			return nil, nil, err
		}
	}
	tree := filepath.Join(tmp, "tree")
	files, err := treeFiles(ctx, gitDir, commit+"^", ext)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	if err := exportTree(ctx, gitDir, commit+"^", tree, files...); err != nil {
		cleanup()
		return nil, nil, err
	}
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	if _, err := syntax.Index(ctx, st, syntax.IndexOptions{Root: tree, Workers: 2}); err != nil {
		st.Close()
		cleanup()
		return nil, nil, fmt.Errorf("searcheval: indexing %.12s^: %w", commit, err)
	}
	if cache == "" {
		return st, func() { st.Close(); cleanup() }, nil
	}
	err = st.Close()
	if err == nil {
		err = trimStore(dir)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644)
	}
	if err == nil {
		st, err = graph.Open(dir, graph.Options{})
	}
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("searcheval: keeping the index of %.12s^: %w", commit, err)
	}
	return st, func() { st.Close(); cleanup() }, nil
}

// trimStore frees the disk space a closed store's files hold past their
// ends (Pebble preallocates its log), which a cache of many stores would
// otherwise multiply.
func trimStore(dir string) error {
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range es {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if err := os.Truncate(filepath.Join(dir, e.Name()), info.Size()); err != nil {
			return err
		}
	}
	return nil
}

// treeFiles lists the files of rev with extension ext and the project
// files name resolution reads (go.mod, package.json, tsconfig.json,
// pyproject.toml).
func treeFiles(ctx context.Context, gitDir, rev, ext string) ([]string, error) {
	raw, err := gitcmd.Run(ctx, gitDir, "ls-tree", "-r", "--name-only", rev)
	if err != nil {
		return nil, fmt.Errorf("searcheval: listing %s: %w", rev, err)
	}
	var out []string
	for _, p := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		switch path.Base(p) {
		case "go.mod", "package.json", "tsconfig.json", "pyproject.toml":
			out = append(out, p)
			continue
		}
		if strings.HasSuffix(p, ext) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("searcheval: %s has no %s files", rev, ext)
	}
	return out, nil
}

// exportTree writes the files of rev matching the pathspecs into dir with
// git archive (a partial clone may lack other blobs).
func exportTree(ctx context.Context, gitDir, rev, dir string, pathspecs ...string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	arch := exec.CommandContext(ctx, "git", append([]string{"-C", gitDir, "archive", "--format=tar", rev, "--"}, pathspecs...)...)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	pipe, err := arch.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	var errb bytes.Buffer
	arch.Stderr, untar.Stderr = &errb, &errb
	if err := untar.Start(); err != nil {
		return fmt.Errorf("searcheval: starting tar: %w", err)
	}
	if err := arch.Run(); err != nil {
		_, _ = io.Copy(io.Discard, pipe)
		_ = untar.Wait()
		return fmt.Errorf("searcheval: git archive %s: %w: %s", rev, err, errb.String())
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("searcheval: extracting %s: %w: %s", rev, err, errb.String())
	}
	return nil
}
