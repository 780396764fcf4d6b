package impact

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
)

// TestVerifyEmpty: with no dependent in the graph the answer is still
// checked against the server; a caller the server reports turns an
// UNKNOWN into a real dependent, and a server that does not answer leaves
// it UNKNOWN and says so.
func TestVerifyEmpty(t *testing.T) {
	syn := openFixture(t, graph.SourceSyntax)
	a := compute(t, syn, "svc.Describe", nil)
	check(t, "without verification", a.Risk.Level, RiskUnknown)

	asked := 0
	caller := func(ctx context.Context, def graph.Location) ([]graph.Location, error) {
		asked++
		return []graph.Location{loc("cmd/main.go", 9, 3)}, nil // in run
	}
	a = compute(t, syn, "svc.Describe", func(o *Options) { o.Verify = caller })
	check(t, "asked", asked, 1)
	check(t, "d=1", names(a.Depths[0].Dependents), []string{"run@cmd/main.go:7"})
	check(t, "mark", a.Depths[0].Dependents[0].Verification, LiveOnly)
	check(t, "live-only sites", len(a.LiveOnly), 1)
	if a.Risk.Level == RiskUnknown || a.Risk.Breaking != 1 {
		t.Errorf("risk with a caller only the server knows: %+v; want one breaking, not UNKNOWN", a.Risk)
	}

	slow := func(ctx context.Context, def graph.Location) ([]graph.Location, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	a = compute(t, syn, "svc.Describe", func(o *Options) { o.Verify, o.VerifyTimeout = slow, time.Millisecond })
	check(t, "timed out", []any{a.Verification.Ran, a.Verification.TimedOut, a.Risk.Level}, []any{true, true, RiskUnknown})
	if !strings.Contains(a.Verification.Error, "did not answer within") {
		t.Errorf("timeout error %q does not say the server did not answer in time", a.Verification.Error)
	}

	// A complete graph and a server that agrees there is nothing.
	precise := openFixture(t, graph.SourceSCIP)
	none := func(ctx context.Context, def graph.Location) ([]graph.Location, error) { return nil, nil }
	a = compute(t, precise, "svc.Describe", func(o *Options) { o.Verify = none })
	check(t, "confirmed empty", []any{a.Verification.Ran, a.Verification.Error, a.Risk.Level, len(a.Depths[0].Dependents)}, []any{true, "", RiskLow, 0})
}

// tsFixture: quote in pricing, imported by order (whose linePrice calls
// it) and by user, whose import line the graph knows only by its module
// specifier.
var tsFixture = []struct{ path, pkg, facts string }{
	{"pricing/src/index.ts", "pricing", `
sym P name=index.ts kind=module pkg=pricing def=pricing/src/index.ts@1:1-1:1 extent=1:1-20:1
sym P.quote name=quote kind=function pkg=pricing def=pricing/src/index.ts@7:17-7:22 extent=7:1-9:2
occ P.quote 7:17-7:22 def enc=P
`},
	{"order/src/index.ts", "order", `
sym O name=index.ts kind=module pkg=order def=order/src/index.ts@1:1-1:1 extent=1:1-40:1
sym O.linePrice name=linePrice kind=method pkg=order def=order/src/index.ts@28:3-28:12 extent=28:3-30:4
occ P.quote 1:10-1:15 import enc=O
occ P 1:23-1:38 ref enc=O
occ O.linePrice 28:3-28:12 def enc=O
occ P.quote 29:12-29:17 ref|call enc=O.linePrice
edge O.linePrice calls P.quote
`},
	{"user/src/index.ts", "user", `
sym U name=index.ts kind=module pkg=user def=user/src/index.ts@1:1-1:1 extent=1:1-30:1
sym U.creditFor name=creditFor kind=function pkg=user def=user/src/index.ts@17:17-17:26 extent=17:1-20:2
occ P 1:23-1:38 ref enc=U
occ U.creditFor 17:17-17:26 def enc=U
`},
}

// TestVerifyImports: the server's references include import bindings. One
// the graph has as an occurrence of the target is known, one on a line
// the graph knows as an import is no dependent; a use inside a
// declaration, or at top level outside an import, is a live-only
// dependent as the walk would have made it.
func TestVerifyImports(t *testing.T) {
	ctx := context.Background()
	var docs []graph.DocumentFacts
	for _, d := range tsFixture {
		docs = append(docs, graphtest.MustParseFacts(t, graph.Document{Path: d.path, Language: "typescript", Package: d.pkg, Source: graph.SourceSCIP}, d.facts))
	}
	r := graphtest.Base(t, graph.Manifest{Layer: graph.Base, Commit: "base1", Tool: "scip-typescript", State: graph.StateComplete}, docs...)
	s, ok, err := r.Symbol(ctx, "P.quote")
	if err != nil || !ok {
		t.Fatalf("symbol P.quote: %v %v", ok, err)
	}
	o := DefaultOptions()
	o.Freshness = &freshness.Block{BaseCommit: "base1", Head: "base1"}
	o.Verify = func(ctx context.Context, def graph.Location) ([]graph.Location, error) {
		return []graph.Location{
			loc("pricing/src/index.ts", 7, 17), // the declaration
			loc("order/src/index.ts", 1, 10),   // the import binding the graph has
			loc("order/src/index.ts", 29, 12),  // the call in linePrice
			loc("user/src/index.ts", 1, 10),    // an import binding the graph lacks
			loc("user/src/index.ts", 18, 5),    // a use in creditFor the graph lacks
			loc("user/src/index.ts", 25, 1),    // a top-level use the graph lacks
		}, nil
	}
	a, err := Compute(ctx, r, s, o)
	if err != nil {
		t.Fatal(err)
	}
	var marks []string
	for _, d := range a.Depths[0].Dependents {
		marks = append(marks, d.Name+"="+d.Verification)
	}
	check(t, "marks", marks, []string{"linePrice=verified", "creditFor=live-only", "(top level of user/src/index.ts)=live-only"})
	var sites []string
	for _, l := range a.LiveOnly {
		sites = append(sites, l.Location.Path+":"+l.Location.Range.Start.String())
	}
	check(t, "live-only sites", sites, []string{"user/src/index.ts:18:5", "user/src/index.ts:25:1"})
	check(t, "info", []int{a.Verification.LiveSites, a.Verification.Verified, a.Verification.GraphOnly, a.Verification.LiveOnly}, []int{6, 1, 0, 2})
	for _, d := range a.Depths[0].Dependents {
		if strings.HasPrefix(d.Name, "(top level") && (!d.TopLevel || d.Location == nil || d.Location.Path != "user/src/index.ts") {
			t.Errorf("top-level dependent %+v, want user/src/index.ts at top level", d)
		}
	}
}
