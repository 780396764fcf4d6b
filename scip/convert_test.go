package scip

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/scip-code/scip/bindings/go/scip"
)

func TestMapRoles(t *testing.T) {
	cases := []struct {
		scip int32
		want graph.Role
	}{
		{0, graph.RoleReference},
		{int32(scip.SymbolRole_Definition), graph.RoleDefinition},
		{int32(scip.SymbolRole_Import | scip.SymbolRole_ReadAccess), graph.RoleReference | graph.RoleImport | graph.RoleRead},
		{int32(scip.SymbolRole_Definition | scip.SymbolRole_WriteAccess | scip.SymbolRole_Generated), graph.RoleDefinition | graph.RoleWrite | graph.RoleGenerated},
		{int32(scip.SymbolRole_Test | scip.SymbolRole_ForwardDefinition), graph.RoleReference | graph.RoleTest | graph.RoleForwardDefinition},
	}
	for _, c := range cases {
		if got := mapRoles(c.scip); got != c.want {
			t.Errorf("mapRoles(%d) = %b, want %b", c.scip, got, c.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	cases := []struct {
		sym, lang               string
		info                    *scip.SymbolInformation
		name, kind, pkg, parent string
	}{
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/Catalog#Save().", "go", nil,
			"Save", "method", "example.com/goapp/service", "scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/Catalog#"},
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/NewCatalog().", "go", nil,
			"NewCatalog", "function", "example.com/goapp/service", "scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/"},
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/store`/", "go", nil,
			"example.com/goapp/store", "package", "example.com/goapp/store", ""},
		{"scip-go gomod github.com/golang/go/src go1.26.0 `testing/internal/testdeps`/TestDeps#", "go", nil,
			"TestDeps", "type", "testing/internal/testdeps", "scip-go gomod github.com/golang/go/src go1.26.0 `testing/internal/testdeps`/"},
		{"scip-typescript npm @shop/order 0.1.0 src/`index.ts`/Order#lines.", "typescript", nil,
			"lines", "field", "@shop/order", "scip-typescript npm @shop/order 0.1.0 src/`index.ts`/Order#"},
		{"scip-typescript npm @shop/order 0.1.0 src/`index.ts`/HEADER.", "typescript", nil,
			"HEADER", "variable", "@shop/order", "scip-typescript npm @shop/order 0.1.0 src/`index.ts`/"},
		{"scip-typescript npm @vue/shared 3.5.41 src/`domAttrConfig.ts`/acceptCharset0:", "typescript", nil,
			"acceptCharset0", "property", "@vue/shared", "scip-typescript npm @vue/shared 3.5.41 src/`domAttrConfig.ts`/"},
		{"scip-typescript npm @tanstack/store 0.11.1 src/`atom.ts`/toObserver().[T]", "typescript", nil,
			"T", "type-parameter", "@tanstack/store", "scip-typescript npm @tanstack/store 0.11.1 src/`atom.ts`/toObserver()."},
		{"scip-typescript npm @shop/order 0.1.0 src/`index.ts`/checkout().(lines)", "typescript", nil,
			"lines", "parameter", "@shop/order", "scip-typescript npm @shop/order 0.1.0 src/`index.ts`/checkout()."},
		{"scip-python python shop 0.1.0 `shop.orders`/__init__:", "python", nil,
			"shop.orders", "module", "shop.orders", "scip-python python shop 0.1.0 `shop.orders`/"},
		{"scip-python python shop 0.1.0 `shop.orders`/Order#line_price().", "python", nil,
			"line_price", "method", "shop.orders", "scip-python python shop 0.1.0 `shop.orders`/Order#"},
		{"rust-analyzer cargo std 1.0 macros/println!", "rust", nil, "println", "macro", "std", "rust-analyzer cargo std 1.0 macros/"},
		{"local 3", "go", nil, "", "local", "", ""},
		{"local 3", "go", &scip.SymbolInformation{Kind: scip.SymbolInformation_Variable, DisplayName: "err"}, "err", "variable", "", ""},
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/Catalog#", "go",
			&scip.SymbolInformation{Kind: scip.SymbolInformation_Struct, DisplayName: "Catalog"},
			"Catalog", "struct", "example.com/goapp/service", "scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/"},
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/store`/Alias#", "go",
			&scip.SymbolInformation{Kind: scip.SymbolInformation_TypeAlias}, "Alias", "type", "example.com/goapp/store", "scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/store`/"},
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/store`/T#[K]", "go",
			&scip.SymbolInformation{Kind: scip.SymbolInformation_TypeParameter}, "K", "type-parameter", "example.com/goapp/store", "scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/store`/T#"},
		{"not a symbol", "go", nil, "", "", "", ""},
	}
	for _, c := range cases {
		d := describe(c.sym, c.info, c.lang)
		if d.DisplayName != c.name || d.Kind != c.kind || d.Package != c.pkg || d.Parent != c.parent {
			t.Errorf("describe(%q) = name %q kind %q package %q parent %q\nwant name %q kind %q package %q parent %q",
				c.sym, d.DisplayName, d.Kind, d.Package, d.Parent, c.name, c.kind, c.pkg, c.parent)
		}
	}
}

