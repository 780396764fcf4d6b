package syntax

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// TestArenaOverflow checks that a parse needing more memory than its
// arena holds takes the rest from malloc (blocks moving out of the arena
// on realloc included) and gives the same facts.
func TestArenaOverflow(t *testing.T) {
	ctx := context.Background()
	root, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	files, err := ListFiles(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	roomy := NewExtractor(Options{Root: root})
	defer roomy.Close()
	tight := NewExtractor(Options{Root: root})
	tight.flat.reserve = 16 << 10
	defer tight.Close()
	languages := map[string]bool{}
	for _, p := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		want, err := roomy.File(ctx, p, src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tight.File(ctx, p, src)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: facts differ when the arena overflows:\n got %+v\nwant %+v", p, got, want)
		}
		if want.Skipped == SkipNone {
			languages[want.Document.Language] = true
		}
	}
	if len(languages) < 3 {
		t.Errorf("extracted languages %v, want go, typescript and python (grammars with and without external scanners)", languages)
	}
	if s := roomy.flat.arena.spills; s != 0 {
		t.Errorf("%d allocations left a 256 MiB arena", s)
	}
	if s := tight.flat.arena.spills; s == 0 {
		t.Error("no allocation left a 16 KiB arena: the overflow path was not taken")
	}
	t.Logf("largest parse: %d KiB of arena", roomy.flat.arena.peak>>10)
}

// TestParseAllMatchesBuild checks that the parse-only pass parses and
// skips exactly the files an index extracts and skips.
func TestParseAllMatchesBuild(t *testing.T) {
	ctx := context.Background()
	root, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	opts := IndexOptions{Root: root}
	built, err := Build(ctx, opts, func(context.Context, graph.DocumentFacts) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ParseAll(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Files != built.Files || parsed.Parsed != built.Indexed || parsed.Bytes != built.Bytes || !reflect.DeepEqual(parsed.Skipped, built.Skipped) {
		t.Errorf("ParseAll: %d files, %d parsed, %d bytes, skipped %v; Build: %d files, %d indexed, %d bytes, skipped %v",
			parsed.Files, parsed.Parsed, parsed.Bytes, parsed.Skipped, built.Files, built.Indexed, built.Bytes, built.Skipped)
	}
	if parsed.Parsed == 0 {
		t.Error("nothing parsed")
	}
}
