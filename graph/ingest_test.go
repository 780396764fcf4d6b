package graph

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// TestChunkSortDedup checks that a chunk comes out in key order with one
// entry per key, the last value added winning.
func TestChunkSortDedup(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	kinds := []kind{kindRef, kindDocOcc, kindSym, kindIn, kindDoc}
	var c chunk
	want := map[string]string{}
	for i := range 5000 {
		k := appendPrefix(nil, genSpace(3), kinds[rng.IntN(len(kinds))])
		k = append(k, fmt.Sprintf("sym%d\x00path", rng.IntN(1500))...)
		v := fmt.Sprint(i)
		c.add(k, []byte(v))
		want[string(k)] = v
	}
	// Keys that are prefixes of each other, sharing a long prefix.
	for i, rest := range []string{"", "\x00", "x", "x\x00\x01", "x\x00", "y", "", "x"} {
		k := append(appendPrefix(nil, genSpace(3), kindName), "scip-go gomod example.com/long/common/prefix "+rest...)
		v := fmt.Sprint("fixed", i)
		c.add(k, []byte(v))
		want[string(k)] = v
	}
	c.sortDedup()
	if len(c.ents) != len(want) {
		t.Fatalf("%d entries after dedup, want %d", len(c.ents), len(want))
	}
	for i, e := range c.ents {
		if i > 0 && bytes.Compare(c.key(c.ents[i-1]), c.key(e)) >= 0 {
			t.Fatalf("entry %d %q not after %q", i, c.key(e), c.key(c.ents[i-1]))
		}
		if got := string(c.value(e)); got != want[string(c.key(e))] {
			t.Errorf("key %q has value %s, want the last added %s", c.key(e), got, want[string(c.key(e))])
		}
	}
}

// TestChunkSortKeys checks the order of a chunk against sorting its keys
// with bytes.Compare, on keys drawn from few bytes (zero included) that
// share long prefixes, are prefixes of each other and repeat, in runs long
// enough for every way the sort orders entries.
func TestChunkSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	prefixes := []string{"", "syntax go cmd/compile/internal/", "syntax go cmd/compile/internal/ssa", "\x00\x00\x00\x00\x00\x00\x00\x00\x00"}
	for _, n := range []int{2, 20, 40, 3000} {
		var c chunk
		want := map[string]string{}
		for i := range n {
			k := appendPrefix(nil, genSpace(1), kindRef)
			k = append(k, prefixes[rng.IntN(len(prefixes))]...)
			for range rng.IntN(20) {
				k = append(k, "\x00\x01ab"[rng.IntN(4)])
			}
			v := fmt.Sprint(i)
			c.add(k, []byte(v))
			want[string(k)] = v
		}
		c.sortDedup()
		keys := make([]string, 0, len(want))
		for k := range want {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if len(c.ents) != len(keys) {
			t.Fatalf("%d records: %d entries after dedup, want %d", n, len(c.ents), len(keys))
		}
		for i, e := range c.ents {
			if got := string(c.key(e)); got != keys[i] {
				t.Fatalf("%d records: entry %d is %q, want %q", n, i, got, keys[i])
			}
			if got := string(c.value(e)); got != want[keys[i]] {
				t.Errorf("%d records: key %q has value %s, want the last added %s", n, keys[i], got, want[keys[i]])
			}
		}
	}
}

