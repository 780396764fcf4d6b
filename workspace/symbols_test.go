package workspace

import (
	"context"
	"encoding/json"
	"testing"
)

func TestSymbolsCommand(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	s := openSession(t, root, dir)
	ask := func(q SymbolsRequest) SymbolsAnswer {
		t.Helper()
		raw, _ := json.Marshal(q)
		res, err := s.Command(context.Background(), CommandSymbols, Call{Args: []json.RawMessage{raw}})
		if err != nil {
			t.Fatal(err)
		}
		return *res.(*SymbolsAnswer)
	}
	a := ask(SymbolsRequest{Query: "Save"})
	if len(a.Symbols) == 0 {
		t.Fatal("no symbol named Save")
	}
	for _, h := range a.Symbols {
		if h.Target == "" || h.Kind == "" {
			t.Errorf("candidate %+v lacks a target or a kind", h)
		}
		// Every target resolves to the candidate it came with.
		raw, _ := json.Marshal(ImpactRequest{Target: h.Target})
		if _, err := s.Command(context.Background(), CommandImpact, Call{Args: []json.RawMessage{raw}}); err != nil {
			t.Errorf("target %q of %s: %v", h.Target, h.Name, err)
		}
	}
	a = ask(SymbolsRequest{Query: "Catalog.Sa", Kind: "method"})
	if len(a.Symbols) != 1 || a.Symbols[0].Name != "Catalog.Save" || a.Symbols[0].Target != "Catalog.Save" {
		t.Fatalf("Catalog.Sa method: %+v", a.Symbols)
	}
	if a.Symbols[0].Location == "" || a.Freshness.BaseCommit != "fixture" {
		t.Errorf("no location or freshness: %+v", a)
	}
	if a = ask(SymbolsRequest{Query: "N", Limit: 1}); len(a.Symbols) != 1 || !a.Truncated {
		t.Errorf("limit 1 of N: %+v", a.Symbols)
	}
	if _, err := s.Command(context.Background(), CommandSymbols, Call{Args: []json.RawMessage{json.RawMessage(`{"query":" "}`)}}); err == nil {
		t.Error("an empty query was answered")
	}
}
