package search_test

import (
	"context"
	"os"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/search"
)

// BenchmarkSearchStore searches the store at $LSPGRAPH_SEARCH_STORE (e.g.
// an import of pebble-go.scip), a new reader per query as a session reads.
func BenchmarkSearchStore(b *testing.B) {
	dir := os.Getenv("LSPGRAPH_SEARCH_STORE")
	if dir == "" {
		b.Skip("set LSPGRAPH_SEARCH_STORE to a store with terms")
	}
	st, err := graph.Open(dir, graph.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for _, o := range []struct {
		name string
		opts search.Options
	}{{"fused", search.Options{}}, {"text-only", search.Options{TextOnly: true}}} {
		b.Run(o.name, func(b *testing.B) {
			for range b.N {
				r, err := st.Reader()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := search.Search(context.Background(), r, "compaction picker score for each level", o.opts); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
}
