package ranking

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/scope"
)

// renderRanking writes a ranking's candidates in order, with their scores.
func renderRanking(res *Result) string {
	var b strings.Builder
	for _, c := range append(append([]Candidate(nil), res.Items...), res.OutOfScope...) {
		fmt.Fprintf(&b, "%s %s %s d=%d %.6f: %s\n", c.Package, c.Role, c.Name(), c.Distance, c.Score, c.Reason)
	}
	return b.String()
}

// TestCacheSameRankingAndNewVersion checks that a ranking read through a
// Cache, cold and warm, is the one read without, and that a write to the
// store (a new version) is seen through the same Cache.
func TestCacheSameRankingAndNewVersion(t *testing.T) {
	ctx := context.Background()
	st := graphtest.Open(t)
	gw, err := st.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rankFacts(t) {
		if err := gw.PutDocument(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := gw.Commit(ctx, graph.Manifest{Tool: "test", State: graph.StateComplete}); err != nil {
		t.Fatal(err)
	}
	rank := func(o Options) (*graph.Reader, string) {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		ws, err := scope.Discover(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if o.Analysis, err = scope.Analyze(ctx, ws, r); err != nil {
			t.Fatal(err)
		}
		target, ok, err := r.Symbol(ctx, "p/T#Target().")
		if err != nil || !ok {
			t.Fatalf("target: %v %v", ok, err)
		}
		res, err := Rank(ctx, r, target, o)
		if err != nil {
			t.Fatal(err)
		}
		return r, renderRanking(res)
	}
	_, want := rank(Options{})
	var c Cache
	r1, cold := rank(Options{Cache: &c})
	_, warm := rank(Options{Cache: &c})
	if cold != want || warm != want {
		t.Errorf("through the cache:\ncold:\n%s\nwarm:\n%s\nwant:\n%s", cold, warm, want)
	}
	if len(c.m) == 0 {
		t.Errorf("the cache kept no read")
	}
	extra := graphtest.MustParseFacts(t, graph.Document{Path: "p/extra.go", Language: "go", Package: "example.com/p", Source: graph.SourceSCIP}, `
sym p/Extra(). name=Extra kind=function def=p/extra.go@1:6-1:11 extent=1:1-3:2
occ p/T#Target(). 2:4-2:10 ref enc=p/Extra().
edge p/Extra(). calls p/T#Target().
`)
	if err := st.PutDocument(ctx, graph.Live, extra); err != nil {
		t.Fatal(err)
	}
	r2, after := rank(Options{Cache: &c})
	if r2.Version() == r1.Version() {
		t.Fatalf("the write did not change the store's version (%d)", r1.Version())
	}
	if !strings.Contains(after, "caller Extra d=1") {
		t.Errorf("the new caller is missing after the write, through the same cache:\n%s", after)
	}
	if _, fresh := rank(Options{}); after != fresh {
		t.Errorf("after the write, through the cache:\n%s\nwithout:\n%s", after, fresh)
	}
}
