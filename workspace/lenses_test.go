package workspace

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestLenses: the lenses of service/catalog.go name each definition's
// depth-1 dependents as impact counts them. In the fixture, Save's only
// caller is Import (catalog.go:44), and TestImport calls Import, not Save.
func TestLenses(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	s := openSession(t, root, dir)
	arg, _ := json.Marshal(LensesRequest{URI: fileURI(filepath.Join(root, "service", "catalog.go"))})
	res, err := s.Command(context.Background(), CommandLenses, Call{Args: []json.RawMessage{arg}})
	if err != nil {
		t.Fatal(err)
	}
	lenses := res.([]Lens)
	titles := map[uint32]string{}
	for _, l := range lenses {
		if l.Command == nil || l.Command.Command != CommandImpact || len(l.Command.Arguments) != 1 || !l.Data["lspgraph"] {
			t.Errorf("lens %+v: want an lspgraph.impact command on one symbol, tagged", l)
			continue
		}
		titles[l.Range.Start.Line] = l.Command.Title
	}
	// func (c *Catalog) Save is on line 29 (0-based 28).
	if got := titles[28]; !strings.HasPrefix(got, "1 caller · 0 tests") {
		t.Errorf("lens above Save = %q; want 1 caller and 0 tests (all: %v)", got, titles)
	}
	if _, err := s.Command(context.Background(), CommandLenses, Call{Args: []json.RawMessage{json.RawMessage(`{"uri":"file:///etc/passwd"}`)}}); err == nil || !strings.Contains(err.Error(), "outside the workspace root") {
		t.Errorf("lenses of a file outside the root: %v; want a refusal", err)
	}
}
