package crawl

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// TestListFilesLinks: a link to a file inside the root is listed under the
// file's own path, once; one leading outside the root (into a sibling
// directory named like the root plus a suffix too) is left out, and a
// directory link is not descended; a go.mod linked from outside names no
// module.
func TestListFilesLinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	for p, text := range map[string]string{
		"repo/a.go":       "package a\n",
		"repo/pkg/b.go":   "package pkg\n",
		"repo/pkg/go.mod": "module example.com/pkg\n",
		"outside/evil.go": "package evil\n// CANARY\n",
		"outside/go.mod":  "module CANARY\n",
		"repo-evil/c.go":  "package evil\n// CANARY\n",
	} {
		full := filepath.Join(base, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := []struct {
		name, target string
		promise      string
	}{
		{"in.go", "a.go", "a second name for a listed file adds nothing"},
		{"only.go", "pkg/b.go", "a link inside names its target's path"},
		{"evil.go", filepath.Join(base, "outside", "evil.go"), "a file link out is left out"},
		{"rel.go", "../outside/evil.go", "a relative link out is left out"},
		{"sib.go", "../repo-evil/c.go", "a link into a prefix sibling is left out"},
		{"outdir", filepath.Join(base, "outside"), "a directory link out is not descended"},
		{"go.mod", "../outside/go.mod", "a go.mod linked from outside is not read"},
	}
	for _, l := range links {
		if err := os.Symlink(l.target, filepath.Join(root, l.name)); err != nil {
			t.Skip(err)
		}
	}
	got, err := ListFiles(context.Background(), root, []string{".go"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.go", "pkg/b.go"}; !slices.Equal(got, want) {
		t.Errorf("ListFiles = %q; want %q (%v)", got, want, links)
	}
	fsys, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	g := &goPackages{fs: fsys, modules: map[string]goModule{}}
	if p := g.of("a.go"); p != "" {
		t.Errorf("package of a.go = %q; want none: go.mod leads out of the root", p)
	}
	if p := g.of("pkg/b.go"); p != "example.com/pkg" {
		t.Errorf("package of pkg/b.go = %q; want example.com/pkg", p)
	}
}
