package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The scenarios below ask each server about the fixture symbols listed in
// testdata/README.md, and check the direct answers against the source
// (file:line, 1-based) before they serve as the reference for the proxied
// run.

// goplsScenario: testdata/goapp, service/catalog.go.
func goplsScenario() scenario {
	return scenario{
		name:    "gopls",
		fixture: "goapp",
		argv:    func(t testing.TB) []string { return []string{goplsPath(t)} },
		run: func(t testing.TB, c *lspClient, a *answers) {
			const cat = "service/catalog.go"
			c.open(cat, "go")
			put := posOf(t, c.root, cat, 30, "Put")   // c.st.Put(sku, name) in Save
			save := posOf(t, c.root, cat, 29, "Save") // func (c *Catalog) Save
			imp := posOf(t, c.root, cat, 37, "Import")
			memPut := posOf(t, c.root, "store/memstore/mem.go", 28, "Put")

			def := c.mustCall("textDocument/definition", c.docPos(cat, put))
			wantSites(t, "gopls definition of c.st.Put", sites(c.root, locations(t, def)), "store/store.go:17")
			a.add("definition c.st.Put", def)

			refs := c.mustCall("textDocument/references", withContext(c.docPos(cat, save), true))
			wantSites(t, "gopls references of Catalog.Save", sites(c.root, locations(t, refs)),
				"service/catalog.go:29", "service/catalog.go:44")
			a.add("references Catalog.Save", refs)

			refs = c.mustCall("textDocument/references", withContext(c.docPos("store/memstore/mem.go", memPut), false))
			// gopls counts the call through the interface (c.st.Put) as well
			// as the direct call in the test.
			wantSites(t, "gopls references of Mem.Put", sites(c.root, locations(t, refs)),
				"service/catalog.go:30", "store/memstore/mem_test.go:12")
			a.add("references Mem.Put", refs)

			syms := c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": c.uri(cat)}})
			checkGoSymbols(t, syms)
			a.add("documentSymbol catalog.go", syms)

			items := c.mustCall("textDocument/prepareCallHierarchy", c.docPos(cat, save))
			a.add("prepareCallHierarchy Save", items)
			it := callItems(t, items)
			if len(it) != 1 {
				t.Fatalf("gopls prepareCallHierarchy at Save: %d items, want 1: %s", len(it), items)
			}
			in := c.mustCall("callHierarchy/incomingCalls", map[string]any{"item": it[0]})
			wantSites(t, "gopls incoming calls of Save", calls(t, c.root, in, "incoming"), "Import service/catalog.go:37 [44]")
			a.add("incomingCalls Save", in)
			out := c.mustCall("callHierarchy/outgoingCalls", map[string]any{"item": it[0]})
			// fmt.Errorf lies in GOROOT, outside the workspace.
			outs := calls(t, c.root, out, "outgoing")
			if len(outs) != 2 || !strings.HasPrefix(outs[0], "Errorf file://") || !strings.HasSuffix(outs[0], " [31]") || outs[1] != "Put store/store.go:17 [30]" {
				t.Errorf("gopls outgoing calls of Save = %v; want fmt.Errorf [31] and Put store/store.go:17 [30]", outs)
			}
			a.add("outgoingCalls Save", out)

			items = c.mustCall("textDocument/prepareCallHierarchy", c.docPos(cat, imp))
			it = callItems(t, items)
			if len(it) != 1 {
				t.Fatalf("gopls prepareCallHierarchy at Import: %d items, want 1: %s", len(it), items)
			}
			in = c.mustCall("callHierarchy/incomingCalls", map[string]any{"item": it[0]})
			wantSites(t, "gopls incoming calls of Import", calls(t, c.root, in, "incoming"),
				"TestImport service/catalog_test.go:9 [12]", "run cmd/goapp/main.go:19 [21]")
			a.add("incomingCalls Import", in)
		},
	}
}

