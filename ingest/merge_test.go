package ingest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/ingest"
)

func putBase(t *testing.T, s *graph.Store, path, text string) {
	t.Helper()
	f, err := graphtest.ParseFacts(graph.Document{Path: path, Language: "go", Source: graph.SourceSCIP}, text)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutDocument(context.Background(), graph.Base, f); err != nil {
		t.Fatal(err)
	}
}

// TestIdentityAndMerge: a definition that lands on a known symbol's Def
// uses its id, and the live document keeps the base facts it hides.
func TestIdentityAndMerge(t *testing.T) {
	root := workspace(t)
	s := graphtest.Open(t)
	putBase(t, s, "b/b.go", `
sym go:b.Add name=Add kind=function def=b/b.go@4:6-4:9 extent=4:1-4:40
occ go:b.Add 4:6-4:9 def
`)
	putBase(t, s, "a/a.go", `
sym go:a.Use name=Use kind=function def=a/a.go@5:6-5:9 extent=5:1-7:2
occ go:a.Use 5:6-5:9 def
occ go:b.Add 6:25-6:28 ref enc=go:a.Use
edge go:a.Use references go:b.Add conf=1 count=1 source=scip
`)
	l := ingest.New(s, ingest.Options{Root: root})
	a, b := uri(root, "a/a.go"), uri(root, "b/b.go")
	exchange(t, l, "textDocument/definition",
		fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":5,"character":%d}}`, a, addCol16),
		`{"uri":"`+b+`","range":`+rng(3, 5, 3, 8)+`}`)
	got := facts(t, s)
	for _, want := range []string{
		"sym go:a.Use name=Use kind=function",
		"edge go:a.Use -references-> go:b.Add conf=1.00 count=1 path=a/a.go layer=live source=lsp reason=lsp:definition",
		"occ a/a.go 6:25-6:28 go:b.Add ref enc=go:a.Use",
		"occ b/b.go 4:6-4:9 go:b.Add def",
	} {
		if !strings.Contains(got, want+"\n") && !strings.Contains(got, want+" ") {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "sym lsp") {
		t.Errorf("a location id was made for a known symbol:\n%s", got)
	}
}

// TestBuffers: positions are read against the editor's buffer (as its
// owner gives it), counted in the negotiated encoding.
func TestBuffers(t *testing.T) {
	root := workspace(t)
	s := graphtest.Open(t)
	// "\treturn /*𝄞*/ b.Add(1, 2)" in place of "\treturn 0" on line 3.
	buffer := map[string][]byte{"a/a.go": []byte("package a\n\nfunc Use() int {\n\treturn /*𝄞*/ b.Add(1, 2)\n}\n")}
	l := ingest.New(s, ingest.Options{Buffer: func(p string) ([]byte, bool) { b, ok := buffer[p]; return b, ok }})
	l.SetRoot(uri(root, ""))
	a, b := uri(root, "a/a.go"), uri(root, "b/b.go")
	// "\treturn /*𝄞*/ b." is 1+7+2+2+2+1+2 = 17 UTF-16 units.
	exchange(t, l, "textDocument/definition",
		`{"textDocument":{"uri":"`+a+`"},"position":{"line":3,"character":17}}`,
		`[{"uri":"`+b+`","range":`+rng(3, 5, 3, 8)+`}]`)
	got := facts(t, s)
	// In bytes: "\treturn /*" is 10, 𝄞 4, "*/ b." 5: Add at 19, 1-based 20.
	if !strings.Contains(got, "occ a/a.go 4:20-4:23 lsp b/b.go:4:6 ref\n") {
		t.Errorf("reference not at the buffer's position:\n%s", got)
	}
}

func TestImplementation(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"s/s.go": "package s\n\ntype Store interface {\n\tPut(k string)\n}\n\ntype Mem struct{}\n\nfunc (m *Mem) Put(k string) {}\n"}
	writeFiles(t, root, files)
	s := graphtest.Open(t)
	l := ingest.New(s, ingest.Options{Root: root})
	u := uri(root, "s/s.go")
	exchange(t, l, "textDocument/documentSymbol", `{"textDocument":{"uri":"`+u+`"}}`,
		`[{"name":"Store","kind":11,"range":`+rng(2, 0, 4, 1)+`,"selectionRange":`+rng(2, 5, 2, 10)+`,"children":[{"name":"Put","kind":6,"range":`+rng(3, 1, 3, 14)+`,"selectionRange":`+rng(3, 1, 3, 4)+`}]},`+
			`{"name":"Mem","kind":23,"range":`+rng(6, 0, 6, 17)+`,"selectionRange":`+rng(6, 5, 6, 8)+`},`+
			`{"name":"(*Mem).Put","kind":6,"range":`+rng(8, 0, 8, 30)+`,"selectionRange":`+rng(8, 14, 8, 17)+`}]`)
	// Asked on the interface method: the concrete method implements it.
	exchange(t, l, "textDocument/implementation", `{"textDocument":{"uri":"`+u+`"},"position":{"line":3,"character":2}}`,
		`[{"uri":"`+u+`","range":`+rng(8, 14, 8, 17)+`}]`)
	// Asked on the concrete type: it implements the interface.
	exchange(t, l, "textDocument/implementation", `{"textDocument":{"uri":"`+u+`"},"position":{"line":6,"character":6}}`,
		`[{"uri":"`+u+`","range":`+rng(2, 5, 2, 10)+`}]`)
	got := facts(t, s, "s/s.go")
	for _, want := range []string{
		"edge lsp s/s.go:9:15 -implements-> lsp s/s.go:4:2 ",
		"edge lsp s/s.go:7:6 -implements-> lsp s/s.go:3:6 ",
		"edge lsp s/s.go:3:6 -contains-> lsp s/s.go:4:2 ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "lsp s/s.go:4:2 -implements->") || strings.Contains(got, "lsp s/s.go:3:6 -implements->") {
		t.Errorf("an interface implements something:\n%s", got)
	}
}

