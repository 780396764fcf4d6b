package drift

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// store holds F (two references, lines 5 and 9 of b.go), G (one, line 7)
// and a variable V, which is never sampled.
func store(t *testing.T) *graph.Reader {
	a := graphtest.MustParseFacts(t, graph.Document{Path: "a.go", Language: "go", Source: graph.SourceSCIP}, `
sym F name=F kind=function def=a.go@1:6-1:7
sym G name=G kind=method def=a.go@3:6-3:7
sym V name=V kind=variable def=a.go@4:5-4:6
occ F 1:6-1:7 def
occ G 3:6-3:7 def
`)
	b := graphtest.MustParseFacts(t, graph.Document{Path: "b.go", Language: "go", Source: graph.SourceSCIP}, `
occ F 5:2-5:3 ref
occ F 9:2-9:3 ref
occ G 7:2-7:3 ref
`)
	return graphtest.Base(t, graph.Manifest{Tool: "test", State: graph.StateComplete}, a, b)
}

// server answers F with lines 5 and 11 of b.go (one missing from the
// graph, one extra in it) and G with line 7.
func server(_ context.Context, def graph.Location) ([]graph.Location, error) {
	at := func(line uint32) graph.Location {
		return graph.Location{Path: "b.go", Range: textpos.Range{Start: textpos.Position{Line: line - 1}}}
	}
	switch def.Range.Start.Line {
	case 0:
		return []graph.Location{at(5), at(11)}, nil
	case 2:
		return []graph.Location{at(7)}, nil
	}
	return nil, fmt.Errorf("unexpected definition %v", def)
}

