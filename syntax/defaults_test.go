package syntax

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// TestDefaultExports checks that a TS/JS default import, and a require()
// binding of a module whose value is `module.exports = f`, resolve to the
// module's default-exported definition, also when the importing file is
// re-extracted alone against the graph.
func TestDefaultExports(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"package.json": `{"name": "app"}`,
		"decl.ts":      "export default class Decl {}\n",
		"later.ts":     "export default later;\nfunction later() {}\n",
		"clause.ts":    "function inner() {}\nexport const other = 1;\nexport { inner as default };\n",
		"anon.ts":      "export default () => 1;\n",
		"reexport.ts":  "import Decl from \"./decl\";\nexport default Decl;\n",
		"lib/index.ts": "export default function fromIndex() {}\n",
		"value.cjs":    "function first() {}\nfunction value() {}\nmodule.exports = first;\nmodule.exports = value;\n",
		"named.cjs":    "module.exports = function named() {};\n",
		"klass.cjs":    "module.exports = class Klass {};\n",
		"ns.cjs":       "exports.f = function () {};\n",
		"esm.mjs":      "export default function esm() {}\n",
		"main.ts": `import Renamed from "./decl";
import later from "./later";
import Inner, { other } from "./clause";
import anon from "./anon";
import again from "./reexport";
import fromIndex from "./lib";
import Value from "./value.cjs";

export function run(d: Renamed): void {
  new Renamed();
  later();
  Inner(other);
  anon();
  again();
  fromIndex();
  Value();
}
`,
		"main.cjs": `const value = require("./value.cjs");
const named = require("./named.cjs");
const Klass = require("./klass.cjs");
const ns = require("./ns.cjs");
const esm = require("./esm.mjs");

function run() {
  value();
  named();
  new Klass();
  ns.f();
  ns();
  esm();
}
`,
	})
	_, docs := extractTree(t, root)
	wantTS := []string{
		"calls javascript app value:value 0.98 syntax:imported-package",
		"calls typescript app clause:inner 0.98 syntax:imported-package",
		"calls typescript app decl:Decl 0.98 syntax:imported-package",
		"calls typescript app later:later 0.98 syntax:imported-package",
		"calls typescript app lib/index:fromIndex 0.98 syntax:imported-package",
		// The type of d: a type use of the default import.
		"references typescript app decl:Decl 0.98 syntax:imported-package",
		"references typescript app clause:other 0.98 syntax:imported-package",
		// anon has no definition, and reexport's default is not its own.
	}
	wantTSImports := []string{
		"import 1:8 typescript app decl:Decl",
		"import 1:21 typescript app/decl",
		"import 2:8 typescript app later:later",
		"import 2:19 typescript app/later",
		"import 3:8 typescript app clause:inner",
		"import 3:17 typescript app clause:other",
		"import 3:30 typescript app/clause",
		"import 4:18 typescript app/anon",
		"import 5:19 typescript app/reexport",
		"import 6:8 typescript app lib/index:fromIndex",
		"import 6:23 typescript app/lib",
		"import 7:8 javascript app value:value",
		"import 7:19 typescript app/value",
	}
	wantJS := []string{
		// The last module.exports = wins; a named function or class
		// expression is defined under its name.
		"calls app klass:Klass 0.85 syntax:imported-package",
		"calls app named:named 0.85 syntax:imported-package",
		"calls app ns:f 0.85 syntax:imported-package",
		"calls app value:value 0.85 syntax:imported-package",
		// ns has no module.exports = f: ns() is not resolved; nor is a
		// require() of an ES module's default export.
	}
	check := func(label string, docs []graph.DocumentFacts) {
		t.Helper()
		edges, occs := factsFrom(docs, "syntax typescript app main:run", "main.ts", "syntax ")
		slices.Sort(wantTS)
		if !slices.Equal(edges, wantTS) {
			t.Errorf("%s: edges from run in main.ts:\n got %q\nwant %q", label, edges, wantTS)
		}
		slices.Sort(wantTSImports)
		if !slices.Equal(occs, wantTSImports) {
			t.Errorf("%s: import occurrences of main.ts:\n got %q\nwant %q", label, occs, wantTSImports)
		}
		edges, _ = factsFrom(docs, "syntax javascript app main:run", "", "syntax javascript ")
		if !slices.Equal(edges, wantJS) {
			t.Errorf("%s: edges from run in main.cjs:\n got %q\nwant %q", label, edges, wantJS)
		}
	}
	check("full index", docs)

	// Each importer re-extracted alone finds the default exports in the graph.
	ctx := context.Background()
	r := indexedReader(t, root)
	x := NewExtractor(Options{Root: root})
	defer x.Close()
	var alone []graph.DocumentFacts
	for _, p := range []string{"main.ts", "main.cjs"} {
		src, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		ff, err := x.File(ctx, p, src)
		if err != nil {
			t.Fatal(err)
		}
		df, err := Resolve(ctx, []*FileFacts{ff}, ReaderLookup{Reader: r})
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, df...)
	}
	check("re-extracted alone", alone)
}
