package rootfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// walkLayout is newLayout with a deeper tree: many directories (so that
// workers share them), a named pipe, an empty directory and files of
// several sizes and times.
func walkLayout(t *testing.T) layout {
	t.Helper()
	l := newLayout(t)
	for i := range 40 {
		dir := filepath.Join(l.root, "deep", fmt.Sprintf("d%02d", i), "inner")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := range i % 5 {
			p := filepath.Join(dir, fmt.Sprintf("f%d.go", j))
			if err := os.WriteFile(p, []byte(strings.Repeat("x", i*j)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(l.root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(l.root, "deep", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	return l
}

// referenceWalk is what Walk must return for a root, by filepath.WalkDir
// (which never follows a link to a directory) and os.Lstat: every entry
// that is not a directory, where enter accepts every directory above it.
func referenceWalk(t *testing.T, root string, enter func(rel string) bool) []WalkedFile {
	t.Helper()
	var out []WalkedFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && !enter(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		out = append(out, WalkedFile{Path: rel, Info: fi, Err: err})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameWalk compares two listings: paths, and the lstat of each.
func sameWalk(t *testing.T, got, want []WalkedFile) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("listed %d files, want %d:\ngot  %v\nwant %v", len(got), len(want), walkedPaths(got), walkedPaths(want))
		return
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Path != w.Path || (g.Err == nil) != (w.Err == nil) {
			t.Errorf("entry %d: %s (err %v), want %s (err %v)", i, g.Path, g.Err, w.Path, w.Err)
			continue
		}
		if g.Err != nil {
			continue
		}
		if g.Info.Name() != path.Base(w.Path) || g.Info.Size() != w.Info.Size() || g.Info.Mode() != w.Info.Mode() ||
			!g.Info.ModTime().Equal(w.Info.ModTime()) || g.Info.IsDir() != w.Info.IsDir() {
			t.Errorf("%s: %s %d %v %v, want %s %d %v %v", g.Path, g.Info.Name(), g.Info.Size(), g.Info.Mode(), g.Info.ModTime(),
				w.Info.Name(), w.Info.Size(), w.Info.Mode(), w.Info.ModTime())
		}
	}
}

func walkedPaths(ws []WalkedFile) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Path)
	}
	return out
}

// TestWalk holds Walk to filepath.WalkDir and os.Lstat, with one worker
// and several: links are described and never followed (a link to a
// directory inside or outside the root is a file of the listing), pipes
// are listed without being opened.
func TestWalk(t *testing.T) {
	l := walkLayout(t)
	want := referenceWalk(t, l.root, func(string) bool { return true })
	if !slices.ContainsFunc(want, func(w WalkedFile) bool { return w.Path == "outdir" }) {
		t.Fatalf("the layout lacks its link to a directory outside: %v", walkedPaths(want))
	}
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			got, err := open(t, l.root).Walk(context.Background(), WalkOptions{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			sameWalk(t, got, want)
			for _, g := range got {
				if strings.HasPrefix(g.Path, "outdir/") || strings.HasPrefix(g.Path, "sublink/") || strings.HasPrefix(g.Path, "rootlink/") {
					t.Errorf("listed %s, through a link to a directory", g.Path)
				}
			}
		})
	}
}

// TestWalkEnterKeep checks the two filters: Enter sees each directory's
// entries and leaves out what it refuses, Keep drops files by path and
// type (before they are described).
func TestWalkEnterKeep(t *testing.T) {
	l := walkLayout(t)
	if err := os.WriteFile(filepath.Join(l.root, "deep", "d03", "TAG"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tagged := func(rel string) bool {
		_, err := os.Lstat(filepath.Join(l.root, rel, "TAG"))
		return err == nil
	}
	want := referenceWalk(t, l.root, func(rel string) bool { return path.Base(rel) != "sub" && !tagged(rel) })
	want = slices.DeleteFunc(want, func(w WalkedFile) bool {
		return w.Info.Mode()&fs.ModeNamedPipe != 0 || strings.HasSuffix(w.Path, ".keep")
	})
	var seenRoot bool
	got, err := open(t, l.root).Walk(context.Background(), WalkOptions{
		Workers: 3,
		Enter: func(rel string, entries []DirEntry) bool {
			if rel == "." {
				seenRoot = true
				return true
			}
			return path.Base(rel) != "sub" && !slices.ContainsFunc(entries, func(e DirEntry) bool { return e.Name == "TAG" })
		},
		Keep: func(rel string, typ fs.FileMode) bool {
			return typ&fs.ModeNamedPipe == 0 && !strings.HasSuffix(rel, ".keep")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !seenRoot {
		t.Error("Enter was not asked about the root")
	}
	if slices.ContainsFunc(got, func(w WalkedFile) bool { return strings.HasPrefix(w.Path, "deep/d03/") }) {
		t.Error("listed files below a directory Enter refused")
	}
	sameWalk(t, got, want)
}

// TestWalkErrors: a root refused by Enter lists nothing, a cancelled walk
// fails with the context's error, a nil Root with ErrNoRoot.
func TestWalkErrors(t *testing.T) {
	l := walkLayout(t)
	r := open(t, l.root)
	got, err := r.Walk(context.Background(), WalkOptions{Enter: func(string, []DirEntry) bool { return false }})
	if err != nil || len(got) != 0 {
		t.Errorf("Enter refusing the root: %d files, %v", len(got), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Walk(ctx, WalkOptions{Workers: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: %v, want context.Canceled", err)
	}
	if _, err := (*Root)(nil).Walk(context.Background(), WalkOptions{}); !errors.Is(err, ErrNoRoot) {
		t.Errorf("nil Root: %v, want ErrNoRoot", err)
	}
}
