package syntax

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// factsFrom lists the edges from a symbol and the occurrences of a
// document as "kind target confidence reason" and "role target" lines,
// target ids without prefix, sorted.
func factsFrom(docs []graph.DocumentFacts, from, path, prefix string) (edges, occs []string) {
	for _, df := range docs {
		for _, e := range df.Edges {
			if e.From == from {
				edges = append(edges, fmt.Sprintf("%s %s %.2f %s", e.Kind, strings.TrimPrefix(e.To, prefix), e.Confidence, e.Reason))
			}
		}
		if df.Document.Path != path {
			continue
		}
		for _, o := range df.Occurrences {
			if o.Roles&graph.RoleImport != 0 {
				occs = append(occs, fmt.Sprintf("import %d:%d %s", o.Range.Start.Line+1, o.Range.Start.Col+1, strings.TrimPrefix(o.Symbol, prefix)))
			}
		}
	}
	slices.Sort(edges)
	slices.Sort(occs)
	return edges, occs
}

// TestCommonJSRequire checks that require() (and TypeScript's
// import m = require()) binds a module like an import and that CommonJS export assignments define the exported names.
func TestCommonJSRequire(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"package.json":                  `{"name": "app", "workspaces": ["packages/*"]}`,
		"packages/pricing/package.json": `{"name": "@shop/pricing"}`,
		"packages/pricing/index.js":     "function quote(n) { return n * 2; }\n\nmodule.exports = { quote };\n",
		"lib/index.js":                  "exports.helper = function () {};\nexports.other = () => 1;\n",
		"mod.js":                        "exports.f = function () {};\nmodule.exports.g = (x) => x;\nexports.h = class {};\n",
		"obj.js":                        "function impl() {}\n\nmodule.exports = { impl, alias: impl, m() { impl(); }, arrow: () => impl() };\n",
		"ts/main.ts": `import m = require("../mod");

export function call(): void {
  m.f();
}
`,
		"main.js": `const m = require("./mod");
const { g, h: H } = require("./mod.js");
const lib = require("./lib");
const { quote } = require("@shop/pricing");
const dyn = require(process.env.MOD);
const o = require("./obj");

function run() {
  m.f();
  g(1);
  new H();
  lib.helper();
  quote(3);
  dyn.f();
  const local = require("./lib");
  local.other();
  o.impl();
  o.alias();
  o.m();
  o.arrow();
}
`,
	})
	_, docs := extractTree(t, root)
	edges, occs := factsFrom(docs, "syntax javascript app main:run", "main.js", "syntax javascript ")
	wantEdges := []string{
		"calls @shop/pricing index:quote 0.85 syntax:imported-package",
		"calls app lib/index:helper 0.85 syntax:imported-package",
		"calls app mod:f 0.85 syntax:imported-package",
		"calls app mod:g 0.85 syntax:imported-package",
		"calls app mod:h 0.85 syntax:imported-package",
		"calls app obj:alias 0.85 syntax:imported-package",
		"calls app obj:arrow 0.85 syntax:imported-package",
		"calls app obj:impl 0.85 syntax:imported-package",
		"calls app obj:m 0.85 syntax:imported-package",
		// A non-literal require binds nothing: dyn is a constant of main.js,
		// and dyn.f a member of an unknown type. A require inside a function
		// binds a local: local.other is not resolved either.
		"references app main:dyn 0.90 syntax:same-file",
	}
	slices.Sort(wantEdges)
	if !slices.Equal(edges, wantEdges) {
		t.Errorf("edges from run:\n got %q\nwant %q", edges, wantEdges)
	}
	wantOccs := []string{
		"import 1:19 app/mod",
		"import 2:9 app mod:g",
		"import 2:15 app mod:h",
		"import 2:29 app/mod",
		"import 3:21 app/lib",
		"import 4:9 @shop/pricing index:quote",
		"import 4:27 @shop/pricing",
		"import 6:19 app/obj",
		"import 15:25 app/lib",
	}
	slices.Sort(wantOccs)
	if !slices.Equal(occs, wantOccs) {
		t.Errorf("import occurrences of main.js:\n got %q\nwant %q", occs, wantOccs)
	}
	// module.exports = { … }: f: value and f() {} define f.
	var got []string
	for _, from := range []string{"alias", "m", "arrow"} {
		e, _ := factsFrom(docs, "syntax javascript app obj:"+from, "", "syntax javascript ")
		got = append(got, from+": "+strings.Join(e, "; "))
	}
	wantObj := []string{
		"alias: references app obj:impl 0.90 syntax:same-file",
		"m: calls app obj:impl 0.90 syntax:same-file",
		"arrow: calls app obj:impl 0.90 syntax:same-file",
	}
	if !slices.Equal(got, wantObj) {
		t.Errorf("edges from obj.js's exports:\n got %q\nwant %q", got, wantObj)
	}
	edges, occs = factsFrom(docs, "syntax typescript app ts/main:call", "ts/main.ts", "syntax ")
	wantEdges = []string{"calls javascript app mod:f 0.98 syntax:imported-package"}
	if !slices.Equal(edges, wantEdges) {
		t.Errorf("edges from call in ts/main.ts:\n got %q\nwant %q", edges, wantEdges)
	}
	if wantOccs := []string{"import 1:20 typescript app/mod"}; !slices.Equal(occs, wantOccs) {
		t.Errorf("import occurrences of ts/main.ts:\n got %q\nwant %q", occs, wantOccs)
	}
	edges, _ = factsFrom(docs, "syntax javascript app/main", "", "syntax javascript ")
	wantEdges = []string{
		"imports @shop/pricing 1.00 syntax:declaration",
		"imports app/lib 1.00 syntax:declaration",
		"imports app/mod 1.00 syntax:declaration",
		"imports app/obj 1.00 syntax:declaration",
	}
	if !slices.Equal(edges, wantEdges) {
		t.Errorf("edges from main.js's module:\n got %q\nwant %q", edges, wantEdges)
	}
}