// goworkScenario: testdata/gowork, a go.work of three modules; billing
// calls pricing.Quote across modules, user.Quote is a look-alike.
func goworkScenario() scenario {
	return scenario{
		name:    "gopls",
		fixture: "gowork",
		argv:    func(t testing.TB) []string { return []string{goplsPath(t)} },
		run: func(t testing.TB, c *lspClient, a *answers) {
			const billing, pricing = "billing/billing.go", "pricing/pricing.go"
			c.open(billing, "go")
			def := c.mustCall("textDocument/definition", c.docPos(billing, posOf(t, c.root, billing, 16, "Quote")))
			wantSites(t, "gopls definition of pricing.Quote from billing", sites(c.root, locations(t, def)), pricing+":6")
			a.add("definition pricing.Quote", def)

			quote := posOf(t, c.root, pricing, 6, "Quote")
			refs := c.mustCall("textDocument/references", withContext(c.docPos(pricing, quote), true))
			wantSites(t, "gopls references of pricing.Quote", sites(c.root, locations(t, refs)),
				billing+":16", pricing+":6", "pricing/pricing_test.go:6")
			a.add("references pricing.Quote", refs)

			items := c.mustCall("textDocument/prepareCallHierarchy", c.docPos(pricing, quote))
			a.add("prepareCallHierarchy pricing.Quote", items)
			it := callItems(t, items)
			if len(it) != 1 {
				t.Fatalf("gopls prepareCallHierarchy at pricing.Quote: %d items, want 1: %s", len(it), items)
			}
			in := c.mustCall("callHierarchy/incomingCalls", map[string]any{"item": it[0]})
			wantSites(t, "gopls incoming calls of pricing.Quote", calls(t, c.root, in, "incoming"),
				"Invoice "+billing+":13 [16]", "TestQuote pricing/pricing_test.go:5 [6]")
			a.add("incomingCalls pricing.Quote", in)
		},
		base: "gowork.scip",
		proxied: func(t testing.TB, c *lspClient) {
			// Invoice (another module) and TestQuote call Quote; TestInvoice
			// calls Invoice; user.Quote, same name and shape, is unrelated.
			a := askImpact(t, c, "pricing/pricing.go", 6, "Quote")
			wantSites(t, "impact d=1 of pricing.Quote", a.depth(1, false),
				"Invoice billing/billing.go:13", "TestQuote pricing/pricing_test.go:5")
			wantSites(t, "impact d=2 of pricing.Quote", a.depth(2, false), "TestInvoice billing/billing_test.go:5")
		},
	}
}

func withContext(p map[string]any, includeDeclaration bool) map[string]any {
	p["context"] = map[string]bool{"includeDeclaration": includeDeclaration}
	return p
}

// checkGoSymbols checks gopls's hierarchical symbols of catalog.go.
func checkGoSymbols(t testing.TB, raw json.RawMessage) {
	t.Helper()
	var syms []struct {
		Name           string `json:"name"`
		Kind           int    `json:"kind"`
		SelectionRange struct {
			Start pos `json:"start"`
		} `json:"selectionRange"`
	}
	if err := json.Unmarshal(raw, &syms); err != nil {
		t.Fatalf("decoding documentSymbol %s: %v", raw, err)
	}
	got := map[string]int{}
	for _, s := range syms {
		got[s.Name] = s.SelectionRange.Start.Line + 1
	}
	want := map[string]int{
		"Version": 12, "Banner": 16, "Catalog": 19, "NewCatalog": 24, "(*Catalog).Save": 29,
		"(*Catalog).Import": 37, "(*Catalog).Lookup": 53, "Describe": 58, "normalizeSKU": 63,
	}
	for name, line := range want {
		if got[name] != line {
			t.Errorf("gopls documentSymbol: %s at line %d; want %d (all: %v)", name, got[name], line, got)
		}
	}
}

