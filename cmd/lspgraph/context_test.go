package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scip"
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
