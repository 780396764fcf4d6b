package scope

import (
	"crypto/sha256"
	"errors"
	"os"
	"slices"

	"github.com/lspgraph/lspgraph/internal/rootfs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sourceTree writes a work tree with Go modules (one file that does not
// parse), TypeScript packages and a file of each kind without imports.
func sourceTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for rel, text := range map[string]string{
		"a/go.mod":                "module ex.com/a\n",
		"a/x.go":                  "package a\n\nimport (\n\t\"fmt\"\n\t\"ex.com/b/lib\"\n)\n\nvar _ = lib.X\nvar _ = fmt.Sprint\n",
		"a/y.go":                  "package a\n",
		"a/z.go":                  "package a\n\nimport \"fmt\"\n\nfunc (\n", // imports read, body broken
		"a/broken.go":             "package a\n\nimport (\n\t\"fmt\"\n",
		"b/go.mod":                "module ex.com/b\n",
		"b/lib/lib.go":            "package lib\n\nimport \"fmt\"\n\nconst X = 1\n\nvar _ = fmt.Sprint\n",
		"package.json":            `{"name": "root", "private": true, "workspaces": ["packages/*"]}`,
		"packages/p/package.json": `{"name": "p"}`,
		"packages/p/index.ts":     "import { q } from \"q\";\nexport const p = q;\n",
		"packages/q/package.json": `{"name": "q"}`,
		"packages/q/index.ts":     "export const q = 1;\n",
	} {
		writeSource(t, root, rel, text, old)
	}
	return root
}

// TestSourceCacheSaveLoad: a cache saved by one process and loaded by
// another lets its first discovery read only what changed since, and
// find what a discovery without a cache finds.
func TestSourceCacheSaveLoad(t *testing.T) {
	root := sourceTree(t)
	file := filepath.Join(t.TempDir(), "sources")
	var first SourceCache
	w, err := first.Discover(root)
	agreesWithDiscover(t, "first", root, w, err)
	if err := first.Save(writeTo(file)); err != nil {
		t.Fatal(err)
	}
	read := first.Counts().Read

	var second SourceCache
	if err := second.Load(root, file); err != nil {
		t.Fatal(err)
	}
	w, err = second.Discover(root)
	agreesWithDiscover(t, "loaded", root, w, err)
	// Nothing is read again, the file whose imports do not parse neither:
	// its error's message is kept.
	if c := second.Counts(); c.Read != 0 || c.Reused != read {
		t.Errorf("after loading: %+v, want none read and %d reused", c, read)
	}
	if !reflect.DeepEqual(errorsAsText(second.entries), errorsAsText(first.entries)) {
		t.Errorf("loaded entries differ:\n%+v\nwant\n%+v", second.entries, first.entries)
	}
	if e := second.entries["a/broken.go"]; e.goErr == nil || e.goErr.Error() != first.entries["a/broken.go"].goErr.Error() {
		t.Errorf("a/broken.go's error: %v, want %v", e.goErr, first.entries["a/broken.go"].goErr)
	}

	// A file changed after the save is read again, and its new imports found.
	writeSource(t, root, "a/y.go", "package a\n\nimport \"ex.com/b/lib\"\n\nvar _ = lib.X\n", time.Now().Add(-time.Minute))
	if err := second.Save(writeTo(file)); err != nil {
		t.Fatal(err)
	}
	var third SourceCache
	if err := third.Load(root, file); err != nil {
		t.Fatal(err)
	}
	w, err = third.Discover(root)
	agreesWithDiscover(t, "after a change", root, w, err)
	if c := third.Counts(); c.Read != 1 {
		t.Errorf("after a change: %+v, want 1 read (a/y.go)", c)
	}

	// Another root's file is not used.
	var other SourceCache
	if err := other.Load(t.TempDir(), file); err != nil || other.entries != nil {
		t.Errorf("another root: %v, %d entries", err, len(other.entries))
	}
	// No file: an empty cache.
	if err := other.Load(root, filepath.Join(t.TempDir(), "none")); err != nil || other.entries != nil {
		t.Errorf("no file: %v, %d entries", err, len(other.entries))
	}
}

