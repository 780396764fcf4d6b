package syntax

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// goScopeTree is a repository of several Go modules: a requires b; a/tool
// is nested in a and requires nothing; c is required by no one; old
// predates complete module graphs (go 1.16); w is a go.work workspace.
// Each of b and c defines a Flush method, a and c a Sync method, and each
// module calls them on values of a type the syntax layer cannot know.
func goScopeTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	call := func(pkg string) string {
		return "package " + pkg + "\n\nfunc Use(x interface{ Flush(); Sync() }) {\n\tx.Flush()\n\tx.Sync()\n}\n"
	}
	writeFiles(t, root, map[string]string{
		"a/go.mod":      "module example.com/a\n\ngo 1.21\n\nrequire example.com/b v1.0.0\n\nreplace example.com/b => ../b\n",
		"a/a.go":        call("a") + "\ntype Buf struct{}\n\nfunc (Buf) Sync() {}\n",
		"a/tool/go.mod": "module example.com/a/tool\n\ngo 1.21\n",
		"a/tool/t.go":   call("tool"),
		"b/go.mod":      "module example.com/b\n\ngo 1.21\n",
		"b/b.go":        "package b\n\ntype W struct{}\n\nfunc (W) Flush() {}\n",
		"c/go.mod":      "module example.com/c\n\ngo 1.21\n",
		"c/c.go":        "package c\n\ntype W struct{}\n\nfunc (W) Flush() {}\n\nfunc (W) Sync() {}\n",
		"old/go.mod":    "module example.com/old\n\ngo 1.16\n",
		"old/o.go":      call("old"),
		"w/go.work":     "go 1.21\n\nuse ./m\n",
		"w/m/go.mod":    "module example.com/w/m\n\ngo 1.21\n",
		"w/m/m.go":      call("m"),
	})
	return root
}

func TestGoScopeOf(t *testing.T) {
	root := goScopeTree(t)
	fsys, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	p := newProject(root, fsys)
	defer p.close()
	for _, c := range []struct{ dir, want string }{
		{"a", "example.com/a\nexample.com/b"},
		{"a/tool", "example.com/a\nexample.com/a/tool"}, // the module it is nested in
		{"b", "example.com/b"},
		{"old", ""}, // go 1.16: a go.mod need not list every module reached
		{"w/m", ""}, // a go.work above the module
		{"", ""},    // no go.mod at or above the root
		{"c/x/y", "example.com/c"},
	} {
		if got := p.goScopeOf(c.dir); got != c.want {
			t.Errorf("goScopeOf(%q) = %q, want %q", c.dir, got, c.want)
		}
	}
}

func TestInGoScope(t *testing.T) {
	scope := "example.com/a\nscale.example/copy1"
	for _, c := range []struct {
		pkg  string
		want bool
	}{
		{"example.com/a", true},
		{"example.com/a/internal/x", true},
		{"example.com/ab", false}, // a prefix, not a module of the scope
		{"scale.example/copy1/fmt", true},
		{"scale.example/copy10/fmt", false},
		{"example.com/b", false},
		{"fmt", true},        // the standard library
		{"net/http", true},   // the standard library
		{"internal/x", true}, // no module: a dotless path, as the standard library's
		{"", true},
	} {
		if got := inGoScope(c.pkg, scope); got != c.want {
			t.Errorf("inGoScope(%q) = %v, want %v", c.pkg, got, c.want)
		}
	}
	if !inGoScope("example.com/b", "") {
		t.Error("no scope refused a package")
	}
}

// globalEdges returns the edges of the global-name rules from the Use of
// each package, as "FROM-PKG -> TO-PKG SYMBOL REASON".
func globalEdges(docs []graph.DocumentFacts) []string {
	var out []string
	for _, df := range docs {
		for _, e := range df.Edges {
			if e.Reason != ReasonUniqueGlobal && e.Reason != ReasonAmbiguous {
				continue
			}
			from := strings.TrimSuffix(strings.TrimPrefix(e.From, "syntax go "), " Use")
			to := strings.TrimPrefix(e.To, "syntax go ")
			out = append(out, fmt.Sprintf("%s -> %s %s", from, to, e.Reason))
		}
	}
	slices.Sort(out)
	return out
}

