package scip

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/scip-code/scip/bindings/go/scip"
)

// moduleRoot returns the repository root (where go.mod is).
func moduleRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// fixtureDump returns the path of testdata/scip/NAME.scip and the fixture
// directory testdata/DIR.
func fixtureDump(t testing.TB, name, dir string) (dump, root string) {
	r := moduleRoot(t)
	return filepath.Join(r, "testdata", "scip", name+".scip"), filepath.Join(r, "testdata", dir)
}

// convertDump converts every document of a dump without a store, reading
// text from root as Import does.
func convertDump(t testing.TB, dump, root string) (map[string]graph.DocumentFacts, map[string]DocStats) {
	t.Helper()
	f, err := os.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	facts := make(map[string]graph.DocumentFacts)
	stats := make(map[string]DocStats)
	conv := &Converter{}
	v := Visitor{
		Metadata: func(ctx context.Context, rec Record, m *scip.Metadata) error {
			conv.Tool = m.GetToolInfo().GetName()
			return nil
		},
		Document: func(ctx context.Context, rec Record, d *scip.Document) error {
			p, reason := cleanPath(d.RelativePath)
			if reason != "" {
				return nil
			}
			var text []byte
			if conv.Encoding(d) != textpos.UTF8 {
				text, _ = os.ReadFile(filepath.Join(root, p))
			}
			facts[p], stats[p] = conv.Convert(d, p, text)
			return nil
		},
	}
	if _, err := Decode(context.Background(), f, 0, v, nil); err != nil {
		t.Fatal(err)
	}
	return facts, stats
}
