package overlay

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

func TestSCIPDescriptors(t *testing.T) {
	for _, c := range []struct {
		sym  string
		want []string
		ok   bool
	}{
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/Catalog#Save().", []string{"Catalog", "Save"}, true},
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/store`/Store#Put.", []string{"Store", "Put"}, true},
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/", nil, true},
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/cmd/goapp`/init(+1).", []string{"init"}, true},
		{"scip-typescript npm pkg 1.0.0 src/`a.ts`/C#m().(x)", []string{"C", "m"}, true},
		{"scip-python python proj 0.1 `pkg.mod`/Cls#`weird``name`.", []string{"Cls", "weird`name"}, true},
		{"scip-go gomod my  mod 1 a/F().", []string{"F"}, true}, // escaped space in the package name
		{"local 4", nil, false},
		{"lsp a.go:3:6", nil, false},
		{"syntax go example.com/goapp/service Catalog.Save", nil, false},
	} {
		got, ok := scipDescriptors(c.sym)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("scipDescriptors(%q) = %q, %v; want %q, %v", c.sym, got, ok, c.want, c.ok)
		}
	}
}

func TestSyntaxEquivalent(t *testing.T) {
	for _, c := range []struct {
		s    graph.Symbol
		want string
	}{
		{graph.Symbol{ID: "scip-go gomod m 1 `m/service`/Catalog#Save().", Language: "go", Package: "m/service"}, "syntax go m/service Catalog.Save"},
		{graph.Symbol{ID: "scip-go gomod m 1 `m/service`/", Language: "go", Package: "m/service"}, "syntax go m/service"},
		{graph.Symbol{ID: "syntax go m/service Catalog", Language: "go", Package: "m/service"}, ""},
		{graph.Symbol{ID: "scip-python python p 1 `m`/f().", Language: "python", Package: "m"}, ""},
	} {
		got, _ := syntaxEquivalent(c.s)
		if got != c.want {
			t.Errorf("syntaxEquivalent(%s) = %q, want %q", c.s.ID, got, c.want)
		}
	}
}

func at(line uint32) graph.Location {
	return graph.Location{Path: "a.go", Range: textpos.Range{Start: textpos.Position{Line: line}, End: textpos.Position{Line: line, Col: 3}}}
}

// TestDefMap: definitions match by qualified name and kind, then by name
// and the nearest position; locals never match; a new definition keeps its
// syntax identity.
func TestDefMap(t *testing.T) {
	base := []graph.Symbol{
		{ID: "scip-go gomod m 1 `m/a`/T#", DisplayName: "T", Kind: "struct", Def: at(3)},
		{ID: "scip-go gomod m 1 `m/a`/T#Run().", DisplayName: "Run", Kind: "method", Def: at(10)},
		{ID: "scip-go gomod m 1 `m/a`/U#Run().", DisplayName: "Run", Kind: "method", Def: at(20)},
		{ID: "scip-go gomod m 1 `m/a`/Alias#", DisplayName: "Alias", Kind: "type", Def: at(30)},
		{ID: "scip-go gomod m 1 `m/a`/init().", DisplayName: "init", Kind: "function", Def: at(40)},
		{ID: "scip-go gomod m 1 `m/a`/init(+1).", DisplayName: "init", Kind: "function", Def: at(50)},
		{ID: "local 1 a.go", DisplayName: "Gone", Kind: "local", Def: at(60)},
	}
	syms := []graph.Symbol{
		{ID: "syntax go m/a T", DisplayName: "T", Kind: "struct", Def: at(4)},
		{ID: "syntax go m/a U.Run", DisplayName: "Run", Kind: "method", Def: at(12)}, // qualified name beats position
		{ID: "syntax go m/a T.Run", DisplayName: "Run", Kind: "method", Def: at(22)},
		{ID: "syntax go m/a Alias", DisplayName: "Alias", Kind: "interface", Def: at(31)}, // kind changed: by name
		{ID: "syntax go m/a init", DisplayName: "init", Kind: "function", Def: at(49)},    // nearest of two
		{ID: "syntax go m/a Gone", DisplayName: "Gone", Kind: "function", Def: at(60)},    // locals never match
		{ID: "syntax go m/a New", DisplayName: "New", Kind: "function", Def: at(70)},
	}
	got := defMap(syms, base)
	want := map[string]string{
		"syntax go m/a T":     "scip-go gomod m 1 `m/a`/T#",
		"syntax go m/a U.Run": "scip-go gomod m 1 `m/a`/U#Run().",
		"syntax go m/a T.Run": "scip-go gomod m 1 `m/a`/T#Run().",
		"syntax go m/a Alias": "scip-go gomod m 1 `m/a`/Alias#",
		"syntax go m/a init":  "scip-go gomod m 1 `m/a`/init(+1).",
	}
	if !maps.Equal(got, want) {
		t.Errorf("defMap =\n%v\nwant\n%v", got, want)
	}
}

