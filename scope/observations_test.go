package scope

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestObservationsSavedAndLoaded: an analysis that loads another's saved
// observations (same key, same workspace) holds every document they hold
// that keep accepts and the graph has, and answers the same dependencies;
// another key, another MinConfidence or a damaged encoding gives none.
func TestObservationsSavedAndLoaded(t *testing.T) {
	ctx := context.Background()
	docs := map[string]string{
		"a/a.go": `
sym go:a/A(). name=A kind=function def=a/a.go@1:6-1:7
occ go:a/A(). 1:6-1:7 def
occ go:b/B(). 2:2-2:3 ref enc=go:a/A().
`,
		"a/a2.go": `
sym go:a/A2(). name=A2 kind=function def=a/a2.go@1:6-1:8
occ go:a/A2(). 1:6-1:8 def
occ go:c/C(). 2:2-2:3 ref enc=go:a/A2().
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
	}
	pkgs := map[string]string{}
	for p := range docs {
		pkgs[p] = "example.com/" + p[:1]
	}
	r := putDocs(t, docs, pkgs)
	ws, err := Discover(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	analyze := func() *Analysis {
		a, err := Analyze(ctx, ws, r)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	describe := func(a *Analysis) string {
		var b strings.Builder
		for _, p := range a.Packages() {
			deps, err := a.Deps(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range deps {
				fmt.Fprintf(&b, "%s → %s %v\n", d.From, d.To, d.Why)
			}
		}
		return b.String()
	}
	all := func(string) bool { return true }

	observed := analyze()
	want := describe(observed)
	if !strings.Contains(want, "example.com/a → example.com/b") || !strings.Contains(want, "example.com/a → example.com/c") {
		t.Fatalf("the fixture's dependencies:\n%s", want)
	}
	saved, err := observed.SaveObservations("k", all)
	if err != nil {
		t.Fatal(err)
	}

	loaded := analyze()
	if took, err := loaded.LoadObservations(saved, is("k"), all); err != nil || !took {
		t.Fatalf("LoadObservations = %v, %v", took, err)
	}
	if n := loaded.ObservedDocuments(); n != observed.ObservedDocuments() || n != len(docs) {
		t.Errorf("loaded %d documents' observations, want %d", n, len(docs))
	}
	if got := describe(loaded); got != want {
		t.Errorf("from the loaded observations:\n%s\nobserved:\n%s", got, want)
	}

	part := analyze()
	if took, err := part.LoadObservations(saved, is("k"), func(p string) bool { return p != "a/a2.go" }); err != nil || !took {
		t.Fatalf("LoadObservations = %v, %v", took, err)
	}
	if n := part.ObservedDocuments(); n != len(docs)-1 {
		t.Errorf("with a/a2.go left out, loaded %d documents' observations", n)
	}
	if got := describe(part); got != want {
		t.Errorf("a/a2.go observed again:\n%s\nwant:\n%s", got, want)
	}

	for what, load := range map[string]func(a *Analysis) (bool, error){
		"another key": func(a *Analysis) (bool, error) { return a.LoadObservations(saved, is("other"), all) },
		"another MinConfidence": func(a *Analysis) (bool, error) {
			a.MinConfidence = 0.5
			return a.LoadObservations(saved, is("k"), all)
		},
	} {
		a := analyze()
		if took, err := load(a); err != nil || took || a.ObservedDocuments() != 0 {
			t.Errorf("%s: LoadObservations = %v, %v, %d documents", what, took, err, a.ObservedDocuments())
		}
	}
	if took, err := analyze().LoadObservations(saved[:len(saved)/2], is("k"), all); err == nil || took {
		t.Errorf("a damaged encoding: LoadObservations = %v, %v", took, err)
	}
}

// is accepts the key k alone.
func is(k string) func(string) bool { return func(key string) bool { return key == k } }
