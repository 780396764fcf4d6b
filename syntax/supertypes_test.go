package syntax

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// TestSupertypes checks the implements edges of JavaScript and TypeScript
// class heritage: extends and implements clauses, an interface extending
// another, methods matched by name, and bases that are not names (a
// mixin call) left alone.
func TestSupertypes(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"package.json": `{"name": "app"}`,
		"src/base.js":  "export class Base {\n  run() {}\n  stop() {}\n}\n",
		"src/child.js": "import { Base } from \"./base.js\";\n\nconst mixin = (B) => B;\n\nexport class Child extends Base {\n  run() {}\n  other() {}\n}\n\nexport class Mixed extends mixin(Base) {\n  run() {}\n}\n",
		"src/shapes.ts": "export interface Shape {\n  area(): number;\n}\n\nexport interface Solid extends Shape {\n  volume(): number;\n}\n\n" +
			"export class Cube implements Solid {\n  area(): number { return 6; }\n  volume(): number { return 1; }\n}\n",
	})
	_, docs := extractTree(t, root)
	var got []string
	for _, df := range docs {
		for _, e := range df.Edges {
			if e.Kind == graph.EdgeImplements {
				short := func(id string) string { return id[strings.LastIndexAny(id, " :")+1:] }
				got = append(got, fmt.Sprintf("%s -> %s %.2f %s", short(e.From), short(e.To), e.Confidence, e.Reason))
			}
		}
	}
	slices.Sort(got)
	want := []string{
		"Child -> Base 0.85 syntax:imported-package",
		"Child.run -> Base.run 0.85 syntax:imported-package",
		"Cube -> Solid 0.99 syntax:same-file",
		"Cube.volume -> Solid.volume 0.99 syntax:same-file",
		"Solid -> Shape 0.99 syntax:same-file",
	}
	if !slices.Equal(got, want) {
		t.Errorf("implements edges:\n got %q\nwant %q", got, want)
	}
}
