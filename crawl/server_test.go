package crawl

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/internal/lspwire"
)

// TestServerFollowsWorkTree starts gopls as a live Server on a copy of
// goapp and asks the references of Catalog.Save (service/catalog.go:29)
// before and after a caller is added to the file on disk: the server is
// given the new text, so the second answer has one reference more.
func TestServerFollowsWorkTree(t *testing.T) {
	server := gopls(t)
	root := t.TempDir()
	src, err := filepath.Abs("../testdata/goapp")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := StartServer(ctx, Options{Root: root, Server: []string{server}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Shutdown(context.Background(), time.Minute); err != nil {
			t.Error(err)
		}
	}()
	if s.Name() != "gopls" {
		t.Errorf("name = %q", s.Name())
	}
	if !s.WaitReady(ctx) || !s.Ready() {
		t.Fatal("gopls did not load the module")
	}
	cat := filepath.Join(root, "service", "catalog.go")
	refs := func() []lspwire.Location {
		t.Helper()
		// `func (c *Catalog) Save(`: Save starts at byte and UTF-16 column 18.
		raw, err := s.Request(ctx, "textDocument/references", map[string]any{
			"textDocument": map[string]string{"uri": lspwire.FileURI(cat)},
			"position":     map[string]int{"line": 28, "character": 18},
			"context":      map[string]bool{"includeDeclaration": false},
		})
		if err != nil {
			t.Fatal(err)
		}
		var locs []lspwire.Location
		if err := json.Unmarshal(raw, &locs); err != nil {
			t.Fatalf("decoding %s: %v", raw, err)
		}
		return locs
	}
	// The one call of Save is in Catalog.Import (catalog.go:44).
	before := refs()
	text, err := os.ReadFile(cat)
	if err != nil {
		t.Fatal(err)
	}
	text = append(text, "\nfunc (c *Catalog) SaveDefault(sku string) error { return c.Save(sku, sku) }\n"...)
	if err := os.WriteFile(cat, text, 0o644); err != nil {
		t.Fatal(err)
	}
	after := refs()
	if len(before) != 1 || len(after) != 2 {
		t.Errorf("references of Catalog.Save: %d before the edit, %d after; want 1 and 2\nbefore %+v\nafter %+v", len(before), len(after), before, after)
	}
}