// TestGoModuleScope checks that a Go name of unknown owner resolves only
// to definitions in packages its module can reach: its own module, the
// modules it requires and those it is nested in, when its go.mod lists
// every module reached; to any definition otherwise.
func TestGoModuleScope(t *testing.T) {
	_, docs := extractTree(t, goScopeTree(t))
	want := []string{
		// a requires b: Flush is b's alone, Sync a's own (not c's).
		"example.com/a -> example.com/a Buf.Sync syntax:unique-global-name",
		"example.com/a -> example.com/b W.Flush syntax:unique-global-name",
		// a/tool reaches a (it is nested in it), not b or c: no Flush.
		"example.com/a/tool -> example.com/a Buf.Sync syntax:unique-global-name",
		// Without a complete module graph, every definition is a candidate.
		"example.com/old -> example.com/a Buf.Sync syntax:ambiguous-global-name",
		"example.com/old -> example.com/b W.Flush syntax:ambiguous-global-name",
		"example.com/old -> example.com/c W.Flush syntax:ambiguous-global-name",
		"example.com/old -> example.com/c W.Sync syntax:ambiguous-global-name",
		"example.com/w/m -> example.com/a Buf.Sync syntax:ambiguous-global-name",
		"example.com/w/m -> example.com/b W.Flush syntax:ambiguous-global-name",
		"example.com/w/m -> example.com/c W.Flush syntax:ambiguous-global-name",
		"example.com/w/m -> example.com/c W.Sync syntax:ambiguous-global-name",
	}
	if got := globalEdges(docs); !slices.Equal(got, want) {
		t.Errorf("global-name edges:\n got %q\nwant %q", got, want)
	}
}

// TestGoModuleScopeIncremental changes what a module requires and adds a
// go.work: an incremental index must resolve the module's files again and
// write what a full index writes.
func TestGoModuleScopeIncremental(t *testing.T) {
	ctx := context.Background()
	root := goScopeTree(t)
	opts := IndexOptions{Root: root, Workers: 2, TempDir: t.TempDir()}
	open := func(name string) *graph.Store {
		st, err := graph.Open(filepath.Join(t.TempDir(), name), graph.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	inc := open("incremental")
	if _, err := Index(ctx, inc, opts); err != nil {
		t.Fatal(err)
	}
	for k, step := range []struct {
		name, file, text, edge string
	}{
		{"a requires c", "a/go.mod",
			"module example.com/a\n\ngo 1.21\n\nrequire (\n\texample.com/b v1.0.0\n\texample.com/c v1.0.0\n)\n",
			`"syntax go example.com/a Use" -calls-> "syntax go example.com/c W.Flush" conf=0.09`},
		{"a go.work above a/tool", "go.work", "go 1.21\n\nuse ./a/tool\n",
			`"syntax go example.com/a/tool Use" -calls-> "syntax go example.com/c W.Sync" conf=0.09`},
	} {
		hasEdge := func(lines []string) bool {
			return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, step.edge) })
		}
		if hasEdge(generationLines(t, inc)) {
			t.Fatalf("%s: the edge %s is there before", step.name, step.edge)
		}
		if err := os.WriteFile(filepath.Join(root, step.file), []byte(step.text), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := Index(ctx, inc, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !sum.Incremental {
			t.Errorf("%s: the index was not incremental", step.name)
		}
		fopts := opts
		fopts.Full = true
		full := open("full" + string(rune('a'+k)))
		if _, err := Index(ctx, full, fopts); err != nil {
			t.Fatal(err)
		}
		got, want := generationLines(t, inc), generationLines(t, full)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the incremental index differs from the full one\n%s", step.name, incrementalDiff(got, want))
		}
		if !hasEdge(got) {
			t.Errorf("%s: no edge %s", step.name, step.edge)
		}
	}
}
