package treewatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// repo makes a git repository with one commit: a.go, pkg/b.go, and an
// ignored build/ directory with a subdirectory.
func repo(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write(t, root, "a.go", "package a\n")
	write(t, root, "pkg/b.go", "package pkg\n")
	write(t, root, ".gitignore", "build/\n")
	write(t, root, "build/out/x.o", "binary")
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "first")
	return root, git
}

func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T, root string, opts Options) *Watcher {
	t.Helper()
	w, err := Start(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func syncGen(t *testing.T, w *Watcher) uint64 {
	t.Helper()
	g, err := w.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// writeSeen writes path under root and checks that the watcher's
// generation after it moved past g (seen) or stayed g (not seen); it
// returns the generation.
func writeSeen(t *testing.T, w *Watcher, g uint64, root, path string, seen bool) uint64 {
	t.Helper()
	write(t, root, path, "changed\n")
	g2 := syncGen(t, w)
	if seen && g2 <= g {
		t.Errorf("writing %s: generation %d, not above %d", path, g2, g)
	} else if !seen && g2 != g {
		t.Errorf("writing %s: generation %d, want %d still", path, g2, g)
	}
	return g2
}

// TestSyncSeesEveryChange: each change made before Sync is counted by it,
// with no wait in between (the cookie closes the window); nothing changed
// means the same generation; what git ignores is not watched.
func TestSyncSeesEveryChange(t *testing.T) {
	root, git := repo(t)
	w := start(t, root, Options{})
	if n := w.Dirs(); n != 2 {
		t.Fatalf("watching %d work-tree directories, want 2 (the root and pkg; build/ is ignored)", n)
	}
	g := syncGen(t, w)
	if g2 := syncGen(t, w); g2 != g {
		t.Fatalf("nothing changed, yet the generation went from %d to %d", g, g2)
	}
	changes := []struct {
		name string
		do   func()
	}{
		{"edit a file", func() { write(t, root, "a.go", "package a\n\nfunc A() {}\n") }},
		{"edit a file in a subdirectory", func() { write(t, root, "pkg/b.go", "package pkg // b\n") }},
		{"create a directory with a file", func() { write(t, root, "newdir/deep/c.go", "package deep\n") }},
		{"write in the new directory", func() { write(t, root, "newdir/deep/d.go", "package deep\n") }},
		{"stage a file", func() { git("add", "newdir") }},
		{"commit", func() { git("commit", "-q", "-m", "second") }},
		{"switch branch", func() { git("checkout", "-q", "-b", "other", "HEAD~1") }},
		{"remove a directory", func() {
			if err := os.RemoveAll(filepath.Join(root, "pkg")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range changes {
		c.do()
		g2 := syncGen(t, w)
		if g2 <= g {
			t.Fatalf("%s: generation %d, not above %d", c.name, g2, g)
		}
		g = g2
	}
	for i := range 50 {
		write(t, root, "a.go", "package a // "+strconv.Itoa(i)+"\n")
		g2 := syncGen(t, w)
		if g2 <= g {
			t.Fatalf("write %d just before Sync: generation %d, not above %d", i, g2, g)
		}
		g = g2
	}
	write(t, root, "build/out/y.o", "ignored")
	if err := os.MkdirAll(filepath.Join(root, "build", "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	if g2 := syncGen(t, w); g2 != g {
		t.Fatalf("a change in an ignored directory counted: generation %d, want %d", g2, g)
	}
	ents, err := os.ReadDir(filepath.Join(root, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), cookiePrefix) {
			t.Errorf("cookie %s left in .git", e.Name())
		}
	}
}

// TestNewIgnoredDirectoryNotWatched: a directory git ignores created after
// Start is left out, one it does not ignore is watched.
func TestNewIgnoredDirectoryNotWatched(t *testing.T) {
	root, _ := repo(t)
	w := start(t, root, Options{})
	write(t, root, "sub/build/x.o", "ignored") // build/ matches at any depth
	syncGen(t, w)
	if n := w.Dirs(); n != 3 {
		t.Fatalf("watching %d directories, want 3 (the root, pkg, sub; not sub/build)", n)
	}
	g := syncGen(t, w)
	write(t, root, "sub/build/y.o", "ignored")
	if g2 := syncGen(t, w); g2 != g {
		t.Fatalf("a write in a new ignored directory counted: generation %d, want %d", g2, g)
	}
}

// TestRulesChangeBreaks: a watcher whose ignore rules changed is broken
// for good, as is one closed.
func TestRulesChangeBreaks(t *testing.T) {
	root, _ := repo(t)
	w := start(t, root, Options{})
	syncGen(t, w)
	write(t, root, ".gitignore", "")
	if _, err := w.Sync(context.Background()); !errors.Is(err, ErrRulesChanged) {
		t.Fatalf("Sync after .gitignore changed: %v, want ErrRulesChanged", err)
	}
	if !errors.Is(w.Err(), ErrRulesChanged) {
		t.Fatalf("Err: %v", w.Err())
	}
	w2 := start(t, root, Options{})
	w2.Close()
	if _, err := w2.Sync(context.Background()); err == nil {
		t.Fatal("Sync of a closed watcher succeeded")
	}
}

// TestStartRefuses: more directories than the cap.
func TestStartRefuses(t *testing.T) {
	root, _ := repo(t)
	if _, err := Start(context.Background(), root, Options{MaxDirs: 1}); !errors.Is(err, ErrTooManyDirs) {
		t.Fatalf("Start with a cap of 1 directory: %v, want ErrTooManyDirs", err)
	}
	w := start(t, root, Options{MaxDirs: 2})
	write(t, root, "third/x.go", "package third\n")
	if _, err := w.Sync(context.Background()); !errors.Is(err, ErrTooManyDirs) {
		t.Fatalf("Sync after a directory over the cap was created: %v, want ErrTooManyDirs", err)
	}
}

// TestWorktree: in a linked worktree, HEAD and the index live in its own
// git directory, the branches in the common one.
func TestWorktree(t *testing.T) {
	root, git := repo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	git("worktree", "add", "-q", "-b", "side", wt)
	w := start(t, wt, Options{})
	g := syncGen(t, w)
	write(t, wt, "a.go", "package a // side\n")
	g2 := syncGen(t, w)
	if g2 <= g {
		t.Fatalf("edit in the worktree: generation %d, not above %d", g2, g)
	}
	cmd := exec.Command("git", "commit", "-q", "-am", "side")
	cmd.Dir = wt
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("commit: %v %s", err, out)
	}
	if g3 := syncGen(t, w); g3 <= g2 {
		t.Fatalf("commit in the worktree: generation %d, not above %d", g3, g2)
	}
	_ = root
}

// BenchmarkSync: what an answer pays to know that nothing changed (a
// cookie created, its event read, the cookie removed).
func BenchmarkSync(b *testing.B) {
	root := b.TempDir()
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		b.Skipf("git init: %v %s", err, out)
	}
	w, err := Start(context.Background(), root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for b.Loop() {
		if _, err := w.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGitDirMovedBreaks: a .git directory replaced (a repository cloned
// anew in place) leaves the watches of the old one dead.
func TestGitDirMovedBreaks(t *testing.T) {
	root, _ := repo(t)
	w := start(t, root, Options{})
	syncGen(t, w)
	if err := os.Rename(filepath.Join(root, ".git"), filepath.Join(root, "old.git")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "old.git"), filepath.Join(root, ".git")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if _, err := w.Sync(context.Background()); err == nil {
		t.Fatal("Sync after .git was replaced succeeded")
	}
	if !errors.Is(w.Err(), ErrGitDirMoved) {
		t.Fatalf("Err: %v, want ErrGitDirMoved", w.Err())
	}
}

// TestUnwritableGitDir: a git directory the cookie cannot be created in
// cannot be watched.
func TestUnwritableGitDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only directories")
	}
	root, _ := repo(t)
	gitDir := filepath.Join(root, ".git")
	if err := os.Chmod(gitDir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(gitDir, 0o755)
	if w, err := Start(context.Background(), root, Options{}); err == nil {
		w.Close()
		t.Fatal("Start succeeded with a read-only git directory")
	}
}

// TestRootBelowTop: a root below the work tree's top watches only its own
// subtree, and the .gitignore files above it for their rules.
func TestRootBelowTop(t *testing.T) {
	top, _ := repo(t)
	root := filepath.Join(top, "pkg")
	w := start(t, root, Options{})
	if n := w.Dirs(); n != 1 {
		t.Fatalf("watching %d work-tree directories, want 1 (pkg)", n)
	}
	g := syncGen(t, w)
	write(t, top, "a.go", "package a // outside the root\n")
	if g2 := syncGen(t, w); g2 != g {
		t.Fatalf("a change outside the root counted: generation %d, want %d", g2, g)
	}
	write(t, root, "b.go", "package pkg // inside\n")
	if g2 := syncGen(t, w); g2 <= g {
		t.Fatalf("a change inside the root: generation %d, not above %d", g2, g)
	}
	write(t, top, ".gitignore", "pkg/gen/\n")
	if _, err := w.Sync(context.Background()); !errors.Is(err, ErrRulesChanged) {
		t.Fatalf("Sync after the top's .gitignore changed: %v, want ErrRulesChanged", err)
	}
}

// TestOutsideGit: a tree in no git work tree is watched all through, a
// .gitignore there counting as any file; its cookies go to a directory of
// the watcher's own, gone at Close; a .git created under the root breaks
// the watcher, so that the next one follows git.
func TestOutsideGit(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.go", "package a\n")
	write(t, root, "build/out/x.o", "binary")
	w := start(t, root, Options{})
	if w.cookieDir == "" || strings.HasPrefix(w.cookieDir, root) {
		t.Fatalf("cookie directory %q: want one of its own, outside the root", w.cookieDir)
	}
	if got := w.Dirs(); got != 3 {
		t.Errorf("%d directories watched; want 3 (the root, build, build/out)", got)
	}
	g := syncGen(t, w)
	for _, change := range []struct{ path, text string }{
		{"a.go", "package a // changed\n"},
		{"build/out/y.o", "binary"},
		{".gitignore", "build/\n"},
		{"new/deep/c.go", "package deep\n"},
		{"new/deep/d.go", "package deep\n"},
	} {
		write(t, root, change.path, change.text)
		g2 := syncGen(t, w)
		if g2 <= g {
			t.Errorf("writing %s: generation %d, was %d", change.path, g2, g)
		}
		g = g2
	}
	if got := w.Dirs(); got != 5 {
		t.Errorf("%d directories watched after new/deep was created; want 5", got)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Sync(context.Background()); !errors.Is(err, ErrGitDirMoved) {
		t.Errorf("Sync after a .git was created: %v, want ErrGitDirMoved", err)
	}
	cookies := w.cookieDir
	w.Close()
	if _, err := os.Stat(cookies); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cookie directory after Close: %v", err)
	}
}

// TestOutsideGitSkipDir: outside git, the directories Options.SkipDir
// names are left out with their subtrees, at the start and when created
// later, and do not count against MaxDirs: a tree whose dependencies hold
// more directories than MaxDirs is watched; changes there are not events,
// changes beside them are.
func TestOutsideGitSkipDir(t *testing.T) {
	root := t.TempDir()
	write(t, root, "src/a.ts", "export const a = 1\n")
	for i := range 40 {
		write(t, root, fmt.Sprintf("node_modules/dep%d/lib/index.js", i), "module.exports = 1\n")
	}
	skip := func(name string) bool { return name == "node_modules" }
	if _, err := Start(context.Background(), root, Options{MaxDirs: 10}); !errors.Is(err, ErrTooManyDirs) {
		t.Fatalf("without SkipDir, 82 directories against MaxDirs 10: %v; want ErrTooManyDirs", err)
	}
	w := start(t, root, Options{MaxDirs: 10, SkipDir: skip})
	if got := w.Dirs(); got != 2 {
		t.Errorf("%d directories watched; want 2 (the root, src)", got)
	}
	g := syncGen(t, w)
	writeSeen(t, w, g, root, "node_modules/dep0/lib/index.js", false)
	g = writeSeen(t, w, g, root, "pkg/node_modules/x/y.js", true) // pkg is new
	if got := w.Dirs(); got != 3 {
		t.Errorf("%d directories watched after pkg/node_modules was created; want 3 (pkg, not its node_modules)", got)
	}
	writeSeen(t, w, g, root, "pkg/node_modules/x/z.js", false)
	writeSeen(t, w, g, root, "src/b.ts", true)
}

// TestChangedSince: the paths changed after a generation, each once, until
// git's state changes; nothing from before a generation already asked
// since; none when more changed than are kept.
func TestChangedSince(t *testing.T) {
	root, git := repo(t)
	w := start(t, root, Options{})
	g0 := syncGen(t, w)
	write(t, root, "a.go", "package a // 1\n")
	write(t, root, "pkg/new/c.go", "package new\n")
	write(t, root, "a.go", "package a // 2\n")
	g1 := syncGen(t, w)
	got, ok := w.ChangedSince(g0)
	slices.Sort(got)
	if !ok || !slices.Contains(got, "a.go") || !slices.Contains(got, "pkg/new") || slices.Contains(got, "pkg/b.go") {
		t.Fatalf("ChangedSince(start) = %v, %v; want a.go and pkg/new (or below it), each once", got, ok)
	}
	if len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("ChangedSince(start) = %v: a path twice", got)
	}
	write(t, root, "pkg/b.go", "package pkg // 1\n")
	syncGen(t, w)
	if got, ok := w.ChangedSince(g1); !ok || !slices.Equal(got, []string{"pkg/b.go"}) {
		t.Errorf("ChangedSince(after the first changes) = %v, %v; want [pkg/b.go]", got, ok)
	}
	if got, ok := w.ChangedSince(g0); ok {
		t.Errorf("ChangedSince of a generation before one asked since = %v, ok; want not ok", got)
	}
	g2 := syncGen(t, w)
	git("add", "pkg/b.go")
	syncGen(t, w)
	if got, ok := w.ChangedSince(g2); ok {
		t.Errorf("ChangedSince across a change of the index = %v, ok; want not ok", got)
	}
	g3 := syncGen(t, w)
	for i := range maxChanged + 1 {
		write(t, root, fmt.Sprintf("many/f%d.go", i%50), fmt.Sprintf("package many // %d\n", i))
	}
	syncGen(t, w)
	if got, ok := w.ChangedSince(g3); ok {
		t.Errorf("ChangedSince across %d changes = %d paths, ok; want not ok", maxChanged+1, len(got))
	}
}
