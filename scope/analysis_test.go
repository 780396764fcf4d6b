package scope

import (
	"context"
	"fmt"
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

// TestUpdateAgreesWithAnalyze: an analysis brought up to date with the
// live layer's documents (one added that makes a new dependency, one
// changed to drop its reference, one deleted) answers as an analysis
// made anew from the same reader: packages, documents, observed
// dependencies and each package's closure.
func TestUpdateAgreesWithAnalyze(t *testing.T) {
	ctx := context.Background()
	pkgs := map[string]string{"a/a.go": "example.com/a", "b/a1.go": "example.com/b", "b/b.go": "example.com/b", "c/c.go": "example.com/c", "c/c2.go": "example.com/c"}
	docs := map[string]string{
		// Three references to C, before b.go's: they are b → c's reasons,
		// and b.go's reference is not judged until a1.go loses them.
		"b/a1.go": `
sym go:b/A1(). name=A1 kind=function def=b/a1.go@1:6-1:8
occ go:b/A1(). 1:6-1:8 def
occ go:c/C(). 2:2-2:3 ref enc=go:b/A1().
occ go:c/C(). 3:2-3:3 ref enc=go:b/A1().
occ go:c/C(). 4:2-4:3 ref enc=go:b/A1().
`,
		"a/a.go": `
sym go:a/A(). name=A kind=function def=a/a.go@1:6-1:7
occ go:a/A(). 1:6-1:7 def
occ go:b/B(). 2:2-2:3 ref enc=go:a/A().
`,
		"b/b.go": `
sym go:b/B(). name=B kind=function def=b/b.go@1:6-1:7
occ go:b/B(). 1:6-1:7 def
occ go:c/C(). 2:2-2:3 ref enc=go:b/B().
`,
		"c/c.go": `
sym go:c/C(). name=C kind=function def=c/c.go@1:6-1:7
occ go:c/C(). 1:6-1:7 def
`,
		"c/c2.go": `
sym go:c/C2(). name=C2 kind=function def=c/c2.go@1:6-1:7
occ go:c/C2(). 1:6-1:7 def
occ go:a/A(). 2:2-2:3 ref enc=go:c/C2().
`,
	}
	var facts []graph.DocumentFacts
	for p, text := range docs {
		facts = append(facts, graphtest.MustParseFacts(t, graph.Document{Path: p, Language: "go", Package: pkgs[p], Source: graph.SourceSCIP}, text))
	}
	st := graphtest.Open(t)
	gw, err := st.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range facts {
		if err := gw.PutDocument(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := gw.Commit(ctx, graph.Manifest{Tool: "test", State: graph.StateComplete}); err != nil {
		t.Fatal(err)
	}
	reader := func() *graph.Reader {
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	ws, err := Discover(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kept, err := Analyze(ctx, ws, reader())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kept.Observed(ctx); err != nil { // every package observed before the change
		t.Fatal(err)
	}
	live := func(p, pkg, text string) {
		t.Helper()
		f := graphtest.MustParseFacts(t, graph.Document{Path: p, Language: "go", Package: pkg, Source: graph.SourceLSP}, text)
		if err := st.PutDocument(ctx, graph.Live, f); err != nil {
			t.Fatal(err)
		}
	}
	// A new document of b references a, a new dependency b → a; a
	// changed a.go no longer references b; c2.go is deleted, and with it
	// c → a; a changed a1.go no longer references c, so b → c rests on
	// b.go's reference, which the first observation did not judge.
	live("b/b2.go", "example.com/b", `
sym go:b/B2(). name=B2 kind=function def=b/b2.go@1:6-1:8
occ go:b/B2(). 1:6-1:8 def
occ go:a/A(). 2:2-2:3 ref enc=go:b/B2().
`)
	live("b/a1.go", "example.com/b", `
sym go:b/A1(). name=A1 kind=function def=b/a1.go@1:6-1:8
occ go:b/A1(). 1:6-1:8 def
`)
	live("a/a.go", "example.com/a", `
sym go:a/A(). name=A kind=function def=a/a.go@1:6-1:7
occ go:a/A(). 1:6-1:7 def
`)
	if err := st.DeleteDocument(ctx, graph.Base, "c/c2.go"); err != nil {
		t.Fatal(err)
	}
	r := reader()
	if err := kept.Update(ctx, r, []string{"a/a.go", "b/a1.go", "b/b2.go", "c/c2.go"}); err != nil {
		t.Fatal(err)
	}
	fresh, err := Analyze(ctx, ws, r)
	if err != nil {
		t.Fatal(err)
	}
	describe := func(a *Analysis) string {
		var b strings.Builder
		for _, p := range a.Packages() {
			fmt.Fprintf(&b, "%s %v:", p, a.DocumentsOf(p))
			deps, err := a.Deps(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range deps {
				fmt.Fprintf(&b, " →%s", d.To)
				for _, w := range d.Why {
					fmt.Fprintf(&b, " (%s:%d %s)", w.File, w.Line, w.Detail)
				}
			}
			c, err := a.For(ctx, p, Spec{Closure: true})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, " closure %v\n", c.Names())
		}
		return b.String()
	}
	got, want := describe(kept), describe(fresh)
	if got != want {
		t.Errorf("updated analysis:\n%s\nanalysis made anew:\n%s", got, want)
	}
	// The changes show: b depends on a (b2.go), a on nothing, c on nothing.
	for _, line := range []string{
		"example.com/a [a/a.go]: closure [example.com/a]",
		"example.com/b [b/a1.go b/b.go b/b2.go]: →example.com/a (b/b2.go:2 references `A`) →example.com/c (b/b.go:2 references `C`)",
		"example.com/c [c/c.go]: closure [example.com/c]",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("updated analysis lacks %q:\n%s", line, got)
		}
	}
}
