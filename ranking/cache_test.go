package ranking

import (
	"context"
	"fmt"
	"slices"
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

// rankStore writes rankFacts as the base layer of a new in-memory store,
// which the test may write to.
func rankStore(t *testing.T) *graph.Store {
	t.Helper()
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
	return st
}

// TestCacheSameRankingAndNewVersion checks that a ranking read through a
// Cache, cold and warm, is the one read without, and that a write to the
// store (a new version) is seen through the same Cache.
func TestCacheSameRankingAndNewVersion(t *testing.T) {
	ctx := context.Background()
	st := rankStore(t)
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

// TestCacheFollowsLiveEdits: across live-layer writes (a base document
// hidden by a live version that names neither its caller nor the target,
// a new caller, that caller changed to call nothing, a base document
// hidden by a live version that drops its call, the live documents
// deleted), a ranking read through one Cache is at every step the one read
// without; and a write keeps the reads it cannot have changed.
func TestCacheFollowsLiveEdits(t *testing.T) {
	ctx := context.Background()
	st := rankStore(t)
	ws, err := scope.Discover(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rank := func(c *Cache) string {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		a, err := scope.Analyze(ctx, ws, r)
		if err != nil {
			t.Fatal(err)
		}
		target, ok, err := r.Symbol(ctx, "p/T#Target().")
		if err != nil || !ok {
			t.Fatalf("target: %v %v", ok, err)
		}
		res, err := Rank(ctx, r, target, Options{Analysis: a, Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		return renderRanking(res)
	}
	live := func(path, text string) {
		t.Helper()
		f := graphtest.MustParseFacts(t, graph.Document{Path: path, Language: "go", Package: "example.com/" + path[:1], Source: graph.SourceLSP}, text)
		if err := st.PutDocument(ctx, graph.Live, f); err != nil {
			t.Fatal(err)
		}
	}
	var c Cache
	rank(&c)
	// The reads of a document no write touches stay.
	var unrelated []readKey
	for k := range c.m {
		if k.arg == "p/p_test.go" {
			unrelated = append(unrelated, k)
		}
	}
	if len(unrelated) == 0 {
		t.Fatalf("the ranking read nothing of p/p_test.go through the cache")
	}
	steps := []struct {
		name    string
		touches []string // the live documents the edit writes or deletes
		edit    func()
		want    string // a line the ranking must hold, or lack when it starts with "!"
	}{
		{"Far hidden by a live q.go that names neither it nor Target", []string{"q/q.go"}, func() {
			live("q/q.go", `
sym q/Other#Target(). name=Target kind=method def=q/q.go@3:16-3:22 extent=3:1-3:40
`)
		}, "!Far"},
		{"a new caller", []string{"p/extra.go"}, func() {
			live("p/extra.go", `
sym p/Extra(). name=Extra kind=function def=p/extra.go@1:6-1:11 extent=1:1-3:2
occ p/T#Target(). 2:4-2:10 ref enc=p/Extra().
edge p/Extra(). calls p/T#Target().
`)
		}, "caller Extra d=1"},
		{"the new caller calls nothing", []string{"p/extra.go"}, func() {
			live("p/extra.go", `
sym p/Extra(). name=Extra kind=function def=p/extra.go@1:6-1:11 extent=1:1-3:2
`)
		}, "!caller Extra"},
		{"Caller's call hidden by a live p.go", []string{"p/p.go"}, func() {
			live("p/p.go", `
sym p/T# name=T kind=struct def=p/p.go@3:6-3:7 extent=3:1-3:20
sym p/T#Target(). name=Target kind=method def=p/p.go@5:12-5:18 extent=5:1-7:2
sym p/T#Sibling(). name=Sibling kind=method def=p/p.go@9:12-9:19 extent=9:1-9:30
sym p/helper(). name=helper kind=function def=p/p.go@11:6-11:12 extent=11:1-11:30
sym p/Caller(). name=Caller kind=function def=p/p.go@13:6-13:12 extent=13:1-15:2
occ p/T#Target(). 5:12-5:18 def
occ p/helper(). 6:2-6:8 ref enc=p/T#Target().
edge p/T#Target(). calls p/helper().
edge p/T# contains p/T#Target().
edge p/T# contains p/T#Sibling().
`)
		}, "!caller Caller"},
		{"the live documents deleted", []string{"p/extra.go", "p/p.go", "q/q.go"}, func() {
			for _, p := range []string{"p/extra.go", "p/p.go", "q/q.go"} {
				if err := st.DeleteDocument(ctx, graph.Live, p); err != nil {
					t.Fatal(err)
				}
			}
		}, "caller Caller d=1"},
		// The store no longer tells which live documents changed since
		// the cache's version: it reads every one, before and now.
		{"a new caller, then the live layer cleared", []string{"p/extra.go"}, func() {
			live("p/extra.go", `
sym p/Extra(). name=Extra kind=function def=p/extra.go@1:6-1:11 extent=1:1-3:2
occ p/T#Target(). 2:4-2:10 ref enc=p/Extra().
edge p/Extra(). calls p/T#Target().
`)
			if err := st.ClearLayer(ctx, graph.Live); err != nil {
				t.Fatal(err)
			}
		}, "!caller Extra"},
	}
	if before := rank(nil); !strings.Contains(before, "Far") {
		t.Fatalf("the base ranking lacks Far:\n%s", before)
	}
	// The reads of a live document that a later write leaves alone stay
	// too: only the documents that changed are read again. (Checked as
	// the cache follows the write, before a ranking reads again what it
	// dropped.)
	var liveReads []readKey
	keptLive := 0
	for _, step := range steps {
		step.edit()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		if !c.follow(ctx, r) {
			t.Fatalf("%s: the cache does not follow the write", step.name)
		}
		for _, k := range unrelated {
			if _, kept := c.m[k]; !kept {
				t.Errorf("%s: the write dropped %v, a read of a document it did not touch", step.name, k)
			}
		}
		for _, k := range liveReads {
			if slices.Contains(step.touches, k.arg) {
				continue
			}
			keptLive++
			if _, kept := c.m[k]; !kept {
				t.Errorf("%s: the write dropped %v, a read of a live document it did not touch", step.name, k)
			}
		}
		c.mu.Unlock()
		r.Close()
		got, want := rank(&c), rank(nil)
		if got != want {
			t.Fatalf("%s: through the cache:\n%s\nwithout:\n%s", step.name, got, want)
		}
		if line, lack := strings.CutPrefix(step.want, "!"); lack == strings.Contains(got, line) {
			t.Errorf("%s: want %q in the ranking:\n%s", step.name, step.want, got)
		}
		c.mu.Lock()
		liveReads = liveReads[:0]
		for k := range c.m {
			if (k.op == "document" || k.op == "docsyms" || k.op == "occurrences") && slices.Contains([]string{"p/extra.go", "p/p.go", "q/q.go"}, k.arg) {
				liveReads = append(liveReads, k)
			}
		}
		c.mu.Unlock()
	}
	if keptLive == 0 {
		t.Errorf("no read of a live document was left alone by a later write: the check checked nothing")
	}
}
