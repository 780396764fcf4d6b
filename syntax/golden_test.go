package syntax

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

var update = flag.Bool("update", false, "rewrite golden files")

// extractTree lists, extracts and resolves every file under root.
// indexedReader indexes root into an in-memory store and returns a reader
// of it; both are closed when the test ends.
func indexedReader(t *testing.T, root string) *graph.Reader {
	t.Helper()
	st, err := graph.Open("mem", graph.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := Index(context.Background(), st, IndexOptions{Root: root}); err != nil {
		t.Fatal(err)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// resolveAlone extracts one file of an indexed tree and resolves it alone
// against the graph of the tree, as the live layer re-extracts a document.
func resolveAlone(t *testing.T, root, path string, src []byte) []graph.DocumentFacts {
	t.Helper()
	ctx := context.Background()
	r := indexedReader(t, root)
	x := NewExtractor(Options{Root: root})
	defer x.Close()
	ff, err := x.File(ctx, path, src)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Resolve(ctx, []*FileFacts{ff}, ReaderLookup{Reader: r})
	if err != nil {
		t.Fatal(err)
	}
	return alone
}

func extractTree(t *testing.T, root string) ([]*FileFacts, []graph.DocumentFacts) {
	t.Helper()
	ctx := context.Background()
	paths, err := ListFiles(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	x := NewExtractor(Options{Root: root})
	defer x.Close()
	var files []*FileFacts
	for _, p := range paths {
		src, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		ff, err := x.File(ctx, p, src)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, ff)
	}
	docs, err := Resolve(ctx, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	return files, docs
}

// TestGolden renders the facts of each fixture project as annotated source
// and compares them with testdata/golden/<project>.golden.
func TestGolden(t *testing.T) {
	for _, c := range []struct{ name, root string }{
		{"goapp", "../testdata/goapp"},
		{"gowork", "../testdata/gowork"},
		{"tsworkspace", "../testdata/tsworkspace"},
		{"pyproject", "../testdata/pyproject"},
		{"jsapp", "testdata/jsapp"},
		{"javaapp", "testdata/javaapp"},
		{"rustcrate", "testdata/rustcrate"},
		{"pystar", "testdata/pystar"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.root); err != nil {
				t.Skipf("fixture %s is absent", c.root)
			}
			files, docs := extractTree(t, c.root)
			if len(docs) == 0 {
				t.Fatalf("no documents extracted under %s", c.root)
			}
			var b strings.Builder
			for _, f := range files {
				if f.Skipped != SkipNone {
					fmt.Fprintf(&b, "skipped %s: %s\n", f.Document.Path, f.Skipped)
				}
			}
			for _, df := range docs {
				src, err := os.ReadFile(filepath.Join(c.root, df.Document.Path))
				if err != nil {
					t.Fatal(err)
				}
				b.WriteString(renderFacts(src, df))
				b.WriteString("\n")
			}
			golden := filepath.Join("testdata", "golden", c.name+".golden")
			checkGolden(t, golden, b.String())
		})
	}
}

func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading golden (run with -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update to rewrite):\n%s", golden, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing lines of two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + itoa(i+1) + ":\n- " + wl + "\n+ " + gl + "\n")
			shown++
		}
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }
