package crawl

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

var update = flag.Bool("update", false, "rewrite golden files")

// gopls returns the gopls binary, skipping the test when it is missing
// (failing under LSPGRAPH_E2E=1).
func gopls(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	if p := "/root/go/bin/gopls"; fileExists(p) {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		if p := filepath.Join(home, "go", "bin", "gopls"); fileExists(p) {
			return p
		}
	}
	if os.Getenv("LSPGRAPH_E2E") == "1" {
		t.Fatal("gopls not found (LSPGRAPH_E2E=1)")
	}
	t.Skip("gopls not found")
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// render prints a result's facts with the source text of every range, for
// a golden file a reader can check against the source.
func render(res *Result, root string) string {
	var b strings.Builder
	for _, f := range res.Documents {
		text, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Document.Path)))
		m := textpos.NewMapper(text)
		snip := func(r textpos.Range) string {
			s, err1 := m.Offset(r.Start)
			e, err2 := m.Offset(r.End)
			if err1 != nil || err2 != nil || e < s {
				return "?"
			}
			t := string(text[s:e])
			if i := strings.IndexByte(t, '\n'); i >= 0 {
				t = t[:i] + "…"
			}
			return fmt.Sprintf("%q", t)
		}
		fmt.Fprintf(&b, "-- %s (%s %s)\n", f.Document.Path, f.Document.Language, f.Document.Package)
		for _, s := range f.Symbols {
			fmt.Fprintf(&b, "symbol %s %s %s def %s %s extent %s\n", s.ID, s.Kind, s.DisplayName, s.Def.Range, snip(s.Def.Range), s.DefExtent)
		}
		for _, o := range f.Occurrences {
			fmt.Fprintf(&b, "occ %s %s %s -> %s", o.Range, snip(o.Range), roles(o.Roles), o.Symbol)
			if o.Enclosing != "" {
				fmt.Fprintf(&b, " in %s", o.Enclosing)
			}
			b.WriteString("\n")
		}
		for _, e := range f.Edges {
			fmt.Fprintf(&b, "edge %s -%s-> %s x%d %.1f %s\n", e.From, e.Kind, e.To, e.Count, e.Confidence, e.Reason)
		}
	}
	return b.String()
}

func roles(r graph.Role) string {
	var parts []string
	for _, x := range []struct {
		r    graph.Role
		name string
	}{{graph.RoleDefinition, "def"}, {graph.RoleReference, "ref"}, {graph.RoleCall, "call"}} {
		if r&x.r != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, ",")
}

// TestCrawlGoapp crawls testdata/goapp through gopls and compares the facts
// with a golden file checked against the source by hand.
func TestCrawlGoapp(t *testing.T) {
	server := gopls(t)
	root, err := filepath.Abs("../testdata/goapp")
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	res, err := Crawl(context.Background(), Options{
		Root:              root,
		Server:            []string{server},
		PositionEncodings: []string{"utf-16"},
		Progress: func(p Progress) {
			if p.Done == p.Total {
				phases = append(phases, fmt.Sprintf("%s %d/%d", p.Phase, p.Done, p.Total))
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.FailedRequests != 0 {
		t.Errorf("%d requests failed: %q", res.Stats.FailedRequests, res.Errors)
	}
	if res.Encoding != textpos.UTF16 {
		t.Errorf("encoding = %v; offered only utf-16", res.Encoding)
	}
	if res.ServerName != "gopls" {
		t.Errorf("server name = %q", res.ServerName)
	}
	t.Logf("phases: %q; stats: %+v", phases, res.Stats)
	got := render(res, root)
	golden := filepath.Join("testdata", "goapp.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("facts differ from %s (run with -update and review the diff):\n%s", golden, diff(string(want), got))
	}
}

// diff lists the lines only one side has.
func diff(want, got string) string {
	w := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		w[l]++
	}
	g := map[string]int{}
	for _, l := range strings.Split(got, "\n") {
		g[l]++
	}
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if g[l] == 0 {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if w[l] == 0 {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}

func TestListFiles(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a.go", "pkg/b.go", "pkg/b.txt", "vendor/v/v.go", "testdata/t.go", ".hidden/h.go", "_old/o.go", "node_modules/x/x.go"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ListFiles(context.Background(), root, Extensions("gopls"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "a.go pkg/b.go" {
		t.Errorf("ListFiles = %q", got)
	}
}

// TestCrawlBuildConstraints: a file that no build includes has symbols but
// no references, and a func type has no call hierarchy; the crawl counts
// them apart and the result is not partial.
func TestCrawlBuildConstraints(t *testing.T) {
	server := gopls(t)
	root := t.TempDir()
	files := map[string]string{
		"go.mod":     "module example.com/tags\n\ngo 1.22\n",
		"a.go":       "package tags\n\n// A is used by B.\nfunc A() int { return 1 }\n\nfunc B() int { return A() + A() }\n",
		"types.go":   "package tags\n\n// Handler is a func type; gopls lists it as a function.\ntype Handler func() int\n",
		"ignored.go": "//go:build ignore\n\npackage tags\n\nfunc Ignored() int { return A() }\n",
	}
	for p, text := range files {
		if err := os.WriteFile(filepath.Join(root, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Crawl(context.Background(), Options{Root: root, Server: []string{server}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.FailedRequests != 0 || res.Stats.NotInBuild == 0 {
		t.Errorf("stats = %+v, errors %q; want requests about ignored.go counted as not in the build", res.Stats, res.Errors)
	}
	if res.Stats.NotCallable != 1 {
		t.Errorf("stats = %+v; want the func type Handler counted as not callable", res.Stats)
	}
	var refsToA int
	for _, d := range res.Documents {
		for _, o := range d.Occurrences {
			if o.Symbol == "lsp a.go:4:6" && o.Roles&graph.RoleReference != 0 {
				refsToA++
			}
		}
	}
	if refsToA != 2 {
		t.Errorf("references to A = %d; want the 2 in B", refsToA)
	}
}
