package scip

import (
	"context"
	"os"
	"path/filepath"
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
