package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/scope"
	"github.com/lspgraph/lspgraph/workspace"
)

// contextFixture imports a testdata SCIP dump into a fresh store and returns
// a reader on it and the fixture's absolute root.
func contextFixture(t testing.TB, dump, fixture string) (*graph.Reader, string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	st, err := graph.Open(filepath.Join(t.TempDir(), "store"), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f, err := os.Open(filepath.Join("..", "..", "testdata", "scip", dump))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := scip.Import(context.Background(), st, f, scip.Options{Root: root}); err != nil {
		t.Fatalf("importing %s: %v", dump, err)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, root
}

// contextStoreDir imports a testdata SCIP dump into a store directory and
// closes it, so that a command can open it.
func contextStoreDir(t testing.TB, dump, fixture string) (string, string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "store")
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("..", "..", "testdata", "scip", dump))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := scip.Import(context.Background(), st, f, scip.Options{Root: root}); err != nil {
		t.Fatalf("importing %s: %v", dump, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, root
}

// runCommand runs lspgraph with args and returns stdout; it fails the test
// on a non-zero exit.
func runCommand(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	if code := run(context.Background(), e, args); code != 0 {
		t.Fatalf("lspgraph %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

func contextJSON(t *testing.T, args ...string) *contextpack.Pack {
	t.Helper()
	out := runCommand(t, append([]string{"context", "--json"}, args...)...)
	var p contextpack.Pack
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("decoding the pack: %v\n%s", err, out)
	}
	return &p
}

// itemAt returns the item located at path:line (1-based), if any.
func itemAt(p *contextpack.Pack, path string, line int) (contextpack.Item, bool) {
	for _, it := range p.Items() {
		if it.Path == path && it.Line == line {
			return it, true
		}
	}
	return contextpack.Item{}, false
}

func itemsUnder(p *contextpack.Pack, dir string) []string {
	var out []string
	for _, it := range p.Items() {
		if strings.HasPrefix(it.Path, dir) {
			out = append(out, it.Name+" "+it.Location())
		}
	}
	return out
}

// TestContextLookAlikes checks, on both multi-package fixtures, that the
// pack for a symbol in the dependent package holds the function it calls in
// its dependency and nothing from the unrelated package with a look-alike,
// which is named in the manifest instead; with --scope repo the look-alike
// is included, as a namesake. History is off: the fixtures share this
// repository's history, whose commits tie their files together.
func TestContextLookAlikes(t *testing.T) {
	for _, tc := range []struct {
		name, dump, fixture, target string
		calleePath                  string
		calleeLine                  int
		unrelatedDir, unrelatedPkg  string
		lookAlikePath               string
		lookAlikeLine               int
	}{
		{"ts", "tsworkspace.scip", "tsworkspace", "packages/order/src/index.ts:28:3",
			"packages/pricing/src/index.ts", 7, "packages/user/", "@shop/user", "packages/user/src/index.ts", 8},
		{"gowork", "gowork.scip", "gowork", "billing/billing.go:13:6",
			"pricing/pricing.go", 6, "user/", "example.com/user", "user/user.go", 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, root := contextStoreDir(t, tc.dump, tc.fixture)
			p := contextJSON(t, "--store", dir, "--root", root, "--history-rev", "none", tc.target)
			if len(p.Files) == 0 || p.Files[0].Items[0].Role != "definition" || p.Files[0].Items[0].Text == "" {
				t.Fatalf("first item = %+v; want the definition with its body", p.Files)
			}
			callee, ok := itemAt(p, tc.calleePath, tc.calleeLine)
			if !ok || callee.Role != "callee" || callee.Show != contextpack.SnippetBody {
				t.Errorf("callee at %s:%d = %+v, %v; want it with its body", tc.calleePath, tc.calleeLine, callee, ok)
			}
			if got := itemsUnder(p, tc.unrelatedDir); len(got) != 0 {
				t.Errorf("closure scope shows items of the unrelated package: %v", got)
			}
			found := false
			for _, o := range p.Omitted.OutOfScope {
				if o.Package == tc.unrelatedPkg && o.Count > 0 && strings.Contains(o.Message, "this may involve `"+tc.unrelatedPkg+"`, outside the current scope") {
					found = true
				}
			}
			if !found {
				t.Errorf("the manifest does not name %s as out of scope: %+v", tc.unrelatedPkg, p.Omitted.OutOfScope)
			}
			for _, name := range p.Scope.Packages {
				if name == tc.unrelatedPkg {
					t.Errorf("scope packages %v include %s", p.Scope.Packages, tc.unrelatedPkg)
				}
			}

			repo := contextJSON(t, "--store", dir, "--root", root, "--scope", "repo", "--history-rev", "none", tc.target)
			la, ok := itemAt(repo, tc.lookAlikePath, tc.lookAlikeLine)
			if !ok || la.Role != "namesake" || !strings.Contains(la.Reason, "no reference connects them") {
				t.Errorf("--scope repo: look-alike at %s:%d = %+v, %v; want a namesake item", tc.lookAlikePath, tc.lookAlikeLine, la, ok)
			}
			if _, ok := itemAt(repo, tc.calleePath, tc.calleeLine); !ok {
				t.Errorf("--scope repo lost the callee")
			}
			if len(repo.Omitted.OutOfScope) != 0 {
				t.Errorf("--scope repo: nothing can be out of scope, got %+v", repo.Omitted.OutOfScope)
			}
			// The callee still outranks the look-alike.
			if callee.Score <= la.Score {
				t.Errorf("callee score %.3f <= look-alike score %.3f", callee.Score, la.Score)
			}
		})
	}
}

// TestContextMarkdown checks the evidence sections of --format markdown.
func TestContextMarkdown(t *testing.T) {
	dir, root := contextStoreDir(t, "gowork.scip", "gowork")
	md := runCommand(t, "context", "--store", dir, "--root", root, "--format", "markdown", "--history-rev", "none", "billing/billing.go:13:6")
	for _, want := range []string{
		"# Context for `Invoice` (function, example.com/billing)",
		"## billing/billing.go\n\n### definition `Invoice` :13\n",
		"```go\n// Invoice totals lines with pricing.Quote.\nfunc Invoice(lines []Line) int {\n",
		"## pricing/pricing.go (package `example.com/pricing`)\n\n### callee `Quote` :6\n\nCalled by `Invoice` at billing/billing.go:16.",
		"- This may involve `example.com/user`, outside the current scope (1 namesake): namesake `Quote` (user/user.go:6).",
		"## Freshness",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestContextHistoryRev: --history-rev names a commit whose history the
// pack reads (the fixture's files changed together in this repository's
// history), and a revision that names none is a clear error.
func TestContextHistoryRev(t *testing.T) {
	dir, root := contextStoreDir(t, "gowork.scip", "gowork")
	p := contextJSON(t, "--store", dir, "--root", root, "--scope", "repo", "--history-rev", "HEAD", "billing/billing.go:13:6")
	if !hasRole(p, "co-changed") && !strings.Contains(p.Render(), "changed together with billing.go") {
		t.Errorf("no file changed together with billing.go in this repository's history:\n%s", p.Render())
	}
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	if code := run(context.Background(), e, []string{"context", "--store", dir, "--root", root, "--history-rev", "no-such-rev", "billing/billing.go:13:6"}); code == 0 || !strings.Contains(errb.String(), "names no commit") {
		t.Errorf("--history-rev no-such-rev: exit %d, %s", code, errb.String())
	}
}

// TestContextBudgets is the budget's property test: over every fixture,
// every function, method and type in it, every format and budgets from 200
// to 32k tokens, the answer the command emits (its rendering, counted with
// contextpack.Tokens) never exceeds the budget, and nothing goes missing
// silently (shown + dropped = ranked in scope). A budget below the
// format's smallest answer is refused with ErrBudget, never overrun.
func TestContextBudgets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	budgets := []int{200, 250, 300, 400, 500, 700, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 12000, 16000, 24000, 32000}
	formats := []contextpack.Format{contextpack.FormatJSON, contextpack.FormatJSONPretty, contextpack.FormatMarkdown, contextpack.FormatText}
	for _, tc := range []struct{ dump, fixture string }{
		{"tsworkspace.scip", "tsworkspace"},
		{"gowork.scip", "gowork"},
		{"goapp.scip", "goapp"},
		{"pyproject.scip", "pyproject"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			r, root := contextFixture(t, tc.dump, tc.fixture)
			ws, err := scope.Discover(root)
			if err != nil {
				t.Fatal(err)
			}
			a, err := scope.Analyze(ctx, ws, r)
			if err != nil {
				t.Fatal(err)
			}
			targets := fixtureTargets(t, r)
			if len(targets) < 5 {
				t.Fatalf("only %d targets", len(targets))
			}
			// Every other target carries a freshness block with long lists,
			// as a session's answer on a busy work tree does.
			busy := &freshness.Block{BaseCommit: strings.Repeat("a", 40), Head: strings.Repeat("b", 40), Partial: true,
				Reasons: []string{"12 documents changed since the base commit; run `lspgraph index` to refresh"}}
			for i := range 60 {
				busy.Changed = append(busy.Changed, fmt.Sprintf("pkg/dir%d/file_%d.go", i%7, i))
			}
			packs, refused := 0, 0
			refusedAt := map[string]int{}
			for ti, sym := range targets {
				total := -1
				var fb *freshness.Block
				if ti%2 == 1 {
					fb = busy
				}
				for _, f := range formats {
					for _, budget := range budgets {
						p, err := contextpack.Build(ctx, r, a, sym, contextpack.Options{Budget: budget, Format: f, Source: contextpack.Source{Root: root}, Freshness: fb})
						if errors.Is(err, contextpack.ErrBudget) && budget <= 500 {
							refused++
							refusedAt[fmt.Sprintf("%s@%d", f, budget)]++
							continue
						}
						if err != nil {
							t.Fatalf("%s %s budget %d: %v", sym.ID, f, budget, err)
						}
						packs++
						out := p.Render()
						if n := contextpack.Tokens(out); n > budget || n > p.Tokens {
							t.Fatalf("%s %s budget %d: the answer counts %d tokens (pack says %d)", sym.ID, f, budget, n, p.Tokens)
						}
						shown := len(p.Items())
						if total < 0 {
							total = shown + p.Omitted.BudgetCount
						}
						if shown+p.Omitted.BudgetCount != total {
							t.Fatalf("%s %s budget %d: %d shown + %d dropped != %d ranked", sym.ID, f, budget, shown, p.Omitted.BudgetCount, total)
						}
						if p.Files[0].Items[0].Role != "definition" && !hasRole(p, "definition") {
							t.Fatalf("%s %s budget %d: no definition", sym.ID, f, budget)
						}
					}
				}
			}
			t.Logf("%d targets: %d packs within budget, %d budgets refused as below the smallest answer %v", len(targets), packs, refused, refusedAt)
		})
	}
}

func hasRole(p *contextpack.Pack, role string) bool {
	for _, it := range p.Items() {
		if it.Role == role {
			return true
		}
	}
	return false
}

// fixtureTargets lists the functions, methods and types a fixture defines
// in its work tree.
func fixtureTargets(t *testing.T, r *graph.Reader) []graph.Symbol {
	t.Helper()
	ctx := context.Background()
	var docs []graph.Document
	if err := r.Documents(ctx, func(d graph.Document) error { docs = append(docs, d); return nil }); err != nil {
		t.Fatal(err)
	}
	var out []graph.Symbol
	for _, d := range docs {
		syms, err := r.DocumentSymbols(ctx, d.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range syms {
			if s.External || s.Def.Path != d.Path {
				continue
			}
			switch s.Kind {
			case "function", "method", "type", "struct", "interface", "class":
				out = append(out, s)
			}
		}
	}
	return out
}

// TestContextCommandArguments drives the lspgraph.context handler with the
// JSON an editor sends: a UTF-16 position on a line with an astral
// character, an unsaved buffer, a budget and a scope.
func TestContextCommandArguments(t *testing.T) {
	ctx := context.Background()
	r, root := contextFixture(t, "tsworkspace.scip", "tsworkspace")
	uri := "file://" + filepath.ToSlash(filepath.Join(root, "packages/order/src/index.ts"))
	// Line 14: export const HEADER = "Reçu 𝄞 " + String(HEADER_WIDTH);
	// HEADER_WIDTH starts at UTF-16 unit 42 (UTF-8 byte 45).
	args := `[{"textDocument":{"uri":"` + uri + `"},"position":{"line":13,"character":43},"budget":400,"scope":"closure","format":"markdown"}]`
	ans, err := contextpack.Handle(ctx, contextpack.Env{Reader: r, Root: root, NoFreshness: true}, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Target.Name != "HEADER_WIDTH" || ans.Budget != 400 || ans.Tokens > 400 || contextpack.Tokens(ans.Rendered) > 400 {
		t.Errorf("target %q, budget %d, tokens %d; want HEADER_WIDTH within 400", ans.Target.Name, ans.Budget, ans.Tokens)
	}
	if !strings.Contains(ans.Rendered, "# Context for `HEADER_WIDTH`") {
		t.Errorf("no markdown rendering:\n%s", ans.Rendered)
	}
	// An unsaved buffer supplies the snippet text.
	overlay := func(p string) ([]byte, bool) {
		if p == "packages/order/src/index.ts" {
			b, err := os.ReadFile(filepath.Join(root, p))
			if err != nil {
				return nil, false
			}
			return []byte(strings.Replace(string(b), "Receipt width in columns.", "Receipt width (unsaved edit).", 1)), true
		}
		return nil, false
	}
	ans, err = contextpack.Handle(ctx, contextpack.Env{Reader: r, Root: root, Overlay: overlay, NoFreshness: true},
		json.RawMessage(`{"symbol":"packages/order/src/index.ts:11:14","scope":"repo"}`))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Scope.Spec != "repo" || len(ans.Files) == 0 || !strings.Contains(ans.Files[0].Items[0].Text, "unsaved edit") {
		t.Errorf("want the definition's snippet from the unsaved buffer under scope repo, got %+v", ans.Pack)
	}
	if _, err := contextpack.Handle(ctx, contextpack.Env{Reader: r, Root: root, NoFreshness: true}, json.RawMessage(`{"budget":10}`)); err == nil {
		t.Errorf("a request without a target must fail")
	}
}

// TestScopeCommand checks `lspgraph scope` on the Go workspace: billing's
// closure holds pricing with its declared and observed reasons, and user
// stays outside.
func TestScopeCommand(t *testing.T) {
	dir, root := contextStoreDir(t, "gowork.scip", "gowork")
	out := runCommand(t, "scope", "--store", dir, "--root", root, "--json", "billing/billing.go")
	var rep workspace.ScopeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var names []string
	for _, m := range rep.Closure {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "example.com/billing,example.com/pricing" || strings.Join(rep.Outside, ",") != "example.com/user" || !rep.Observed {
		t.Fatalf("closure %v, outside %v, observed %v", names, rep.Outside, rep.Observed)
	}
	var whys []string
	for _, w := range rep.Closure[1].Via.Why {
		whys = append(whys, w.String())
	}
	for _, want := range []string{
		"declared in billing/billing.go:4: imports example.com/pricing",
		"observed at billing/billing.go:16: references `Quote`",
	} {
		if !slices.Contains(whys, want) {
			t.Errorf("reasons %q lack %q", whys, want)
		}
	}
	text := runCommand(t, "scope", "--store", dir, "--root", root, "example.com/user", "--with", "example.com/pricing")
	for _, want := range []string{"Scope of example.com/user:", "example.com/pricing (go-package): added on request", "Outside the scope:\n  example.com/billing (go-package, 2 documents)"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
	var out2, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out2, stderr: &errb, getenv: func(string) string { return "" }}
	if code := run(context.Background(), e, []string{"scope", "--store", dir, "--root", root, "nosuch/file.go"}); code != 2 || !strings.Contains(errb.String(), "is neither a package") {
		t.Errorf("unknown argument: exit %d, %s", code, errb.String())
	}
	// Without a store the declared dependencies still answer.
	noStore := runCommand(t, "scope", "--store", filepath.Join(t.TempDir(), "none"), "--root", root, "billing")
	if !strings.Contains(noStore, "observed dependencies unavailable") || !strings.Contains(noStore, "example.com/pricing (go-package): depth 1") {
		t.Errorf("without a store:\n%s", noStore)
	}
}
