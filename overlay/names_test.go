package overlay

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// TestNameCache: after each write to the graph, a name cache brought to
// the new snapshot answers every look-up as the snapshot does, and keeps
// the answers the write cannot have changed. The writes: a live document
// hiding the base one that defined a name, a new document defining it, the
// live document dropped (the base one shows again), a document holding a
// record of a symbol answered under another name's document, the name's
// record dropped (the symbol is still read from the other), an unrelated
// document, a base document written in place, the live layer cleared and a
// new base generation. Each rule of the cache is needed by one of them
// (the base generation's is also the change log's).
func TestNameCache(t *testing.T) {
	ctx := context.Background()
	st, err := graph.Open("names", graph.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sym := func(id, name, path string) graph.Symbol {
		return graph.Symbol{ID: id, DisplayName: name, Kind: "function", Language: "go", Package: "m/p", Def: graph.Location{Path: path}}
	}
	doc := func(path string, syms ...graph.Symbol) graph.DocumentFacts {
		return graph.DocumentFacts{Document: graph.Document{Path: path, Language: "go"}, Symbols: syms}
	}
	put := func(layer graph.Layer, f graph.DocumentFacts) func() error {
		return func() error { return st.PutDocument(ctx, layer, f) }
	}
	generation := func(docs ...graph.DocumentFacts) func() error {
		return func() error {
			g, err := st.BeginGeneration(ctx)
			if err != nil {
				return err
			}
			for _, d := range docs {
				if err := g.PutDocument(ctx, d); err != nil {
					return err
				}
			}
			return g.Commit(ctx, graph.Manifest{})
		}
	}
	if err := generation(
		doc("a.go", sym("m/p F1", "F", "a.go"), sym("m/p G", "G", "a.go")),
		doc("b.go", sym("m/p F2", "F", "b.go"), sym("m/p (T).M", "(T).M", "b.go")),
		doc("c.go", sym("m/p H", "H", "c.go")),
	)(); err != nil {
		t.Fatal(err)
	}
	queries := []nameQuery{{name: "F"}, {name: "G"}, {name: "H"}, {name: "K"}, {name: "(", prefix: true}}
	var c nameCache
	var held, dropped []string // the symbols held before the last call of answers, and those it forgot
	// answers brings c to a new reader and returns what it answers,
	// checked against the reader's own answers.
	answers := func(step string) map[nameQuery][]graph.Symbol {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		held = slices.Sorted(maps.Keys(c.syms))
		if err := c.at(ctx, r); err != nil {
			t.Fatal(err)
		}
		dropped = nil
		for _, id := range held {
			if _, ok := c.syms[id]; !ok {
				dropped = append(dropped, id)
			}
		}
		slices.Sort(dropped)
		find := c.finder(r)
		got := map[nameQuery][]graph.Symbol{}
		for _, q := range queries {
			syms, err := find(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.FindSymbols(ctx, q.name, q.prefix, nameLimit)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(syms, want) {
				t.Errorf("%s: %+v answers %v, the snapshot %v", step, q, ids(syms), ids(want))
			}
			got[q] = syms
		}
		return got
	}
	// kept reports which answers are the very slices answered before.
	kept := func(before, after map[nameQuery][]graph.Symbol) string {
		var out []string
		for _, q := range queries {
			if len(before[q]) > 0 && len(after[q]) > 0 && &before[q][0] == &after[q][0] {
				out = append(out, q.name)
			}
		}
		return fmt.Sprint(out)
	}
	last := answers("start")
	const all = "all" // every symbol held
	for _, step := range []struct {
		name    string
		write   func() error
		kept    string // the answers kept whole (not assembled again)
		dropped string // the symbols to read again
	}{
		{"a.go hidden by a live a.go without F", put(graph.Live, doc("a.go", sym("m/p G", "G", "a.go"))), "[H (]", "[m/p F1 m/p G]"},
		// F2 is not read again: only what F finds changed.
		{"a new live d.go defining F", put(graph.Live, doc("d.go", sym("m/p F4", "F", "d.go"))), "[G H (]", "[]"},
		{"the live a.go dropped", func() error { return st.DeleteDocument(ctx, graph.Live, "a.go") }, "[H (]", "[m/p G]"},
		{"e.go holding a record of G under another name", put(graph.Live, doc("e.go", graph.Symbol{ID: "m/p G", DisplayName: "G2", Signature: "func G()"})), "[F H (]", "[m/p G]"},
		// G is still read from e.go, where it is named G2: no longer
		// found by G.
		{"a.go of the base written without G", put(graph.Base, doc("a.go", sym("m/p F1", "F", "a.go"))), "[H (]", "[m/p F1 m/p G]"},
		{"an unrelated z.go", put(graph.Live, doc("z.go", sym("m/p Z", "Z", "z.go"))), "[F H (]", "[]"},
		{"a method in z.go", put(graph.Live, doc("z.go", sym("m/p (U).N", "(U).N", "z.go"))), "[F H]", "[]"},
		{"c.go of the base written in place", put(graph.Base, doc("c.go", sym("m/p H", "H", "c.go"), sym("m/p K", "K", "c.go"))), "[F (]", "[m/p H]"},
		{"the live layer cleared", func() error { return st.ClearLayer(ctx, graph.Live) }, "[]", all},
		{"a new generation", generation(doc("a.go", sym("m/p F1", "F", "a.go"))), "[]", all},
	} {
		if err := step.write(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		now := answers(step.name)
		if got := kept(last, now); got != step.kept {
			t.Errorf("%s: kept %s, want %s", step.name, got, step.kept)
		}
		if step.dropped == all {
			step.dropped = fmt.Sprint(held)
		}
		if got := fmt.Sprint(dropped); got != step.dropped {
			t.Errorf("%s: read again %s, want %s", step.name, got, step.dropped)
		}
		last = now
	}
}

func ids(syms []graph.Symbol) []string {
	var out []string
	for _, s := range syms {
		out = append(out, s.ID)
	}
	return out
}
