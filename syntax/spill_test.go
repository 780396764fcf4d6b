package syntax

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// inMemoryFacts is the index the way it was made before the spill: every
// file extracted and held, then each resolved against all of them
// (Resolve), skipped files as bare documents.
func inMemoryFacts(t *testing.T, root string, paths []string) map[string]graph.DocumentFacts {
	t.Helper()
	ctx := context.Background()
	fsys, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	x := NewExtractor(Options{Root: root, FS: fsys})
	defer x.Close()
	var files []*FileFacts
	out := map[string]graph.DocumentFacts{}
	for _, p := range paths {
		src, err := fsys.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ff, err := x.File(ctx, p, src)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, ff)
		if ff.Skipped != SkipNone {
			out[p] = graph.DocumentFacts{Document: ff.Document}
		}
	}
	dfs, err := Resolve(ctx, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, df := range dfs {
		out[df.Document.Path] = df
	}
	return out
}

// builtFacts is what Build hands over for the same files.
func builtFacts(t *testing.T, root string, paths []string, workers int) map[string]graph.DocumentFacts {
	t.Helper()
	return builtFactsWith(t, IndexOptions{Root: root, Files: paths, Workers: workers, TempDir: t.TempDir()})
}

// builtFactsWith is builtFacts with other options.
func builtFactsWith(t *testing.T, opts IndexOptions) map[string]graph.DocumentFacts {
	t.Helper()
	var mu sync.Mutex
	out := map[string]graph.DocumentFacts{}
	_, err := Build(context.Background(), opts,
		func(_ context.Context, df graph.DocumentFacts) error {
			mu.Lock()
			defer mu.Unlock()
			if _, dup := out[df.Document.Path]; dup {
				t.Errorf("%s handed over twice", df.Document.Path)
			}
			if len(df.Lookups) == 0 {
				t.Errorf("%s handed over without its record of lookups", df.Document.Path)
			}
			df.Lookups = nil // the index's own record for the next index; Resolve makes none
			out[df.Document.Path] = df
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// normalized makes empty lists nil: the store writes nothing for either.
func normalized(df graph.DocumentFacts) graph.DocumentFacts {
	if len(df.Symbols) == 0 {
		df.Symbols = nil
	}
	if len(df.Occurrences) == 0 {
		df.Occurrences = nil
	}
	if len(df.Edges) == 0 {
		df.Edges = nil
	}
	if len(df.Terms) == 0 {
		df.Terms = nil
	}
	return df
}

// sameFacts fails the test where two indexes of the same files differ.
func sameFacts(t *testing.T, want, got map[string]graph.DocumentFacts) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%d documents built, %d resolved in memory", len(got), len(want))
	}
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range want {
			if !yield(p) {
				return
			}
		}
	})
	bad := 0
	for _, p := range paths {
		g, ok := got[p]
		if !ok {
			t.Errorf("%s: not built", p)
			continue
		}
		if w := normalized(want[p]); !reflect.DeepEqual(w, normalized(g)) {
			bad++
			if bad <= 3 {
				t.Errorf("%s: built facts differ from those resolved in memory:\n%d symbols, %d occurrences, %d edges, %d terms built\n%d symbols, %d occurrences, %d edges, %d terms in memory",
					p, len(g.Symbols), len(g.Occurrences), len(g.Edges), len(g.Terms), len(w.Symbols), len(w.Occurrences), len(w.Edges), len(w.Terms))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d documents differ", bad, len(paths))
	}
}

// TestBuildMatchesInMemory holds the spilled, two-pass Build to the facts
// of resolving every file's facts held in memory, on the fixtures of every
// language and on real trees: this module and part of GOROOT.
func TestBuildMatchesInMemory(t *testing.T) {
	trees := map[string]string{
		"goapp":       "../testdata/goapp",
		"tsworkspace": "../testdata/tsworkspace",
		"pyproject":   "../testdata/pyproject",
		"javaapp":     "testdata/javaapp",
		"jsapp":       "testdata/jsapp",
		"pystar":      "testdata/pystar",
		"rustcrate":   "testdata/rustcrate",
		"lspgraph":    "..",
	}
	if testing.Short() {
		delete(trees, "lspgraph")
	}
	var names []string
	for n := range trees {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			root, err := filepath.Abs(trees[name])
			if err != nil {
				t.Fatal(err)
			}
			paths, err := ListFiles(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			if name == "lspgraph" { // the module's own source, fixtures aside
				paths = slices.DeleteFunc(paths, func(p string) bool { return strings.Contains(p, "testdata/") })
			}
			if len(paths) == 0 {
				t.Fatalf("no files under %s", root)
			}
			sameFacts(t, inMemoryFacts(t, root, paths), builtFacts(t, root, paths, 2))
		})
	}
}

// TestBuildMatchesInMemoryGOROOT does the same on GOROOT's go/ and net/
// trees (about 800 files, a few seconds).
func TestBuildMatchesInMemoryGOROOT(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(root, "net", "http", "server.go")); err != nil {
		t.Skipf("no GOROOT source: %v", err)
	}
	all, err := ListFiles(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	paths := slices.DeleteFunc(all, func(p string) bool {
		return !strings.HasPrefix(p, "go/") && !strings.HasPrefix(p, "net/")
	})
	sameFacts(t, inMemoryFacts(t, root, paths), builtFacts(t, root, paths, 2))
}

// TestBuildReadsFactsBackFromTheCache holds Build to the same facts when
// the second pass reads the files' facts back from the fact cache instead
// of the spill file: entries it wrote, entries it read, and entries a
// concurrent Trim removed between the passes (the files are extracted
// again).
func TestBuildReadsFactsBackFromTheCache(t *testing.T) {
	root, err := filepath.Abs("../testdata/goapp")
	if err != nil {
		t.Fatal(err)
	}
	paths, err := ListFiles(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	want := inMemoryFacts(t, root, paths)
	cache, err := OpenFactCache(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	opts := IndexOptions{Root: root, Files: paths, Workers: 2, TempDir: t.TempDir(), Cache: cache}
	t.Run("written", func(t *testing.T) { sameFacts(t, want, builtFactsWith(t, opts)) })
	t.Run("read", func(t *testing.T) { sameFacts(t, want, builtFactsWith(t, opts)) })
	t.Run("gone", func(t *testing.T) {
		o := opts
		o.Progress = func(p IndexProgress) {
			if p.Phase == "extract" && p.Done == p.Total {
				if err := os.RemoveAll(cache.Dir()); err != nil {
					t.Error(err)
				}
			}
		}
		sameFacts(t, want, builtFactsWith(t, o))
	})
}