// TestToPrecise: identities are rewritten, a rewritten edge keeps its
// syntax confidence with a note, and an edge the base justified too takes
// the base's confidence.
func TestToPrecise(t *testing.T) {
	df := graph.DocumentFacts{
		Symbols:     []graph.Symbol{{ID: "syntax go m/a F"}, {ID: "syntax go m/a New"}},
		Occurrences: []graph.Occurrence{{Symbol: "syntax go m/b G", Enclosing: "syntax go m/a F"}},
		Edges: []graph.Edge{
			{From: "syntax go m/a F", To: "syntax go m/b G", Kind: graph.EdgeCalls, Confidence: 0.6, Source: graph.SourceSyntax, Reason: "syntax:unique-global-name"},
			{From: "syntax go m/a New", To: "syntax go m/b H", Kind: graph.EdgeCalls, Confidence: 0.85, Source: graph.SourceSyntax, Reason: "syntax:imported-package"},
			{From: "syntax go m/a New", To: "syntax go m/a Other", Kind: graph.EdgeCalls, Confidence: 0.9, Source: graph.SourceSyntax, Reason: "syntax:same-file"},
		},
	}
	aliases := &aliasLookup{alias: map[string]string{"syntax go m/b G": "scip G", "syntax go m/b H": "scip H"}}
	base := []graph.Edge{{From: "scip F", To: "scip G", Kind: graph.EdgeCalls, Confidence: 1, Source: graph.SourceSCIP}}
	toPrecise(&df, map[string]string{"syntax go m/a F": "scip F"}, aliases, graph.SourceSCIP, base)
	if df.Symbols[0].ID != "scip F" || df.Symbols[1].ID != "syntax go m/a New" {
		t.Errorf("symbols = %+v", df.Symbols)
	}
	if o := df.Occurrences[0]; o.Symbol != "scip G" || o.Enclosing != "scip F" {
		t.Errorf("occurrence = %+v", o)
	}
	want := []graph.Edge{
		{From: "scip F", To: "scip G", Kind: graph.EdgeCalls, Confidence: 1, Source: graph.SourceSyntax, Reason: "syntax:unique-global-name→scip (confirmed by the base)"},
		{From: "syntax go m/a New", To: "scip H", Kind: graph.EdgeCalls, Confidence: 0.85, Source: graph.SourceSyntax, Reason: "syntax:imported-package→scip"},
		{From: "syntax go m/a New", To: "syntax go m/a Other", Kind: graph.EdgeCalls, Confidence: 0.9, Source: graph.SourceSyntax, Reason: "syntax:same-file"},
	}
	if !slices.Equal(df.Edges, want) {
		t.Errorf("edges =\n%+v\nwant\n%+v", df.Edges, want)
	}
}

func TestReceiverName(t *testing.T) {
	for _, c := range []struct{ in, typ, name string }{
		{"(*Catalog).Save", "Catalog", "Save"},
		{"(Catalog).Save", "Catalog", "Save"},
		{"(*List[T]).Len", "List", "Len"},
		{"Save", "", ""},
		{"(bad", "", ""},
	} {
		typ, name, _ := receiverName(c.in)
		if typ != c.typ || name != c.name {
			t.Errorf("receiverName(%q) = %q, %q; want %q, %q", c.in, typ, name, c.typ, c.name)
		}
	}
}