// TestGenerationSpillsAndMerges writes the same documents into several
// generations, one holding them all in memory and others spilling a sorted
// run after every document (with and without a document rewritten in
// between), merged into one sstable or cut into many, and checks that all
// stores hold the same records, that the merged generation lies in the
// bottom level without overlapping tables, and that no run file is left
// behind.
func TestGenerationSpillsAndMerges(t *testing.T) {
	ctx := context.Background()
	docs := func(i int) DocumentFacts {
		path := fmt.Sprintf("pkg%d/f%d.go", i%3, i)
		sym := fmt.Sprintf("scip-go gomod example.com/m v1 pkg%d/F%d().", i%3, i%5)
		return DocumentFacts{
			Document: Document{Path: path, Package: fmt.Sprintf("pkg%d", i%3)},
			Symbols:  []Symbol{{ID: sym, DisplayName: fmt.Sprintf("F%d", i%5)}},
			Occurrences: []Occurrence{
				{Symbol: sym, Range: textpos.Range{Start: textpos.Position{Line: uint32(i)}, End: textpos.Position{Line: uint32(i), Col: 4}}, Roles: RoleDefinition},
				{Symbol: "scip-go gomod example.com/m v1 pkg0/F0().", Range: textpos.Range{Start: textpos.Position{Line: 40}, End: textpos.Position{Line: 40, Col: 2}}, Roles: RoleCall},
			},
			Edges: []Edge{{From: sym, To: "scip-go gomod example.com/m v1 pkg0/F0().", Kind: EdgeCalls, Count: i}},
		}
	}
	dump := func(limit int, sizes mergeSizes, rewrite bool, large int) (string, *Store) {
		dir := t.TempDir()
		s := openDisk(t, dir, Options{})
		g, err := s.BeginGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		g.limit, g.sizes, g.large = limit, sizes, large
		for i := range 40 {
			if err := g.PutDocument(ctx, docs(i)); err != nil {
				t.Fatal(err)
			}
		}
		if rewrite { // pkg1/f7.go again: flushes, deletes, writes anew
			if err := g.PutDocument(ctx, docs(7)); err != nil {
				t.Fatal(err)
			}
		}
		for i := 40; i < 60; i++ {
			if err := g.PutDocument(ctx, docs(i)); err != nil {
				t.Fatal(err)
			}
		}
		if limit == 1 && sizes.fanIn > 1 {
			// 21 spills since the rewrite's flush (40 without it):
			// runs of four levels at most, fanIn-1 of each.
			level := 0
			for _, r := range g.runs {
				level = max(level, r.level)
			}
			if len(g.runs) > 4*(sizes.fanIn-1) || (sizes.fanIn < 8 && level < 2) {
				t.Errorf("fan-in %d: %d runs of levels up to %d before the final merge, want at most %d and levels past 1", sizes.fanIn, len(g.runs), level, 4*(sizes.fanIn-1))
			}
		}
		if err := g.Commit(ctx, Manifest{}); err != nil {
			t.Fatal(err)
		}
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var b strings.Builder
		if err := r.Dump(&b); err != nil {
			t.Fatal(err)
		}
		names, err := s.fs.List(s.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if strings.HasPrefix(n, ingestPrefix) {
				t.Errorf("%s left in the store directory", n)
			}
		}
		return b.String(), s
	}
	whole, s1 := dump(chunkBytes, defaultMergeSizes, true, math.MaxInt)
	defer s1.Close()
	spilled, s2 := dump(1, defaultMergeSizes, true, math.MaxInt)
	defer s2.Close()
	spilledOnce, s3 := dump(1, defaultMergeSizes, false, math.MaxInt)
	defer s3.Close()
	small := mergeSizes{table: 2000, mark: 100}
	cut, s4 := dump(1, small, true, math.MaxInt)
	defer s4.Close()
	cutOnce, s5 := dump(1, small, false, math.MaxInt)
	defer s5.Close()
	cutWhole, s6 := dump(chunkBytes, small, false, math.MaxInt)
	defer s6.Close()
	// Each goroutine reads its ranges' runs on from one range to the next
	// (rangeQueue): alone, or taking from the others' shares.
	cutBy := map[int]string{}
	for _, workers := range []int{1, 3, 5} {
		sizes := small
		sizes.workers = workers
		d, s := dump(1, sizes, true, math.MaxInt)
		defer s.Close()
		cutBy[workers] = d
	}
	merged := mergeSizes{table: 2000, mark: 100, fanIn: 3}
	runsMerged, s7 := dump(1, merged, true, math.MaxInt)
	defer s7.Close()
	runsMergedOnce, s8 := dump(1, merged, false, math.MaxInt)
	defer s8.Close()
	unmerged := defaultMergeSizes
	unmerged.fanIn = 0
	spilledUnmerged, s9 := dump(1, unmerged, false, math.MaxInt)
	defer s9.Close()
	// Every record but the symbol table's kept in the value file.
	allLarge, s10 := dump(chunkBytes, defaultMergeSizes, true, 0)
	defer s10.Close()
	allLargeSpilled, s11 := dump(1, small, true, 0)
	defer s11.Close()
	someLarge, s12 := dump(1, small, false, 60)
	defer s12.Close()
	// The manifests differ in their times only, and the versions (the
	// store's and the base's) and the writes' records of changes in how
	// many batches the writer committed on the way.
	strip := func(s string) string {
		var out []string
		for l := range strings.Lines(s) {
			if !strings.HasPrefix(l, "meta/manifest") && !strings.HasPrefix(l, "meta/version") && !strings.HasPrefix(l, "meta/base-version") && !strings.HasPrefix(l, "meta/changes") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "")
	}
	for name, got := range map[string]string{"spilled": spilled, "spilled once": spilledOnce, "cut": cut, "cut once": cutOnce, "cut in memory": cutWhole, "runs merged": runsMerged, "runs merged once": runsMergedOnce, "spilled, runs never merged": spilledUnmerged, "values in a file": allLarge, "values in a file, spilled": allLargeSpilled, "some values in a file": someLarge, "cut, one merging goroutine": cutBy[1], "cut, three merging goroutines": cutBy[3], "cut, five merging goroutines": cutBy[5]} {
		if strip(got) != strip(whole) {
			t.Errorf("%s generation differs:\n%s\nwant:\n%s", name, got, whole)
		}
	}
	if !strings.Contains(whole, "path=pkg1/f7.go") {
		t.Fatalf("dump lacks the documents:\n%s", whole)
	}
	m := s3.db.Metrics()
	if n := m.Levels[0].TablesCount; n != 0 {
		t.Errorf("%d tables in L0 after a merged load, want 0", n)
	}
	for _, s := range []*Store{s5, s6} {
		m := s.db.Metrics()
		if n := m.Levels[0].TablesCount; n != 0 {
			t.Errorf("%d tables in L0 after a merged load cut in ranges, want 0", n)
		}
		if n := m.Levels[6].TablesCount; n < 5 {
			t.Errorf("%d tables in L6 after a merged load cut in ranges of %d bytes, want at least 5", n, small.table)
		}
	}
}