func TestSignatureAndDoc(t *testing.T) {
	cases := []struct {
		info     *scip.SymbolInformation
		sig, doc string
	}{
		{&scip.SymbolInformation{ // scip-typescript: signature block, then prose
			Documentation: []string{"```ts\nfunction quote(unitCents: number): number\n```", "quote prices a line.\n\nMore detail."},
		}, "function quote(unitCents: number): number", "quote prices a line."},
		{&scip.SymbolInformation{ // scip-go: prose, signature apart
			Documentation:          []string{"NewCache creates a new cache of the specified size. Memory\nis allocated on demand.\n\n\tc := pebble.NewCache(...)"},
			SignatureDocumentation: &scip.Signature{Text: "func NewCache(size int64) *cache.Cache"},
		}, "func NewCache(size int64) *cache.Cache", "NewCache creates a new cache of the specified size. Memory is allocated on demand."},
		{&scip.SymbolInformation{ // prose with a code block inside: the block is dropped
			Documentation: []string{"```python\ndef f() -> int:\n```", "```\nexample()\n```\nCalls example."},
		}, "def f() -> int:", "Calls example."},
		{&scip.SymbolInformation{Documentation: []string{"(module) shop.orders"}}, "", "(module) shop.orders"},
		{&scip.SymbolInformation{}, "", ""},
	}
	for _, c := range cases {
		sig, doc := signatureAndDoc(c.info)
		if sig != c.sig || doc != c.doc {
			t.Errorf("signatureAndDoc(%v) = %q, %q\nwant %q, %q", c.info.Documentation, sig, doc, c.sig, c.doc)
		}
	}
}

// goDoc builds a scip-go-like document: occurrences given as
// "line:start-end role symbol [enclosing line:col-line:col]".
func goDoc(t *testing.T, lines ...string) *scip.Document {
	t.Helper()
	d := &scip.Document{RelativePath: "p/p.go", Language: "go"}
	for _, l := range lines {
		var line, start, end int32
		pos, rest, _ := strings.Cut(l, " ")
		role, sym, _ := strings.Cut(rest, " ")
		sym, enc, hasEnc := strings.Cut(sym, " [")
		if _, err := fmt.Sscanf(pos, "%d:%d-%d", &line, &start, &end); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		o := &scip.Occurrence{Range: []int32{line, start, end}, Symbol: sym}
		if role == "def" {
			o.SymbolRoles = int32(scip.SymbolRole_Definition)
		}
		if role == "import" {
			o.SymbolRoles = int32(scip.SymbolRole_Import)
		}
		if hasEnc {
			var a, b, c, e int32
			if _, err := fmt.Sscanf(enc, "%d:%d-%d:%d]", &a, &b, &c, &e); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			o.EnclosingRange = []int32{a, b, c, e}
		}
		d.Occurrences = append(d.Occurrences, o)
	}
	return d
}

