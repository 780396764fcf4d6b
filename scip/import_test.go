package scip

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// openStore opens a fresh store in a temporary directory.
func openStore(t testing.TB) *graph.Store {
	t.Helper()
	s, err := graph.Open(filepath.Join(t.TempDir(), "store"), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// importFile imports a dump file into store.
func importFile(t testing.TB, store *graph.Store, dump string, opts Options) (Summary, error) {
	t.Helper()
	f, err := os.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		opts.Size = fi.Size()
	}
	return Import(context.Background(), store, f, opts)
}

// corpusDir locates the shared corpus of real dumps: $LSPGRAPH_CORPUS, or
// ../shared/corpus beside the module root.
func corpusDir(t testing.TB) string {
	if d := os.Getenv("LSPGRAPH_CORPUS"); d != "" {
		return d
	}
	return filepath.Join(moduleRoot(t), "..", "shared", "corpus")
}

func TestImportCorpus(t *testing.T) {
	cases := []struct {
		name       string
		docs, occs int
		skipped    int
		large      bool
	}{
		{"tanstack-store-ts", 112, 14243, 0, false},
		{"flask-python", 83, 20879, 0, false},
		{"vuejs-core-ts", 443, 239530, 0, true},
		{"pebble-go", 815, 450445, 76, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dump := filepath.Join(corpusDir(t), c.name+".scip")
			if _, err := os.Stat(dump); err != nil {
				t.Skipf("corpus dump absent: %v", err)
			}
			if c.large && testing.Short() {
				t.Skip("large dump; run without -short")
			}
			store := openStore(t)
			sum, err := importFile(t, store, dump, Options{})
			if err != nil {
				t.Fatal(err)
			}
			skippedOccs := 0
			for _, s := range sum.Skipped {
				skippedOccs += s.Occurrences
				if s.Reason != SkipEscapesRoot {
					t.Errorf("skipped %s: %s", s.Path, s.Reason)
				}
			}
			if sum.Documents != c.docs-c.skipped || len(sum.Skipped) != c.skipped {
				t.Errorf("documents: imported %d, skipped %d; want %d of %d skipped", sum.Documents, len(sum.Skipped), c.skipped, c.docs)
			}
			if sum.Occurrences+skippedOccs+sum.InvalidOccurrences != c.occs || sum.InvalidOccurrences != 0 {
				t.Errorf("occurrences: imported %d + %d in skipped documents + %d invalid, want %d", sum.Occurrences, skippedOccs, sum.InvalidOccurrences, c.occs)
			}
			t.Logf("%d documents (%d skipped: %s), %d occurrences (+%d in skipped documents), %d symbols, %d edges, %.1f MB/s",
				sum.Documents, len(sum.Skipped), SkipEscapesRoot, sum.Occurrences, skippedOccs, sum.Symbols, sum.Edges, sum.MBPerSec)
		})
	}
}

// TestImportSerialEqualsParallel imports the same dumps with one worker
// and with four, into two stores, and compares their dumps: every key and
// value but the manifest's times, symbol ids included, must be the same
// whatever order the documents were converted and written in.
func TestImportSerialEqualsParallel(t *testing.T) {
	dumps := map[string]string{}
	for _, name := range []string{"goapp", "tsworkspace"} {
		dumps[name], _ = fixtureDump(t, name, name)
	}
	if p := filepath.Join(corpusDir(t), "tanstack-store-ts.scip"); fileExists(p) {
		dumps["tanstack-store-ts"] = p
	}
	for name, dump := range dumps {
		t.Run(name, func(t *testing.T) {
			var got [2]string
			for i, workers := range []int{1, 4} {
				store := openStore(t)
				if _, err := importFile(t, store, dump, Options{Workers: workers, Queue: 1 + 3*i}); err != nil {
					t.Fatal(err)
				}
				r, err := store.Reader()
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				err = r.Dump(&b)
				r.Close()
				if err != nil {
					t.Fatal(err)
				}
				got[i] = b.String()
			}
			if !strings.Contains(got[0], "/symid ") || strings.Count(got[0], "\n") < 50 {
				t.Fatalf("the serial import's dump is too small to compare:\n%s", got[0])
			}
			if got[0] != got[1] {
				a, b := strings.Split(got[0], "\n"), strings.Split(got[1], "\n")
				for i := range min(len(a), len(b)) {
					if a[i] != b[i] {
						t.Fatalf("serial and parallel imports differ at line %d:\n%s\n%s", i+1, a[i], b[i])
					}
				}
				t.Fatalf("serial and parallel imports differ in length: %d and %d lines", len(a), len(b))
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
