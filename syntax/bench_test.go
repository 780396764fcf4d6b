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

// BenchmarkResolve resolves the extracted files of the same tree as
// BenchmarkBuild (extracted once, outside the timer): the name table and
// every document's occurrences and edges.
func BenchmarkResolve(b *testing.B) {
	root := os.Getenv("LSPGRAPH_BENCH_TREE")
	if root == "" {
		root = filepath.Join(runtime.GOROOT(), "src", "net")
	}
	if _, err := os.Stat(root); err != nil {
		b.Skipf("no tree to index: %v", err)
	}
	ctx := context.Background()
	paths, err := ListFiles(ctx, root)
	if err != nil {
		b.Fatal(err)
	}
	x := NewExtractor(Options{Root: root})
	defer x.Close()
	var files []*FileFacts
	for _, p := range paths {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			b.Fatal(err)
		}
		ff, err := x.File(ctx, p, src)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, ff)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := NewResolver(files, nil)
		for _, f := range files {
			if f.Skipped != SkipNone {
				continue
			}
			if _, err := r.Document(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(files)), "files/op")
}
