package search_test

import (
	"context"
	"os"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/search"
)

// benchQueries are a short question and a commit message of pebble's.
var benchQueries = map[string]string{
	"short": "compaction picker score for each level",
	"long": "db: fix the excise of a virtual sstable during ingestion. When an ingest excises a span that " +
		"overlaps a virtual sstable backed by a shared file, the new virtual tables must keep the backing's " +
		"reference count; the compaction picker would otherwise see a file whose backing was removed.",
}

// BenchmarkSearchStore searches the store at $LSPGRAPH_SEARCH_STORE (e.g.
// an import of pebble-go.scip), a new reader per query as a session reads,
// with a cache kept across queries as a session keeps one, and without.
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
	for _, q := range []string{"short", "long"} {
		for _, o := range []struct {
			name string
			opts search.Options
		}{{"fused", search.Options{}}, {"fused-cached", search.Options{Cache: search.NewCache()}}, {"text-only", search.Options{TextOnly: true}}} {
			b.Run(q+"/"+o.name, func(b *testing.B) {
				for range b.N {
					r, err := st.Reader()
					if err != nil {
						b.Fatal(err)
					}
					if _, err := search.Search(context.Background(), r, benchQueries[q], o.opts); err != nil {
						b.Fatal(err)
					}
					r.Close()
				}
			})
		}
	}
}
