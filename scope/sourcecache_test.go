package scope

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeSource writes text to rel under root, making its directories, and
// gives it the time at unless at is zero.
func writeSource(t *testing.T, root, rel, text string, at time.Time) {
	t.Helper()
	name := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if !at.IsZero() {
		if err := os.Chtimes(name, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// sourceWriter returns a writeSource under root that gives each write a
// later time, an hour ago at first: old enough for the stamps to vouch.
func sourceWriter(t *testing.T, root string) func(rel, text string) {
	old := time.Now().Add(-time.Hour)
	return func(rel, text string) {
		t.Helper()
		writeSource(t, root, rel, text, old)
		old = old.Add(time.Second) // every write a new time
	}
}

// TestSourceCacheDiscover: a discovery through a SourceCache reads only
// the sources whose stamp changed, or could not vouch for them when they
// were read, and finds what a discovery without it finds, whatever
// changed in between: a source's imports, a source added or removed, a
// manifest, a file that no longer parses.
func TestSourceCacheDiscover(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-time.Hour)
	write := func(rel, text string, at time.Time) {
		t.Helper()
		writeSource(t, root, rel, text, at)
	}
	for rel, text := range map[string]string{
		"a/go.mod":                  "module ex.com/a\n",
		"a/x.go":                    "package a\n\nimport \"ex.com/b/lib\"\n\nvar _ = lib.X\n",
		"a/y.go":                    "package a\n",
		"b/go.mod":                  "module ex.com/b\n",
		"b/lib/lib.go":              "package lib\n\nconst X = 1\n",
		"c/go.mod":                  "module ex.com/c\n",
		"c/c.go":                    "package c\n",
		"package.json":              `{"name": "root", "private": true, "workspaces": ["packages/*"]}`,
		"packages/p/package.json":   `{"name": "p"}`,
		"packages/p/index.ts":       "import { q } from \"q\";\nexport const p = q;\n",
		"packages/q/package.json":   `{"name": "q"}`,
		"packages/q/index.ts":       "export const q = 1;\n",
		"packages/r/package.json":   `{"name": "r"}`,
		"packages/r/src/main.ts":    "export {};\n",
		"vendor/ex.com/v/v.go":      "package v\n\nimport \"ex.com/c\"\n",
		"a/testdata/ignored/t.go":   "package t\n\nimport \"ex.com/c\"\n",
		"packages/p/node_modules/x": "",
	} {
		write(rel, text, old)
	}
	var cache SourceCache
	step := func(what string, read, reused int) *Workspace {
		t.Helper()
		got, err := cache.Discover(root)
		agreesWithDiscover(t, what+", through the cache", root, got, err)
		if c := cache.Counts(); c != (SourceCounts{Read: read, Reused: reused, Walked: true}) {
			t.Errorf("%s: %+v, want %d read and %d reused", what, c, read, reused)
		}
		return got
	}
	hasDep := func(w *Workspace, from, to string) bool {
		return slices.ContainsFunc(w.Declared(), func(d Dep) bool { return d.From == from && d.To == to })
	}

	w := step("first", 7, 0)
	if !hasDep(w, "ex.com/a", "ex.com/b") || !hasDep(w, "p", "q") {
		t.Fatalf("the fixture's dependencies are missing: %s", depStrings(w.Declared()))
	}
	step("nothing changed", 0, 7)

	write("a/x.go", "package a\n\nimport \"ex.com/c\"\n", old.Add(time.Minute))
	if w = step("an import changed", 1, 6); hasDep(w, "ex.com/a", "ex.com/b") || !hasDep(w, "ex.com/a", "ex.com/c") {
		t.Errorf("a/x.go's new import is not seen: %s", depStrings(w.Declared()))
	}

	// Written now: its stamp cannot vouch for what is read, so it is read
	// again even when a second write in the same tick keeps size and time.
	write("packages/p/index.ts", "import { r } from \"r\";\nexport const p = r;\n", time.Time{})
	step("a source written just now", 1, 6)
	fi, err := os.Stat(filepath.Join(root, "packages/p/index.ts"))
	if err != nil {
		t.Fatal(err)
	}
	write("packages/p/index.ts", "import { q } from \"q\";\nexport const p = q;\n", fi.ModTime())
	if w = step("rewritten in the same tick, same size", 1, 6); !hasDep(w, "p", "q") || hasDep(w, "p", "r") {
		t.Errorf("the rewrite is not seen: %s", depStrings(w.Declared()))
	}
	write("packages/p/index.ts", "import { q } from \"q\";\nexport const p = q;\n", old)

	write("c/d.go", "package c\n\nimport \"ex.com/b/lib\"\n", old)
	if err := os.Remove(filepath.Join(root, "a/y.go")); err != nil {
		t.Fatal(err)
	}
	if w = step("a source added and one removed", 2, 5); !hasDep(w, "ex.com/c", "ex.com/b") {
		t.Errorf("c/d.go's import is not seen: %s", depStrings(w.Declared()))
	}
	write("b/go.mod", "module ex.com/bee\n", old)
	if w = step("a manifest changed", 0, 7); hasDep(w, "ex.com/c", "ex.com/b") {
		t.Errorf("the renamed module is still depended on: %s", depStrings(w.Declared()))
	}
	write("c/d.go", "package c\n\nimport (\n", old.Add(time.Minute))
	if w = step("a source that does not parse", 1, 6); len(w.Skipped) == 0 {
		t.Errorf("c/d.go's syntax error is not reported")
	}
	step("the error is what the file says", 0, 7)
}

// TestDiscoverChangedAgrees: told which paths changed, a discovery that
// brings the last listing up to date at them finds what a walk of the
// whole tree does: sources changed, added (in a new directory too) and
// removed, a module added, a file become a directory, paths no walk lists
// (a skipped directory, a link or one on the way, outside the root).
// Only the changed
// sources are read.
func TestDiscoverChangedAgrees(t *testing.T) {
	root := t.TempDir()
	write := sourceWriter(t, root)
	remove := func(rel string) {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	write("a/go.mod", "module ex.com/a\n")
	write("a/x.go", "package a\n\nimport \"ex.com/b\"\n")
	write("a/y.go", "package a\n")
	write("b/go.mod", "module ex.com/b\n")
	write("b/b.go", "package b\n")
	write("package.json", `{"name": "root", "workspaces": ["p"]}`)
	write("p/package.json", `{"name": "p"}`)
	write("p/i.ts", "export {};\n")

	var cache SourceCache
	if _, err := cache.Discover(root); err != nil {
		t.Fatal(err)
	}
	step := func(what string, read int, changed ...string) *Workspace {
		t.Helper()
		got, err := cache.DiscoverChanged(root, changed)
		agreesWithDiscover(t, what+", told what changed", root, got, err)
		if c := cache.Counts(); c.Read != read || c.Walked {
			t.Errorf("%s: %+v, want %d read and no walk", what, c, read)
		}
		return got
	}
	step("nothing", 0)
	write("a/x.go", "package a\n\nimport \"ex.com/b/sub\"\n")
	step("a source changed", 1, "a/x.go")
	write("b/sub/deeper/s.go", "package deeper\n\nimport \"ex.com/a\"\n")
	write("c/go.mod", "module ex.com/c\n")
	write("c/c.go", "package c\n\nimport \"ex.com/b\"\n")
	write("p/src/j.ts", "import { a } from \"q\";\n")
	w := step("a module and sources added", 3, "b/sub/deeper/s.go", "c/go.mod", "c/c.go", "p/src/j.ts")
	if _, ok := w.Package("ex.com/c"); !ok {
		t.Errorf("the new module is missing")
	}
	remove("a/y.go")
	remove("c/c.go")
	step("sources removed", 0, "a/y.go", "c/c.go", "c/c.go")
	remove("b/b.go")
	write("b/b.go/inner.go", "package inner\n")
	step("a source become a directory", 1, "b/b.go", "b/b.go/inner.go")
	write("vendor/ex.com/v/v.go", "package v\n\nimport \"ex.com/a\"\n")
	write("a/.hidden/h.go", "package h\n")
	write("a/notes.txt", "not a source\n")
	if err := os.Symlink("x.go", filepath.Join(root, "a", "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../b", filepath.Join(root, "a", "linked")); err != nil {
		t.Fatal(err)
	}
	step("paths no walk lists", 0, "vendor/ex.com/v/v.go", "a/.hidden/h.go", "a/notes.txt", "a/link.go", "a/linked/b.go/inner.go", "../outside.go", "/abs.go", ".")
	write("b/go.mod", "module ex.com/bee\n")
	step("a manifest changed", 0, "b/go.mod")
}

// TestDiscoverChangedSameWorkspace: a discovery told of changes that leave
// what it reads of each changed source as it was (a function's body, a
// TypeScript file's code, a Python source) returns the last Workspace
// again, having read only those sources; any other change (an import
// added, imports moved to other lines, a file added, a manifest, the
// build's verdict on a file, a discovery of the other kind in between)
// discovers again. Each answer is what a walk finds, by module and by
// package.
func TestDiscoverChangedSameWorkspace(t *testing.T) {
	for _, byPackage := range []bool{false, true} {
		root := t.TempDir()
		write := sourceWriter(t, root)
		write("a/go.mod", "module ex.com/a\n")
		write("a/x.go", "package a\n\nimport \"ex.com/b\"\n\nfunc F() {}\n")
		write("a/y.go", "package a\n")
		write("b/go.mod", "module ex.com/b\n")
		write("b/b.go", "package b\n")
		write("tools/t.py", "import os\n")
		write("package.json", `{"name": "root", "workspaces": ["p"]}`)
		write("p/package.json", `{"name": "p"}`)
		write("p/i.ts", "import { q } from \"q\";\nexport {};\n")
		var cache SourceCache
		discover, discoverChanged := cache.Discover, cache.DiscoverChanged
		walk := Discover
		if byPackage {
			discover, discoverChanged, walk = cache.DiscoverPackages, cache.DiscoverPackagesChanged, DiscoverPackages
		}
		last, err := discover(root)
		if err != nil {
			t.Fatal(err)
		}
		step := func(what string, same bool, read int, changed ...string) {
			t.Helper()
			what = fmt.Sprintf("by package %v: %s", byPackage, what)
			got, err := discoverChanged(root, changed)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			want, err := walk(root)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s, a walk finds %s", what, depStrings(got.Declared()), depStrings(want.Declared()))
			}
			if (got == last) != same {
				t.Errorf("%s: the last Workspace returned: %v, want %v", what, got == last, same)
			}
			if c := cache.Counts(); c.Read != read || c.Walked {
				t.Errorf("%s: %+v, want %d read and no walk", what, c, read)
			}
			last = got
		}
		write("a/x.go", "package a\n\nimport \"ex.com/b\"\n\nfunc F() { F() }\n")
		step("a function's body", true, 1, "a/x.go")
		write("p/i.ts", "import { q } from \"q\";\nexport const i = q;\n")
		write("tools/t.py", "import sys\n")
		step("TypeScript code and a Python source", true, 1, "p/i.ts", "tools/t.py")
		step("nothing", true, 0)
		// Saved twice in a row by an editor: stamps too recent to vouch
		// for what was read, which the next discovery compares with.
		writeSource(t, root, "a/x.go", "package a\n\nimport \"ex.com/b\"\n\nfunc F() { F(); F() }\n", time.Now())
		step("a body saved just now", true, 1, "a/x.go")
		writeSource(t, root, "a/x.go", "package a\n\nimport \"ex.com/b\"\n\nfunc F() { F(); F(); F() }\n", time.Now())
		step("and again", true, 1, "a/x.go")
		write("a/x.go", "// Package a.\npackage a\n\nimport \"ex.com/b\"\n\nfunc F() { F() }\n")
		step("an import on another line", false, 1, "a/x.go")
		write("a/y.go", "package a\n\n\nimport \"ex.com/b\"\n")
		step("an import added", false, 1, "a/y.go")
		// The import stays on line 4; a discovery by module does not ask
		// the build.
		write("a/y.go", "//go:build ignore\n\npackage a\nimport \"ex.com/b\"\n")
		step("a file the build leaves out", !byPackage, 1, "a/y.go")
		write("p/i.ts", "import { q } from \"q\";\nimport { r } from \"r\";\n")
		step("a TypeScript import added", false, 1, "p/i.ts")
		write("b/c.go", "package b\n")
		step("a file added", false, 1, "b/c.go")
		write("b/go.mod", "module ex.com/b\n\ngo 1.21\n")
		step("a manifest", false, 0, "b/go.mod")
		other := cache.DiscoverPackagesChanged
		if byPackage {
			other = cache.DiscoverChanged
		}
		if _, err := other(root, nil); err != nil {
			t.Fatal(err)
		}
		write("b/b.go", "package b\n\nfunc G() {}\n")
		step("after a discovery of the other kind", false, 1, "b/b.go")
		write("b/b.go", "package b\n\nfunc G() { G() }\n")
		step("then a body again", true, 1, "b/b.go")
	}
}

// agreesWithDiscover checks that got (and err) are what Discover finds
// under root.
func agreesWithDiscover(t *testing.T, what, root string, got *Workspace, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want, err := Discover(root)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n%+v\n%s\nDiscover finds:\n%+v\n%s", what, got, depStrings(got.Declared()), want, depStrings(want.Declared()))
	}
}

// TestSourceCacheDiscoverPackages: a discovery by package through a
// SourceCache finds what DiscoverPackages finds, reads nothing the cache
// vouches for, and shares its reads with a discovery by module: a test
// file's imports (read, not counted), a file the build leaves out, one
// that does not parse.
func TestSourceCacheDiscoverPackages(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for rel, text := range map[string]string{
		"go.mod":       "module ex.com/m\n",
		"a/a.go":       "package a\n\nimport (\n\t\"ex.com/m/b\"\n\t\"fmt\"\n)\n\nvar _ = b.X\nvar _ = fmt.Sprint\n",
		"a/a_test.go":  "package a\n\nimport \"ex.com/m/c\"\n",
		"a/ignored.go": "//go:build ignore\n\npackage a\n\nimport \"ex.com/m/c\"\n",
		"b/b.go":       "package b\n\nimport \"C\"\n\nconst X = 1\n",
		"c/c.go":       "package c\n\nimport (\n",
	} {
		writeSource(t, root, rel, text, old)
	}
	want, err := DiscoverPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := depStrings(want.Declared()); len(got) != 1 || !strings.HasPrefix(got[0], "ex.com/m/a -> ex.com/m/b:") {
		t.Fatalf("the fixture's dependencies: %v; want a's on b only (not its test's or a left-out file's on c)", got)
	}
	if !want.goExcluded["a/ignored.go"] || len(want.Skipped) != 1 {
		t.Fatalf("the fixture: excluded %v, skipped %v", want.goExcluded, want.Skipped)
	}
	var cache SourceCache
	step := func(what string, discover func(string) (*Workspace, error), read int) {
		t.Helper()
		got, err := discover(root)
		if err != nil {
			t.Fatal(err)
		}
		if byPackage := got.byPackage; byPackage && !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n%+v\n%s\nDiscoverPackages finds:\n%+v\n%s", what, got, depStrings(got.Declared()), want, depStrings(want.Declared()))
		} else if !byPackage {
			agreesWithDiscover(t, what, root, got, nil)
		}
		if c := cache.Counts(); c.Read != read {
			t.Errorf("%s: read %d sources, want %d", what, c.Read, read)
		}
	}
	step("first, by package", cache.DiscoverPackages, 5)
	step("again", cache.DiscoverPackages, 0)
	step("by module", cache.Discover, 0)
	step("by package after", cache.DiscoverPackages, 0)

	// Whether the build leaves a file out is the cache's too: a file
	// changed under the same stamp (its size and time) reads as it was.
	// (A discovery by package read every file's build constraints again.)
	writeSource(t, root, "a/ignored.go", strings.Replace("//go:build ignore\n\npackage a\n\nimport \"ex.com/m/c\"\n", "ignore", "linux ", 1), old)
	step("by package, a file changed under its stamp", cache.DiscoverPackages, 0)

	// A cache filled by a discovery by module, which does not ask, reads
	// the build constraints of the files that count, once.
	cache = SourceCache{}
	writeSource(t, root, "a/ignored.go", "//go:build ignore\n\npackage a\n\nimport \"ex.com/m/c\"\n", old)
	if _, err := cache.Discover(root); err != nil {
		t.Fatal(err)
	}
	step("by package after one by module", cache.DiscoverPackages, 4) // the build constraints of all but the test
	step("by package again", cache.DiscoverPackages, 0)
}