// TestFinalMergeOpensRunsOnce writes a generation spilled into many runs
// and merged in many ranges: each run file is opened once, not once for
// each range (which grew with the square of the generation).
func TestFinalMergeOpensRunsOnce(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	opens := &countingFS{FS: s.fs, opens: map[string]int{}}
	s.fs = opens
	writeSpilledGeneration(t, s, mergeSizes{table: 2000, mark: 100})
	runs := 0
	for path, n := range opens.opens {
		if strings.HasSuffix(path, ".run") {
			runs++
			if n != 1 {
				t.Errorf("%s opened %d times, want once", filepath.Base(path), n)
			}
		}
	}
	if tables := s.db.Metrics().Levels[6].TablesCount; runs < 10 || tables < 5 {
		t.Errorf("%d runs merged into %d tables; want many of each", runs, tables)
	}
}

// writeSpilledGeneration writes a generation of 60 documents to s, each
// spilled to a run of its own, merged with sizes.
func writeSpilledGeneration(t *testing.T, s *Store, sizes mergeSizes) {
	t.Helper()
	ctx := context.Background()
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g.limit, g.sizes = 1, sizes
	for i := range 60 {
		sym := fmt.Sprintf("scip-go gomod example.com/m v1 pkg%d/F%d().", i%3, i)
		doc := DocumentFacts{
			Document:    Document{Path: fmt.Sprintf("pkg%d/f%d.go", i%3, i)},
			Symbols:     []Symbol{{ID: sym, DisplayName: fmt.Sprintf("F%d", i)}},
			Occurrences: []Occurrence{{Symbol: sym, Range: textpos.Range{End: textpos.Position{Col: 4}}, Roles: RoleDefinition}},
		}
		if err := g.PutDocument(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Commit(ctx, Manifest{}); err != nil {
		t.Fatal(err)
	}
}

// countingFS counts the files opened for reading, by path, and the reads
// of each file at each offset.
type countingFS struct {
	vfs.FS
	mu    sync.Mutex
	opens map[string]int
	reads map[string]map[int64]int // nil: not counted
}

func (fs *countingFS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	fs.mu.Lock()
	fs.opens[name]++
	fs.mu.Unlock()
	f, err := fs.FS.Open(name, opts...)
	if err != nil || fs.reads == nil {
		return f, err
	}
	return &countingFile{File: f, fs: fs, name: name}, nil
}

type countingFile struct {
	vfs.File
	fs   *countingFS
	name string
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	if f.fs.reads[f.name] == nil {
		f.fs.reads[f.name] = map[int64]int{}
	}
	f.fs.reads[f.name][off]++
	f.fs.mu.Unlock()
	return f.File.ReadAt(p, off)
}

// TestFinalMergeReadsBlocksOnce merges many runs in many ranges on one
// goroutine: each run's block at a boundary between two ranges is read
// once, by the first, and the second goes on from it. Read again by each
// range, those reads grew with the square of the generation (ranges and
// runs both grow with it).
func TestFinalMergeReadsBlocksOnce(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	counts := &countingFS{FS: s.fs, opens: map[string]int{}, reads: map[string]map[int64]int{}}
	s.fs = counts
	writeSpilledGeneration(t, s, mergeSizes{table: 2000, mark: 100, workers: 1})
	runs, blocks := 0, 0
	for path, offs := range counts.reads {
		if !strings.HasSuffix(path, ".run") {
			continue
		}
		runs++
		blocks += len(offs)
		for off, n := range offs {
			if n != 1 {
				t.Errorf("%s: the block at byte %d read %d times, want once", filepath.Base(path), off, n)
			}
		}
	}
	if tables := s.db.Metrics().Levels[6].TablesCount; runs < 10 || blocks < 2*runs || tables < 5 {
		t.Errorf("%d runs of %d blocks merged into %d tables; want many of each", runs, blocks, tables)
	}
}

// TestRangeQueue hands out ranges to goroutines taking them in every
// order: each range once, and each goroutine's consecutive unless it ran
// out of its own and took from another's share.
func TestRangeQueue(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 5} {
		for _, n := range []int{1, 2, 7, 40} {
			if workers > n {
				continue
			}
			for _, order := range []string{"in turn", "first worker fastest", "last worker fastest"} {
				q := newRangeQueue(n, workers)
				given := make([]int, n)
				prev := make([]int, workers)
				for w := range prev {
					prev[w] = -2
				}
				active, breaks, turn := workers, 0, 0
				done := make([]bool, workers)
				for active > 0 {
					w := turn % workers
					switch order {
					case "first worker fastest":
						if !done[0] {
							w = 0
						}
					case "last worker fastest":
						if !done[workers-1] {
							w = workers - 1
						}
					}
					turn++
					if done[w] {
						continue
					}
					i, ok := q.take(w)
					if !ok {
						done[w] = true
						active--
						continue
					}
					given[i]++
					if i != prev[w]+1 {
						breaks++
					}
					prev[w] = i
				}
				for i, c := range given {
					if c != 1 {
						t.Errorf("%d workers, %d ranges, %s: range %d given %d times", workers, n, order, i, c)
					}
				}
				// A worker starts a run of consecutive ranges when it
				// starts and when it takes half of another's share:
				// shares of one size taken in turn end together.
				if order == "in turn" && n%workers == 0 && breaks != workers {
					t.Errorf("%d workers, %d ranges taken in turn: %d runs of consecutive ranges, want %d, one a worker", workers, n, breaks, workers)
				}
				if limit := workers * (1 + bits.Len(uint(n))); breaks > limit {
					t.Errorf("%d workers, %d ranges, %s: %d runs of consecutive ranges, want at most %d", workers, n, order, breaks, limit)
				}
			}
		}
	}
}

// TestCutRangesCountsRecordBytes cuts a merge's ranges by the bytes of
// its records, those of the runs and those whose values are in the value
// file alike: a generation whose bytes are mostly large values must still
// be merged in several ranges, one core each.
func TestCutRangesCountsRecordBytes(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	sizes := mergeSizes{table: 20000, mark: 1000}
	var c chunk
	value := bytes.Repeat([]byte("a"), 100)
	for i := range 200 {
		c.add(fmt.Appendf(nil, "key%06d", i), value)
	}
	run := &runFile{path: s.fs.PathJoin(s.dir, "run-test")}
	if err := s.spillChunk(&c, run, sizes); err != nil {
		t.Fatal(err)
	}
	vf, err := s.createValueFile(s.fs.PathJoin(s.dir, "values-test"))
	if err != nil {
		t.Fatal(err)
	}
	defer vf.remove(s.fs)
	large := bytes.Repeat([]byte("b"), 4000)
	for i := range 50 {
		if err := vf.add(fmt.Appendf(nil, "key%06d", 1000+i), large); err != nil {
			t.Fatal(err)
		}
	}
	if err := vf.finishWriting(); err != nil {
		t.Fatal(err)
	}
	var empty chunk
	total := run.raw + vf.raw
	bounds := cutRanges([]*runFile{run}, &empty, vf, sizes)
	if want := int(total/sizes.table) - 1; len(bounds) < want {
		t.Errorf("%d ranges cut from %d bytes of records in ranges of %d, want at least %d", len(bounds)+1, total, sizes.table, want+1)
	}
	// Most ranges fall among the large values, past the run's keys.
	past := 0
	for _, b := range bounds {
		if string(b) > "key000999" {
			past++
		}
	}
	if past < len(bounds)/2 || past == 0 {
		t.Errorf("%d of %d range bounds among the value file's keys: %q", past, len(bounds), bounds)
	}
}

// TestCutRangesWeighsRecords: as many bytes of small records as of large
// values are cut into more ranges: each record costs the merge beside its
// bytes (recordWeight), so that ranges take the cores about as long.
func TestCutRangesWeighsRecords(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	sizes := mergeSizes{table: 40000, mark: 1000}
	var c chunk // small records: 2,000 of 50 bytes
	for i := range 2000 {
		c.add(fmt.Appendf(nil, "b%07d", i), bytes.Repeat([]byte("s"), 42))
	}
	c.sortDedup()
	vf, err := s.createValueFile(s.fs.PathJoin(s.dir, "values-test"))
	if err != nil {
		t.Fatal(err)
	}
	defer vf.remove(s.fs)
	for i := range 10 { // large values: 10 of 10,000 bytes
		if err := vf.add(fmt.Appendf(nil, "a%07d", i), bytes.Repeat([]byte("l"), 10000)); err != nil {
			t.Fatal(err)
		}
	}
	if err := vf.finishWriting(); err != nil {
		t.Fatal(err)
	}
	bounds := cutRanges(nil, &c, vf, sizes)
	small := 0
	for _, b := range bounds {
		if b[0] == 'b' {
			small++
		}
	}
	if large := len(bounds) - small; small < 3*max(large, 1) {
		t.Errorf("%d bounds among the small records, %d among the large values (as many bytes each): want three times as many among the small: %q", small, large, bounds)
	}
}

// TestRunSourceRejectsCorruptRecords: lengths that do not fit the block
// are an error naming the run file, never a record read past its block.
func TestRunSourceRejectsCorruptRecords(t *testing.T) {
	for name, block := range map[string][]byte{
		"key past the block":      {0, 200, 1, 'a'},
		"value past the block":    {0, 1, 9, 'a', 'b'},
		"shared beyond last key":  {5, 1, 0, 'a'},
		"header cut short":        {0, 0x80},
		"length overflows uint64": {0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0},
	} {
		src := &runSource{path: "run", r: &runReader{raw: block}}
		if _, _, ok, err := src.next(); err == nil || ok {
			t.Errorf("%s: next = ok %v, err %v; want an error", name, ok, err)
		}
	}
	good := &runSource{path: "run", r: &runReader{raw: []byte{0, 2, 1, 'a', 'b', 'v', 1, 1, 0, 'c'}}}
	for _, want := range []string{"ab=v", "ac="} {
		k, v, ok, err := good.next()
		if err != nil || !ok || string(k)+"="+string(v) != want {
			t.Fatalf("next = %q %q %v %v, want %s", k, v, ok, err, want)
		}
	}
}

// TestMergeRunsNewestWins merges run files whose keys overlap: each key
// keeps the value of the newest run holding it, the merged run is of the
// level after theirs, and it reads back whole from any of its marks.
func TestMergeRunsNewestWins(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	sizes := mergeSizes{table: 1 << 20, mark: 200, fanIn: 2}
	want := map[string]string{}
	var runs []*runFile
	for n := range 3 {
		var c chunk
		for i := n * 100; i < n*100+250; i++ { // each run overlaps the one before
			// Keys as a generation's: its space, a kind byte, the rest.
			k, v := string(spaceStart(7))+fmt.Sprintf("s%06d", i), fmt.Sprintf("run%d-%d", n, i)
			c.add([]byte(k), []byte(v))
			want[k] = v
		}
		r := &runFile{path: s.fs.PathJoin(s.dir, fmt.Sprintf("run-%d", n)), level: 1}
		if err := s.spillChunk(&c, r, sizes); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	out := &runFile{path: s.fs.PathJoin(s.dir, "run-merged")}
	if err := s.mergeRuns(runs, out, sizes); err != nil {
		t.Fatal(err)
	}
	if out.level != 2 || len(out.marks) < 10 {
		t.Errorf("merged run of level %d with %d marks, want level 2 and a mark every %d bytes", out.level, len(out.marks), sizes.mark)
	}
	read := func(from []byte) map[string]string {
		src, err := s.openRun(out, from, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer src.f.Close()
		got := map[string]string{}
		var prev string
		for {
			k, v, ok, err := src.next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return got
			}
			if string(k) <= prev {
				t.Fatalf("key %q after %q", k, prev)
			}
			prev = string(k)
			if from == nil || string(k) >= string(from) {
				got[string(k)] = string(v)
			}
		}
	}
	if got := read(nil); !maps.Equal(got, want) {
		t.Errorf("merged run holds %d records, want %d; the 150th = %q, want %q", len(got), len(want), got[string(spaceStart(7))+"s000150"], want[string(spaceStart(7))+"s000150"])
	}
	from := out.marks[len(out.marks)/2].key
	got := read(from)
	for k, v := range want {
		if k >= string(from) && got[k] != v {
			t.Errorf("read from mark %q: %s = %q, want %q", from, k, got[k], v)
			break
		}
	}
}

// TestRunReaderRejectsDamagedFiles reads run files cut short or whose
// block does not span its marks: an error naming the damage, never a
// panic or records from past a block.
func TestRunReaderRejectsDamagedFiles(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	sizes := mergeSizes{table: 1 << 20, mark: 200}
	for name, damage := range map[string]func(path string, r *runFile) error{
		"cut short": func(path string, r *runFile) error { return os.Truncate(path, r.size/2) },
		"block length changed": func(path string, r *runFile) error {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b[r.marks[3].off]++ // the uvarint length of the fourth block
			return os.WriteFile(path, b, 0o644)
		},
	} {
		var c chunk
		for i := range 500 {
			c.add(append(spaceStart(7), fmt.Sprintf("s%06d", i)...), []byte("value"))
		}
		r := &runFile{path: s.fs.PathJoin(s.dir, "run-"+strings.ReplaceAll(name, " ", "-"))}
		if err := s.spillChunk(&c, r, sizes); err != nil {
			t.Fatal(err)
		}
		if err := damage(r.path, r); err != nil {
			t.Fatal(err)
		}
		src, err := s.openRun(r, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			_, _, ok, err := src.next()
			if err != nil {
				t.Logf("%s: %v (after %d records)", name, err, n)
				break
			}
			if !ok {
				t.Errorf("%s: read %d records to the end, want an error", name, n)
				break
			}
			n++
		}
		src.f.Close()
	}
}

// FuzzRunReader reads arbitrary bytes as a run file, with arbitrary marks
// (uvarint offset deltas): every block and record is an error or lies
// within what was read, never a panic. The seeds are run files the spill
// wrote, with their marks.
func FuzzRunReader(f *testing.F) {
	s := openDisk(f, f.TempDir(), Options{})
	defer s.Close()
	for n, size := range []int{1, 40, 600} {
		var c chunk
		for i := range size {
			c.add(append(spaceStart(7), fmt.Sprintf("s%06d", i*7%size)...), bytes.Repeat([]byte{byte(i)}, i%50))
		}
		r := &runFile{path: s.fs.PathJoin(s.dir, fmt.Sprint("seed-", n))}
		if err := s.spillChunk(&c, r, mergeSizes{table: 1 << 20, mark: 300}); err != nil {
			f.Fatal(err)
		}
		file, err := os.ReadFile(r.path)
		if err != nil {
			f.Fatal(err)
		}
		var offs []byte
		prev := int64(0)
		for _, m := range r.marks {
			offs = binary.AppendUvarint(offs, uint64(m.off-prev))
			prev = m.off
		}
		f.Add(file, offs)
	}
	f.Fuzz(func(t *testing.T, file, offs []byte) {
		var marks []runMark
		off := int64(0)
		for len(offs) > 0 && len(marks) < 1000 {
			d, n := binary.Uvarint(offs)
			if n <= 0 || d > uint64(len(file)) {
				break
			}
			offs = offs[n:]
			off += int64(d)
			marks = append(marks, runMark{off: off})
		}
		src := &runSource{path: "run", r: &runReader{f: bytes.NewReader(file), marks: marks, size: int64(len(file)), last: len(marks)}}
		read := 0
		for range 100000 {
			k, v, ok, err := src.next()
			if err != nil || !ok {
				return
			}
			read += len(k) + len(v)
			if read > 64*len(file)+1<<20 { // a record of a few bytes at least for every key and value read
				t.Fatalf("read %d bytes of records from a file of %d", read, len(file))
			}
		}
	})
}

// TestValueFileRejectsDamagedFile reads a value file cut short and one
// whose reference points past its end: errors, never a panic or a short
// value.
func TestValueFileRejectsDamagedFile(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	vf, err := s.createValueFile(s.fs.PathJoin(s.dir, ingestPrefix+"test.val"))
	if err != nil {
		t.Fatal(err)
	}
	defer vf.remove(s.fs)
	for i := range 3 {
		if err := vf.add(fmt.Appendf(nil, "key%d", i), bytes.Repeat([]byte{byte('a' + i)}, 5000)); err != nil {
			t.Fatal(err)
		}
	}
	if err := vf.finishWriting(); err != nil {
		t.Fatal(err)
	}
	read := func() error {
		src := &valueFileSource{vf: vf, end: len(vf.refs.ents)}
		for {
			k, v, ok, err := src.next()
			if err != nil || !ok {
				return err
			}
			if want := bytes.Repeat([]byte{'a' + k[3] - '0'}, 5000); !bytes.Equal(v, want) {
				t.Fatalf("%s: read %.10q… of %d bytes", k, v, len(v))
			}
		}
	}
	if err := read(); err != nil {
		t.Fatalf("intact: %v", err)
	}
	if err := os.Truncate(vf.path, 12000); err != nil {
		t.Fatal(err)
	}
	if err := read(); err == nil || !strings.Contains(err.Error(), vf.path) {
		t.Errorf("cut short: %v, want an error naming the file", err)
	}
	vf.off = 9000 // the last reference now points past the file's end
	if err := read(); err == nil || !strings.Contains(err.Error(), "of 9000") {
		t.Errorf("reference past the end: %v", err)
	}
}
