package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/goconv"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/resolve"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/syntax"
)

var update = flag.Bool("update", false, "rewrite golden files")

// repoRoot is the module root, two levels up from this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// importFixture imports testdata/scip/DUMP for the fixture project at
// testdata/PROJECT into a store in a temporary directory, with the
// conversion sites of the Go type checker when goTypes is set.
func importFixture(t testing.TB, project, dump string, goTypes bool) (*graph.Store, string) {
	t.Helper()
	root := filepath.Join(repoRoot(t), "testdata", project)
	st, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f, err := os.Open(filepath.Join(repoRoot(t), "testdata", "scip", dump))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opts := scip.Options{Root: root, Commit: "fixture"}
	if goTypes {
		conv, err := goconv.Collect(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		if len(conv.Errors) > 0 {
			t.Fatalf("type-checking %s: %v", project, conv.Errors)
		}
		conv.ImportOptions(&opts)
	}
	if _, err := scip.Import(context.Background(), st, f, opts); err != nil {
		t.Fatalf("importing %s: %v", dump, err)
	}
	return st, root
}

// indexFixture builds the syntax-only layer of a fixture project, as
// `lspgraph index` does.
func indexFixture(t testing.TB, project string) (*graph.Store, string) {
	t.Helper()
	root := filepath.Join(repoRoot(t), "testdata", project)
	st, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := syntax.Index(context.Background(), st, syntax.IndexOptions{Root: root, Commit: "fixture"}); err != nil {
		t.Fatalf("indexing %s: %v", project, err)
	}
	return st, root
}

// impactCase is one golden: a target in a fixture, through one layer.
type impactCase struct {
	name    string // golden file name
	target  string
	changed []string // documents changed since the base, for the freshness block
	json    bool     // also write a JSON golden
	md      bool     // also write a markdown golden
}

// impactFixtures lists, per layer and fixture, the targets whose answers
// are checked in. What each one must show is in testdata/README.md.
var impactFixtures = []struct {
	layer, project, dump string
	goTypes              bool // scip import --go-types
	cases                []impactCase
}{
	{"scip", "goapp", "goapp.scip", true, []impactCase{
		{name: "catalog-save", target: "Catalog.Save", json: true, md: true},                   // d=1 Import, d=2 run + TestImport, d=3 main
		{name: "store-put", target: "store.Store.Put"},                                         // interface method: implementations, satisfaction
		{name: "mem-put", target: "Mem.Put", json: true},                                       // dispatch through Store.Put, satisfaction
		{name: "normalize-sku", target: "normalizeSKU"},                                        // only a test calls it
		{name: "describe", target: "Describe"},                                                 // no callers, complete precise layer: LOW
		{name: "describe-changed", target: "Describe", changed: []string{"cmd/goapp/main.go"}}, // UNKNOWN
	}},
	{"scip+nogotypes", "goapp", "goapp.scip", false, []impactCase{
		{name: "mem-put", target: "Mem.Put"}, // no conversion sites: satisfaction UNKNOWN
	}},
	{"scip", "gobreak", "gobreak.scip", true, []impactCase{
		// One golden per kind of satisfaction site, checked against use/use.go.
		{name: "square-name", target: "Square.Name", json: true}, // Namer and Shape (by embedding) sites
		{name: "square-size", target: "Square.Size"},             // the channel send to a Sizer
		{name: "square-area", target: "Square.Area"},             // Shape sites only
		{name: "square-perimeter", target: "Square.Perimeter"},   // no interface declares it: none; the method value is d=1
		{name: "namer-name", target: "Namer.Name"},               // the interface method: Square.Name's sites
	}},
	{"scip", "gowork", "gowork.scip", false, []impactCase{
		{name: "pricing-quote", target: "pricing.Quote"}, // across modules
		{name: "user-quote", target: "user.Quote"},       // the look-alike: no callers
	}},
	{"scip", "tsworkspace", "tsworkspace.scip", false, []impactCase{
		{name: "order-lineprice", target: "Order.linePrice"},
		{name: "pricerule-apply", target: "PriceRule.apply"},
		{name: "percentrule-apply", target: "PercentRule.apply"},
		{name: "skukey", target: "skuKey"},
		{name: "creditfor", target: "creditFor"},
	}},
	{"scip", "pyproject", "pyproject.scip", false, []impactCase{
		{name: "order-line-price", target: "Order.line_price"},
		{name: "pricerule-apply", target: "PriceRule.apply"},
		{name: "sku-key", target: "sku_key"},
		{name: "credit-for", target: "credit_for"},
	}},
	{"syntax", "goapp", "", false, []impactCase{
		{name: "catalog-save", target: "Catalog.Save"},
		{name: "store-put", target: "Store.Put"},
		{name: "normalize-sku", target: "normalizeSKU"},
		{name: "describe", target: "Describe"}, // syntax-only: UNKNOWN
	}},
	{"syntax", "tsworkspace", "", false, []impactCase{
		{name: "order-lineprice", target: "Order.linePrice"},
		{name: "skukey", target: "skuKey"},
	}},
	{"syntax", "pyproject", "", false, []impactCase{
		{name: "order-line-price", target: "Order.line_price"},
		{name: "sku-key", target: "sku_key"},
	}},
}

func TestImpactGoldens(t *testing.T) {
	ctx := context.Background()
	for _, fx := range impactFixtures {
		t.Run(fx.layer+"-"+fx.project, func(t *testing.T) {
			var st *graph.Store
			var root string
			if strings.HasPrefix(fx.layer, "scip") {
				st, root = importFixture(t, fx.project, fx.dump, fx.goTypes)
			} else {
				st, root = indexFixture(t, fx.project)
			}
			r, err := st.Reader()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for _, c := range fx.cases {
				t.Run(c.name, func(t *testing.T) {
					sym, err := resolve.ResolveIn(ctx, r, root, c.target)
					if err != nil {
						t.Fatal(err)
					}
					o := impact.DefaultOptions()
					o.Freshness = &freshness.Block{BaseCommit: "fixture", BaseTool: fx.layer, Head: "fixture", Changed: c.changed}
					a, err := impact.Compute(ctx, r, sym, o)
					if err != nil {
						t.Fatal(err)
					}
					base := filepath.Join("testdata", "impact", fx.layer+"-"+fx.project+"-"+c.name)
					var text bytes.Buffer
					if err := impact.WriteText(&text, a); err != nil {
						t.Fatal(err)
					}
					golden(t, base+".txt", text.Bytes())
					if c.json {
						b, err := json.MarshalIndent(a, "", "  ")
						if err != nil {
							t.Fatal(err)
						}
						golden(t, base+".json", append(b, '\n'))
					}
					if c.md {
						var md bytes.Buffer
						if err := impact.WriteMarkdown(&md, a); err != nil {
							t.Fatal(err)
						}
						golden(t, base+".md", md.Bytes())
					}
				})
			}
		})
	}
}

// golden compares got with the file at path, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first lines that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 12; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("-" + wl + "\n+" + gl + "\n")
			shown++
		}
	}
	return b.String()
}