func TestAudit(t *testing.T) {
	r := store(t)
	rep, err := Audit(context.Background(), r, server, Options{Root: t.TempDir(), BaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Candidates != 2 || rep.Compared != 2 {
		t.Fatalf("candidates %d, compared %d; want 2 and 2", rep.Candidates, rep.Compared)
	}
	if len(rep.Sources) != 1 || rep.Sources[0].Source != "scip" || rep.Sources[0].Layer != "base" {
		t.Fatalf("sources %+v; want one, base/scip", rep.Sources)
	}
	// Pooled: graph 3 sites, server 3, matched 2.
	if !near(rep.Precision, 2.0/3) || !near(rep.Recall, 2.0/3) {
		t.Errorf("precision %v recall %v; want 2/3 and 2/3", rep.Precision, rep.Recall)
	}
	// F: F1 0.5 weighted 2; G: F1 1 weighted 1.
	if want := 1 - (2*0.5+1)/3; !near(rep.Drift, want) {
		t.Errorf("drift %v; want %v", rep.Drift, want)
	}
	if len(rep.Worst) != 1 {
		t.Fatalf("worst %+v; want F alone", rep.Worst)
	}
	w := rep.Worst[0]
	if w.Symbol != "F" || fmt.Sprint(w.Missing) != "[b.go:11]" || fmt.Sprint(w.Extra) != "[b.go:9]" {
		t.Errorf("worst %+v; want F missing b.go:11, extra b.go:9", w)
	}
}

func TestDrawDeterministic(t *testing.T) {
	strata := map[string][]candidate{}
	for i := range 20 {
		k := []string{"base/scip", "live/syntax"}[min(i/17, 1)]
		strata[k] = append(strata[k], candidate{sym: graph.Symbol{ID: fmt.Sprint(i)}})
	}
	a, b, c := draw(strata, 6, 1), draw(strata, 6, 1), draw(strata, 6, 2)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("the same seed drew %v then %v", a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("seeds 1 and 2 drew the same %v", a)
	}
	small := 0
	for _, x := range a {
		if x.sym.ID >= "17" && len(x.sym.ID) == 2 {
			small++
		}
	}
	if small != 3 {
		t.Errorf("the 3-symbol stratum gave %d of 6; want all 3 (strata are taken in turn)", small)
	}
	if n := len(draw(strata, 100, 1)); n != 20 {
		t.Errorf("drawing 100 of 20 gave %d", n)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestAuditInterfaceCalls: a call through the interface method I.M is the
// concrete method C.M's reference where the server says so (gopls), and
// not an extra site where it does not.
func TestAuditInterfaceCalls(t *testing.T) {
	a := graphtest.MustParseFacts(t, graph.Document{Path: "a.go", Language: "go", Source: graph.SourceSCIP}, `
sym I.M name=M kind=method def=a.go@1:6-1:7
sym C.M name=M kind=method def=a.go@3:6-3:7
occ I.M 1:6-1:7 def
occ C.M 3:6-3:7 def
occ I.M 8:2-8:3 ref
edge C.M implements I.M
`)
	r := graphtest.Base(t, graph.Manifest{Tool: "test", State: graph.StateComplete}, a)
	for _, withDispatch := range []bool{true, false} {
		refs := func(_ context.Context, def graph.Location) ([]graph.Location, error) {
			if def.Range.Start.Line == 2 && !withDispatch {
				return nil, nil
			}
			return []graph.Location{{Path: "a.go", Range: textpos.Range{Start: textpos.Position{Line: 7}}}}, nil
		}
		rep, err := Audit(context.Background(), r, refs, Options{Root: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Compared != 2 || rep.Drift != 0 || len(rep.Worst) != 0 {
			t.Errorf("server reports dispatch %v: compared %d, drift %v, worst %+v; want 2, 0, none", withDispatch, rep.Compared, rep.Drift, rep.Worst)
		}
	}
}

// TestAuditCallers: F's callers in the graph are G and H (calls edges);
// the server's incoming calls name G and K, so G matches, K is missing
// and H extra. The variable V is not callable and T (a type) is not asked.
func TestAuditCallers(t *testing.T) {
	a := graphtest.MustParseFacts(t, graph.Document{Path: "a.go", Language: "go", Source: graph.SourceSCIP}, `
sym F name=F kind=function def=a.go@1:5-1:6
sym G name=G kind=function def=a.go@3:5-3:6
sym H name=H kind=function def=a.go@6:5-6:6
sym T name=T kind=type def=a.go@9:5-9:6
occ F 1:5-1:6 def
occ G 3:5-3:6 def
occ H 6:5-6:6 def
occ T 9:5-9:6 def
occ F 4:1-4:2 ref
occ F 7:1-7:2 ref
edge G calls F
edge H calls F
`)
	r := graphtest.Base(t, graph.Manifest{Tool: "test", State: graph.StateComplete}, a)
	at := func(line uint32) graph.Location {
		return graph.Location{Path: "a.go", Range: textpos.Range{Start: textpos.Position{Line: line - 1}}}
	}
	refs := func(_ context.Context, def graph.Location) ([]graph.Location, error) {
		if def.Range.Start.Line == 0 {
			return []graph.Location{at(4), at(7)}, nil
		}
		return nil, nil
	}
	asked := map[uint32]bool{}
	callers := func(_ context.Context, def graph.Location) ([]graph.Location, bool, error) {
		asked[def.Range.Start.Line] = true
		switch def.Range.Start.Line {
		case 0: // F: called by G (defined on line 3) and K (line 12)
			return []graph.Location{at(3), at(12)}, true, nil
		case 2: // G: the server has no item
			return nil, false, nil
		}
		return nil, true, nil
	}
	rep, err := Audit(context.Background(), r, refs, Options{Root: t.TempDir(), Callers: callers})
	if err != nil {
		t.Fatal(err)
	}
	if asked[8] {
		t.Errorf("callers asked for the type T")
	}
	c := rep.Callers
	if c == nil || c.Symbols != 2 || c.Matched != 1 || c.Graph != 2 || c.Server != 2 {
		t.Fatalf("pooled callers %+v; want 2 symbols (F, H), 1 matched of 2 in the graph and 2 from the server", c)
	}
	i := slices.IndexFunc(rep.Worst, func(s SymbolStat) bool { return s.Symbol == "F" })
	if i < 0 || rep.Worst[i].Callers == nil {
		t.Fatalf("worst %+v; want F with its callers", rep.Worst)
	}
	fc := rep.Worst[i].Callers
	if fmt.Sprint(fc.Missing) != "[a.go:12]" || fmt.Sprint(fc.Extra) != "[a.go:6]" || !near(fc.Precision, 0.5) || !near(fc.Recall, 0.5) {
		t.Errorf("F's callers %+v; want missing a.go:12, extra a.go:6 (H), precision and recall 1/2", fc)
	}
	if rep.Drift != 0 {
		t.Errorf("drift %v; callers do not count in it, and the references agree", rep.Drift)
	}
}