// TestSymbolInformation: a flat SymbolInformation answer (what gopls gives
// a client without hierarchical support) locates each name inside its
// extent, qualified names included; workspace/symbol keeps only locations
// that are exactly a name.
func TestSymbolInformation(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"c/c.go": "package c\n\ntype Catalog struct{}\n\nfunc (c *Catalog) Save() error { return nil }\n"})
	s := graphtest.Open(t)
	l := ingest.New(s, ingest.Options{Root: root})
	u := uri(root, "c/c.go")
	loc := func(l1, c1, l2, c2 int) string { return `{"uri":"` + u + `","range":` + rng(l1, c1, l2, c2) + `}` }
	exchange(t, l, "textDocument/documentSymbol", `{"textDocument":{"uri":"`+u+`"}}`,
		`[{"name":"Catalog","kind":23,"location":`+loc(2, 0, 2, 21)+`},{"name":"(*Catalog).Save","kind":6,"location":`+loc(4, 0, 4, 44)+`}]`)
	exchange(t, l, "workspace/symbol", `{"query":"Save"}`,
		`[{"name":"Save","kind":6,"location":`+loc(4, 18, 4, 22)+`},{"name":"Catalog","kind":23,"location":`+loc(2, 0, 2, 21)+`}]`)
	got := facts(t, s, "c/c.go")
	want := `sym lsp c/c.go:3:6 name=Catalog kind=struct lang=go def=c/c.go@3:6-3:13 extent=3:1-3:22
sym lsp c/c.go:5:19 name=(*Catalog).Save kind=method lang=go def=c/c.go@5:19-5:23 extent=5:1-5:45
occ c/c.go 3:6-3:13 lsp c/c.go:3:6 def
occ c/c.go 5:19-5:23 lsp c/c.go:5:19 def
`
	if got != want {
		t.Errorf("facts:\n%s\nwant:\n%s", got, want)
	}
}
