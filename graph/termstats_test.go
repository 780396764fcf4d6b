package graph

import (
	"context"
	"testing"
)

// TestTermStatsKeptPerBaseVersion: the term totals are those a scan of
// every visible document's terms counts, as live documents hide base ones
// (with terms or without), add new ones and go, and as the base layer
// changes (a document written, deleted, renamed over another, a patch):
// the base layer's read from its manifest (ManifestTermLength), which
// every base write keeps, or, for a manifest without them (given whole
// by SetManifest), counted once per base version.
func TestTermStatsKeptPerBaseVersion(t *testing.T) {
	for _, kept := range []bool{true, false} {
		name := "in the manifest"
		if !kept {
			name = "counted"
		}
		t.Run(name, func(t *testing.T) { testTermStats(t, kept) })
	}
}

func testTermStats(t *testing.T, kept bool) {
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
	if !kept {
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := r.Manifest(Base)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if m.Extra[ManifestTermLength] != 12 {
			t.Fatalf("the generation's manifest keeps term length %d, want 12", m.Extra[ManifestTermLength])
		}
		if err := st.SetManifest(ctx, m); err != nil {
			t.Fatal(err)
		}
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
		m, _, err := r.Manifest(Base)
		if err != nil {
			t.Fatal(err)
		}
		switch n, inManifest := m.Extra[ManifestTermLength]; {
		case inManifest != kept:
			t.Errorf("%s: the manifest keeps the term length: %v, want %v", what, inManifest, kept)
		case kept && st.baseTerms.version != 0:
			t.Errorf("%s: the base totals were counted (base version %d), not read from the manifest (%d)", what, st.baseTerms.version, n)
		case !kept && r.baseVersion != 0 && st.baseTerms.version != r.baseVersion:
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
	if err := st.DeleteDocument(ctx, Base, "a.go"); err != nil {
		t.Fatal(err)
	}
	check("a base document deleted", TermStats{Documents: 2, Length: 15})
	if err := st.RenameDocument(ctx, Base, "e.go", "b.go"); err != nil {
		t.Fatal(err)
	}
	check("a base document renamed over another", TermStats{Documents: 1, Length: 10})
	p, err := st.BeginPatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []DocumentFacts{doc("b.go", 1, 1), doc("f.go", 4), doc("g.go")} {
		if err := p.PutDocument(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Commit(ctx, Manifest{Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	check("a patch", TermStats{Documents: 2, Length: 6})
	p, err = st.BeginPatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"b.go", "f.go"} {
		if err := p.DeleteDocument(ctx, path); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Commit(ctx, Manifest{Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	check("a patch deleting every document with terms", TermStats{})
}
