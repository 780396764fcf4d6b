package syntax

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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

// openCache opens the cache in dir as another process would: its own
// pack, the indexes on disk. Close it where the process would exit.
func openCache(t *testing.T, dir string, maxBytes int64) *FactCache {
	t.Helper()
	c, err := OpenFactCache(dir, maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// indexOnce indexes root with the cache in dir, as a process that exits
// after.
func indexOnce(t *testing.T, root, dir string) (IndexSummary, map[string]graph.DocumentFacts) {
	t.Helper()
	c := openCache(t, dir, 0)
	defer c.Close()
	return buildCached(t, root, c)
}

// packsOf returns the packs in dir.
func packsOf(t *testing.T, dir string) []string {
	t.Helper()
	packs, err := filepath.Glob(filepath.Join(dir, "*"+packExt))
	if err != nil {
		t.Fatal(err)
	}
	return packs
}

// onePack returns the pack in dir, which must be the only one, and the
// entries its index lists.
func onePack(t *testing.T, dir string) ([]string, []packEntry) {
	t.Helper()
	packs := packsOf(t, dir)
	if len(packs) != 1 {
		t.Fatalf("%d packs after one index, want 1", len(packs))
	}
	entries, err := readPackIndex(indexPath(packs[0]))
	if err != nil {
		t.Fatal(err)
	}
	return packs, entries
}

// TestFactCacheCorrupt: records flipped in their body, with another key,
// with another length or cut short by the end of their pack are
// re-extracted (and written again), never trusted.
func TestFactCacheCorrupt(t *testing.T) {
	root := copyTree(t, "../testdata/goapp")
	dir := filepath.Join(t.TempDir(), "facts")
	_, want := indexOnce(t, root, dir)
	packs, entries := onePack(t, dir)
	if len(entries) < 4 {
		t.Fatalf("%d cache entries, want one per Go file", len(entries))
	}
	slices.SortFunc(entries, func(a, b packEntry) int { return int(a.off - b.off) })
	b, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[entries[0].off+int64(entries[0].n)-3] ^= 0x40                      // a byte of the body
	copy(b[entries[1].off:], "not the key of this record")               // the key
	binary.LittleEndian.PutUint32(b[entries[2].off+sha256.Size:], 1<<20) // the length
	last := entries[len(entries)-1]
	b = b[:last.off+int64(last.n)/2] // cut short
	const damaged = 4
	if err := os.WriteFile(packs[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	sum, got := indexOnce(t, root, dir)
	if sum.Cached != sum.Indexed-damaged {
		t.Errorf("%d of %d files from the cache with %d entries damaged", sum.Cached, sum.Indexed, damaged)
	}
	sameFacts(t, want, got)
	sum, _ = buildCached(t, root, openCache(t, dir, 0))
	if sum.Cached != sum.Indexed {
		t.Errorf("damaged entries not written again: %d of %d from the cache", sum.Cached, sum.Indexed)
	}
}

// TestFactCachePackIndex: a pack whose index does not check out is read
// from its records instead (and indexed again); a pack without an index
// that its writer holds is left alone; once the writer died, the records
// it finished are recovered.
func TestFactCachePackIndex(t *testing.T) {
	root := copyTree(t, "../testdata/goapp")
	dir := filepath.Join(t.TempDir(), "facts")
	first, want := indexOnce(t, root, dir)
	packs := packsOf(t, dir)
	if len(packs) != 1 {
		t.Fatalf("%d packs after one index, want 1", len(packs))
	}
	pack, index := packs[0], indexPath(packs[0])
	if err := os.WriteFile(index, []byte("not an index"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum, got := indexOnce(t, root, dir)
	if sum.Cached != sum.Indexed {
		t.Errorf("corrupt index: %d of %d files from the cache, want all", sum.Cached, sum.Indexed)
	}
	sameFacts(t, want, got)
	if entries, err := readPackIndex(index); err != nil || len(entries) != first.Indexed {
		t.Errorf("the index read again: %d entries, %v; want %d", len(entries), err, first.Indexed)
	}

	// A pack being written: not read, not removed.
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(pack, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(encodeRecord(factKey{1}, []byte("a record cut short"))[:40])
	if err := lockPack(f); err != nil {
		t.Fatal(err)
	}
	if !packLocks {
		now := time.Now()
		os.Chtimes(pack, now, now)
	}
	c := openCache(t, dir, 1)
	defer c.Close()
	if sum, _ := buildCached(t, root, c); sum.Cached != 0 {
		t.Errorf("a pack being written: %d files from it, want none", sum.Cached)
	}
	if _, err := os.Stat(pack); err != nil {
		t.Errorf("Trim removed a pack being written: %v", err)
	}
	// Its writer died.
	f.Close()
	if !packLocks {
		old := time.Now().Add(-2 * stalePack)
		os.Chtimes(pack, old, old)
	}
	for _, p := range packsOf(t, dir) {
		if p != pack {
			os.Remove(p)
			os.Remove(indexPath(p))
		}
	}
	sum, got = buildCached(t, root, openCache(t, dir, 0))
	if sum.Cached != sum.Indexed {
		t.Errorf("a dead process's pack: %d of %d files from it, want all", sum.Cached, sum.Indexed)
	}
	sameFacts(t, want, got)
}

// TestFactCacheConcurrent: indexes of two clones share one cache at the
// same time, and each gets the facts it would get alone: in one process
// (one FactCache) and in several (one each).
func TestFactCacheConcurrent(t *testing.T) {
	a, b := copyTree(t, "../testdata/goapp"), copyTree(t, "../testdata/goapp")
	dir := filepath.Join(t.TempDir(), "facts")
	shared := openCache(t, dir, 0)
	_, want := buildCached(t, a, nil)
	for round := range 2 { // the second reads what the first wrote
		var wg sync.WaitGroup
		results := make([]map[string]graph.DocumentFacts, 6)
		caches := make([]*FactCache, len(results))
		for i := range results {
			root := a
			if i%2 == 1 {
				root = b
			}
			c := shared
			if i >= 2 {
				c = openCache(t, dir, 0)
			}
			caches[i] = c
			wg.Go(func() { _, results[i] = buildCached(t, root, c) })
		}
		wg.Wait()
		for _, got := range results {
			sameFacts(t, want, got)
		}
		if round == 1 {
			break
		}
		sum, _ := buildCached(t, a, openCache(t, dir, 0))
		if sum.Cached != sum.Indexed {
			t.Errorf("after concurrent indexes: %d of %d from the cache", sum.Cached, sum.Indexed)
		}
	}
}

// TestFactCacheTrim removes the packs used least recently first: the pack
// of a tree indexed again survives, the pack of one not read since goes.
func TestFactCacheTrim(t *testing.T) {
	kept, gone := copyTree(t, "../testdata/goapp"), copyTree(t, "../testdata/goapp")
	err := filepath.WalkDir(gone, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, append(b, "\n// another version\n"...), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "facts")
	indexOnce(t, kept, dir)
	indexOnce(t, gone, dir)
	packs := packsOf(t, dir)
	if len(packs) != 2 {
		t.Fatalf("%d packs after two indexes, want 2", len(packs))
	}
	old := time.Now().Add(-time.Minute)
	for _, p := range packs {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	c := openCache(t, dir, 0)
	if sum, _ := buildCached(t, kept, c); sum.Cached != sum.Indexed {
		t.Fatalf("%d of %d from the cache, want all", sum.Cached, sum.Indexed)
	}
	total, err := c.Trim()
	if err != nil || total == 0 {
		t.Fatalf("Trim: %d bytes, %v", total, err)
	}
	after, err := openCache(t, dir, total-1).Trim()
	if err != nil {
		t.Fatal(err)
	}
	if after >= total || after == 0 {
		t.Errorf("trimmed to %d bytes, want less than %d and more than none", after, total)
	}
	if sum, _ := buildCached(t, kept, openCache(t, dir, 0)); sum.Cached != sum.Indexed {
		t.Errorf("the pack used last: %d of %d from the cache after a trim, want all", sum.Cached, sum.Indexed)
	}
	if sum, _ := buildCached(t, gone, openCache(t, dir, 0)); sum.Cached != 0 {
		t.Errorf("the pack used first: %d of %d from the cache after a trim, want none", sum.Cached, sum.Indexed)
	}
	if !reflect.DeepEqual(c.Dir(), dir) {
		t.Errorf("Dir() = %q, want %q", c.Dir(), dir)
	}
}

// TestFactCacheCompact: the small packs of indexes that each wrote a few
// entries are merged into one, which serves every entry they held, and
// the cache that merged them reads its entries from there at once.
func TestFactCacheCompact(t *testing.T) {
	root := copyTree(t, "../testdata/goapp")
	dir := filepath.Join(t.TempDir(), "facts")
	_, want := indexOnce(t, root, dir)
	p := filepath.Join(root, "service", "catalog.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var last *FactCache
	for i := range compactAt {
		if last != nil {
			last.Close()
		}
		if err := os.WriteFile(p, fmt.Appendf(slices.Clip(src), "\n// version %d\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
		last = openCache(t, dir, 0)
		if sum, _ := buildCached(t, root, last); sum.Cached != sum.Indexed-1 {
			t.Fatalf("version %d: %d of %d from the cache, want all but one", i, sum.Cached, sum.Indexed)
		}
	}
	// The last index merged the others' packs, not its own.
	if packs := packsOf(t, dir); len(packs) != 2 {
		t.Errorf("%d packs after %d indexes, want 2 (the merged one and the last index's)", len(packs), compactAt+1)
	}
	if sum, _ := buildCached(t, root, last); sum.Cached != sum.Indexed {
		t.Errorf("the cache that merged: %d of %d from the cache, want all", sum.Cached, sum.Indexed)
	}
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, got := buildCached(t, root, openCache(t, dir, 0))
	if sum.Cached != sum.Indexed {
		t.Errorf("the first version from the merged pack: %d of %d from the cache, want all", sum.Cached, sum.Indexed)
	}
	sameFacts(t, want, got)
}

// TestFactCacheWriteFails: when the pack can no longer be written (a full
// disk), indexes go on with the same facts, the entries not written are
// misses, and those written before stay.
func TestFactCacheWriteFails(t *testing.T) {
	root := copyTree(t, "../testdata/goapp")
	dir := filepath.Join(t.TempDir(), "facts")
	c := openCache(t, dir, 0)
	buildCached(t, root, c)
	ro, err := os.Open(c.w.path) // every write fails from here on, reads do not
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	orig := c.w.f
	c.w.f = ro
	defer func() { c.w.f = orig }() // for Close to close
	p := filepath.Join(root, "service", "catalog.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(src, "\n// changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, want := buildCached(t, root, nil)
	for i := range 2 {
		sum, got := buildCached(t, root, c)
		if sum.Cached != sum.Indexed-1 {
			t.Errorf("index %d after writes failed: %d of %d from the cache, want all but one", i, sum.Cached, sum.Indexed)
		}
		sameFacts(t, want, got)
	}
	if err := c.Flush(); err == nil {
		t.Error("Flush of a pack that cannot be written: no error")
	}
	if sum, _ := indexOnce(t, root, dir); sum.Cached != sum.Indexed-1 {
		t.Errorf("another process: %d of %d from the cache, want all but one", sum.Cached, sum.Indexed)
	}
}

// TestFactCacheCompactIncremental: incremental indexes (a store's), each
// of which writes a small pack, leave the cache as few packs as full
// indexes do: the small ones are merged.
func TestFactCacheCompactIncremental(t *testing.T) {
	ctx := context.Background()
	root := copyTree(t, "../testdata/goapp")
	dir := filepath.Join(t.TempDir(), "facts")
	store, err := graph.Open(filepath.Join(t.TempDir(), "store"), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	p := filepath.Join(root, "service", "catalog.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range compactAt + 2 {
		if i > 0 {
			if err := os.WriteFile(p, fmt.Appendf(slices.Clip(src), "\n// version %d\n", i), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c := openCache(t, dir, 0) // a process per index
		sum, err := Index(ctx, store, IndexOptions{Root: root, Cache: c, Workers: 2, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && (!sum.Incremental || sum.Changed != 1) {
			t.Fatalf("index %d: incremental %v, %d changed; want an incremental index of one file", i, sum.Incremental, sum.Changed)
		}
		c.Close()
	}
	if packs := packsOf(t, dir); len(packs) > 3 {
		t.Errorf("%d packs after a full index and %d incremental ones, want at most 3", len(packs), compactAt+1)
	}
}

// TestPackIndex: an index finds every entry it lists by key, the last
// written of a key, and no other key; an index of the first layout (the
// entries in the order written, a SHA-256 at the end) reads as the same.
func TestPackIndex(t *testing.T) {
	var entries []packEntry
	for i := range 1000 {
		var k factKey
		binary.BigEndian.PutUint64(k[:], uint64(i+1)*0x9e3779b97f4a7c15) // in no order
		entries = append(entries, packEntry{k, int64(100 + i*recordHeader), recordHeader})
	}
	// Keys written again later: the later copy wins.
	again := []packEntry{entries[7], entries[500], entries[999]}
	for i := range again {
		again[i].off += 1 << 20
	}
	entries = append(entries, again...)
	want := map[factKey]packEntry{}
	for _, e := range entries {
		want[e.key] = e
	}

	dir := t.TempDir()
	pack := filepath.Join(dir, "p"+packExt)
	if err := writePackIndex(pack, entries); err != nil {
		t.Fatal(err)
	}
	v1Path := filepath.Join(dir, "v1"+packIndexExt)
	if err := os.WriteFile(v1Path, indexV1(entries), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{indexPath(pack), v1Path} {
		ix, old, err := openPackIndex(path)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		if old != (path == v1Path) {
			t.Errorf("%s: read as of the first layout: %v", filepath.Base(path), old)
		}
		if ix.len() != len(want) {
			t.Errorf("%s: %d entries, want %d (one per key)", filepath.Base(path), ix.len(), len(want))
		}
		for k, e := range want {
			if got, ok := ix.find(&k); !ok || got != e {
				t.Fatalf("%s: find(%x) = %+v, %v; want %+v", filepath.Base(path), k[:8], got, ok, e)
			}
		}
		for _, k := range []factKey{{}, {0xff, 0xff}, {1}} {
			if got, ok := ix.find(&k); ok {
				t.Errorf("%s: find(%x) = %+v, want none", filepath.Base(path), k[:8], got)
			}
		}
	}
	// Damaged: a flipped byte, a cut.
	b, err := os.ReadFile(indexPath(pack))
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"flipped": append(slices.Clone(b[:40]), append([]byte{b[40] ^ 1}, b[41:]...)...),
		"cut":     b[:len(b)-3],
	} {
		p := filepath.Join(dir, name+packIndexExt)
		if err := os.WriteFile(p, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := openPackIndex(p); !errors.Is(err, errCorrupt) {
			t.Errorf("%s index: %v, want errCorrupt", name, err)
		}
	}
}

// indexV1 is an index of the first layout listing entries, in their
// order: as versions before the second wrote them.
func indexV1(entries []packEntry) []byte {
	b := []byte(packIndexMagicV1)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(entries)))
	for _, e := range entries {
		b = append(b, e.key[:]...)
		b = binary.LittleEndian.AppendUint64(b, uint64(e.off))
		b = binary.LittleEndian.AppendUint32(b, uint32(e.n))
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// TestFactCacheIndexV1: a cache whose pack has an index of the first
// layout serves its entries, and has the index written again in the
// current one.
func TestFactCacheIndexV1(t *testing.T) {
	root := copyTree(t, "../testdata/goapp")
	dir := filepath.Join(t.TempDir(), "facts")
	first, want := indexOnce(t, root, dir)
	packs, entries := onePack(t, dir)
	slices.Reverse(entries) // in no order of key
	if err := os.WriteFile(indexPath(packs[0]), indexV1(entries), 0o600); err != nil {
		t.Fatal(err)
	}
	sum2, got := indexOnce(t, root, dir)
	if sum2.Cached != first.Indexed {
		t.Errorf("%d of %d files from a pack indexed in the first layout, want all", sum2.Cached, first.Indexed)
	}
	sameFacts(t, want, got)
	b, err := os.ReadFile(indexPath(packs[0]))
	if err != nil || !strings.HasPrefix(string(b), packIndexMagic) {
		t.Errorf("the index was not written again in the current layout: %q, %v", b[:min(len(b), len(packIndexMagic))], err)
	}
}
