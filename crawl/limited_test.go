package crawl

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLimitedTo(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"proj/pkg/sub", "mod/inner"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/go.mod", "mod/go.mod", "mod/inner/go.mod"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("module x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		root    string
		project string
		limited bool
	}{
		{"proj", "", false},                                // the project's root
		{"proj/pkg", filepath.Join(dir, "proj"), true},     // a folder of it (GOROOT/src/net/http)
		{"proj/pkg/sub", filepath.Join(dir, "proj"), true}, // deeper
		{"mod/inner", "", false},                           // a nested module is a project of its own
	} {
		project, limited := LimitedTo(filepath.Join(dir, c.root))
		if project != c.project || limited != c.limited {
			t.Errorf("LimitedTo(%s) = %q, %v; want %q, %v", c.root, project, limited, c.project, c.limited)
		}
	}
}
