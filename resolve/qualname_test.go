package resolve

import (
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

func TestSplitPosition(t *testing.T) {
	for _, tc := range []struct {
		in        string
		path      string
		line, col uint32
		ok        bool
	}{
		{"service/catalog.go:29:17", "service/catalog.go", 29, 17, true},
		{"service/catalog.go:29", "service/catalog.go", 29, 0, true},
		{"/abs/x.go:1:1", "/abs/x.go", 1, 1, true},
		{"Catalog.Save", "", 0, 0, false},
		{"scip-go gomod a v1 `a`/F().", "", 0, 0, false},
		{"x.go:abc", "", 0, 0, false},
	} {
		p, l, c, ok := splitPosition(tc.in)
		if ok != tc.ok || p != tc.path || l != tc.line || c != tc.col {
			t.Errorf("splitPosition(%q) = %q, %d, %d, %v; want %q, %d, %d, %v", tc.in, p, l, c, ok, tc.path, tc.line, tc.col, tc.ok)
		}
	}
}

func TestRelPath(t *testing.T) {
	for _, tc := range []struct {
		root, in, want string
		wantErr        bool
	}{
		{"/w", "a/b.go", "a/b.go", false},
		{"/w", "./a/../b.go", "b.go", false},
		{"/w", "/w/a/b.go", "a/b.go", false},
		{"/w", "/other/b.go", "", true},
		{"/w", "../b.go", "", true},
		{"/w", "a/../../b.go", "", true},
		{"", "/w/a.go", "", true},
	} {
		got, err := RelPath(tc.root, tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("RelPath(%q, %q) = %q, %v; want %q, error %v", tc.root, tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestQualifiedNames(t *testing.T) {
	goSave := symbolLike{id: "scip-go gomod example.com/goapp v1 `example.com/goapp/service`/Catalog#Save().", name: "Save", pkg: "example.com/goapp/service"}
	tsLine := symbolLike{id: "scip-typescript npm @shop/order 1.0.0 src/`index.ts`/Order#linePrice().", name: "linePrice", pkg: "@shop/order"}
	pyLine := symbolLike{id: "scip-python python shop 0.1.0 `shop.orders`/Order#line_price().", name: "line_price", pkg: "shop"}
	synGo := symbolLike{id: "syntax go example.com/goapp/service Catalog.Save", name: "Save"}
	synTS := symbolLike{id: "syntax typescript @shop/order @shop/order/src/index:Order.linePrice", name: "linePrice"}
	synPy := symbolLike{id: "syntax python shop shop.orders:Order.line_price", name: "line_price"}
	for _, tc := range []struct {
		spec string
		sym  symbolLike
		want bool
	}{
		{"Catalog.Save", goSave, true},
		{"service.Catalog.Save", goSave, true},
		{"example.com/goapp/service.Catalog.Save", goSave, true},
		{"ervice.Catalog.Save", goSave, false},
		{"store.Catalog.Save", goSave, false},
		{"Order.linePrice", tsLine, true},
		{"index.Order.linePrice", tsLine, true},
		{"@shop/order.Order.linePrice", tsLine, true},
		{"Catalog.linePrice", tsLine, false},
		{"orders.Order.line_price", pyLine, true},
		{"shop.orders.Order.line_price", pyLine, true},
		{"Catalog.Save", synGo, true},
		{"service.Catalog.Save", synGo, true},
		{"Save", synGo, true},
		{"atalog.Save", synGo, false},
		{"Order.linePrice", synTS, true},
		{"index.Order.linePrice", synTS, true},
		{"orders.Order.line_price", synPy, true},
	} {
		if got := matchesQualified(tc.spec, tc.sym); got != tc.want {
			t.Errorf("matchesQualified(%q, %s) = %v; want %v (names %q)", tc.spec, tc.sym.id, got, tc.want, qualifiedNames(tc.sym))
		}
	}
}

func TestParseSCIPSymbol(t *testing.T) {
	scheme, descs, ok := parseSCIPSymbol("scip-go gomod example.com/goapp v1 `example.com/goapp/store`/Store#Put().")
	if !ok || scheme != "scip-go" || len(descs) != 3 || descs[0].name != "example.com/goapp/store" || descs[1].name != "Store" || descs[1].suffix != '#' || descs[2].name != "Put" || descs[2].suffix != '(' {
		t.Fatalf("parse = %q %+v %v", scheme, descs, ok)
	}
	// Escaped space in the package field, parameter and type parameter descriptors.
	_, descs, ok = parseSCIPSymbol("scip-typescript npm my  pkg 1.0 src/`a.ts`/f().(x)")
	if !ok || len(descs) != 4 || descs[3].name != "x" || descs[3].suffix != ')' {
		t.Fatalf("parse params = %+v %v", descs, ok)
	}
	if _, _, ok := parseSCIPSymbol("local 4"); ok {
		t.Fatal("local symbol parsed as global")
	}
	if !looksLikeSCIPSymbol("scip-python python shop 0.1.0 `shop.orders`/checkout().") {
		t.Fatal("scip-python symbol not recognised")
	}
	if !looksLikeSCIPSymbol("syntax go example.com/goapp/service Catalog.Save") {
		t.Fatal("syntax symbol not recognised")
	}
	if looksLikeSCIPSymbol("Catalog.Save") || looksLikeSCIPSymbol("hello world foo bar baz") {
		t.Fatal("display name recognised as symbol string")
	}
}

func TestPickOccurrence(t *testing.T) {
	rg := func(l, c1, c2 uint32) textpos.Range {
		return textpos.Range{Start: textpos.Position{Line: l, Col: c1}, End: textpos.Position{Line: l, Col: c2}}
	}
	ref := graph.Occurrence{Range: rg(3, 0, 10), Symbol: "b", Roles: graph.RoleReference}
	def := graph.Occurrence{Range: rg(3, 0, 10), Symbol: "c", Roles: graph.RoleDefinition}
	inner := graph.Occurrence{Range: rg(3, 2, 5), Symbol: "a", Roles: graph.RoleReference}
	if got, _ := pickOccurrence([]graph.Occurrence{ref, def}); got.Symbol != "c" {
		t.Errorf("definition not preferred: got %s", got.Symbol)
	}
	if got, _ := pickOccurrence([]graph.Occurrence{def, inner, ref}); got.Symbol != "a" {
		t.Errorf("innermost not preferred: got %s", got.Symbol)
	}
	if _, ok := pickOccurrence(nil); ok {
		t.Error("empty slice picked something")
	}
}
