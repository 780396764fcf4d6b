package graph

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// TestBaseDocumentSymbols: the base version's symbols and edges of a document stay
// readable while the live layer hides them from every other read.
func TestBaseDocumentSymbols(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	base := DocumentFacts{
		Document: Document{Path: "a.go", Source: SourceSCIP},
		Symbols:  []Symbol{{ID: "scip a/F().", DisplayName: "F", Kind: "function", Def: Location{Path: "a.go"}}},
		Edges:    []Edge{{From: "scip a/F().", To: "scip a/H().", Kind: EdgeCalls, Confidence: 1, Source: SourceSCIP, Reason: "scip:call", Count: 2}},
	}
	if err := s.PutDocument(ctx, Base, base); err != nil {
		t.Fatal(err)
	}
	live := DocumentFacts{
		Document: Document{Path: "a.go", Source: SourceSyntax},
		Symbols:  []Symbol{{ID: "syntax go a G", DisplayName: "G", Kind: "function", Def: Location{Path: "a.go"}}},
	}
	if err := s.PutDocument(ctx, Live, live); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ids := func(syms []Symbol, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range syms {
			out = append(out, s.ID)
		}
		return out
	}
	if got := ids(r.DocumentSymbols(ctx, "a.go")); len(got) != 1 || got[0] != "syntax go a G" {
		t.Errorf("DocumentSymbols = %v, want the live version's", got)
	}
	var each []Symbol
	err = r.EachDocumentSymbol(ctx, "a.go", func(s Symbol) error {
		s.ID, s.DisplayName, s.Kind, s.Def.Path = strings.Clone(s.ID), strings.Clone(s.DisplayName), strings.Clone(s.Kind), strings.Clone(s.Def.Path)
		each = append(each, s)
		return nil
	})
	if want, _ := r.DocumentSymbols(ctx, "a.go"); err != nil || !reflect.DeepEqual(each, want) {
		t.Errorf("EachDocumentSymbol = %+v, %v; want DocumentSymbols' %+v", each, err, want)
	}
	if got := ids(r.BaseDocumentSymbols(ctx, "a.go")); len(got) != 1 || got[0] != "scip a/F()." {
		t.Errorf("BaseDocumentSymbols = %v, want the base version's", got)
	}
	if got := ids(r.BaseDocumentSymbols(ctx, "b.go")); len(got) != 0 {
		t.Errorf("BaseDocumentSymbols of a missing document = %v", got)
	}
	if out, err := r.Outgoing(ctx, "scip a/F().", EdgeFilter{}); err != nil || len(out) != 0 {
		t.Errorf("Outgoing(F) = %v, %v; want the base edge hidden", out, err)
	}
	edges, err := r.BaseDocumentEdges(ctx, "a.go")
	if err != nil {
		t.Fatal(err)
	}
	want := Edge{From: "scip a/F().", To: "scip a/H().", Kind: EdgeCalls, Confidence: 1, Source: SourceSCIP, Reason: "scip:call", Count: 2, Path: "a.go", Layer: Base}
	if len(edges) != 1 || edges[0] != want {
		t.Errorf("BaseDocumentEdges = %+v, want [%+v]", edges, want)
	}
}

// TestEachSymbolByDocument: every visible document's symbols, in the
// order Documents lists the documents (live ones among the base's by
// path, a live version hiding the base's), as DocumentSymbols reads each.
func TestEachSymbolByDocument(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	put := func(layer Layer, path string, ids ...string) {
		t.Helper()
		f := DocumentFacts{Document: Document{Path: path, Source: SourceSyntax}}
		for _, id := range ids {
			f.Symbols = append(f.Symbols, Symbol{ID: id, DisplayName: id, Kind: "function", Def: Location{Path: path}})
		}
		if err := s.PutDocument(ctx, layer, f); err != nil {
			t.Fatal(err)
		}
	}
	put(Base, "a.go", "base A")
	put(Base, "b.go", "base B1", "base B2")
	put(Base, "d.go", "base D")
	put(Base, "e.go") // no symbols
	put(Live, "a.go", "live A")
	put(Live, "c.go", "live C")
	put(Live, "f.go", "live F")
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var want []string
	err = r.Documents(ctx, func(d Document) error {
		syms, err := r.DocumentSymbols(ctx, d.Path)
		for _, sym := range syms {
			want = append(want, d.Path+" "+sym.ID)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = r.EachSymbolByDocument(ctx, func(path string, sym Symbol) error {
		got = append(got, path+" "+sym.ID)
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("EachSymbolByDocument: %q, %v; want %q", got, err, want)
	}
	if len(want) != 6 || want[0] != "a.go live A" {
		t.Fatalf("the reference itself is off: %q", want)
	}
}

// TestEachOccurrence: EachOccurrence gives what Occurrences returns, from
// the layer that owns the document.
func TestEachOccurrence(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	occ := func(line uint32, sym, enclosing string, roles Role) Occurrence {
		return Occurrence{Path: "a.go", Range: textpos.Range{Start: textpos.Position{Line: line, Col: 1}, End: textpos.Position{Line: line, Col: 4}}, Symbol: sym, Roles: roles, Enclosing: enclosing}
	}
	base := DocumentFacts{Document: Document{Path: "a.go", Source: SourceSCIP}, Occurrences: []Occurrence{occ(1, "scip a/F().", "", RoleDefinition)}}
	live := DocumentFacts{Document: Document{Path: "a.go", Source: SourceSyntax}, Occurrences: []Occurrence{
		occ(1, "syntax go a G", "", RoleDefinition), occ(2, "syntax go a H", "syntax go a G", 0), occ(3, "syntax go a H", "syntax go a G", 0),
	}}
	for layer, f := range map[Layer]DocumentFacts{Base: base, Live: live} {
		if err := s.PutDocument(ctx, layer, f); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want, err := r.Occurrences(ctx, "a.go")
	if err != nil || len(want) != 3 {
		t.Fatalf("Occurrences = %+v, %v; want the live version's three", want, err)
	}
	var got []Occurrence
	err = r.EachOccurrence(ctx, "a.go", func(o Occurrence) error {
		o.Path, o.Symbol, o.Enclosing = strings.Clone(o.Path), strings.Clone(o.Symbol), strings.Clone(o.Enclosing)
		got = append(got, o)
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("EachOccurrence = %+v, %v; want %+v", got, err, want)
	}
	if err := r.EachOccurrence(ctx, "none.go", func(Occurrence) error { t.Error("an occurrence of a missing document"); return nil }); err != nil {
		t.Fatal(err)
	}
}
