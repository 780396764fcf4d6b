package resolve

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

const (
	storeGet = "scip-go gomod example.com/app v1 `example.com/app/store`/Store#Get."
	memGet   = "scip-go gomod example.com/app v1 `example.com/app/mem`/Mem#Get()."
	memType  = "scip-go gomod example.com/app v1 `example.com/app/mem`/Mem#"
	memField = "scip-go gomod example.com/app v1 `example.com/app/mem`/Mem#data."
	sprintf  = "scip-go gomod github.com/golang/go/src go1.26 fmt/Sprintf()."
	toUpper  = "scip-go gomod github.com/golang/go/src go1.26 strings/ToUpper()." // occurrences only, no record
)

func rng(t *testing.T, s string) textpos.Range {
	t.Helper()
	r, err := graphtest.ParseRange(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func openGraph(t *testing.T) *graph.Reader {
	t.Helper()
	return openGraphWith(t, nil)
}

// openGraphWith is openGraph with the manifest naming packages.
func openGraphWith(t *testing.T, packages map[string]string) *graph.Reader {
	t.Helper()
	sym := func(id, name, kind, pkg, path, def, extent string) graph.Symbol {
		s := graph.Symbol{ID: id, DisplayName: name, Kind: kind, Package: pkg, Language: "go",
			Def: graph.Location{Path: path, Range: rng(t, def)}}
		if extent != "" {
			s.DefExtent = rng(t, extent)
		}
		return s
	}
	occ := func(id, r string, roles graph.Role, enc string) graph.Occurrence {
		return graph.Occurrence{Symbol: id, Range: rng(t, r), Roles: roles, Enclosing: enc}
	}
	docs := []graph.DocumentFacts{
		{
			Document:    graph.Document{Path: "store/store.go", Language: "go", Source: graph.SourceSCIP},
			Symbols:     []graph.Symbol{sym(storeGet, "Get", "method", "example.com/app/store", "store/store.go", "4:2-4:5", "")},
			Occurrences: []graph.Occurrence{occ(storeGet, "4:2-4:5", graph.RoleDefinition, "")},
		},
		{
			Document: graph.Document{Path: "mem/mem.go", Language: "go", Source: graph.SourceSCIP},
			Symbols: []graph.Symbol{
				sym(memType, "Mem", "struct", "example.com/app/mem", "mem/mem.go", "3:6-3:9", "3:1-5:2"),
				sym(memField, "data", "field", "example.com/app/mem", "mem/mem.go", "4:2-4:6", ""),
				sym(memGet, "Get", "method", "example.com/app/mem", "mem/mem.go", "7:15-7:18", "7:1-10:2"),
				sym("local 1 mem/mem.go", "v", "local", "", "mem/mem.go", "8:2-8:3", ""),
				// What the SCIP importer records for a referenced dependency.
				{ID: sprintf, DisplayName: "Sprintf", Kind: "function", Package: "fmt", Language: "go", External: true},
			},
			Occurrences: []graph.Occurrence{
				occ(memType, "3:6-3:9", graph.RoleDefinition, ""),
				occ(memField, "4:2-4:6", graph.RoleDefinition, memType),
				occ(memType, "7:10-7:13", graph.RoleReference, memGet),
				occ(memGet, "7:15-7:18", graph.RoleDefinition, ""),
				occ(memField, "8:9-8:13", graph.RoleReference, memGet),
				occ(sprintf, "9:13-9:20", graph.RoleReference|graph.RoleCall, memGet),
				occ(toUpper, "9:30-9:37", graph.RoleReference|graph.RoleCall, memGet),
			},
		},
	}
	return graphtest.Base(t, graph.Manifest{Layer: graph.Base, Commit: "abc1234", Tool: "scip-go", State: graph.StateComplete, Root: "/w", Packages: packages}, docs...)
}

// TestResolveOtherVersion: a symbol string naming one of the index's
// packages at another version is not in the graph; the error says which
// version the index has and, when the graph has it, the same symbol there.
func TestResolveOtherVersion(t *testing.T) {
	ctx := context.Background()
	r := openGraphWith(t, map[string]string{"scip-go gomod example.com/app": "v1"})
	for _, tc := range []struct{ spec, want string }{
		{"scip-go gomod example.com/app v2 `example.com/app/mem`/Mem#Get().",
			"the index names scip-go gomod example.com/app at version v1, not v2; the same symbol there is \"" + memGet + "\""},
		{"scip-go gomod example.com/app v2 `example.com/app/mem`/Mem#Put().",
			"the index names scip-go gomod example.com/app at version v1, not v2; re-import the index at the commit the symbol comes from"},
		// The index's version, or a package of another name: no version to blame.
		{"scip-go gomod example.com/app v1 `example.com/app/mem`/Mem#Put().", "; re-import the index or check the symbol string"},
		{"scip-go gomod example.com/app  x v2 `example.com/app/mem`/Mem#Get().", "; re-import the index or check the symbol string"},
		{"scip-go gomod example.com/apps v2 `example.com/app/mem`/Mem#Get().", "; re-import the index or check the symbol string"},
	} {
		_, err := Resolve(ctx, r, tc.spec)
		if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve(%q) = %v; want ErrUnknown saying %q", tc.spec, err, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	r := openGraph(t)
	for _, tc := range []struct{ spec, want string }{
		{memGet, memGet},               // a symbol string
		{sprintf, sprintf},             // an external symbol, known from a reference
		{"Mem.Get", memGet},            // qualified
		{"mem.Mem.Get", memGet},        // package-qualified
		{"(*Mem).Get", memGet},         // Go method expression
		{"Store.Get", storeGet},        //
		{"mem/mem.go:7:16", memGet},    // on the method's name
		{"/w/mem/mem.go:7:16", memGet}, // absolute inside the root (from the manifest)
		{"mem/mem.go:7:11", memType},   // on the receiver type: the reference
		{"mem/mem.go:8:10", memField},  // on a field reference
		{"mem/mem.go:9:3", memGet},     // inside the body, not on a name: the enclosing definition
		{"mem/mem.go:7", memGet},       // FILE:LINE
		{"mem/mem.go:4:3", memField},   // a field definition
		{"Sprintf", sprintf},           // external only
		{"data", memField},             //
		{"Mem", memType},               //
	} {
		got, err := Resolve(ctx, r, tc.spec)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tc.spec, err)
			continue
		}
		if got.ID != tc.want {
			t.Errorf("Resolve(%q) = %q; want %q", tc.spec, got.ID, tc.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	ctx := context.Background()
	r := openGraph(t)

	_, err := Resolve(ctx, r, "Get")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Fatalf("Get: %v; want an ambiguity between two candidates", err)
	}
	for _, want := range []string{"mem/mem.go:7:15", "store/store.go:4:2", "Mem.Get", "Store.Get"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ambiguity message lacks %q:\n%v", want, err)
		}
	}

	for _, tc := range []struct{ spec, want string }{
		{"Gte", "no symbol named \"Gte\" in the graph (base: abc1234, scip-go)"},
		{"Ge", "did you mean Mem.Get, Store.Get?"},
		{"Other.Get", "no symbol named \"Other.Get\""},
		{"scip-go gomod example.com/app v1 `example.com/app/mem`/Mem#Put().", "re-import"},
		{"nothere.go:1:1", "no document nothere.go"},
		{"mem/mem.go:12:1", "no symbol at mem/mem.go:12:1"},
	} {
		_, err := Resolve(ctx, r, tc.spec)
		if !errors.Is(err, ErrUnknown) {
			t.Errorf("Resolve(%q) = %v; want ErrUnknown", tc.spec, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve(%q) = %v; want it to say %q", tc.spec, err, tc.want)
		}
	}
	if _, err := Resolve(ctx, r, "../x.go:1:1"); err == nil || !strings.Contains(err.Error(), "escapes") {
		t.Errorf("escaping path: %v", err)
	}
	if _, err := Resolve(ctx, r, "/elsewhere/x.go:1:1"); err == nil || !strings.Contains(err.Error(), "escapes") {
		t.Errorf("absolute path outside the root: %v", err)
	}
	// AtPosition takes graph positions (0-based, UTF-8 columns).
	got, err := AtPosition(ctx, r, "mem/mem.go", textpos.Position{Line: 6, Col: 15})
	if err != nil || got.ID != memGet {
		t.Errorf("AtPosition = %q, %v; want %q", got.ID, err, memGet)
	}
}
