package ingest_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/ingest"
)

// TestLinksOutOfRoot: an answer about a workspace path that is a symbolic
// link leading outside the root (a sibling directory named like the root
// plus a suffix included) is not used, since its text is never read; the
// same answer about a regular file is.
func TestLinksOutOfRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	writeFiles(t, base, map[string]string{
		"repo/b/b.go":     files["b/b.go"],
		"outside/evil.go": "package evil\n\n// CANARY\nfunc Leak() {}\n",
		"repo-evil/c.go":  "package evil\n\n// CANARY\nfunc Leak() {}\n",
	})
	for name, target := range map[string]string{
		"x.go":   filepath.Join(base, "outside", "evil.go"),
		"rel.go": "../outside/evil.go",
		"sib.go": "../repo-evil/c.go",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skip(err)
		}
	}
	tests := []struct {
		path    string
		used    bool
		promise string
	}{
		{"b/b.go", true, "a regular file's answer is used"},
		{"x.go", false, "a link out is never read"},
		{"rel.go", false, "a relative link out is never read"},
		{"sib.go", false, "a link into a prefix sibling is never read"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			s := graphtest.Open(t)
			l := ingest.New(s, ingest.Options{Root: root})
			defer l.Close()
			exchange(t, l, "textDocument/documentSymbol", `{"textDocument":{"uri":"`+uri(root, tt.path)+`"}}`,
				`[{"name":"Leak","kind":12,"range":`+rng(3, 0, 3, 14)+`,"selectionRange":`+rng(3, 5, 3, 9)+`}]`)
			r, err := s.Reader()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, ok, err := r.Document(context.Background(), tt.path)
			if err != nil || ok != tt.used {
				t.Errorf("Document(%s) present = %v, %v; want %v (%s)", tt.path, ok, err, tt.used, tt.promise)
			}
			var dump bytes.Buffer
			if err := r.Dump(&dump); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(dump.String(), "CANARY") {
				t.Errorf("the store holds the outside file's text (%s)", tt.promise)
			}
		})
	}
}
