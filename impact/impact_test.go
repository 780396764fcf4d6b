package impact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// fixture is a small Go-shaped workspace: an interface store.I with method
// Put, an implementation mem.M, a service calling Put through the
// interface, a command calling the service, tests.
var fixture = []struct {
	path, pkg string
	flags     graph.DocumentFlags
	facts     string
}{
	{"store/store.go", "store", 0, `
sym store.I name=I kind=interface pkg=store def=store/store.go@3:6-3:7 extent=3:1-5:2
sym store.I.Put name=Put kind=method pkg=store def=store/store.go@4:2-4:5
occ store.I 3:6-3:7 def
occ store.I.Put 4:2-4:5 def enc=store.I
edge store.I contains store.I.Put
`},
	{"mem/mem.go", "mem", 0, `
sym mem name=mem kind=package pkg=mem def=mem/mem.go@1:9-1:12 extent=1:1-20:1
sym mem.M name=M kind=struct pkg=mem def=mem/mem.go@5:6-5:7 extent=5:1-5:20
sym mem.M.Put name=Put kind=method pkg=mem def=mem/mem.go@7:15-7:18 extent=7:1-9:2
occ mem 1:9-1:12 def
occ store.I 3:13-3:14 ref enc=mem
occ mem.M 3:20-3:21 ref enc=mem
occ mem.M 5:6-5:7 def
occ mem.M.Put 7:15-7:18 def
edge mem.M contains mem.M.Put
edge mem.M implements store.I
edge mem.M.Put implements store.I.Put
`},
	{"mem/mem_test.go", "mem", graph.DocTest, `
sym mem.TestPut name=TestPut kind=function pkg=mem def=mem/mem_test.go@3:6-3:13 extent=3:1-6:2
occ mem.TestPut 3:6-3:13 def
occ mem.M.Put 4:4-4:7 ref|call enc=mem.TestPut
edge mem.TestPut calls mem.M.Put
edge mem.TestPut references mem.M.Put
`},
	{"svc/svc.go", "svc", 0, `
sym svc.Save name=Save kind=function pkg=svc def=svc/svc.go@3:6-3:10 extent=3:1-5:2
sym svc.Import name=Import kind=function pkg=svc def=svc/svc.go@7:6-7:12 extent=7:1-11:2
sym svc.Describe name=Describe kind=function pkg=svc def=svc/svc.go@13:6-13:14 extent=13:1-13:30
occ svc.Save 3:6-3:10 def
occ store.I.Put 4:4-4:7 ref|call enc=svc.Save
occ svc.Import 7:6-7:12 def
occ svc.Save 8:2-8:6 ref|call enc=svc.Import
occ svc.Save 9:2-9:6 ref|call enc=svc.Import
occ svc.Describe 13:6-13:14 def
edge svc.Save references store.I.Put
edge svc.Import calls svc.Save count=2
`},
	{"svc/svc_test.go", "svc", graph.DocTest, `
sym svc.TestImport name=TestImport kind=function pkg=svc def=svc/svc_test.go@3:6-3:16 extent=3:1-5:2
occ svc.TestImport 3:6-3:16 def
occ svc.Import 4:2-4:8 ref|call enc=svc.TestImport
edge svc.TestImport calls svc.Import
`},
	{"cmd/main.go", "cmd", 0, `
sym cmd.main name=main kind=function pkg=cmd def=cmd/main.go@3:6-3:10 extent=3:1-5:2
sym cmd.run name=run kind=function pkg=cmd def=cmd/main.go@7:6-7:9 extent=7:1-12:2
occ cmd.main 3:6-3:10 def
occ cmd.run 4:2-4:5 ref|call enc=cmd.main
occ cmd.run 7:6-7:9 def
occ svc.Import 8:6-8:12 ref|call enc=cmd.run
edge cmd.main calls cmd.run
edge cmd.run calls svc.Import
`},
}

