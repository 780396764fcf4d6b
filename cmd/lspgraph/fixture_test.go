package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// copyGoapp copies testdata/goapp into a new temporary directory and returns
// it, so a test may edit and commit the fixture without touching testdata.
func copyGoapp(t *testing.T) string {
	t.Helper()
	return copyFixture(t, filepath.Join("..", "..", "testdata", "goapp"))
}

// readStore opens the store in dir read-only and returns a reader of it;
// both are closed when the test ends.
func readStore(t *testing.T, dir string) *graph.Reader {
	t.Helper()
	st, err := graph.Open(dir, graph.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// copyFixture copies the fixture directory src into a new temporary
// directory and returns it.
func copyFixture(t *testing.T, src string) string {
	t.Helper()
	root := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}
