package calibrate

import (
	"context"
	"testing"
)

func run(t *testing.T, root, dump string) Report {
	t.Helper()
	rep, err := Run(context.Background(), Options{Root: root, Dump: dump, Threshold: 0.7, Targets: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func rule(rep Report, lang, reason string) (Rule, bool) {
	for _, r := range rep.Rules {
		if r.Language == lang && r.Reason == reason {
			return r, true
		}
	}
	return Rule{}, false
}

// TestGoapp measures the syntax graph of the Go fixture against its
// scip-go dump: every syntax definition matches one of the dump's, and at
// the default threshold the call edges are the dump's calls, all of them
// (its README lists them: receivers, imports, the c of c := NewCatalog()).
func TestGoapp(t *testing.T) {
	rep := run(t, "../testdata/goapp", "../testdata/scip/goapp.scip")
	if rep.Matched == 0 || rep.Unmatched != 0 {
		t.Errorf("matched %d, unmatched %d definitions; want all matched", rep.Matched, rep.Unmatched)
	}
	if rep.TruthCalls == 0 {
		t.Fatal("no precise calls read from the dump")
	}
	var at07 Point
	for _, p := range rep.Curve {
		if p.Threshold == 0.7 {
			at07 = p
		}
	}
	if at07.Precision != 1 || at07.Recall != 1 {
		t.Errorf("at 0.7: precision %.3f recall %.3f, want 1 and 1", at07.Precision, at07.Recall)
	}
	if r, ok := rule(rep, "go", "syntax:inferred-type"); !ok || r.Edges == 0 || r.Precision != 1 {
		t.Errorf("inferred-type: %+v (found %v), want edges, all right", r, ok)
	}
	for _, c := range rep.Callers {
		if c.Targets == 0 || c.Recall != 1 || c.Precision != 1 {
			t.Errorf("%s callers: %+v, want all found, none wrong", c.Kind, c)
		}
	}
}

// TestPyprojectGuesses checks that wrong edges count as wrong: the Python
// fixture's ambiguous guesses are mostly not what scip-python resolved.
func TestPyprojectGuesses(t *testing.T) {
	rep := run(t, "../testdata/pyproject", "../testdata/scip/pyproject.scip")
	r, ok := rule(rep, "python", "syntax:ambiguous-global-name")
	if !ok || r.Edges == 0 || r.Precision >= 0.5 {
		t.Errorf("ambiguous-global-name: %+v (found %v), want edges mostly wrong", r, ok)
	}
	if r, ok := rule(rep, "python", "syntax:receiver-type"); !ok || r.Precision != 1 {
		t.Errorf("receiver-type: %+v (found %v), want all right", r, ok)
	}
}

// TestBadInput checks the errors of a missing dump and of a file that is
// not a SCIP dump.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	if _, err := Run(ctx, Options{Root: "../testdata/goapp", Dump: "../testdata/scip/missing.scip"}); err == nil {
		t.Error("a missing dump: no error")
	}
	if _, err := Run(ctx, Options{Root: "../testdata/goapp", Dump: "../testdata/goapp/go.mod"}); err == nil {
		t.Error("go.mod as a dump: no error")
	}
}