// openFixture writes the fixture as a complete precise base layer.
func openFixture(t *testing.T, source string) *graph.Reader {
	t.Helper()
	var docs []graph.DocumentFacts
	for _, d := range fixture {
		f := graphtest.MustParseFacts(t, graph.Document{Path: d.path, Language: "go", Package: d.pkg, Source: source, Flags: d.flags}, d.facts)
		if source == graph.SourceSyntax {
			for i := range f.Edges {
				f.Edges[i].Source = source
			}
		}
		if d.path == "mem/mem.go" {
			// `var _ store.I = M{}`: the type checker's conversion site,
			// needing M.Put and store.I.Put, at the reference to mem.M.
			for _, o := range f.Occurrences {
				if o.Symbol == "mem.M" && o.Roles&graph.RoleDefinition == 0 {
					for _, sym := range []string{graph.ConversionSymbol("mem", "M", "Put"), graph.ConversionSymbol("store", "I", "Put")} {
						f.Occurrences = append(f.Occurrences, graph.Occurrence{Path: d.path, Range: o.Range,
							Symbol: sym, Roles: graph.RoleReference | graph.RoleConversion, Enclosing: o.Enclosing})
					}
				}
			}
		}
		docs = append(docs, f)
	}
	tool := "scip-go"
	if source == graph.SourceSyntax {
		tool = "lspgraph-syntax"
	}
	return graphtest.Base(t, graph.Manifest{Layer: graph.Base, Commit: "base1", Tool: tool, State: graph.StateComplete,
		Extra: map[string]int{graph.ManifestConversionPackages: 5}}, docs...)
}

