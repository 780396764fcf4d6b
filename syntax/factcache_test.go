package syntax

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// copyTree copies a fixture into a temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// buildCached runs Build over root with the cache and returns the summary
// and the facts handed over.
func buildCached(t *testing.T, root string, c *FactCache) (IndexSummary, map[string]graph.DocumentFacts) {
	t.Helper()
	var mu sync.Mutex
	out := map[string]graph.DocumentFacts{}
	sum, err := Build(context.Background(), IndexOptions{Root: root, Cache: c, Workers: 2, TempDir: t.TempDir()},
		func(_ context.Context, df graph.DocumentFacts) error {
			mu.Lock()
			defer mu.Unlock()
			if len(df.Lookups) == 0 {
				t.Errorf("%s handed over without its record of lookups", df.Document.Path)
			}
			df.Lookups = nil // the index's own record for the next one (file times included)
			out[df.Document.Path] = df
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return sum, out
}

// TestFactCacheReuse: a second index of the same files reads every
// extracted file from the cache and hands over the same facts as without
// a cache; a second copy of the tree (another root, same paths) reuses
// them too; a changed file is extracted again and nothing else.
func TestFactCacheReuse(t *testing.T) {
	root := copyTree(t, "../testdata/goapp")
	c, err := OpenFactCache(filepath.Join(t.TempDir(), "facts"), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, want := buildCached(t, root, nil)
	first, got := buildCached(t, root, c)
	if first.Cached != 0 {
		t.Errorf("first index: %d files from an empty cache", first.Cached)
	}
	sameFacts(t, want, got)
	second, got := buildCached(t, root, c)
	if second.Cached != second.Indexed || second.Indexed == 0 {
		t.Errorf("second index: %d of %d indexed files from the cache, want all", second.Cached, second.Indexed)
	}
	sameFacts(t, want, got)

	clone := copyTree(t, root)
	third, got := buildCached(t, clone, c)
	if third.Cached != third.Indexed {
		t.Errorf("a clone: %d of %d indexed files from the cache, want all", third.Cached, third.Indexed)
	}
	sameFacts(t, want, got)

	p := filepath.Join(root, "service", "catalog.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(src, []byte("\nfunc Added() {}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, want = buildCached(t, root, nil)
	fourth, got := buildCached(t, root, c)
	if fourth.Cached != fourth.Indexed-1 {
		t.Errorf("after one change: %d of %d indexed files from the cache, want all but one", fourth.Cached, fourth.Indexed)
	}
	sameFacts(t, want, got)
}

// TestFactCacheProjectChange: the same file content at the same path in
// a module of another path yields other symbols; the cache must not serve
// the old ones.
func TestFactCacheProjectChange(t *testing.T) {
	root := copyTree(t, "../testdata/goapp")
	c, err := OpenFactCache(filepath.Join(t.TempDir(), "facts"), 0)
	if err != nil {
		t.Fatal(err)
	}
	buildCached(t, root, c)
	gomod := filepath.Join(root, "go.mod")
	b, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(string(b), "module example.com/goapp", "module example.com/renamed", 1)
	if renamed == string(b) {
		t.Fatalf("go.mod does not declare example.com/goapp:\n%s", b)
	}
	if err := os.WriteFile(gomod, []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	_, want := buildCached(t, root, nil)
	sum, got := buildCached(t, root, c)
	if sum.Cached != 0 {
		t.Errorf("%d files from the cache after the module was renamed, want none", sum.Cached)
	}
	sameFacts(t, want, got)
}

// TestFactCacheCorrupt: entries cut short, overwritten with noise or
// with a flipped byte are re-extracted (and rewritten), never trusted.
func TestFactCacheCorrupt(t *testing.T) {
	root := copyTree(t, "../testdata/goapp")
	dir := filepath.Join(t.TempDir(), "facts")
	c, err := OpenFactCache(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, want := buildCached(t, root, c)
	var entries []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			entries = append(entries, p)
		}
		return err
	})
	if len(entries) < 3 {
		t.Fatalf("%d cache entries, want one per Go file", len(entries))
	}
	damage := []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { return []byte("not an entry") },
		func(b []byte) []byte { b[len(b)-3] ^= 0x40; return b },
	}
	for i, f := range damage {
		b, err := os.ReadFile(entries[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(entries[i], f(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sum, got := buildCached(t, root, c)
	if sum.Cached != sum.Indexed-len(damage) {
		t.Errorf("%d of %d files from the cache with %d entries damaged", sum.Cached, sum.Indexed, len(damage))
	}
	sameFacts(t, want, got)
	sum, _ = buildCached(t, root, c)
	if sum.Cached != sum.Indexed {
		t.Errorf("damaged entries not rewritten: %d of %d from the cache", sum.Cached, sum.Indexed)
	}
}

// TestFactCacheConcurrent: indexes of two clones share one cache at the
// same time, and each gets the facts it would get alone.
func TestFactCacheConcurrent(t *testing.T) {
	a, b := copyTree(t, "../testdata/goapp"), copyTree(t, "../testdata/goapp")
	c, err := OpenFactCache(filepath.Join(t.TempDir(), "facts"), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, want := buildCached(t, a, nil)
	var wg sync.WaitGroup
	results := make([]map[string]graph.DocumentFacts, 4)
	for i := range results {
		root := a
		if i%2 == 1 {
			root = b
		}
		wg.Go(func() { _, results[i] = buildCached(t, root, c) })
	}
	wg.Wait()
	for _, got := range results {
		sameFacts(t, want, got)
	}
}

// TestFactCacheTrim removes the entries used least recently first.
func TestFactCacheTrim(t *testing.T) {
	root := copyTree(t, "../testdata/goapp")
	dir := filepath.Join(t.TempDir(), "facts")
	c, err := OpenFactCache(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	buildCached(t, root, c)
	total, err := c.Trim()
	if err != nil || total == 0 {
		t.Fatalf("Trim: %d bytes, %v", total, err)
	}
	small := &FactCache{dir: dir, maxBytes: total / 2}
	after, err := small.Trim()
	if err != nil {
		t.Fatal(err)
	}
	if after > total/2 || after == 0 {
		t.Errorf("trimmed to %d bytes, want at most %d and more than none", after, total/2)
	}
	sum, _ := buildCached(t, root, c)
	if sum.Cached == 0 || sum.Cached == sum.Indexed {
		t.Errorf("%d of %d from a half-trimmed cache, want some", sum.Cached, sum.Indexed)
	}
	if !reflect.DeepEqual(c.Dir(), dir) {
		t.Errorf("Dir() = %q, want %q", c.Dir(), dir)
	}
}
