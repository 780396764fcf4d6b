package searcheval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/terms"
	"github.com/lspgraph/lspgraph/syntax"
)

// IndexCost is what one syntax index of a tree cost.
type IndexCost struct {
	Terms     bool    `json:"terms"`
	Seconds   float64 `json:"seconds"`
	StoreMB   float64 `json:"store_mb"`
	Documents int     `json:"documents"`
}

// Index builds a syntax index of tree in a new store, with or without
// the documents' terms.
func Index(ctx context.Context, tree string, withTerms bool) (IndexCost, error) {
	ix := IndexCost{Terms: withTerms}
	dir, err := os.MkdirTemp("", "lspgraph-search-cost-")
	if err != nil {
		return ix, err
	}
	defer os.RemoveAll(dir)
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		return ix, err
	}
	defer st.Close()
	start := time.Now()
	gw, err := st.BeginGeneration(ctx)
	if err != nil {
		return ix, err
	}
	sum, err := syntax.Build(ctx, syntax.IndexOptions{Root: tree}, func(ctx context.Context, f graph.DocumentFacts) error {
		if !withTerms {
			f.Terms = nil
		}
		return gw.PutDocument(ctx, f)
	})
	if err == nil {
		err = gw.Commit(ctx, graph.Manifest{Layer: graph.Base, Tool: "lspgraph-syntax", State: graph.StateComplete})
	}
	if err != nil {
		gw.Abort()
		return ix, fmt.Errorf("searcheval: indexing %s: %w", tree, err)
	}
	ix.Seconds = time.Since(start).Seconds()
	ix.StoreMB = float64(st.DiskUsage()) / (1 << 20)
	ix.Documents = sum.Indexed
	return ix, nil
}

// Extraction times terms.Document over every file of tree that a syntax
// index lists.
func Extraction(ctx context.Context, tree string) (float64, error) {
	paths, err := syntax.ListFiles(ctx, tree)
	if err != nil {
		return 0, err
	}
	srcs := make([][]byte, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(p)))
		if err == nil {
			srcs = append(srcs, b)
		}
	}
	start := time.Now()
	for i, src := range srcs {
		terms.Document(graph.Document{Path: paths[i], Language: lang.Of(paths[i])}, nil, src)
	}
	return time.Since(start).Seconds(), nil
}