// TestDefMapLanguageServer: a language server's symbols are named by
// location; methods match through their receiver form and fields through
// the type whose extent contains them.
func TestDefMapLanguageServer(t *testing.T) {
	ext := func(from, to uint32) textpos.Range {
		return textpos.Range{Start: textpos.Position{Line: from}, End: textpos.Position{Line: to}}
	}
	base := []graph.Symbol{
		{ID: "lsp a.go:4:6", DisplayName: "T", Kind: "struct", Def: at(3), DefExtent: ext(3, 6)},
		{ID: "lsp a.go:5:2", DisplayName: "st", Kind: "field", Def: at(4), DefExtent: ext(4, 4)},
		{ID: "lsp a.go:11:2", DisplayName: "st", Kind: "field", Def: at(10), DefExtent: ext(10, 10)}, // in U
		{ID: "lsp a.go:10:6", DisplayName: "U", Kind: "struct", Def: at(9), DefExtent: ext(9, 12)},
		{ID: "lsp a.go:21:16", DisplayName: "(*U).Run", Kind: "method", Def: at(20), DefExtent: ext(20, 25)},
		{ID: "lsp a.go:31:16", DisplayName: "(T).Run", Kind: "method", Def: at(30), DefExtent: ext(30, 35)},
	}
	syms := []graph.Symbol{
		{ID: "syntax go m/a T.Run", DisplayName: "Run", Kind: "method", Def: at(21)},
		{ID: "syntax go m/a U.Run", DisplayName: "Run", Kind: "method", Def: at(31)},
		{ID: "syntax go m/a U.st", DisplayName: "st", Kind: "field", Def: at(4)},
		{ID: "syntax go m/a T.st", DisplayName: "st", Kind: "field", Def: at(10)},
	}
	got := defMap(syms, base)
	want := map[string]string{
		"syntax go m/a T.Run": "lsp a.go:31:16",
		"syntax go m/a U.Run": "lsp a.go:21:16",
		"syntax go m/a U.st":  "lsp a.go:11:2",
		"syntax go m/a T.st":  "lsp a.go:5:2",
	}
	if !maps.Equal(got, want) {
		t.Errorf("defMap =\n%v\nwant\n%v", got, want)
	}
}

// TestAliasLookup: precise workspace symbols are presented under their
// syntax-equivalent identity and win it over a syntax symbol and over an
// external symbol of another module version; the alias leads back.
func TestAliasLookup(t *testing.T) {
	ctx := context.Background()
	st, err := graph.Open("alias", graph.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const (
		ws  = "scip-go gomod m 1.0 `m/a`/F()."
		ext = "scip-go gomod m 0.9 `m/a`/F()."
		syn = "syntax go m/a F"
	)
	put := func(layer graph.Layer, path string, syms ...graph.Symbol) {
		t.Helper()
		if err := st.PutDocument(ctx, layer, graph.DocumentFacts{Document: graph.Document{Path: path}, Symbols: syms}); err != nil {
			t.Fatal(err)
		}
	}
	put(graph.Base, "a/a.go", graph.Symbol{ID: ws, DisplayName: "F", Kind: "function", Language: "go", Package: "m/a", Def: graph.Location{Path: "a/a.go"}})
	put(graph.Base, "b/b.go", graph.Symbol{ID: ext, DisplayName: "F", Kind: "function", Language: "go", Package: "m/a", External: true})
	put(graph.Live, "a/new.go", graph.Symbol{ID: syn, DisplayName: "F", Kind: "function", Language: "go", Package: "m/a", Def: graph.Location{Path: "a/new.go"}})
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l := newAliasLookup(new(nameCache).finder(r), graph.SourceSCIP)
	syms, err := l.Named(ctx, "F")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range syms {
		got = append(got, s.ID)
	}
	slices.Sort(got)
	if want := []string{ext, syn, syn}; !slices.Equal(got, want) {
		t.Errorf("Named(F) ids = %q, want %q", got, want)
	}
	if p, ok := l.lookup(syn); !ok || p != ws {
		t.Errorf("alias of %q = %q, %v; want %q", syn, p, ok, ws)
	}
}
