package scope

import (
	"context"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
)

// putDocs writes one base generation of documents given in the graphtest
// fact syntax.
func putDocs(t *testing.T, docs map[string]string, pkgs map[string]string) *graph.Reader {
	t.Helper()
	var facts []graph.DocumentFacts
	for p, text := range docs {
		facts = append(facts, graphtest.MustParseFacts(t, graph.Document{Path: p, Language: "go", Package: pkgs[p], Source: graph.SourceSCIP}, text))
	}
	return graphtest.Base(t, graph.Manifest{Tool: "test", State: graph.StateComplete}, facts...)
}

// TestAnalyzeWithoutWorkTree: documents outside every discovered package
// take the package the graph records, references between them are observed
// dependencies, and a symbol a document only describes (an external one)
// does not make its package a dependency.
func TestAnalyzeWithoutWorkTree(t *testing.T) {
	r := putDocs(t, map[string]string{
		"a/a.go": `
sym go:a/A(). name=A kind=function def=a/a.go@1:6-1:7
sym go:ext/Println(). name=Println kind=function external
occ go:a/A(). 1:6-1:7 def
occ go:b/B(). 2:2-2:3 ref enc=go:a/A().
occ go:ext/Println(). 3:2-3:9 ref enc=go:a/A().
`,
		"b/b.go": `
sym go:b/B(). name=B kind=function def=b/b.go@1:6-1:7
occ go:b/B(). 1:6-1:7 def
occ go:ext/Println(). 2:2-2:9 ref enc=go:b/B().
`,
		"c/c.go": `
sym go:c/C(). name=C kind=function def=c/c.go@1:6-1:7
occ go:c/C(). 1:6-1:7 def
`,
		"loose.go": `
occ go:c/C(). 1:1-1:2 ref
`,
	}, map[string]string{"a/a.go": "example.com/a", "b/b.go": "example.com/b", "c/c.go": "example.com/c"})
	ws, err := Discover(t.TempDir()) // no manifests at all
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(context.Background(), ws, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.Packages(), ","); got != "(root),example.com/a,example.com/b,example.com/c" {
		t.Errorf("packages = %s", got)
	}
	obs, err := a.Observed(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := depStrings(obs); strings.Join(got, "\n") != strings.Join([]string{
		"(root) -> example.com/c: observed at loose.go:1: references `C`",
		"example.com/a -> example.com/b: observed at a/a.go:2: references `B`",
	}, "\n") {
		t.Errorf("observed:\n%s", strings.Join(got, "\n"))
	}
	cl, err := a.Closure(context.Background(), "example.com/a", []string{"example.com/c"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cl.Names(), ","); got != "example.com/a,example.com/b,example.com/c" || !cl.Members[2].Extra || cl.Members[1].Via == nil || cl.Members[1].Depth != 1 {
		t.Errorf("closure = %+v", cl.Members)
	}
	if cl.Contains("(root)") {
		t.Errorf("(root) is not a dependency of example.com/a")
	}
	ex, err := a.For(context.Background(), "example.com/b", ParseSpec("example.com/c"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ex.Names(), ","); got != "example.com/b,example.com/c" {
		t.Errorf("exact scope = %s", got)
	}
	if all := a.Everything("example.com/b"); !all.Contains("(root)") || all.Names()[0] != "example.com/b" {
		t.Errorf("repo scope = %v", all.Names())
	}
	if _, err := a.Closure(context.Background(), "example.com/a", []string{"nope"}); err == nil || !strings.Contains(err.Error(), `unknown package "nope"`) {
		t.Errorf("unknown extra package: err = %v", err)
	}
}

// TestObservedNeedsConfidence: a reference whose edge is a name guess
// below the threshold (a syntax unique-global-name edge) makes no
// dependency; one whose edge is at or above it does, and so does one with
// no edge at all.
func TestObservedNeedsConfidence(t *testing.T) {
	r := putDocs(t, map[string]string{
		"a/a.go": `
sym go:a/A(). name=A kind=function def=a/a.go@1:6-1:7
occ go:a/A(). 1:6-1:7 def
occ go:b/B(). 2:2-2:3 ref|call enc=go:a/A().
occ go:c/C(). 3:2-3:3 ref|call enc=go:a/A().
occ go:d/D(). 4:2-4:3 ref enc=go:a/A().
edge go:a/A(). calls go:b/B(). conf=0.99 reason=syntax:inferred-type
edge go:a/A(). calls go:c/C(). conf=0.31 reason=syntax:unique-global-name
`,
		"b/b.go": "sym go:b/B(). name=B kind=function def=b/b.go@1:6-1:7\nocc go:b/B(). 1:6-1:7 def\n",
		"c/c.go": "sym go:c/C(). name=C kind=function def=c/c.go@1:6-1:7\nocc go:c/C(). 1:6-1:7 def\n",
		"d/d.go": "sym go:d/D(). name=D kind=function def=d/d.go@1:6-1:7\nocc go:d/D(). 1:6-1:7 def\n",
	}, map[string]string{"a/a.go": "example.com/a", "b/b.go": "example.com/b", "c/c.go": "example.com/c", "d/d.go": "example.com/d"})
	ws, err := Discover(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(context.Background(), ws, r)
	if err != nil {
		t.Fatal(err)
	}
	deps, err := a.Deps(context.Background(), "example.com/a")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range deps {
		got = append(got, d.To)
	}
	if strings.Join(got, ",") != "example.com/b,example.com/d" {
		t.Errorf("dependencies of example.com/a = %v, want example.com/b (a 0.99 edge) and example.com/d (no edge), not example.com/c (a 0.31 guess)", got)
	}
}