// tsScenario: testdata/tsworkspace, quote used in packages/order.
func tsScenario() scenario {
	return scenario{
		name:    "typescript-language-server",
		fixture: "tsworkspace",
		argv: func(t testing.TB) []string {
			return []string{needTool(t, "typescript-language-server"), "--stdio"}
		},
		run: func(t testing.TB, c *lspClient, a *answers) {
			const order = "packages/order/src/index.ts"
			const pricing = "packages/pricing/src/index.ts"
			c.open(order, "typescript")
			use := posOf(t, c.root, order, 29, "quote")
			def := retryDefinition(t, c, order, use, 60*time.Second)
			wantSites(t, "typescript-language-server definition of quote", sites(c.root, locations(t, def)), pricing+":7")
			a.add("definition quote", def)

			c.open(pricing, "typescript")
			decl := posOf(t, c.root, pricing, 7, "quote")
			// Right after pricing's file opens, tsserver may answer from the
			// pricing project alone (the declaration only) until it has
			// loaded the projects that reference it.
			refs := retry(t, c, "textDocument/references", withContext(c.docPos(pricing, decl), true), 30*time.Second,
				func(raw json.RawMessage) bool { return len(locations(t, raw)) > 1 })
			wantSites(t, "typescript-language-server references of quote", sites(c.root, locations(t, refs)),
				order+":1", order+":29", pricing+":7")
			a.add("references quote", refs)

			syms := c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": c.uri(order)}})
			a.add("documentSymbol order/index.ts", syms)

			// tsserver answers incoming calls only from the project of the
			// item (pricing has none), so ask from order's linePrice.
			linePrice := posOf(t, c.root, order, 28, "linePrice")
			items := c.mustCall("textDocument/prepareCallHierarchy", c.docPos(order, linePrice))
			a.add("prepareCallHierarchy linePrice", items)
			it := callItems(t, items)
			if len(it) != 1 {
				t.Fatalf("typescript-language-server prepareCallHierarchy at linePrice: %d items, want 1: %s", len(it), items)
			}
			in := c.mustCall("callHierarchy/incomingCalls", map[string]any{"item": it[0]})
			wantSites(t, "typescript-language-server incoming calls of linePrice", calls(t, c.root, in, "incoming"),
				"subtotal "+order+":33 [34]")
			a.add("incomingCalls linePrice", in)
			out := c.mustCall("callHierarchy/outgoingCalls", map[string]any{"item": it[0]})
			wantSites(t, "typescript-language-server outgoing calls of linePrice", calls(t, c.root, out, "outgoing"),
				"quote "+pricing+":7 [29]")
			a.add("outgoingCalls linePrice", out)
		},
		base: "tsworkspace.scip",
		proxied: func(t testing.TB, c *lspClient) {
			const order = "packages/order/src/index.ts"
			// quote, called by linePrice, called by subtotal, called by total.
			a := askImpact(t, c, order, 29, "quote")
			wantSites(t, "impact d=1 of quote", a.depth(1, false), "Order.linePrice "+order+":28")
			// Verified against the server by default. Its references
			// include the import binding on line 1: a site the graph
			// knows, and no dependent.
			if v := a.Verification; v == nil || !v.Ran || v.Error != "" || v.LiveSites < 2 {
				t.Errorf("lspgraph.impact of quote was not verified against the server: %+v", v)
			} else {
				wantSites(t, "verified impact d=1 of quote", a.depth(1, true), "Order.linePrice "+order+":28 /verified")
				if v.LiveOnly != 0 || len(a.LiveOnly) != 0 {
					t.Errorf("verification of quote found %d live-only dependents, sites %s; want none", v.LiveOnly, a.LiveOnly)
				}
			}
			wantSites(t, "impact d=2 of quote", a.depth(2, false), "Order.subtotal "+order+":33")
			wantSites(t, "impact d=3 of quote", a.depth(3, false), "Order.total "+order+":38")
			// HEADER_WIDTH after "Reçu 𝄞 ": UTF-16 column 42, UTF-8 byte 45.
			a = askImpact(t, c, order, 14, "HEADER_WIDTH")
			if a.Target == nil || a.Target.Name != "HEADER_WIDTH" {
				t.Errorf("lspgraph.impact at HEADER_WIDTH answered for %+v", a.Target)
			}
			wantSites(t, "impact d=1 of HEADER_WIDTH", a.depth(1, false), "HEADER "+order+":14")
			wantSites(t, "impact d=2 of HEADER_WIDTH", a.depth(2, false), "checkout "+order+":44")
		},
	}
}