func compute(t *testing.T, r *graph.Reader, id string, mod func(*Options)) *Answer {
	t.Helper()
	ctx := context.Background()
	s, ok, err := r.Symbol(ctx, id)
	if err != nil || !ok {
		t.Fatalf("symbol %s: %v %v", id, ok, err)
	}
	o := DefaultOptions()
	o.Freshness = &freshness.Block{BaseCommit: "base1", Head: "base1"}
	if mod != nil {
		mod(&o)
	}
	a, err := Compute(ctx, r, s, o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// names renders a group as "name@path:line" entries.
func names(ds []Dependent) []string {
	out := []string{}
	for _, d := range ds {
		s := d.Name
		if d.Location != nil {
			s += fmt.Sprintf("@%s:%d", d.Location.Path, d.Location.Line)
		}
		out = append(out, s)
	}
	return out
}

func depthNames(a *Answer) [][]string {
	var out [][]string
	for _, g := range a.Depths {
		out = append(out, names(g.Dependents))
	}
	return out
}

func check[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

func TestDepths(t *testing.T) {
	r := openFixture(t, graph.SourceSCIP)
	a := compute(t, r, "svc.Save", nil)
	check(t, "depths", depthNames(a), [][]string{
		{"Import@svc/svc.go:7"},
		{"run@cmd/main.go:7", "TestImport@svc/svc_test.go:3"},
		{"main@cmd/main.go:3"},
	})
	d := a.Depths[0].Dependents[0]
	check(t, "d=1 via", []any{d.Via.Kind, d.Via.Source, d.Via.Commit, d.Sites}, []any{"calls", "scip", "base1", 2})
	check(t, "tests", names(a.Tests), []string{"TestImport@svc/svc_test.go:3"})
	check(t, "cross", len(a.CrossPackage), 1)
	check(t, "cross edge", a.CrossPackage[0].FromName+"->"+a.CrossPackage[0].ToName, "run->Import")
	// One breaking dependent, but cmd is another package (at d=2).
	check(t, "risk", a.Risk.Level, RiskMedium)
	check(t, "partial", a.Partial, false)
	if len(a.Dispatch)+len(a.Satisfaction)+len(a.Implementations) != 0 {
		t.Errorf("a plain function has groups: %+v %+v %+v", a.Dispatch, a.Satisfaction, a.Implementations)
	}
	// Downstream from main reaches Save at distance 3.
	down := compute(t, r, "cmd.main", func(o *Options) { o.Direction = graph.Downstream })
	check(t, "downstream", depthNames(down), [][]string{{"run@cmd/main.go:7"}, {"Import@svc/svc.go:7"}, {"Save@svc/svc.go:3"}})
}

func TestConcreteMethodGroups(t *testing.T) {
	r := openFixture(t, graph.SourceSCIP)
	a := compute(t, r, "mem.M.Put", nil)
	// Only the test calls Put directly; Save calls it through store.I.
	check(t, "d=1", names(a.Depths[0].Dependents), []string{"TestPut@mem/mem_test.go:3"})
	check(t, "dispatch", names(a.Dispatch), []string{"Save@svc/svc.go:3"})
	check(t, "satisfaction", names(a.Satisfaction), []string{"(top level of mem/mem.go)@mem/mem.go:3"})
	check(t, "implements", len(a.Implements), 1)
	check(t, "implements[0]", a.Implements[0].Symbol, "store.I.Put")
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			if d.Name == "Save" {
				t.Errorf("dispatch caller counted as a dependent at depth %d", g.Depth)
			}
		}
	}
	checkGroupJSON(t, a)
}

// checkGroupJSON checks that no group entry carries a depth in the JSON
// (a consumer would read "depth": 1 as "will break") and that "breaks"
// is set exactly on d=1 and satisfaction entries.
func checkGroupJSON(t *testing.T, a *Answer) {
	t.Helper()
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Depths []struct {
			Depth      int                      `json:"depth"`
			Dependents []map[string]interface{} `json:"dependents"`
		} `json:"depths"`
		Dispatch        []map[string]interface{} `json:"dispatch"`
		Satisfaction    []map[string]interface{} `json:"satisfaction"`
		Implementations []map[string]interface{} `json:"implementations"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string][]map[string]interface{}{GroupDispatch: raw.Dispatch, GroupSatisfaction: raw.Satisfaction, GroupImplementation: raw.Implementations} {
		for _, d := range g {
			if _, ok := d["depth"]; ok {
				t.Errorf("%s entry %v carries a depth: %v", name, d["name"], d["depth"])
			}
			if d["group"] != name {
				t.Errorf("%s entry %v has group %v", name, d["name"], d["group"])
			}
			if got, want := d["breaks"] == true, name == GroupSatisfaction; got != want {
				t.Errorf("%s entry %v: breaks %v, want %v", name, d["name"], got, want)
			}
		}
	}
	for _, g := range raw.Depths {
		for _, d := range g.Dependents {
			if got, want := d["breaks"] == true, g.Depth == 1; got != want {
				t.Errorf("d=%d entry %v: breaks %v, want %v", g.Depth, d["name"], got, want)
			}
		}
	}
}

func TestInterfaceMethod(t *testing.T) {
	r := openFixture(t, graph.SourceSCIP)
	a := compute(t, r, "store.I.Put", nil)
	check(t, "d=1", names(a.Depths[0].Dependents), []string{"Save@svc/svc.go:3"})
	check(t, "d=2", names(a.Depths[1].Dependents), []string{"Import@svc/svc.go:7"})
	check(t, "implementations", names(a.Implementations), []string{"Put@mem/mem.go:7"})
	check(t, "satisfaction", names(a.Satisfaction), []string{"(top level of mem/mem.go)@mem/mem.go:3"})
	check(t, "dispatch", len(a.Dispatch), 0)
	checkGroupJSON(t, a)
}

func TestRiskUnknownVersusLow(t *testing.T) {
	precise := openFixture(t, graph.SourceSCIP)
	a := compute(t, precise, "svc.Describe", nil)
	check(t, "complete, no callers", []any{a.Risk.Level, a.Risk.Breaking, a.Partial}, []any{RiskLow, 0, false})

	// A changed document of the same language could hold new callers.
	a = compute(t, precise, "svc.Describe", func(o *Options) {
		o.Freshness = &freshness.Block{BaseCommit: "base1", Head: "head2", Changed: []string{"cmd/main.go"}}
	})
	check(t, "changed since base", a.Risk.Level, RiskUnknown)
	check(t, "partial", a.Partial, true)
	if !strings.Contains(a.Risk.Rule, "cmd/main.go") {
		t.Errorf("rule does not name the changed document: %s", a.Risk.Rule)
	}
	// No freshness at all: not vouched for either.
	a = compute(t, precise, "svc.Describe", func(o *Options) { o.Freshness = nil })
	check(t, "no freshness", a.Risk.Level, RiskUnknown)

	// A syntax-only layer cannot vouch for callers.
	syn := openFixture(t, graph.SourceSyntax)
	a = compute(t, syn, "svc.Describe", nil)
	check(t, "syntax-only", a.Risk.Level, RiskUnknown)
	// With dependents found, the level is a lower bound, never UNKNOWN.
	a = compute(t, syn, "svc.Save", nil)
	check(t, "syntax-only with callers", a.Risk.Level, RiskMedium)
	check(t, "syntax-only partial", a.Partial, true)
	if !strings.Contains(a.Risk.Rule, "lower bound") {
		t.Errorf("rule does not say lower bound: %s", a.Risk.Rule)
	}
}

func TestOnlyTestsAndFilters(t *testing.T) {
	r := openFixture(t, graph.SourceSCIP)
	a := compute(t, r, "svc.Import", nil)
	check(t, "d=1", names(a.Depths[0].Dependents), []string{"run@cmd/main.go:7", "TestImport@svc/svc_test.go:3"})
	check(t, "risk", a.Risk.Level, RiskMedium)

	a = compute(t, r, "svc.Import", func(o *Options) { o.IncludeTests = false })
	check(t, "no tests", names(a.Depths[0].Dependents), []string{"run@cmd/main.go:7"})
	check(t, "no tests list", len(a.Tests), 0)

	a = compute(t, r, "svc.Import", func(o *Options) { o.LimitPerDepth = 1 })
	check(t, "limited", names(a.Depths[0].Dependents), []string{"run@cmd/main.go:7"})
	check(t, "truncated", a.Truncated, true)

	a = compute(t, r, "svc.Import", func(o *Options) { o.MinConfidence = 1.01 })
	check(t, "confidence above every edge", len(a.Depths[0].Dependents), 0)

	a = compute(t, r, "mem.M.Put", nil)
	check(t, "only a test breaks", a.Risk.Level, RiskMedium) // the satisfaction site is not a test
	a = compute(t, r, "mem.M.Put", func(o *Options) { o.Kinds = []graph.EdgeKind{graph.EdgeReferences, graph.EdgeCalls} })
	check(t, "without implements", []int{len(a.Dispatch), len(a.Satisfaction)}, []int{0, 0})
	// A test breaks: never LOW, whoever breaks.
	check(t, "only tests", a.Risk.Level, RiskMedium)
	check(t, "only tests rule", strings.Contains(a.Risk.Rule, "only tests break"), true)
}

// TestRiskRule checks the rule's parts: something breaking is never LOW; no
// test reaching the target raises the level; an incomplete graph makes the
// level a lower bound.
func TestRiskRule(t *testing.T) {
	w := &walker{}
	ref := func(name, pkg string, test bool) Dependent {
		return Dependent{Ref: Ref{Name: name, Package: pkg, Location: &Loc{Path: name + ".go", Line: 1}}, Test: test}
	}
	for _, c := range []struct {
		name    string
		d1      []Dependent
		unknown []string
		groups  []UnknownGroup
		level   string
		atLeast bool
	}{
		{name: "nothing", level: RiskLow},
		{name: "nothing, unvouched", unknown: []string{"syntax only"}, level: RiskUnknown},
		{name: "nothing found, satisfaction unknown", groups: []UnknownGroup{{GroupSatisfaction, "no facts"}}, level: RiskUnknown},
		{name: "one caller, tested", d1: []Dependent{ref("a", "p", false), ref("t", "p", true)}, level: RiskMedium},
		{name: "one caller, untested", d1: []Dependent{ref("a", "p", false)}, level: RiskHigh},
		{name: "one caller, syntax only", d1: []Dependent{ref("a", "p", false), ref("t", "p", true)}, unknown: []string{"syntax only"}, level: RiskMedium, atLeast: true},
		{name: "satisfaction unknown", d1: []Dependent{ref("t", "p", true)}, groups: []UnknownGroup{{GroupSatisfaction, "no facts"}}, level: RiskMedium, atLeast: true},
	} {
		a := &Answer{Targets: []Ref{{Package: "p"}}, Depths: []DepthGroup{{Depth: 1, Dependents: c.d1}}, UnknownGroups: c.groups}
		r := w.risk(a, c.unknown)
		if r.Level != c.level || r.AtLeast != c.atLeast {
			t.Errorf("%s: %s (at least %v), want %s (at least %v): %s", c.name, r.Level, r.AtLeast, c.level, c.atLeast, r.Rule)
		}
	}
}

func loc(p string, line, col uint32) graph.Location {
	pos := textpos.Position{Line: line - 1, Col: col - 1}
	return graph.Location{Path: p, Range: textpos.Range{Start: pos, End: textpos.Position{Line: pos.Line, Col: pos.Col + 3}}}
}

func TestVerify(t *testing.T) {
	r := openFixture(t, graph.SourceSCIP)
	var asked graph.Location
	// The server reports run's call (the graph has it), the declaration
	// itself, and a call in run on line 10 the graph lacks; it does not
	// report TestImport.
	v := func(ctx context.Context, def graph.Location) ([]graph.Location, error) {
		asked = def
		return []graph.Location{loc("svc/svc.go", 7, 6), loc("cmd/main.go", 8, 6), loc("cmd/main.go", 10, 3), loc("cmd/main.go", 4, 9)}, nil
	}
	a := compute(t, r, "svc.Import", func(o *Options) { o.Verify = v })
	check(t, "asked about", asked.Path+":"+asked.Range.Start.String(), "svc/svc.go:7:6")
	var marks []string
	for _, d := range a.Depths[0].Dependents {
		marks = append(marks, d.Name+"="+d.Verification)
	}
	// cmd/main.go:4:9 lies in main's extent: live-only.
	check(t, "marks", marks, []string{"main=live-only", "run=verified", "TestImport=graph-only"})
	check(t, "live-only sites", len(a.LiveOnly), 1)
	check(t, "live-only enclosing", a.LiveOnly[0].Enclosing, "cmd.main")
	check(t, "info", []int{a.Verification.Verified, a.Verification.GraphOnly, a.Verification.LiveOnly}, []int{1, 1, 1})

	// A server that does not answer in time: everything unverified.
	slow := func(ctx context.Context, def graph.Location) ([]graph.Location, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	a = compute(t, r, "svc.Import", func(o *Options) { o.Verify, o.VerifyTimeout = slow, time.Millisecond })
	check(t, "timed out", a.Verification.TimedOut, true)
	for _, d := range a.Depths[0].Dependents {
		check(t, d.Name, d.Verification, Unverified)
	}
	// An error is reported, not fatal.
	failing := func(ctx context.Context, def graph.Location) ([]graph.Location, error) {
		return nil, errors.New("server exited")
	}
	a = compute(t, r, "svc.Import", func(o *Options) { o.Verify = failing })
	check(t, "error", a.Verification.Error, "server exited")
}

func TestSplitSignature(t *testing.T) {
	for _, tc := range []struct{ sig, params, results string }{
		{"func New() *Mem", "", " *Mem"},
		{"func NewCatalog(st store.Store) *Catalog", "st store.Store", " *Catalog"},
		{"func (*Mem).Get(key string) (string, error)", "key string", " (string, error)"},
		{"func Apply(f func(int) int, xs []int) []int", "f func(int) int, xs []int", " []int"},
	} {
		p, r, ok := splitSignature(tc.sig)
		if !ok || p != tc.params || r != tc.results {
			t.Errorf("splitSignature(%q) = %q, %q, %v; want %q, %q", tc.sig, p, r, ok, tc.params, tc.results)
		}
	}
	if _, _, ok := splitSignature("var x int"); ok {
		t.Error("a variable's signature split")
	}
	for _, tc := range []struct {
		text, name string
		want       bool
	}{
		{"st store.Store", "Store", true}, {" *Mem", "Mem", true}, {" *Memory", "Mem", false}, {"xMem", "Mem", false},
	} {
		if got := mentions(tc.text, tc.name); got != tc.want {
			t.Errorf("mentions(%q, %q) = %v", tc.text, tc.name, got)
		}
	}
}

// MaxDependents stops the walk once that many dependents are listed: what
// it left out is counted, and answers with fewer dependents are the
// unbounded ones.
func TestMaxDependents(t *testing.T) {
	r := openFixture(t, graph.SourceSCIP)
	unbounded := compute(t, r, "svc.Save", func(o *Options) { o.MaxDependents = 0 })
	under := compute(t, r, "svc.Save", func(o *Options) { o.MaxDependents = 5 })
	check(t, "depths under the bound", under.Depths, unbounded.Depths)
	check(t, "tests under the bound", under.Tests, unbounded.Tests)
	check(t, "risk under the bound", under.Risk, unbounded.Risk)
	if under.Truncated || under.Skipped != nil {
		t.Errorf("an answer under the bound is truncated: %v %+v", under.Truncated, under.Skipped)
	}

	// Three listed (Import at d=1; run and TestImport at d=2): neither d=2
	// dependent is expanded, so main is not reached.
	a := compute(t, r, "svc.Save", func(o *Options) { o.MaxDependents = 3 })
	check(t, "depths at 3", depthNames(a), [][]string{
		{"Import@svc/svc.go:7"},
		{"run@cmd/main.go:7", "TestImport@svc/svc_test.go:3"},
		{},
	})
	check(t, "skipped at 3", *a.Skipped, Skipped{Unexpanded: 2})
	check(t, "truncated groups at 3", []bool{a.Truncated, a.Depths[0].Truncated, a.Depths[1].Truncated, a.Depths[2].Truncated}, []bool{true, false, false, true})
	check(t, "query", a.Query.MaxDependents, 3)

	// Depth 1 is complete even past the bound (both of Import's callers);
	// neither is expanded.
	b := compute(t, r, "svc.Import", func(o *Options) { o.MaxDependents = 1 })
	check(t, "depths at 1", depthNames(b), [][]string{{"run@cmd/main.go:7", "TestImport@svc/svc_test.go:3"}, {}, {}})
	check(t, "skipped at 1", *b.Skipped, Skipped{Unexpanded: 2})
	check(t, "truncated groups at 1", []bool{b.Depths[0].Truncated, b.Depths[1].Truncated, b.Depths[2].Truncated}, []bool{false, true, true})

	// At 2: of Import's callers run is listed, TestImport found and left
	// out, and run not expanded.
	c := compute(t, r, "svc.Save", func(o *Options) { o.MaxDependents = 2 })
	check(t, "depths at 2", depthNames(c), [][]string{{"Import@svc/svc.go:7"}, {"run@cmd/main.go:7"}, {}})
	check(t, "truncated groups at 2", []bool{c.Depths[0].Truncated, c.Depths[1].Truncated, c.Depths[2].Truncated}, []bool{false, true, true})
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"truncated":true,"skipped":{"unexpanded":1,"unlisted":1}`) {
		t.Errorf("JSON lacks the skipped counts: %s", js)
	}
}
