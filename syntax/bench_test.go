package syntax

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// BenchmarkBuild extracts and resolves a source tree without a store:
// $LSPGRAPH_BENCH_TREE, else $(go env GOROOT)/src/net.
func BenchmarkBuild(b *testing.B) {
	root := os.Getenv("LSPGRAPH_BENCH_TREE")
	if root == "" {
		root = filepath.Join(runtime.GOROOT(), "src", "net")
	}
	if _, err := os.Stat(root); err != nil {
		b.Skipf("no tree to index: %v", err)
	}
	b.ReportAllocs()
	var sum IndexSummary
	for b.Loop() {
		var err error
		sum, err = Build(context.Background(), IndexOptions{Root: root},
			func(context.Context, graph.DocumentFacts) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sum.Files), "files/op")
	b.ReportMetric(float64(sum.Bytes), "input-bytes/op")
}
