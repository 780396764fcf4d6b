package ranking

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/scope"
)

func TestParentID(t *testing.T) {
	for in, want := range map[string]string{
		"scip-go gomod example.com/goapp v1 `example.com/goapp/service`/Catalog#Save().": "scip-go gomod example.com/goapp v1 `example.com/goapp/service`/Catalog#",
		"scip-go gomod example.com/goapp v1 `example.com/goapp/store`/Store#Put.":        "scip-go gomod example.com/goapp v1 `example.com/goapp/store`/Store#",
		"scip-typescript npm @shop/order 0.1.0 src/`index.ts`/Order#`<constructor>`().":  "scip-typescript npm @shop/order 0.1.0 src/`index.ts`/Order#",
		"scip-typescript npm @shop/order 0.1.0 src/`index.ts`/checkout().":               "",
		"scip-go gomod example.com/goapp v1 `example.com/goapp/store`/Store#":            "",
	} {
		if got := parentID(in); got != want {
			t.Errorf("parentID(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestSortTieBreaks(t *testing.T) {
	at := func(p string, line uint32) graph.Symbol {
		return graph.Symbol{Def: graph.Location{Path: p, Range: textpos.Range{Start: textpos.Position{Line: line}}}}
	}
	cs := []Candidate{
		{Key: "z", Score: 1, Symbol: at("b.go", 1)},
		{Key: "y", Score: 1, Symbol: at("a.go", 9)},
		{Key: "x", Score: 2, Symbol: at("c.go", 1)},
		{Key: "w", Score: 1, Symbol: at("a.go", 2)},
		{Key: "v", Score: 1, Symbol: at("a.go", 2)},
	}
	Sort(cs)
	var got []string
	for _, c := range cs {
		got = append(got, c.Key)
	}
	if strings.Join(got, "") != "xvwyz" {
		t.Errorf("order = %v; want score desc, then path, position, key: x v w y z", got)
	}
}

// rankGraph is a small Go-like graph: Target calls helper, is called by
// Caller (package p) and by Far (package q), is tested by TestTarget, and
// belongs to type T with a sibling method; Other.Target is a namesake.
func rankGraph(t *testing.T) *graph.Reader {
	t.Helper()
	return graphtest.Base(t, graph.Manifest{Tool: "test", State: graph.StateComplete}, rankFacts(t)...)
}

// rankFacts are rankGraph's documents.
func rankFacts(t *testing.T) []graph.DocumentFacts {
	t.Helper()
	docs := map[string]string{
		"p/p.go": `
sym p/T# name=T kind=struct def=p/p.go@3:6-3:7 extent=3:1-3:20
sym p/T#Target(). name=Target kind=method def=p/p.go@5:12-5:18 extent=5:1-7:2
sym p/T#Sibling(). name=Sibling kind=method def=p/p.go@9:12-9:19 extent=9:1-9:30
sym p/helper(). name=helper kind=function def=p/p.go@11:6-11:12 extent=11:1-11:30
sym p/Caller(). name=Caller kind=function def=p/p.go@13:6-13:12 extent=13:1-15:2
occ p/T#Target(). 5:12-5:18 def
occ p/helper(). 6:2-6:8 ref enc=p/T#Target().
occ p/T#Target(). 14:4-14:10 ref enc=p/Caller().
edge p/T#Target(). calls p/helper().
edge p/Caller(). calls p/T#Target().
edge p/T# contains p/T#Target().
edge p/T# contains p/T#Sibling().
`,
		"p/p_test.go": `
sym p/TestTarget(). name=TestTarget kind=function def=p/p_test.go@3:6-3:16 extent=3:1-5:2
occ p/T#Target(). 4:4-4:10 ref enc=p/TestTarget().
edge p/TestTarget(). calls p/T#Target().
`,
		"q/q.go": `
sym q/Far(). name=Far kind=function def=q/q.go@1:6-1:9 extent=1:1-1:40
sym q/Other#Target(). name=Target kind=method def=q/q.go@3:16-3:22 extent=3:1-3:40
occ p/T#Target(). 1:20-1:26 ref enc=q/Far().
edge q/Far(). calls p/T#Target().
`,
	}
	var facts []graph.DocumentFacts
	for p, text := range docs {
		d := graph.Document{Path: p, Language: "go", Package: "example.com/" + p[:1], Source: graph.SourceSCIP}
		if strings.HasSuffix(p, "_test.go") {
			d.Flags = graph.DocTest
		}
		facts = append(facts, graphtest.MustParseFacts(t, d, text))
	}
	return facts
}

func TestRankRolesAndScope(t *testing.T) {
	ctx := context.Background()
	r := rankGraph(t)
	ws, err := scope.Discover(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := scope.Analyze(ctx, ws, r)
	if err != nil {
		t.Fatal(err)
	}
	target, ok, err := r.Symbol(ctx, "p/T#Target().")
	if err != nil || !ok {
		t.Fatal(err)
	}
	cl, err := a.Closure(ctx, "example.com/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	render := func(res *Result) string {
		var b strings.Builder
		for _, c := range res.Items {
			fmt.Fprintf(&b, "%s %s d=%d: %s\n", c.Role, c.Name(), c.Distance, c.Reason)
		}
		for _, c := range res.OutOfScope {
			fmt.Fprintf(&b, "out %s %s %s\n", c.Package, c.Role, c.Name())
		}
		return b.String()
	}
	res, err := Rank(ctx, r, target, Options{Analysis: a, Scope: cl})
	if err != nil {
		t.Fatal(err)
	}
	got := render(res)
	// The ids are not SCIP symbols, so names are display names. helper and
	// Caller tie on score and break on position (p/p.go:11 before :13).
	// The target's own test leads (the fitted test factor, 2, puts a
	// direct test above callers and callees: on real history the tests
	// change with the code).
	want := `definition Target d=0: definition of ` + "`Target`" + `
test TestTarget d=1: test of ` + "`Target`" + `: calls it at p/p_test.go:4
callee helper d=1: called by ` + "`Target`" + ` at p/p.go:6
caller Caller d=1: calls ` + "`Target`" + ` at p/p.go:14
type T d=1: ` + "`Target`" + ` is a member of ` + "`T`" + `
sibling Sibling d=1: member of the same type ` + "`T`" + `
out example.com/q caller Far
out example.com/q namesake Target
`
	if got != want {
		t.Errorf("ranked:\n%s\nwant:\n%s", got, want)
	}
	again, err := Rank(ctx, r, target, Options{Analysis: a, Scope: cl})
	if err != nil {
		t.Fatal(err)
	}
	if render(again) != got {
		t.Errorf("ranking is not deterministic:\n%s\nthen\n%s", got, render(again))
	}
	all, err := Rank(ctx, r, target, Options{Analysis: a})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.OutOfScope) != 0 || len(all.Items) != len(res.Items)+2 {
		t.Errorf("without a scope every candidate is in: %s", render(all))
	}
	for i := 1; i < len(res.Items); i++ {
		if res.Items[i].Score > res.Items[i-1].Score {
			t.Errorf("items not sorted by score: %s", render(res))
		}
	}
}
