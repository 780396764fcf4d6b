package freshness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

func TestIsDependencyManifest(t *testing.T) {
	for p, want := range map[string]bool{
		"go.mod": true, "sub/go.sum": true, "packages/a/package.json": true,
		"pnpm-lock.yaml": true, "pyproject.toml": true, "requirements-dev.txt": true,
		"main.go": false, "docs/go.mod.md": false, "requirements.md": false,
	} {
		if got := IsDependencyManifest(p); got != want {
			t.Errorf("IsDependencyManifest(%q) = %v; want %v", p, got, want)
		}
	}
}

// TestAddChanges covers the reasons a changed work tree gives, against a
// real repository and a live layer given as its documents.
func TestAddChanges(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.go", body("a"))
	r.write("b.go", body("b"))
	r.write("c.go", body("c"))
	r.write("go.mod", "module example.com/p\n")
	base := r.commit("base")
	r.write("a.go", body("a")+"func A() {}\n")
	r.write("b.go", body("b")+"func B() {}\n")
	r.remove("c.go")
	r.write("d.go", body("d"))

	changes, err := Changes(ctx, r.root, base)
	if err != nil {
		t.Fatal(err)
	}
	aText := []byte(body("a") + "func A() {}\n")
	fsys := openRoot(t, r.root)

	t.Run("nothing live", func(t *testing.T) {
		var b Block
		b.addChanges(fsys, base, changes, nil, nil)
		if !reflect.DeepEqual(b.Changed, []string{"a.go", "b.go", "c.go", "d.go"}) {
			t.Errorf("Changed = %v", b.Changed)
		}
		if !b.Partial || len(b.Reasons) != 1 || !strings.Contains(b.Reasons[0], "4 documents changed since base "+short(base)+" are answered from stale facts (a.go, b.go, c.go, d.go)") {
			t.Errorf("Partial = %v, Reasons = %q", b.Partial, b.Reasons)
		}
	})
	t.Run("all covered", func(t *testing.T) {
		live := map[string]graph.Document{
			"a.go": {Path: "a.go", Source: graph.SourceSyntax, Digest: DigestDisk + lang.HashContent(aText)},
			"b.go": {Path: "b.go", Source: graph.SourceLSP},
			"c.go": {Path: "c.go", Source: graph.SourceSyntax, Digest: DigestDeleted},
			"d.go": {Path: "d.go", Source: graph.SourceSyntax, Digest: DigestBuffer + lang.HashContent([]byte("unsaved"))},
		}
		var b Block
		b.addChanges(fsys, base, changes, live, nil)
		if b.Partial {
			t.Errorf("Partial with every change covered: %q", b.Reasons)
		}
		if want := []string{"3 documents changed since base " + short(base) + " are answered from syntax (name-based, lower confidence)"}; !reflect.DeepEqual(b.Notes, want) {
			t.Errorf("Notes = %q; want %q", b.Notes, want)
		}
	})
	t.Run("stale live", func(t *testing.T) {
		live := map[string]graph.Document{
			// Derived from an older text of a.go.
			"a.go": {Path: "a.go", Source: graph.SourceSyntax, Digest: DigestDisk + lang.HashContent([]byte(body("a")))},
			"b.go": {Path: "b.go", Source: graph.SourceLSP},
			"c.go": {Path: "c.go", Source: graph.SourceSyntax, Digest: DigestDeleted},
			"d.go": {Path: "d.go", Source: graph.SourceLSP},
			// go.mod no longer differs from the base, but the live layer still owns it.
			"go.mod": {Path: "go.mod", Source: graph.SourceSyntax, Digest: DigestDisk + lang.HashContent([]byte("module other\n"))},
		}
		var b Block
		b.addChanges(fsys, base, changes, live, nil)
		if !b.Partial || len(b.Reasons) != 1 || !strings.Contains(b.Reasons[0], "2 documents changed since base "+short(base)+" are answered from stale facts (a.go, go.mod)") {
			t.Errorf("Partial = %v, Reasons = %q", b.Partial, b.Reasons)
		}
	})
	t.Run("indexed as is", func(t *testing.T) {
		// A syntax index of the work tree holds a.go and d.go as they are
		// now, b.go as it was; a precise base's document says nothing of
		// the work tree.
		bText := []byte(body("b") + "func B() {}\n")
		baseDocs := func(docs map[string]graph.Document) func(string) (graph.Document, bool) {
			return func(p string) (graph.Document, bool) { d, ok := docs[p]; return d, ok }
		}
		syntaxDoc := func(p string, text []byte) graph.Document {
			return graph.Document{Path: p, Layer: graph.Base, Source: graph.SourceSyntax, ContentHash: lang.HashContent(text)}
		}
		live := map[string]graph.Document{"c.go": {Path: "c.go", Source: graph.SourceSyntax, Digest: DigestDeleted}}
		var b Block
		b.addChanges(fsys, base, changes, live, baseDocs(map[string]graph.Document{
			"a.go": syntaxDoc("a.go", aText),
			"b.go": syntaxDoc("b.go", []byte(body("b"))),
			"d.go": syntaxDoc("d.go", []byte(body("d"))),
		}))
		if !b.Partial || len(b.Reasons) != 1 || !strings.Contains(b.Reasons[0], "1 document changed since base "+short(base)+" is answered from stale facts (b.go)") {
			t.Errorf("Partial = %v, Reasons = %q; want b.go alone stale", b.Partial, b.Reasons)
		}
		precise := syntaxDoc("b.go", bText)
		precise.Source = graph.SourceSCIP
		b = Block{}
		b.addChanges(fsys, base, changes, live, baseDocs(map[string]graph.Document{
			"a.go": syntaxDoc("a.go", aText), "b.go": precise, "d.go": syntaxDoc("d.go", []byte(body("d"))),
		}))
		if !b.Partial || !strings.Contains(strings.Join(b.Reasons, " "), "(b.go)") {
			t.Errorf("a precise base's document: Partial = %v, Reasons = %q; want b.go stale", b.Partial, b.Reasons)
		}
	})
	t.Run("dependencies", func(t *testing.T) {
		r.write("go.mod", "module example.com/p\n\nrequire example.com/q v1.0.0\n")
		defer r.write("go.mod", "module example.com/p\n")
		changes, err := Changes(ctx, r.root, base)
		if err != nil {
			t.Fatal(err)
		}
		var b Block
		b.addChanges(fsys, base, changes, nil, nil)
		want := fmt.Sprintf("dependencies changed since the base %s (go.mod): run `lspgraph scip import` or `lspgraph index`", short(base))
		if !b.Partial || !contains(b.Reasons, want) {
			t.Errorf("Reasons = %q; want %q among them", b.Reasons, want)
		}
	})
	t.Run("far", func(t *testing.T) {
		many := make([]Change, FarChanges+1)
		for i := range many {
			many[i] = Change{Status: "?", Path: fmt.Sprintf("gen/f%03d.go", i)}
		}
		var b Block
		b.addChanges(fsys, base, many, nil, nil)
		want := fmt.Sprintf("HEAD moved %d files from the base %s (more than %d): run `lspgraph scip import` or `lspgraph index`", FarChanges+1, short(base), FarChanges)
		if !b.Partial || !contains(b.Reasons, want) {
			t.Errorf("Reasons = %q; want %q among them", b.Reasons, want)
		}
	})
}