// askImpact asks the proxy for lspgraph.impact at needle on a line of rel.
func askImpact(t testing.TB, c *lspClient, rel string, line int, needle string) impactAnswer {
	t.Helper()
	return decodeImpact(t, c.mustCall("workspace/executeCommand", map[string]any{
		"command": "lspgraph.impact", "arguments": []any{c.docPos(rel, posOf(t, c.root, rel, line, needle))},
	}))
}

// pyrightScenario: testdata/pyproject, shop.pricing.quote used in shop/orders.py.
func pyrightScenario() scenario {
	return scenario{
		name:    "pyright",
		fixture: "pyproject",
		argv: func(t testing.TB) []string {
			return []string{needTool(t, "pyright-langserver"), "--stdio"}
		},
		run: func(t testing.TB, c *lspClient, a *answers) {
			const orders = "shop/orders.py"
			const pricing = "shop/pricing.py"
			c.open(orders, "python")
			use := posOf(t, c.root, orders, 31, "quote")
			def := c.mustCall("textDocument/definition", c.docPos(orders, use))
			wantSites(t, "pyright definition of pricing.quote", sites(c.root, locations(t, def)), pricing+":34")
			a.add("definition quote", def)

			decl := posOf(t, c.root, pricing, 34, "quote")
			refs := c.mustCall("textDocument/references", withContext(c.docPos(pricing, decl), true))
			wantSites(t, "pyright references of quote", sites(c.root, locations(t, refs)), orders+":31", pricing+":34")
			a.add("references quote", refs)

			syms := c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": c.uri(orders)}})
			a.add("documentSymbol orders.py", syms)

			items := c.mustCall("textDocument/prepareCallHierarchy", c.docPos(pricing, decl))
			a.add("prepareCallHierarchy quote", items)
			it := callItems(t, items)
			if len(it) != 1 {
				t.Fatalf("pyright prepareCallHierarchy at quote: %d items, want 1: %s", len(it), items)
			}
			in := c.mustCall("callHierarchy/incomingCalls", map[string]any{"item": it[0]})
			wantSites(t, "pyright incoming calls of quote", calls(t, c.root, in, "incoming"), "line_price "+orders+":29 [31]")
			a.add("incomingCalls quote", in)
		},
		base: "pyproject.scip",
		proxied: func(t testing.TB, c *lspClient) {
			const orders = "shop/orders.py"
			// quote, called by line_price, called by subtotal, called by total.
			a := askImpact(t, c, orders, 31, "quote")
			wantSites(t, "impact d=1 of quote", a.depth(1, false), "Order.line_price "+orders+":29")
			wantSites(t, "impact d=2 of quote", a.depth(2, false), "Order.subtotal "+orders+":33")
			wantSites(t, "impact d=3 of quote", a.depth(3, false), "Order.total "+orders+":37")
			// HEADER_WIDTH after "Reçu 𝄞 ": UTF-16 column 26, UTF-8 byte 29.
			a = askImpact(t, c, orders, 10, "HEADER_WIDTH")
			if a.Target == nil || a.Target.Name != "HEADER_WIDTH" {
				t.Errorf("lspgraph.impact at HEADER_WIDTH answered for %+v", a.Target)
			}
			wantSites(t, "impact d=1 of HEADER_WIDTH", a.depth(1, false), "HEADER "+orders+":10")
			wantSites(t, "impact d=2 of HEADER_WIDTH", a.depth(2, false), "checkout "+orders+":42")
			wantSites(t, "impact d=3 of HEADER_WIDTH", a.depth(3, false), "OrderTest.test_checkout tests/test_orders.py:12")
		},
	}
}
