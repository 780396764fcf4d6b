package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/workspace"
)

// runCLI runs one lspgraph command line and returns its exit code, stdout
// and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code := run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestImpactCommand(t *testing.T) {
	t.Parallel()
	st, root := importFixture(t, "goapp", "goapp.scip", true)
	dir := st.Dir()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// By name, JSON.
	code, out, errs := runCLI(t, "impact", "--store", dir, "--root", root, "--json", "Catalog.Save")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var a impact.Answer
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("decoding JSON: %v\n%s", err, out)
	}
	if a.Target == nil || a.Target.Name != "Catalog.Save" || len(a.Depths) != 3 || len(a.Depths[0].Dependents) != 1 || a.Depths[0].Dependents[0].Name != "Catalog.Import" {
		t.Errorf("unexpected answer: %+v", a)
	}

	// By FILE:LINE:COL (the name of Save, 1-based, bytes), flags after the
	// target, depth 1, no tests.
	code, out, errs = runCLI(t, "impact", "--store", dir, "--root", root, "service/catalog.go:29:20", "--depth", "1", "--no-tests", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "### Impact of `Catalog.Save`") || !strings.Contains(out, "`Catalog.Import`") || strings.Contains(out, "TestImport") {
		t.Errorf("markdown answer:\n%s", out)
	}
	// An absolute path inside the root works; one outside is refused.
	if code, _, errs = runCLI(t, "impact", "--store", dir, "--root", root, filepath.Join(root, "service", "catalog.go")+":29:20"); code != 0 {
		t.Errorf("absolute path: exit %d: %s", code, errs)
	}
	if code, _, errs = runCLI(t, "impact", "--store", dir, "--root", root, "../gowork/user/user.go:6:6"); code != 1 || !strings.Contains(errs, "escapes the workspace root") {
		t.Errorf("path outside the root: exit %d: %s", code, errs)
	}

	// Ambiguous: every candidate with its location, exit 1, no answer.
	code, out, errs = runCLI(t, "impact", "--store", dir, "--root", root, "Put")
	if code != 1 || out != "" {
		t.Errorf("ambiguous: exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"ambiguous", "store/store.go:17:2", "store/memstore/mem.go:28:15", "store/filestore/file.go:38:16"} {
		if !strings.Contains(errs, want) {
			t.Errorf("ambiguous error lacks %q:\n%s", want, errs)
		}
	}
	// Qualified, it resolves.
	if code, _, errs = runCLI(t, "impact", "--store", dir, "--root", root, "memstore.Mem.Put"); code != 0 {
		t.Errorf("qualified name: exit %d: %s", code, errs)
	}

	// Unknown: says which base it looked in and suggests near names.
	code, _, errs = runCLI(t, "impact", "--store", dir, "--root", root, "Catalog.Sav")
	if code != 1 || !strings.Contains(errs, `no symbol named "Catalog.Sav"`) || !strings.Contains(errs, "base: fixture, scip-go") || !strings.Contains(errs, "did you mean Catalog.Save") {
		t.Errorf("unknown: exit %d: %s", code, errs)
	}

	// A bound below the answer's size: the walk stops and says what it
	// skipped.
	code, out, errs = runCLI(t, "impact", "--store", dir, "--root", root, "--max-dependents", "1", "Catalog.Save")
	if code != 0 || !strings.Contains(out, "truncated: stopped after 1 dependents: 1 listed dependents not expanded") {
		t.Errorf("--max-dependents 1: exit %d: %s\n%s", code, errs, out)
	}
	if code, _, _ = runCLI(t, "impact", "--store", dir, "--root", root, "--max-dependents", "-1", "Catalog.Save"); code != 2 {
		t.Errorf("negative --max-dependents: exit %d", code)
	}

	// Usage errors exit 2.
	if code, _, _ = runCLI(t, "impact", "--store", dir, "--root", root, "--direction", "sideways", "Describe"); code != 2 {
		t.Errorf("bad --direction: exit %d", code)
	}
	if code, _, _ = runCLI(t, "impact", "--store", dir, "--root", root); code != 2 {
		t.Errorf("no target: exit %d", code)
	}

	// A store held by another process (here: another open of it).
	held, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, _, errs = runCLI(t, "impact", "--store", dir, "--root", root, "Describe")
	if code != 1 || !strings.Contains(errs, "in use") || !strings.Contains(errs, "pass another --store") {
		t.Errorf("locked store: exit %d: %s", code, errs)
	}
}

// TestImpactSitesOfTwins checks that sites in another file than the
// dependent's declaration (build-tag twins such as net/http's roundtrip.go
// and roundtrip_js.go sharing one identity) are printed with their file.
func TestImpactSitesOfTwins(t *testing.T) {
	d := impact.Dependent{Ref: impact.Ref{Name: "Transport.RoundTrip", Kind: "method", Location: &impact.Loc{Path: "net/http/roundtrip.go", Line: 16, Col: 20}},
		Via: impact.Via{Kind: "calls", Source: "syntax", Confidence: 0.8}, Sites: 2,
		SiteLocations: []impact.Loc{{Path: "net/http/roundtrip.go", Line: 17}, {Path: "net/http/roundtrip_js.go", Line: 59}}}
	got := impact.DependentLine(d)
	if want := "(line 17, net/http/roundtrip_js.go:59)"; !strings.Contains(got, want) {
		t.Errorf("%s lacks %s", got, want)
	}
}

// TestSCIPImportGoTypes runs `scip import --go-types` on testdata/gobreak
// and checks that impact's satisfaction group for Square.Size is the
// channel send in use.Send (the only conversion to Sizer), and that
// without the flag the group is UNKNOWN; and the same with the flag
// through a session that serves the store (it once dropped the flag).
func TestSCIPImportGoTypes(t *testing.T) {
	root := copyFixture(t, filepath.Join("..", "..", "testdata", "gobreak"))
	dump := filepath.Join("..", "..", "testdata", "scip", "gobreak.scip")
	for _, c := range []struct{ goTypes, session bool }{{true, false}, {false, false}, {true, true}} {
		goTypes := c.goTypes
		store := filepath.Join(t.TempDir(), "store")
		if c.session {
			h, err := workspace.ServeHeadless(context.Background(), root, store, "serve", workspace.WaitNone, t.Logf)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
		}
		args := []string{"scip", "import", "--store", store, "--root", root, "--commit", "fixture"}
		if goTypes {
			args = append(args, "--go-types")
		}
		if code, _, errs := runCLI(t, append(args, dump)...); code != 0 {
			t.Fatalf("scip import exited %d: %s", code, errs)
		}
		code, out, errs := runCLI(t, "impact", "--store", store, "--root", root, "--json", "Square.Size")
		if code != 0 {
			t.Fatalf("impact exited %d: %s", code, errs)
		}
		var a impact.Answer
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range a.Satisfaction {
			got = append(got, d.Name)
		}
		switch {
		case goTypes && (strings.Join(got, ",") != "Send" || a.GroupUnknown(impact.GroupSatisfaction) != ""):
			t.Errorf("with --go-types (through a session: %v): satisfaction %v (unknown %q), want [Send]", c.session, got, a.GroupUnknown(impact.GroupSatisfaction))
		case !goTypes && (len(got) != 0 || a.GroupUnknown(impact.GroupSatisfaction) == "" || !a.Risk.AtLeast):
			t.Errorf("without --go-types: satisfaction %v, unknown %q, risk %+v; want UNKNOWN and a lower bound", got, a.GroupUnknown(impact.GroupSatisfaction), a.Risk)
		}
	}
}
