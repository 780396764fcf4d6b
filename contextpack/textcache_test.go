package contextpack

import (
	"os"
	"path/filepath"
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
