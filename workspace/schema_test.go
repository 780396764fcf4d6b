package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// copyStore copies the schema-2 store of graph's back-compat fixtures
// into dir.
func copyStore(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join("..", "graph", "testdata", "backcompat", "v2")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenOldSchema checks that the workspace's default store, a cache,
// is started anew when another version of lspgraph wrote it, while a store
// the user named is refused with the rebuild message and left as it was.
func TestOpenOldSchema(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()

	def, err := graph.DefaultDir(root)
	if err != nil {
		t.Fatal(err)
	}
	copyStore(t, def)
	s, err := Open(Options{Root: root})
	if err != nil {
		t.Fatalf("opening a default store of schema 2: %v", err)
	}
	s.Close()
	st, err := graph.Open(def, graph.Options{})
	if err != nil {
		t.Fatalf("the default store was not started anew: %v", err)
	}
	st.Close()
	if left, _ := filepath.Glob(def + ".discarded-*"); len(left) != 0 {
		t.Errorf("the old store was left beside the new one: %v", left)
	}

	named := filepath.Join(t.TempDir(), "store")
	copyStore(t, named)
	_, err = Open(Options{Root: root, StoreDir: named})
	if !errors.Is(err, graph.ErrSchema) || !strings.Contains(err.Error(), "delete "+named) {
		t.Fatalf("opening a named store of schema 2: %v; want the schema error and how to rebuild", err)
	}
	if _, err := os.Stat(filepath.Join(named, "MANIFEST-000001")); err != nil {
		t.Errorf("the named store was touched: %v", err)
	}
}