const pkg = "scip-go gomod m 1 `m/p`/"

func TestEnclosingAndEdges(t *testing.T) {
	// package p                        line 0
	// import "m/q"                     line 2
	// type T struct {                  line 4 (no enclosing range: computed)
	//     a q.A                        line 5
	//     b int                        line 6
	// }
	// func (t *T) M(x int) { q.F(x); helper(); t.a; l := 1; l }   lines 9-11 (explicit)
	// var V = q.F                      line 13 (computed)
	d := goDoc(t,
		"0:8-9 def "+pkg,
		"2:8-11 import scip-go gomod m 1 `m/q`/",
		"4:5-6 def "+pkg+"T#",
		"5:1-2 def "+pkg+"T#a.",
		"5:3-4 ref scip-go gomod m 1 `m/q`/",
		"5:5-6 ref scip-go gomod m 1 `m/q`/A#",
		"6:1-2 def "+pkg+"T#b.",
		"9:12-13 def "+pkg+"T#M(). [9:0-11:1]",
		"9:14-15 def "+pkg+"T#M().(x)",
		"10:1-2 ref scip-go gomod m 1 `m/q`/",
		"10:3-4 ref scip-go gomod m 1 `m/q`/F().",
		"10:5-6 ref "+pkg+"T#M().(x)",
		"10:9-15 ref "+pkg+"helper().",
		"10:20-21 ref "+pkg+"T#a.",
		"10:23-24 def local 0",
		"10:30-31 ref local 0",
		"10:33-34 ref scip-go gomod m 1 `m/q`/F().",
		"13:4-5 def "+pkg+"V.",
		"13:8-9 ref scip-go gomod m 1 `m/q`/",
		"13:10-11 ref scip-go gomod m 1 `m/q`/F().",
	)
	facts, st := (&Converter{Tool: "scip-go"}).Convert(d, "p/p.go", nil)
	if st.Unverified || st.Encoding.String() != "utf-8" {
		t.Errorf("stats %+v: a scip-go document is UTF-8 and needs no text", st)
	}
	short := func(s string) string {
		if s == pkg {
			return "p/"
		}
		return strings.TrimPrefix(s, pkg)
	}
	var got []string
	for _, o := range facts.Occurrences {
		got = append(got, fmt.Sprintf("%s %s <- %s", o.Range, short(o.Symbol), short(o.Enclosing)))
	}
	want := []string{
		"1:9-1:10 p/ <- ", // the package clause encloses nothing but itself
		"3:9-3:12 scip-go gomod m 1 `m/q`/ <- p/",
		"5:6-5:7 T# <- p/",
		"6:2-6:3 T#a. <- T#",
		"6:4-6:5 scip-go gomod m 1 `m/q`/ <- T#a.",
		"6:6-6:7 scip-go gomod m 1 `m/q`/A# <- T#a.",
		"7:2-7:3 T#b. <- T#",
		"10:13-10:14 T#M(). <- p/",
		"10:15-10:16 T#M().(x) <- T#M().",
		"11:2-11:3 scip-go gomod m 1 `m/q`/ <- T#M().",
		"11:4-11:5 scip-go gomod m 1 `m/q`/F(). <- T#M().",
		"11:6-11:7 T#M().(x) <- T#M().",
		"11:10-11:16 helper(). <- T#M().",
		"11:21-11:22 T#a. <- T#M().",
		"11:24-11:25 local 0 p/p.go <- T#M().",
		"11:31-11:32 local 0 p/p.go <- T#M().",
		"11:34-11:35 scip-go gomod m 1 `m/q`/F(). <- T#M().",
		"14:5-14:6 V. <- p/",
		"14:9-14:10 scip-go gomod m 1 `m/q`/ <- V.",
		"14:11-14:12 scip-go gomod m 1 `m/q`/F(). <- V.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("occurrences:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	got = got[:0]
	for _, e := range facts.Edges {
		got = append(got, fmt.Sprintf("%s -%s-> %s ×%d %s", short(e.From), e.Kind, short(e.To), e.Count, e.Reason))
	}
	slices.Sort(got)
	want = []string{
		"T# -contains-> T#M(). ×1 " + ReasonContains,
		"T# -contains-> T#a. ×1 " + ReasonContains,
		"T# -contains-> T#b. ×1 " + ReasonContains,
		"T#M(). -calls-> helper(). ×1 " + ReasonCall,
		"T#M(). -calls-> scip-go gomod m 1 `m/q`/F(). ×2 " + ReasonCall,
		"T#M(). -references-> T#a. ×1 " + ReasonReference,
		"T#M(). -references-> helper(). ×1 " + ReasonReference,
		"T#M(). -references-> scip-go gomod m 1 `m/q`/ ×1 " + ReasonReference,
		"T#M(). -references-> scip-go gomod m 1 `m/q`/F(). ×2 " + ReasonReference,
		"T#a. -references-> scip-go gomod m 1 `m/q`/ ×1 " + ReasonReference,
		"T#a. -references-> scip-go gomod m 1 `m/q`/A# ×1 " + ReasonReference,
		"V. -calls-> scip-go gomod m 1 `m/q`/F(). ×1 " + ReasonCall,
		"V. -references-> scip-go gomod m 1 `m/q`/ ×1 " + ReasonReference,
		"V. -references-> scip-go gomod m 1 `m/q`/F(). ×1 " + ReasonReference,
		"p/ -contains-> T# ×1 " + ReasonContains,
		"p/ -contains-> V. ×1 " + ReasonContains,
		"p/ -imports-> scip-go gomod m 1 `m/q`/ ×1 " + ReasonImport,
		"p/ -references-> scip-go gomod m 1 `m/q`/ ×1 " + ReasonReference,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("edges:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	ext := make(map[string]graph.Symbol)
	for _, s := range facts.Symbols {
		ext[strings.TrimPrefix(s.ID, pkg)] = s
	}
	if s := ext["T#"]; s.DefExtent.String() != "5:6-10:1" || s.External {
		t.Errorf("T#: extent %s external %v; want 5:6-10:1 (name to the method's range), defined here", s.DefExtent, s.External)
	}
	if s := ext["V."]; s.DefExtent.String() != "14:5-14:12" {
		t.Errorf("V.: extent %s, want 14:5-14:12 (to the document's last occurrence)", s.DefExtent)
	}
	if _, ok := ext["helper()."]; ok {
		t.Error("helper(). of the same SCIP package got an external stub")
	}
	if _, ok := ext["local 0 p/p.go"]; !ok {
		t.Error("the local is not keyed by its document")
	}
}

// TestConverterDescribeCache checks that the converter's cached
// description of a symbol, with and without its SymbolInformation and in
// either order, is what describe computes afresh.
func TestConverterDescribeCache(t *testing.T) {
	syms := []string{
		"scip-go gomod example.com/m v1 `example.com/m/pkg`/Type#Method().",
		"scip-typescript npm pkg 1.0 src/`a.ts`/C#m().",
		"scip-python python proj 0.1 `flask.json.provider`/__init__:",
		"local 4",
		"not a symbol",
	}
	infos := []*scip.SymbolInformation{
		nil,
		{DisplayName: "Named", Kind: scip.SymbolInformation_Method, Documentation: []string{"```go\nfunc M()\n```", "Does M."}},
		{Documentation: []string{"doc only"}},
	}
	for _, lang := range []string{"go", "python"} {
		c := &Converter{}
		for range 2 {
			for _, sym := range syms {
				for _, info := range infos {
					if got, want := c.describe(sym, info, lang), describe(sym, info, lang); got != want {
						t.Errorf("cached describe(%q, %v, %s) = %+v, want %+v", sym, info, lang, got, want)
					}
				}
			}
		}
	}
}
