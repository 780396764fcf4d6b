package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/syntax"
	"github.com/lspgraph/lspgraph/workspace"
)

// gitRepo copies a fixture project into a new git repository with one
// commit and returns its root and HEAD.
func gitRepo(t *testing.T, project string) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	src := filepath.Join(repoRoot(t), "testdata", project)
	dir := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	return dir, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// edit rewrites a file of the repository with a replacement.
func edit(t *testing.T, dir, rel, old, new string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", rel, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestChangesScriptedHistory builds the base of a fresh repository from
// the goapp fixture (its SCIP dump, or `lspgraph index`), then checks the
// answer of `changes` for one kind of change at a time (the work tree is
// reset between steps).
func TestChangesScriptedHistory(t *testing.T) {
	for _, base := range []string{"scip", "syntax"} {
		t.Run(base, func(t *testing.T) { testChanges(t, base) })
	}
}

func testChanges(t *testing.T, base string) {
	ctx := context.Background()
	dir, head := gitRepo(t, "goapp")
	storeDir := filepath.Join(t.TempDir(), "store")
	st, err := graph.Open(storeDir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if base == "scip" {
		f, err := os.Open(filepath.Join(repoRoot(t), "testdata", "scip", "goapp.scip"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = scip.Import(ctx, st, f, scip.Options{Root: dir, Commit: head})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	} else if _, err := syntax.Index(ctx, st, syntax.IndexOptions{Root: dir, Commit: head}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name    string
		change  func()
		changes []string   // "change name [was path]"
		depths  [][]string // dependent names per depth
		// The same over a syntax base (its Go inference types c in
		// `c := service.NewCatalog(...); c.Import(...)`), but for the risk
		// where "no caller" is a name-based finding.
		risk       string
		syntaxRisk string
	}{
		{
			name: "modify a function",
			change: func() {
				edit(t, dir, "service/catalog.go", `"service: saving %s: %w"`, `"service: cannot save %s: %w"`)
			},
			changes: []string{"modified Catalog.Save"},
			depths:  [][]string{{"Catalog.Import"}, {"run", "TestImport"}, {"main"}},
			risk:    impact.RiskMedium,
		},
		{
			name: "add a file",
			change: func() {
				write(t, dir, "service/count.go", "package service\n\n// Count returns how many lines Import would save.\nfunc Count(lines []string) int {\n\treturn len(lines)\n}\n")
			},
			changes: []string{"added Count"},
			depths:  [][]string{{}, {}, {}},
			// Nothing calls the new function, but the changed documents
			// are known from syntax only: not vouched for.
			risk: impact.RiskUnknown,
		},
		{
			name: "delete a file",
			change: func() {
				git(t, dir, "rm", "-q", "store/filestore/file.go")
			},
			changes: []string{"deleted File was store/filestore/file.go", "deleted File.Dir was store/filestore/file.go",
				"deleted File.path was store/filestore/file.go", "deleted File.Get was store/filestore/file.go", "deleted File.Put was store/filestore/file.go"},
			// Nothing outside the file used them; the deleted document
			// holds no callers, the unchanged ones are precise. Over a
			// syntax base, "no caller" is a name-based finding: UNKNOWN.
			depths:     [][]string{{}, {}, {}},
			risk:       impact.RiskLow,
			syntaxRisk: impact.RiskUnknown,
		},
		{
			name: "delete a file with dependents",
			change: func() {
				git(t, dir, "rm", "-q", "store/memstore/mem.go")
			},
			changes: []string{"deleted Mem was store/memstore/mem.go", "deleted Mem.data was store/memstore/mem.go",
				"deleted New was store/memstore/mem.go", "deleted Mem.Get was store/memstore/mem.go",
				"deleted Mem.Put was store/memstore/mem.go", "deleted Mem.Len was store/memstore/mem.go"},
			// Their last known dependents, from the base layer.
			depths: [][]string{{"run", "TestImport", "TestPutGet"}, {"main"}, {}},
			risk:   impact.RiskHigh,
		},
		{
			name: "rename a file",
			change: func() {
				git(t, dir, "mv", "store/memstore/mem.go", "store/memstore/memory.go")
			},
			// Go identities do not depend on file names: nothing changed.
			changes: []string{},
			depths:  [][]string{{}, {}, {}},
			risk:    impact.RiskLow,
		},
		{
			name: "move a function between files",
			change: func() {
				edit(t, dir, "service/catalog.go", "// normalizeSKU upper-cases a SKU and trims spaces; only the tests call it.\nfunc normalizeSKU(sku string) string {\n\treturn strings.ToUpper(strings.TrimSpace(sku))\n}\n", "")
				write(t, dir, "service/sku.go", "package service\n\nimport \"strings\"\n\n// normalizeSKU upper-cases a SKU and trims spaces; only the tests call it.\nfunc normalizeSKU(sku string) string {\n\treturn strings.ToUpper(strings.TrimSpace(sku))\n}\n")
			},
			changes: []string{"moved normalizeSKU was service/catalog.go"},
			depths:  [][]string{{"TestNormalizeSKU"}, {}, {}},
			// A test breaks: never LOW.
			risk: impact.RiskMedium,
		},
	}
	for _, s := range steps {
		t.Run(strings.ReplaceAll(s.name, " ", "-"), func(t *testing.T) {
			git(t, dir, "reset", "-q", "--hard")
			git(t, dir, "clean", "-q", "-fd")
			s.change()
			var a impact.Answer
			if err := askSession(ctx, nil, "cli", dir, storeDir, workspace.CommandChanges, workspace.ChangesRequest{}, &a, false); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range a.Changes {
				g := c.Change + " " + c.Name
				if c.OldLocation != nil && (c.Change != impact.ChangeModified) {
					g += " was " + c.OldLocation.Path
				}
				got = append(got, g)
			}
			if got == nil {
				got = []string{}
			}
			if !sameSet(got, s.changes) {
				t.Errorf("changes = %q; want %q", got, s.changes)
			}
			var depths [][]string
			for _, g := range a.Depths {
				names := []string{}
				for _, d := range g.Dependents {
					names = append(names, d.Name)
				}
				depths = append(depths, names)
			}
			wantDepths, wantRisk := s.depths, s.risk
			if base == "syntax" && s.syntaxRisk != "" {
				wantRisk = s.syntaxRisk
			}
			if !reflect.DeepEqual(depths, wantDepths) {
				t.Errorf("depths = %q; want %q", depths, wantDepths)
			}
			if a.Risk.Level != wantRisk {
				t.Errorf("risk = %s (%s); want %s", a.Risk.Level, a.Risk.Rule, wantRisk)
			}
			if os.Getenv("LSPGRAPH_SHOW") != "" || t.Failed() {
				var b strings.Builder
				writeChangesAnswer(&b, &a, false, "text")
				fmt.Println(b.String())
			}
		})
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}
