package contextpack

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestTextCacheRereadsChangedFiles(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "a.go")
	write := func(text string, mod time.Time) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write("package a\nfunc A() {}\n", t0)
	var cache TextCache
	read := func(src Source) []string {
		t.Helper()
		d := src.open()
		defer d.Close()
		ls, err := d.readLines("a.go")
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	src := Source{Root: root, Cache: &cache}
	if ls := read(src); len(ls) != 2 || ls[1] != "func A() {}" {
		t.Fatalf("first read: %q", ls)
	}
	if len(cache.docs) != 1 {
		t.Fatalf("the document was not cached: %d entries", len(cache.docs))
	}
	// Same size and time: the cached lines, even though the bytes differ
	// (what the check can see is what it trusts).
	write("package b\nfunc B() {}\n", t0)
	if ls := read(src); ls[1] != "func A() {}" {
		t.Errorf("unchanged size and time must reuse the cache: %q", ls)
	}
	// A new modification time: read again.
	write("package b\nfunc B() {}\n", t0.Add(time.Minute))
	if ls := read(src); ls[1] != "func B() {}" {
		t.Errorf("a newer file must be read again: %q", ls)
	}
	// A longer file at the same time: read again.
	write("package b\nfunc B() {}\nfunc C() {}\n", t0.Add(time.Minute))
	if ls := read(src); len(ls) != 3 {
		t.Errorf("a file of another size must be read again: %q", ls)
	}
	// An unsaved buffer wins and is never cached.
	over := Source{Root: root, Cache: &cache, Overlay: func(string) ([]byte, bool) { return []byte("package z\n"), true }}
	if ls := read(over); len(ls) != 1 || ls[0] != "package z" {
		t.Errorf("the overlay must be read: %q", ls)
	}
	if ls := read(src); len(ls) != 3 {
		t.Errorf("the overlay's text leaked into the cache: %q", ls)
	}
}

// TestStatAllReadsAsStat: documents described a directory at a time read
// as those described one by one (a link followed, a missing file absent),
// and a link is left to the root's own walk.
func TestStatAllReadsAsStat(t *testing.T) {
	root := t.TempDir()
	for p, text := range map[string]string{"a.go": "package a\n", "sub/deep/b.go": "package b\nfunc B() {}\n"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../../a.go", filepath.Join(root, "sub", "deep", "link.go")); err != nil {
		t.Fatal(err)
	}
	paths := []string{"a.go", "sub/deep/b.go", "sub/deep/link.go", "sub/missing.go", "nowhere/x.go", "a.go"}
	read := func(all bool) []string {
		var cache TextCache
		d := Source{Root: root, Cache: &cache}.open()
		defer d.Close()
		if all {
			d.statAll(paths)
			if _, ok := d.stats["sub/deep/link.go"]; ok {
				t.Error("a link was described by its directory's listing")
			}
			if _, ok := d.stats["sub/deep/b.go"]; !ok {
				t.Error("sub/deep/b.go was not described")
			}
		}
		var out []string
		for _, p := range paths {
			ls, err := d.readLines(p)
			out = append(out, fmt.Sprint(ls, err))
		}
		return out
	}
	if got, want := read(true), read(false); !slices.Equal(got, want) {
		t.Fatalf("read after statAll:\n%q\nwant\n%q", got, want)
	}
}
