package graph

import (
	"context"
	"testing"
)

// TestTermStatsKeptPerBaseVersion: the term totals, with the base layer's
// kept per base version, are those a scan of every visible document's
// terms counts, as live documents hide base ones (with terms or without),
// add new ones and go, and as the base layer changes.
func TestTermStatsKeptPerBaseVersion(t *testing.T) {
	ctx := context.Background()
	st, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	doc := func(p string, counts ...int) DocumentFacts {
		f := DocumentFacts{Document: Document{Path: p, Language: "go"}}
		for i, n := range counts {
			f.Terms = append(f.Terms, Term{Word: string(rune('a' + i)), Field: TermName, Count: n})
		}
		return f
	}
	gw, err := st.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []DocumentFacts{doc("a.go", 3, 4), doc("b.go", 5), doc("c.go")} {
		if err := gw.PutDocument(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := gw.Commit(ctx, Manifest{Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	check := func(what string, want TermStats) {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var scanned TermStats
		for _, ls := range r.layers {
			if err := r.addTermStats(ctx, ls, true, &scanned); err != nil {
				t.Fatal(err)
			}
		}
		got, err := r.TermStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got != scanned || got != want {
			t.Errorf("%s: TermStats = %+v, a scan counts %+v, want %+v", what, got, scanned, want)
		}
		if r.baseVersion != 0 && st.baseTerms.version != r.baseVersion {
			t.Errorf("%s: the base totals kept are of base version %d, want %d", what, st.baseTerms.version, r.baseVersion)
		}
	}
	check("the base alone", TermStats{Documents: 2, Length: 12})
	check("again, from the store's totals", TermStats{Documents: 2, Length: 12})
	live := func(f DocumentFacts) {
		t.Helper()
		if err := st.PutDocument(ctx, Live, f); err != nil {
			t.Fatal(err)
		}
	}
	live(doc("a.go", 1))
	check("a.go hidden by a shorter live version", TermStats{Documents: 2, Length: 6})
	live(doc("b.go"))
	check("b.go hidden by a live version without terms", TermStats{Documents: 1, Length: 1})
	live(doc("d.go", 2, 2))
	live(doc("c.go", 7))
	check("a new live document, and c.go given terms", TermStats{Documents: 3, Length: 12})
	if err := st.PutDocument(ctx, Base, doc("e.go", 10)); err != nil {
		t.Fatal(err)
	}
	check("a base document written", TermStats{Documents: 4, Length: 22})
	if err := st.ClearLayer(ctx, Live); err != nil {
		t.Fatal(err)
	}
	check("the live layer cleared", TermStats{Documents: 3, Length: 22})
}
