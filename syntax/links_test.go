package syntax

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// TestSymbolicLinks: in a git work tree and in a plain directory, a
// listed link to a file inside the root is indexed under the file's own
// path, once; one leading outside the root (a prefix sibling included) is
// never read and is counted as skipped; a directory link is not descended.
func TestSymbolicLinks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	canary := "CANARY-" + hex.EncodeToString(b)
	evil := "package evil\n\n// " + canary + "\nfunc Leak" + hex.EncodeToString(b) + "() {}\n"
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	writeFiles(t, base, map[string]string{
		"outside/evil.go":   evil,
		"outside/go.mod":    "module " + canary + "\n",
		"repo-evil/c.go":    evil,
		"repo/.gitignore":   "ignored/\n",
		"repo/a.go":         "package a\n\nfunc A() {}\n",
		"repo/sub/b.go":     "package sub\n\nfunc B() {}\n",
		"repo/ignored/x.go": "package ignored\n\nfunc X() {}\n",
		"repo/vendor/v.go":  "package v\n\nfunc V() {}\n",
	})
	links := map[string]string{
		"in.go":         "a.go",                                    // a second name for a listed file
		"x.go":          "ignored/x.go",                            // the only name listed for its file
		"vlink.go":      "vendor/v.go",                             // a file the listing leaves out
		"evil.go":       filepath.Join(base, "outside", "evil.go"), // out, absolute
		"relevil.go":    "../outside/evil.go",                      // out, relative
		"sibling.go":    "../repo-evil/c.go",                       // out, into a prefix sibling
		"outdir":        filepath.Join(base, "outside"),            // a directory out
		"sub/go.mod":    "../../outside/go.mod",                    // a project file out
		"sub/inlink.go": "../a.go",                                 // in, from a subdirectory
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "a.go", "sub/b.go", "in.go", "evil.go", "outdir", ".gitignore")
	git("commit", "-q", "-m", "init")

	tests := []struct {
		name    string
		setup   func()
		files   []string // IndexOptions.Files; nil lists the root
		want    []string // ListFiles
		indexed int
		skipped map[SkipReason]int
		promise string
	}{
		{
			name:    "git",
			want:    []string{"a.go", "ignored/x.go", "sub/b.go"},
			indexed: 3,
			skipped: map[SkipReason]int{SkipOutside: 3, SkipLink: 3},
			promise: "tracked and untracked links: inside ones by their target's path, once; outside ones never read",
		},
		{
			name:    "files",
			files:   []string{"a.go", "in.go", "outdir/evil.go", "evil.go", "sub/../sibling.go"},
			indexed: 1,
			skipped: map[SkipReason]int{SkipOutside: 3, SkipLink: 1},
			promise: "an explicit list goes through the same rules, paths through a directory link included",
		},
		{
			name:    "walk",
			setup:   func() { _ = os.RemoveAll(filepath.Join(root, ".git")) },
			want:    []string{"a.go", "ignored/x.go", "sub/b.go"},
			indexed: 3,
			skipped: map[SkipReason]int{SkipOutside: 3, SkipLink: 4},
			promise: "a walk lists links like git does and never descends a directory link",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.setup != nil {
				tt.setup()
			}
			if tt.want != nil {
				got, err := ListFiles(ctx, root)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("ListFiles = %q; want %q (%s)", got, tt.want, tt.promise)
				}
			}
			st, err := graph.Open("mem", graph.Options{InMemory: true})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			sum, err := Index(ctx, st, IndexOptions{Root: root, Files: tt.files, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Indexed != tt.indexed || !maps.Equal(sum.Skipped, tt.skipped) {
				t.Errorf("Index: indexed %d, skipped %v; want %d, %v (%s)", sum.Indexed, sum.Skipped, tt.indexed, tt.skipped, tt.promise)
			}
			if n := sum.Indexed + sum.Unreadable + total(sum.Skipped); n != sum.Files {
				t.Errorf("Index: %d files listed but %d accounted for", sum.Files, n)
			}
			r, err := st.Reader()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var dump bytes.Buffer
			if err := r.Dump(&dump); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(dump.String(), hex.EncodeToString(b)) {
				t.Errorf("the store holds the canary of a file outside the root:\n%s", dump.String())
			}
			for _, link := range slices.Sorted(maps.Keys(links)) {
				if _, ok, err := r.Document(ctx, link); err != nil || ok {
					t.Errorf("Document(%s) = %v, %v; a link is never a document (%s)", link, ok, err, tt.promise)
				}
			}
			if syms, err := r.FindSymbols(ctx, "A", false, 10); err != nil || len(syms) != 1 {
				t.Errorf("FindSymbols(A) = %v, %v; want it once, under a.go (%s)", syms, err, tt.promise)
			}
		})
	}
}

func total(m map[SkipReason]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestProjectReadAsRootReadFile holds project.read, which looks for a
// file before reading it, to rootfs.Root.ReadFile: the same answer for
// files present, absent, behind links that stay inside the root or leave
// it, in directories present or absent, and at the root.
func TestProjectReadAsRootReadFile(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "go.mod"), []byte("module outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":         "module example.com/m\n",
		"a/b/go.mod":     "module example.com/m/a/b\n",
		"a/b/c/x.go":     "package c\n",
		"d/package.json": "{}\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"inside":        "a",                                 // a directory link that stays inside
		"a/b/c/go.mod":  "../go.mod",                         // a file link that stays inside
		"out":           outside,                             // a directory link that leaves
		"d/go.mod":      filepath.Join(outside, "go.mod"),    // a file link that leaves
		"d/dangling.go": filepath.Join(root, "nothing-here"), // a link to nothing
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	fsys, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	// With and without what a walk of the tree saw (which answers for
	// the project files absent from the directories it read).
	_, _, tree, _, err := listFiles(context.Background(), fsys, root, 2)
	if err != nil || tree == nil {
		t.Fatalf("listing the tree: %v, %v", tree, err)
	}
	for _, tree := range []*treeListing{nil, tree} {
		p := newProject(root, fsys)
		p.tree = tree
		defer p.close()
		for _, rel := range []string{
			"go.mod", "package.json", "a/go.mod", "a/b/go.mod", "a/b/c/go.mod", "a/b/c/d/go.mod",
			"inside/go.mod", "inside/b/go.mod", "out/go.mod", "d/go.mod", "d/package.json",
			"d/dangling.go", "missing/go.mod", "a/b/c/x.go/go.mod", "a/setup.py", "a/b/c/Cargo.toml",
		} {
			want, werr := fsys.ReadFile(rel)
			got, ok := p.read(rel)
			if ok != (werr == nil) || string(got) != string(want) {
				t.Errorf("project.read(%q) with listing %v = %q, %v; ReadFile gives %q, %v", rel, tree != nil, got, ok, want, werr)
			}
		}
	}
	if !tree.absent("a/go.mod") || tree.absent("go.mod") || tree.absent("inside/go.mod") || tree.absent("a/b/c/go.mod") {
		t.Errorf("the listing knows the wrong absences: a/go.mod %v, go.mod %v, inside/go.mod %v, a/b/c/go.mod %v",
			tree.absent("a/go.mod"), tree.absent("go.mod"), tree.absent("inside/go.mod"), tree.absent("a/b/c/go.mod"))
	}
}
