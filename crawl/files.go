package crawl

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// Extensions returns the file extensions a language server handles, guessed
// from its command name, or nil when the name is not known (pass
// [Options].Extensions then).
func Extensions(server string) []string {
	name := strings.TrimSuffix(filepath.Base(server), ".exe")
	switch {
	case name == "gopls":
		return lang.Extensions("go")
	case strings.Contains(name, "typescript-language-server"), name == "vtsls", name == "tsserver":
		return lang.Extensions("typescript", "javascript")
	case strings.Contains(name, "pyright"), name == "pylsp", name == "jedi-language-server", name == "pyrefly", name == "ty":
		// Not the stubs (.pyi): they declare again what the sources define.
		return []string{".py"}
	}
	return nil
}

// ListFiles lists the documents under root with one of exts, relative and
// sorted. In a git work tree it asks `git ls-files -co --exclude-standard`;
// elsewhere it walks the tree (never descending a symbolic link). Either
// way it skips vendor/, node_modules/, testdata/ and directories starting
// with "." or "_", which Go and JavaScript tooling do not treat as part of
// the workspace's packages. A listed symbolic link to a file inside the
// root is replaced by that file's own path (listed once); one leading
// outside the root is left out, never read.
func ListFiles(ctx context.Context, root string, exts []string) ([]string, error) {
	fsys, err := rootfs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	defer fsys.Close()
	want := map[string]bool{}
	for _, e := range exts {
		want[strings.ToLower(e)] = true
	}
	var all []string
	if out, err := gitcmd.Run(ctx, root, "ls-files", "-z", "-co", "--exclude-standard"); err == nil {
		for _, p := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			if p != "" {
				all = append(all, p)
			}
		}
	} else {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				all = append(all, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("crawl: listing files of %s: %w", root, err)
		}
	}
	keep := func(p string) bool { return want[strings.ToLower(path.Ext(p))] && !skipped(p) }
	var files []string
	seen := map[string]bool{}
	for _, p := range all {
		if !keep(p) {
			continue
		}
		// Deleted in the work tree, not a regular file, or a link
		// leading out of the root: left out.
		real, err := fsys.RealPath(p)
		if err != nil || real != p && !keep(real) || seen[real] {
			continue
		}
		if fi, err := fsys.Stat(real); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		seen[real] = true
		files = append(files, real)
	}
	sort.Strings(files)
	return files, nil
}

// skipped reports whether a path lies in a directory the crawl leaves out.
func skipped(p string) bool {
	parts := strings.Split(p, "/")
	for _, d := range parts[:len(parts)-1] {
		if d == "vendor" || d == "node_modules" || d == "testdata" || strings.HasPrefix(d, ".") || strings.HasPrefix(d, "_") {
			return true
		}
	}
	return false
}

// goPackages finds Go package paths: the module path of the nearest go.mod
// plus the directory. It caches go.mod lookups per directory.
type goPackages struct {
	fs      *rootfs.Root
	modules map[string]goModule // directory -> nearest module
}

type goModule struct {
	dir, path string
}

func (g *goPackages) of(file string) string {
	dir := path.Dir(file)
	m := g.module(dir)
	if m.path == "" {
		return ""
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(dir, m.dir), "/")
	if m.dir == "." {
		rel = dir
	}
	if rel == "." || rel == "" {
		return m.path
	}
	return m.path + "/" + rel
}

func (g *goPackages) module(dir string) goModule {
	if m, ok := g.modules[dir]; ok {
		return m
	}
	var m goModule
	if data, err := g.fs.ReadFile(path.Join(dir, "go.mod")); err == nil {
		m = goModule{dir: dir, path: modulePath(data)}
	} else if dir != "." {
		m = g.module(path.Dir(dir))
	}
	g.modules[dir] = m
	return m
}

// modulePath returns the module path a go.mod declares.
func modulePath(gomod []byte) string {
	for _, line := range bytes.Split(gomod, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}
