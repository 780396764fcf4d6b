package graph

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// TestDocumentLocals checks the symbols local to a document, which have
// doc-first records only: references, definitions and the symbol are read
// from the document named in the id, the live layer hides the base
// document's, replacing the document leaves none behind, a local used
// outside its document is indexed as usual, and no query finds a local by
// name.
func TestDocumentLocals(t *testing.T) {
	ctx := context.Background()
	s, err := Open("locals", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := func(line uint32) textpos.Range {
		return textpos.Range{Start: textpos.Position{Line: line, Col: 1}, End: textpos.Position{Line: line, Col: 2}}
	}
	const la, lb = "local 1 a.go", "local 1 b.go"
	doc := func(path, local string, lines ...uint32) DocumentFacts {
		f := DocumentFacts{Document: Document{Path: path},
			Symbols: []Symbol{{ID: local, DisplayName: "x", Kind: "local", Def: Location{Path: path, Range: rng(lines[0])}}}}
		for i, l := range lines {
			role := RoleReference
			if i == 0 {
				role = RoleDefinition
			}
			f.Occurrences = append(f.Occurrences, Occurrence{Symbol: local, Range: rng(l), Roles: role, Enclosing: "p.F"})
		}
		f.Occurrences = append(f.Occurrences, Occurrence{Symbol: "p.F", Range: rng(1), Roles: RoleDefinition})
		return f
	}
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []DocumentFacts{doc("a.go", la, 2, 3, 4), doc("b.go", lb, 5, 6)} {
		if err := g.PutDocument(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Commit(ctx, Manifest{}); err != nil {
		t.Fatal(err)
	}
	check := func(what, id, wantRefs, wantDefs, wantSym string) {
		t.Helper()
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		format := func(occs []Occurrence, err error) string {
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			var parts []string
			for _, o := range occs {
				parts = append(parts, fmt.Sprintf("%s@%d/%s", o.Path, o.Range.Start.Line, o.Roles))
			}
			return strings.Join(parts, " ")
		}
		if got := format(r.References(ctx, id, 0)); got != wantRefs {
			t.Errorf("%s: references of %q = %q, want %q", what, id, got, wantRefs)
		}
		if got := format(r.Definitions(ctx, id)); got != wantDefs {
			t.Errorf("%s: definitions of %q = %q, want %q", what, id, got, wantDefs)
		}
		sym, ok, err := r.Symbol(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got := "none"
		if ok {
			got = sym.DisplayName + "@" + sym.Def.Path
		}
		if got != wantSym {
			t.Errorf("%s: symbol %q = %s, want %s", what, id, got, wantSym)
		}
		found, err := r.FindSymbols(ctx, "x", false, 0)
		if err != nil || len(found) != 0 {
			t.Errorf("%s: FindSymbols(x) = %v, %v; want no local", what, found, err)
		}
		var dump strings.Builder
		if err := r.Dump(&dump); err != nil {
			t.Fatal(err)
		}
		for l := range strings.Lines(dump.String()) {
			for _, k := range []string{"/sym sym=\"local 1 a.go\" path=a.go", "/ref sym=\"local 1 a.go\" path=a.go", "/name name=x"} {
				if strings.Contains(l, k) {
					t.Errorf("%s: index record of a local: %s", what, l)
				}
			}
		}
	}
	check("base", la, "a.go@2/def a.go@3/ref a.go@4/ref", "a.go@2/def", "x@a.go")
	check("base", lb, "b.go@5/def b.go@6/ref", "b.go@5/def", "x@b.go")

	// The live a.go hides the base one's.
	if err := s.PutDocument(ctx, Live, doc("a.go", la, 7)); err != nil {
		t.Fatal(err)
	}
	check("live", la, "a.go@7/def", "a.go@7/def", "x@a.go")

	// A document using another document's local (a renamed document that
	// kept its old identities) is indexed as usual.
	c := doc("c.go", la, 9)
	c.Symbols = nil
	c.Occurrences[0].Roles = RoleReference
	if err := s.PutDocument(ctx, Live, c); err != nil {
		t.Fatal(err)
	}
	check("foreign", la, "a.go@7/def c.go@9/ref", "a.go@7/def", "x@a.go")

	// Replacing the documents leaves nothing of their locals.
	for _, l := range []Layer{Live, Base} {
		if err := s.PutDocument(ctx, l, DocumentFacts{Document: Document{Path: "a.go"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteDocument(ctx, Live, "c.go"); err != nil {
		t.Fatal(err)
	}
	check("replaced", la, "", "", "none")
	check("replaced", lb, "b.go@5/def b.go@6/ref", "b.go@5/def", "x@b.go")
}
