package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/resolve"
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
	for _, it := range p.Items {
		if it.Location.Path == path && it.Location.Line == line {
			return it, true
		}
	}
	return contextpack.Item{}, false
}

func itemsUnder(p *contextpack.Pack, dir string) []string {
	var out []string
	for _, it := range p.Items {
		if strings.HasPrefix(it.Location.Path, dir) {
			out = append(out, it.Name+" "+it.Location.String())
		}
	}
	return out
}

// TestContextLookAlikes checks, on both multi-package fixtures, that the
// pack for a symbol in the dependent package holds the function it calls in
// its dependency and nothing from the unrelated package with a look-alike,
// which is named in the manifest instead; with --scope repo the look-alike
// is included, as a namesake.
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
			p := contextJSON(t, "--store", dir, "--root", root, tc.target)
			if len(p.Items) == 0 || p.Items[0].Role != "definition" || p.Items[0].Snippet == nil {
				t.Fatalf("first item = %+v; want the definition with its body", p.Items)
			}
			callee, ok := itemAt(p, tc.calleePath, tc.calleeLine)
			if !ok || callee.Role != "callee" || callee.Snippet == nil || callee.Snippet.Kind != contextpack.SnippetBody {
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

			repo := contextJSON(t, "--store", dir, "--root", root, "--scope", "repo", tc.target)
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
	md := runCommand(t, "context", "--store", dir, "--root", root, "--format", "markdown", "billing/billing.go:13:6")
	for _, want := range []string{
		"# Context for `Invoice` (function, example.com/billing)",
		"## 1. definition `Invoice` — billing/billing.go:13:6",
		"```go\n// Invoice totals lines with pricing.Quote.\nfunc Invoice(lines []Line) int {\n",
		"## 2. callee `Quote` — pricing/pricing.go:6:6\n\nCalled by `Invoice` at billing/billing.go:16.",
		"- This may involve `example.com/user`, outside the current scope (1 namesake): namesake `Quote` (user/user.go:6).",
		"## Freshness",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestContextBudgets checks on every fixture that a pack never exceeds its
// budget, that nothing goes missing silently (shown + dropped = ranked in
// scope), and that with a tiny budget the definition survives as a location
// while the manifest lists what was dropped, with scores.
func TestContextBudgets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct{ dump, fixture, target string }{
		{"tsworkspace.scip", "tsworkspace", "packages/order/src/index.ts:28:3"},
		{"gowork.scip", "gowork", "billing/billing.go:13:6"},
		{"goapp.scip", "goapp", "service/catalog.go:29:19"},
		{"pyproject.scip", "pyproject", "shop/orders.py:29:9"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			r, root := contextFixture(t, tc.dump, tc.fixture)
			sym, err := resolve.ResolveIn(ctx, r, root, tc.target)
			if err != nil {
				t.Fatal(err)
			}
			ws, err := scope.Discover(root)
			if err != nil {
				t.Fatal(err)
			}
			a, err := scope.Analyze(ctx, ws, r)
			if err != nil {
				t.Fatal(err)
			}
			build := func(budget int) *contextpack.Pack {
				p, err := contextpack.Build(ctx, r, a, sym, contextpack.Options{Budget: budget, Source: contextpack.Source{Root: root}})
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			full := build(1 << 20)
			if full.Scope.Spec != "closure" || len(full.Scope.Packages) == 0 || full.Scope.Packages[0] != full.Target.Package {
				t.Errorf("zero Options.Scope: scope %+v; want the target package's closure", full.Scope)
			}
			if tc.fixture == "gowork" && strings.Join(full.Scope.Packages, ",") != "example.com/billing,example.com/pricing" {
				t.Errorf("zero Options.Scope on gowork: packages %v; want billing's closure", full.Scope.Packages)
			}
			total := len(full.Items)
			if full.Omitted.BudgetCount != 0 || full.Omitted.Downgraded != 0 || total < 4 {
				t.Fatalf("unbounded pack: %d items, %d dropped, %d downgraded", total, full.Omitted.BudgetCount, full.Omitted.Downgraded)
			}
			for budget := 1; budget <= full.Tokens+50; budget += 3 {
				p := build(budget)
				sum := 0
				for _, it := range p.Items {
					sum += it.Tokens
				}
				if sum != p.Tokens || p.Tokens > budget {
					t.Fatalf("budget %d: items sum to %d tokens, pack reports %d", budget, sum, p.Tokens)
				}
				if len(p.Items)+p.Omitted.BudgetCount != total {
					t.Fatalf("budget %d: %d shown + %d dropped != %d ranked", budget, len(p.Items), p.Omitted.BudgetCount, total)
				}
				if budget >= full.Tokens && (p.Omitted.BudgetCount != 0 || p.Omitted.Downgraded != 0) {
					t.Fatalf("budget %d >= %d needed: nothing should be cut", budget, full.Tokens)
				}
			}
			tiny := build(40)
			if len(tiny.Items) == 0 || tiny.Items[0].Role != "definition" {
				t.Fatalf("budget 40: items %+v; the definition must survive", tiny.Items)
			}
			if d := tiny.Items[0]; d.Location.Path != sym.Def.Path || d.Tokens > 40 {
				t.Errorf("budget 40: definition item %+v", d)
			}
			if tiny.Omitted.BudgetCount == 0 || len(tiny.Omitted.Budget) == 0 || tiny.Omitted.Budget[0].Score <= 0 || tiny.Omitted.Budget[0].Location.Path == "" {
				t.Errorf("budget 40: the manifest must list the dropped items with scores and locations: %+v", tiny.Omitted)
			}
			md := tiny.Markdown()
			if !strings.Contains(md, "dropped for the budget") {
				t.Errorf("budget 40: markdown does not say what was dropped:\n%s", md)
			}
		})
	}
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
	args := `[{"textDocument":{"uri":"` + uri + `"},"position":{"line":13,"character":43},"budget":300,"scope":"closure","format":"markdown"}]`
	ans, err := contextpack.Handle(ctx, contextpack.Env{Reader: r, Root: root, NoFreshness: true}, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Target.Name != "HEADER_WIDTH" || ans.Budget != 300 || ans.Tokens > 300 {
		t.Errorf("target %q, budget %d, tokens %d; want HEADER_WIDTH within 300", ans.Target.Name, ans.Budget, ans.Tokens)
	}
	if !strings.Contains(ans.Markdown, "# Context for `HEADER_WIDTH`") {
		t.Errorf("no markdown rendering:\n%s", ans.Markdown)
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
	if ans.Scope.Spec != "repo" || len(ans.Items) == 0 || ans.Items[0].Snippet == nil || !strings.Contains(ans.Items[0].Snippet.Text, "unsaved edit") {
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
		"declared in billing/go.mod:7: replace example.com/pricing => ../pricing",
		"declared in billing/billing.go:4: imports example.com/pricing",
		"observed at billing/billing.go:16: references `Quote`",
	} {
		if !slices.Contains(whys, want) {
			t.Errorf("reasons %q lack %q", whys, want)
		}
	}
	text := runCommand(t, "scope", "--store", dir, "--root", root, "example.com/user", "--with", "example.com/pricing")
	for _, want := range []string{"Scope of example.com/user:", "example.com/pricing (go-module): added on request", "Outside the scope:\n  example.com/billing (go-module, 2 documents)"} {
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
	if !strings.Contains(noStore, "observed dependencies unavailable") || !strings.Contains(noStore, "example.com/pricing (go-module): depth 1") {
		t.Errorf("without a store:\n%s", noStore)
	}
}
