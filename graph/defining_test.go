package graph

import (
	"context"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// TestDefiningDocuments checks DefiningDocuments over both layers: a
// symbol defined in two documents, a document the live layer replaces
// without its definition, one it adds, a symbol whose hash another string
// holds, locals, symbols the graph does not define, a module defined by
// its description alone (no definition occurrence), and descriptions that
// place the definition elsewhere or call the symbol external. Where a
// definition occurrence stands for the definition, the answer is the
// first path of Definitions.
func TestDefiningDocuments(t *testing.T) {
	ctx := context.Background()
	s, err := Open("defining", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := func(line uint32) textpos.Range {
		return textpos.Range{Start: textpos.Position{Line: line, Col: 1}, End: textpos.Position{Line: line, Col: 2}}
	}
	doc := func(path string, defs []string, refs ...string) DocumentFacts {
		f := DocumentFacts{Document: Document{Path: path}}
		for i, d := range defs {
			f.Symbols = append(f.Symbols, Symbol{ID: d, Def: Location{Path: path, Range: at(uint32(i + 1))}})
			f.Occurrences = append(f.Occurrences, Occurrence{Symbol: d, Range: at(uint32(i + 1)), Roles: RoleDefinition})
		}
		for i, r := range refs {
			f.Occurrences = append(f.Occurrences, Occurrence{Symbol: r, Range: at(uint32(100 + i)), Roles: RoleReference})
		}
		return f
	}
	g := squattedGeneration(t, s, symbolHash("p.B"))
	a := doc("a.go", []string{"p.A", "local 1 a.go"}, "p.B", "ext.X")
	// a.go describes p.Z as defined in z.go and ext.X as external.
	a.Symbols = append(a.Symbols, Symbol{ID: "p.Z", Def: Location{Path: "z.go", Range: at(1)}}, Symbol{ID: "ext.X", External: true, Def: Location{Path: "a.go"}})
	// m.py defines its module by its description alone.
	m := doc("m.py", nil)
	m.Symbols = []Symbol{{ID: "py m/", Kind: "module", Def: Location{Path: "m.py"}}}
	for _, f := range []DocumentFacts{a, doc("b.go", []string{"p.B"}), doc("z.go", []string{"p.B", "p.Z"}), m} {
		if err := g.PutDocument(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Commit(ctx, Manifest{}); err != nil {
		t.Fatal(err)
	}
	syms := []string{"p.B", "p.A", "p.Z", "q.D", "ext.X", "squatter", "local 1 a.go", "local 1 gone.go", "p.B", "py m/"}
	check := func(what string, want []string) {
		t.Helper()
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for pass := range 2 { // the second with the ids known
			got, err := r.DefiningDocuments(ctx, syms)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s (pass %d): DefiningDocuments = %q, want %q", what, pass, got, want)
			}
		}
		for i, sym := range syms {
			defs, err := r.Definitions(ctx, sym)
			if err != nil {
				t.Fatal(err)
			}
			first := ""
			if len(defs) > 0 {
				first = defs[0].Path
			}
			if first != want[i] && sym != "py m/" {
				t.Errorf("%s: Definitions(%s) first in %q, want %q", what, sym, first, want[i])
			}
		}
	}
	check("base", []string{"b.go", "a.go", "z.go", "", "", "", "a.go", "", "b.go", "m.py"})
	// The live layer replaces b.go without p.B and adds c.go with q.D and
	// another definition of p.Z.
	for _, f := range []DocumentFacts{doc("b.go", nil, "p.B"), doc("c.go", []string{"q.D", "p.Z"})} {
		if err := s.PutDocument(ctx, Live, f); err != nil {
			t.Fatal(err)
		}
	}
	check("live", []string{"z.go", "a.go", "c.go", "c.go", "", "", "a.go", "", "z.go", "m.py"})
}
