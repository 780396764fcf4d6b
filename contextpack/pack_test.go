package contextpack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/scope"
)

const wGo = `package w

// Target does the work.
func Target(n int) int {
	return helper(n) + 1
}

func helper(n int) int {
	return n * 2
}
`

// escapeWorkspace writes a small module whose graph has a document that is
// a symlink out of the root (link.go) and one whose path has ".." in it (as
// a SCIP dump could give), both calling Target.
func escapeWorkspace(t *testing.T) (*graph.Reader, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/w\n")
	writeFile(t, filepath.Join(root, "w.go"), wGo)
	writeFile(t, filepath.Join(base, "outside.go"), "package w\n// SECRET\nfunc Leak() int { return Target(1) }\n")
	writeFile(t, filepath.Join(base, "escape.go"), "func Esc() int { return Target(2) } // SECRET\n")
	if err := os.Symlink(filepath.Join(base, "outside.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{
		"w.go": `
sym go:w/Target(). name=Target kind=function def=w.go@4:6-4:12 extent=4:1-6:2
sym go:w/helper(). name=helper kind=function def=w.go@8:6-8:12 extent=8:1-10:2
occ go:w/Target(). 4:6-4:12 def
occ go:w/helper(). 5:9-5:15 ref enc=go:w/Target().
occ go:w/helper(). 8:6-8:12 def
edge go:w/Target(). references go:w/helper().
`,
		"link.go": `
sym go:w/Leak(). name=Leak kind=function def=link.go@3:6-3:10 extent=3:1-3:37
occ go:w/Leak(). 3:6-3:10 def
occ go:w/Target(). 3:26-3:32 ref enc=go:w/Leak().
edge go:w/Leak(). references go:w/Target().
`,
		"../escape.go": `
sym go:w/Esc(). name=Esc kind=function def=../escape.go@1:6-1:9 extent=1:1-1:36
occ go:w/Esc(). 1:6-1:9 def
occ go:w/Target(). 1:25-1:31 ref enc=go:w/Esc().
edge go:w/Esc(). references go:w/Target().
`,
	}
	var facts []graph.DocumentFacts
	for p, text := range docs {
		facts = append(facts, graphtest.MustParseFacts(t, graph.Document{Path: p, Language: "go", Source: graph.SourceSCIP}, text))
	}
	return graphtest.Base(t, graph.Manifest{Tool: "test", State: graph.StateComplete}, facts...), root
}

func buildFor(t *testing.T, r *graph.Reader, root, id string, o Options) *Pack {
	t.Helper()
	p, err := build(t, r, root, id, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func build(t *testing.T, r *graph.Reader, root, id string, o Options) (*Pack, error) {
	t.Helper()
	ctx := context.Background()
	ws, err := scope.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	a, err := scope.Analyze(ctx, ws, r)
	if err != nil {
		t.Fatal(err)
	}
	sym, ok, err := r.Symbol(ctx, id)
	if err != nil || !ok {
		t.Fatalf("Symbol(%s) = %v, %v", id, ok, err)
	}
	o.Source = Source{Root: root}
	return Build(ctx, r, a, sym, o)
}

func TestBuildWithholdsEscapingSnippets(t *testing.T) {
	r, root := escapeWorkspace(t)
	p := buildFor(t, r, root, "go:w/Target().", Options{Scope: scope.Spec{Repo: true}})
	byName := map[string]Item{}
	for _, it := range p.Items() {
		byName[it.Name] = it
	}
	def, ok := byName["Target"]
	if !ok || def.Role != "definition" || def.Show != SnippetBody || !strings.HasPrefix(def.Text, "// Target does the work.\nfunc Target(n int) int {") {
		t.Errorf("definition item = %+v; want the whole function with its comment", def)
	}
	if h, ok := byName["helper"]; !ok || h.Role != "callee" || h.Text == "" {
		t.Errorf("helper item = %+v, %v; want a callee with a snippet", h, ok)
	}
	for _, name := range []string{"Leak", "Esc"} {
		it, ok := byName[name]
		if !ok {
			t.Errorf("no item for %s; the caller must be listed even when its source is withheld", name)
			continue
		}
		if it.Text != "" || it.Note != "snippet withheld: path escapes the workspace" {
			t.Errorf("%s: text %q, note %q; want no snippet and the escape note", name, it.Text, it.Note)
		}
	}
	for _, f := range []Format{FormatJSON, FormatJSONPretty, FormatMarkdown, FormatText} {
		p := buildFor(t, r, root, "go:w/Target().", Options{Scope: scope.Spec{Repo: true}, Format: f})
		if out := p.Render(); strings.Contains(out, "SECRET") {
			t.Errorf("%s: the pack shows text from outside the root:\n%s", f, out)
		}
	}
}

// TestBuildBudgetNeverExceeded counts every rendering of the pack at every
// budget from the smallest answer up: the emitted text never exceeds the
// budget, the pack's Tokens is that count, and nothing goes missing
// silently (shown + dropped = candidates).
func TestBuildBudgetNeverExceeded(t *testing.T) {
	r, root := escapeWorkspace(t)
	for _, f := range []Format{FormatJSON, FormatJSONPretty, FormatMarkdown, FormatText} {
		full := buildFor(t, r, root, "go:w/Target().", Options{Scope: scope.Spec{Repo: true}, Budget: 1 << 20, Format: f})
		total := len(full.Items())
		if total < 4 || full.Omitted.BudgetCount != 0 {
			t.Fatalf("%s: unbounded pack: %d items, %d dropped; want at least 4 and none dropped", f, total, full.Omitted.BudgetCount)
		}
		smallest := 0
		for budget := 1; budget <= full.Tokens+20; budget++ {
			p, err := build(t, r, root, "go:w/Target().", Options{Scope: scope.Spec{Repo: true}, Budget: budget, Format: f})
			if errors.Is(err, ErrBudget) {
				if smallest > 0 {
					t.Fatalf("%s: budget %d refused after %d was enough: %v", f, budget, smallest, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if smallest == 0 {
				smallest = budget
			}
			out := p.Render()
			if n := Tokens(out); n > budget || n > p.Tokens {
				t.Fatalf("%s: budget %d: the answer counts %d tokens, the pack says %d:\n%s", f, budget, n, p.Tokens, out)
			}
			items := p.Items()
			if len(items)+p.Omitted.BudgetCount != total {
				t.Fatalf("%s: budget %d: %d shown + %d dropped != %d candidates: something went missing silently", f, budget, len(items), p.Omitted.BudgetCount, total)
			}
			if len(items) == 0 || items[0].Role != "definition" && p.Files[0].Items[0].Role != "definition" {
				t.Fatalf("%s: budget %d: the definition must come first, got %+v", f, budget, items)
			}
		}
		// Indented JSON pays for its indentation.
		if limit := map[Format]int{FormatJSONPretty: 500}[f]; smallest == 0 || smallest > max(limit, 300) {
			t.Errorf("%s: the smallest answer needs a budget of %d", f, smallest)
		}
	}
}

// TestBuildWithoutSources: a graph without its work tree (a corpus dump)
// still answers, with locations instead of snippets.
func TestBuildWithoutSources(t *testing.T) {
	r, root := escapeWorkspace(t)
	ctx := context.Background()
	ws, err := scope.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	a, err := scope.Analyze(ctx, ws, r)
	if err != nil {
		t.Fatal(err)
	}
	sym, _, err := r.Symbol(ctx, "go:w/Target().")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(ctx, r, a, sym, Options{Scope: scope.Spec{Repo: true}, Source: Source{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items()) < 4 {
		t.Fatalf("items = %+v", p.Items())
	}
	for _, it := range p.Items() {
		if it.Text != "" || it.Show != SnippetLocation || it.Path == "" || it.Line == 0 {
			t.Errorf("item %s: %s %q at %s; want a location only", it.Name, it.Show, it.Text, it.Location())
		}
		if it.Note != "source absent: snippet unavailable" && it.Note != "snippet withheld: path escapes the workspace" {
			t.Errorf("item %s: note %q", it.Name, it.Note)
		}
	}
}

// TestBuildNamesLocalSymbols: a document-local symbol (a nested function,
// which scip-typescript indexes as "local N") is named by the identifier
// at its definition, not by its file's extension.
func TestBuildNamesLocalSymbols(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "package.json"), `{"name":"w"}`)
	writeFile(t, filepath.Join(root, "a.ts"), "export function outer() {\n  const patchChildren = () => 1;\n  return patchChildren();\n}\n")
	facts := graphtest.MustParseFacts(t, graph.Document{Path: "a.ts", Language: "typescript", Source: graph.SourceSCIP}, `
sym local_1_a.ts kind=function def=a.ts@2:9-2:22 extent=2:3-2:33
occ local_1_a.ts 2:9-2:22 def
occ local_1_a.ts 3:10-3:23 ref
`)
	for i := range facts.Symbols {
		facts.Symbols[i].ID = "local 1 a.ts"
	}
	for i := range facts.Occurrences {
		facts.Occurrences[i].Symbol = "local 1 a.ts"
	}
	r := graphtest.Base(t, graph.Manifest{Tool: "test", State: graph.StateComplete}, facts)
	sym, ok, err := r.Symbol(context.Background(), "local 1 a.ts")
	if err != nil || !ok {
		t.Fatalf("Symbol(local 1 a.ts) = %v, %v", ok, err)
	}
	p := buildFor(t, r, root, sym.ID, Options{Format: FormatMarkdown})
	if p.Target.Name != "patchChildren" || strings.Contains(p.Render(), "`ts`") {
		t.Errorf("target named %q; want patchChildren\n%s", p.Target.Name, p.Render())
	}
}

// TestWithTokensIsRender: the rendering whose Tokens field is written over
// is the rendering of the pack with that field, in every format.
func TestWithTokensIsRender(t *testing.T) {
	r, root := escapeWorkspace(t)
	for _, f := range []Format{FormatJSON, FormatJSONPretty, FormatMarkdown, FormatText} {
		p := buildFor(t, r, root, "go:w/Target().", Options{Scope: scope.Spec{Repo: true}, Budget: 8000, Format: f})
		for _, was := range []int{8000, 12, p.Tokens} {
			p.Tokens = was
			s := p.Render()
			for _, n := range []int{7, 999, 8000, 123456} {
				p.Tokens = n
				if got, want := withTokens(p, s, was), p.Render(); got != want {
					t.Fatalf("%s: Tokens %d written over %d:\n%s\nwant\n%s", f, n, was, got, want)
				}
			}
		}
	}
}

// TestBuildNeighbourOneLineOverCap: a neighbour whose whole body is one
// line longer than an item may take (a generated table, a blob constant,
// as crypto/x509's tests have) drops its body form. The pack still fits
// its budget and shows the neighbour in a smaller form; the fitting once
// indexed past the forms left and panicked.
func TestBuildNeighbourOneLineOverCap(t *testing.T) {
	root := t.TempDir()
	blob := strings.Repeat("ab", 4000)
	text := "package w\n\nfunc Target() string {\n\treturn blob + helper()\n}\n\nfunc helper() string { return \"h\" }\n\nconst blob = \"" + blob + "\"\n"
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/w\n")
	writeFile(t, filepath.Join(root, "w.go"), text)
	facts := graphtest.MustParseFacts(t, graph.Document{Path: "w.go", Language: "go", Source: graph.SourceSCIP}, `
sym go:w/Target(). name=Target kind=function def=w.go@3:6-3:12 extent=3:1-5:2
sym go:w/helper(). name=helper kind=function def=w.go@7:6-7:12 extent=7:1-7:37
sym go:w/blob. name=blob kind=constant def=w.go@9:7-9:11 extent=9:1-9:8016
occ go:w/Target(). 3:6-3:12 def
occ go:w/blob. 4:9-4:13 ref enc=go:w/Target().
occ go:w/helper(). 4:16-4:22 ref enc=go:w/Target().
occ go:w/helper(). 7:6-7:12 def
occ go:w/blob. 9:7-9:11 def
edge go:w/Target(). references go:w/blob.
edge go:w/Target(). references go:w/helper().
`)
	r := graphtest.Base(t, graph.Manifest{Tool: "test", State: graph.StateComplete}, facts)
	for _, f := range []Format{FormatJSON, FormatMarkdown} {
		p := buildFor(t, r, root, "go:w/Target().", Options{Scope: scope.Spec{Repo: true}, Budget: 8000, Format: f})
		var shown bool
		for _, it := range p.Items() {
			if it.Name == "blob" {
				shown = true
				if strings.Contains(it.Text, blob) {
					t.Errorf("%s: blob shown whole (%d bytes of text) past the cap of an item", f, len(it.Text))
				}
			}
		}
		if !shown {
			t.Errorf("%s: blob not shown at all: %+v", f, p.Items())
		}
		if n := Tokens(p.Render()); n > 8000 {
			t.Errorf("%s: %d tokens over a budget of 8000", f, n)
		}
	}
}