// TestAddChangesLinks: a changed path that is a symbolic link is covered
// by a tombstone, as the overlay writes one, and freshness never reads a
// link's target outside the root to compare it with a live digest.
func TestAddChangesLinks(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.go", body("a"))
	base := r.commit("base")
	outside := filepath.Join(t.TempDir(), "evil.go")
	evil := "package evil\n// CANARY\nfunc Leak() {}\n"
	if err := os.WriteFile(outside, []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"evil.go": outside, "in.go": "a.go"} {
		if err := os.Symlink(target, filepath.Join(r.root, name)); err != nil {
			t.Skip(err)
		}
	}
	changes, err := Changes(ctx, r.root, base)
	if err != nil {
		t.Fatal(err)
	}
	fsys := openRoot(t, r.root)
	tests := []struct {
		name    string
		live    map[string]graph.Document
		partial bool
		promise string
	}{
		{"tombstones", map[string]graph.Document{
			"evil.go": {Path: "evil.go", Digest: DigestDeleted},
			"in.go":   {Path: "in.go", Digest: DigestDeleted},
		}, false, "links hidden like deleted files are covered"},
		{"outside text", map[string]graph.Document{
			"evil.go": {Path: "evil.go", Source: graph.SourceSyntax, Digest: DigestDisk + lang.HashContent([]byte(evil))},
			"in.go":   {Path: "in.go", Digest: DigestDeleted},
		}, true, "a digest of the outside file's text is not confirmed by reading it"},
		{"inside text", map[string]graph.Document{
			"evil.go": {Path: "evil.go", Digest: DigestDeleted},
			"in.go":   {Path: "in.go", Source: graph.SourceSyntax, Digest: DigestDisk + lang.HashContent([]byte(body("a")))},
		}, true, "a link inside is not a document of its own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Block
			b.addChanges(fsys, base, changes, tt.live, nil)
			if b.Partial != tt.partial {
				t.Errorf("Partial = %v (%q); want %v: %s", b.Partial, b.Reasons, tt.partial, tt.promise)
			}
		})
	}
}

func openRoot(t *testing.T, dir string) *rootfs.Root {
	t.Helper()
	fsys, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fsys.Close() })
	return fsys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