// TestSourceCacheSaveLoadBuildMatches: whether the build leaves a Go file
// out is kept in the file for the build context it was read in, and read
// again in another.
func TestSourceCacheSaveLoadBuildMatches(t *testing.T) {
	root := sourceTree(t)
	file := filepath.Join(t.TempDir(), "sources")
	var first SourceCache
	if _, err := first.DiscoverPackages(root); err != nil {
		t.Fatal(err)
	}
	if err := first.Save(writeTo(file)); err != nil {
		t.Fatal(err)
	}
	known := 0
	for _, e := range first.entries {
		if e.goBuild != goBuildUnknown {
			known++
		}
	}
	if known == 0 {
		t.Fatal("no build match known after a discovery by package")
	}
	var second SourceCache
	if err := second.Load(root, file); err != nil {
		t.Fatal(err)
	}
	if _, err := second.DiscoverPackages(root); err != nil {
		t.Fatal(err)
	}
	if c := second.Counts(); c.Read != 0 {
		t.Errorf("by package after loading: %+v, want none read", c)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := decodeSourcesFor(b, "another build")
	if err != nil {
		t.Fatal(err)
	}
	for p, e := range f.entries {
		if e.goBuild != goBuildUnknown {
			t.Errorf("%s: build match %d kept for another build context", p, e.goBuild)
		}
	}
}

// errorsAsText gives each entry's error as its message, which is what is
// saved of it.
func errorsAsText(m map[string]sourceEntry) map[string]sourceEntry {
	out := map[string]sourceEntry{}
	for k, e := range m {
		if e.goErr != nil {
			e.goErr = errors.New(e.goErr.Error())
		}
		out[k] = e
	}
	return out
}

// TestSourceCacheSaveUnchanged: a cache is written only when a discovery
// changed it: a source read, or one gone.
func TestSourceCacheSaveUnchanged(t *testing.T) {
	root := sourceTree(t)
	file := filepath.Join(t.TempDir(), "sources")
	var c SourceCache
	saves := func(what string, want bool) {
		t.Helper()
		if err := c.Save(writeTo(file)); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(file)
		if got := err == nil; got != want {
			t.Errorf("%s: the cache was written: %v, want %v", what, got, want)
		}
		os.Remove(file)
	}
	discover := func() {
		t.Helper()
		if _, err := c.Discover(root); err != nil {
			t.Fatal(err)
		}
	}
	saves("empty", false)
	discover()
	saves("first discovery", true)
	discover()
	saves("nothing changed", false)
	os.Remove(filepath.Join(root, "a", "y.go"))
	discover()
	saves("a source removed", true)
	writeSource(t, root, "a/x.go", "package a\n", time.Now().Add(-time.Minute))
	discover()
	saves("a source changed", true)
	discover()
	saves("nothing changed again", false)
}

// TestSourceCacheLoadDamaged: a damaged file (cut short, a byte changed,
// another version) is an error that says so, and leaves the cache empty:
// the next discovery reads every source and finds what it should.
func TestSourceCacheLoadDamaged(t *testing.T) {
	root, file, _ := savedSources(t)
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x40
	version := append([]byte(nil), good...)
	version[len(sourceFileMagic)] = 9
	for name, b := range map[string][]byte{
		"cut short":   good[:len(good)-7],
		"a byte":      flipped,
		"version":     version,
		"not a cache": []byte("MANIFEST-000001\n"),
		"empty":       nil,
	} {
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		var d SourceCache
		err := d.Load(root, file)
		if err == nil || !strings.Contains(err.Error(), "source cache") {
			t.Errorf("%s: Load gave %v, want an error about the source cache file", name, err)
		}
		if d.entries != nil {
			t.Errorf("%s: %d entries loaded", name, len(d.entries))
		}
		w, err := d.Discover(root)
		agreesWithDiscover(t, name, root, w, err)
	}
}

// FuzzDecodeSources: decoding never panics or allocates past its input,
// and what decodes encodes back to the same entries. The checksum is made
// right before decoding, so that mutations reach the layout.
func FuzzDecodeSources(f *testing.F) {
	c := SourceCache{root: "/work/tree", entries: map[string]sourceEntry{
		"m.go":      {stamp: rootfs.Stamp{Size: 40, MTime: 1700000000000000000}, goImports: []goImport{{"fmt", 4}, {"os", 5}}},
		"n/n.go":    {stamp: rootfs.Stamp{Size: 30, MTime: 1700000000000000001}, goImports: []goImport{{"fmt", 3}}},
		"empty.go":  {stamp: rootfs.Stamp{Size: 10, MTime: -1}},
		"index.ts":  {stamp: rootfs.Stamp{Size: 26, MTime: 1}, tsSpecs: []tsSpec{{"./x", 1}, {"fmt", 2}}},
		"é/ü.mjs":   {stamp: rootfs.Stamp{Size: 1 << 40, MTime: 1 << 62}, tsSpecs: []tsSpec{{"a", 1 << 20}}},
		"broken.go": {stamp: rootfs.Stamp{Size: 12, MTime: 2}, goErr: errors.New("broken.go:4:2: expected ')'")},
	}}
	f.Add(c.encode())
	c.listedAt = "HEAD 1"
	c.listed = []listedFile{{"empty.go", rootfs.Stamp{Size: 10, MTime: -1}}, {"m.go", rootfs.Stamp{Size: 40}}, {"n/go.mod", rootfs.Stamp{Size: 3, MTime: 4}}, {"n/n.go", rootfs.Stamp{Size: 30}}}
	f.Add(c.encode())
	f.Add([]byte(sourceFileMagic + "\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeSources(b) // as found: the checksum rejects almost all
		// With the checksum made right, so that the mutations reach the
		// layout's decoding.
		if len(b) >= sha256.Size {
			sum := sha256.Sum256(b[:len(b)-sha256.Size])
			b = append(slices.Clip(b[:len(b)-sha256.Size]), sum[:]...)
		}
		saved, err := decodeSources(b)
		if err != nil {
			return
		}
		again := SourceCache{root: saved.root, entries: saved.entries, listed: saved.listed, listedAt: saved.listedAt}
		saved2, err := decodeSources(again.encode())
		if err != nil || !reflect.DeepEqual(saved2, saved) {
			t.Fatalf("decoded %+v, encoded and decoded again %+v (%v)", saved, saved2, err)
		}
	})
}

// writeTo writes a saved cache to file, as a session writes it beside its
// store.
func writeTo(file string) func([]byte) error {
	return func(b []byte) error { return os.WriteFile(file, b, 0o600) }
}

// TestSourceCacheListingSaved: a listing named for a state is saved and
// loaded with its name, and a discovery from it told of no change walks
// nothing and finds what a walk does; an unnamed listing is not saved.
func TestSourceCacheListingSaved(t *testing.T) {
	root, file, c := savedSources(t)
	var unnamed SourceCache
	if err := unnamed.Load(root, file); err != nil || unnamed.ListingState() != "" || unnamed.listed != nil {
		t.Errorf("an unnamed listing: loaded %d files named %q (%v); want none", len(unnamed.listed), unnamed.ListingState(), err)
	}
	// Discovered again, nothing changed, its listing unnamed: nothing to
	// write (a command line outside git would write the file every time).
	if _, err := unnamed.Discover(root); err != nil {
		t.Fatal(err)
	}
	wrote := false
	if err := unnamed.Save(func([]byte) error { wrote = true; return nil }); err != nil || wrote {
		t.Errorf("nothing changed, the listing unnamed: Save wrote %v (%v); want nothing written", wrote, err)
	}
	c.SetListingState("state 1")
	if err := c.Save(writeTo(file)); err != nil {
		t.Fatal(err)
	}
	var d SourceCache
	if err := d.Load(root, file); err != nil {
		t.Fatal(err)
	}
	if d.ListingState() != "state 1" || !slices.Equal(d.listed, c.listed) {
		t.Errorf("loaded %d files named %q; want %d named %q", len(d.listed), d.ListingState(), len(c.listed), "state 1")
	}
	w, err := d.DiscoverChanged(root, nil)
	if d.Counts().Walked {
		t.Error("a discovery from the loaded listing walked the tree")
	}
	agreesWithDiscover(t, "from the loaded listing", root, w, err)
	if d.ListingState() != "" {
		t.Errorf("after a discovery the listing is still named %q: only its caller can name it", d.ListingState())
	}
}

// savedSources discovers a source tree through a new cache and saves it
// to a file: the tree's root, the file and the cache.
func savedSources(t *testing.T) (string, string, *SourceCache) {
	t.Helper()
	root := sourceTree(t)
	file := filepath.Join(t.TempDir(), "sources")
	c := &SourceCache{}
	if _, err := c.Discover(root); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(writeTo(file)); err != nil {
		t.Fatal(err)
	}
	return root, file, c
}
