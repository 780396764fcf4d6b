package syntax

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// goScopeTree is a repository of several Go modules: a requires b; a/tool
// is nested in a and requires nothing (its packages' paths extend a's); c
// is required by no one; old predates complete module graphs (go 1.16); w
// is a go.work workspace. Each of a/tool, b and c defines a Flush method,
// a and c a Sync method, b one Reset method and c twenty, and each module
// calls them on values of a type the syntax layer cannot know.
func goScopeTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	call := func(pkg string) string {
		return "package " + pkg + "\n\nfunc Use(x interface{ Flush(); Sync(); Reset() }) {\n\tx.Flush()\n\tx.Sync()\n\tx.Reset()\n}\n"
	}
	// Reset: one in b and twenty in c, more than global-name guesses
	// take (MaxAmbiguous) but one in a's reach.
	many := "package c\n"
	for i := range 20 {
		many += fmt.Sprintf("\ntype R%d struct{}\n\nfunc (R%d) Reset() {}\n", i, i)
	}
	writeFiles(t, root, map[string]string{
		"a/go.mod":      "module example.com/a\n\ngo 1.21\n\nrequire example.com/b v1.0.0\n\nreplace example.com/b => ../b\n",
		"a/a.go":        call("a") + "\ntype Buf struct{}\n\nfunc (Buf) Sync() {}\n",
		"a/tool/go.mod": "module example.com/a/tool\n\ngo 1.21\n",
		"a/tool/t.go":   call("tool") + "\ntype T struct{}\n\nfunc (T) Flush() {}\n",
		"b/go.mod":      "module example.com/b\n\ngo 1.21\n",
		"b/b.go":        "package b\n\ntype W struct{}\n\nfunc (W) Flush() {}\n\nfunc (W) Reset() {}\n",
		"c/many.go":     many,
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
	answers := map[string]string{}
	for _, goMods := range [][]string{nil, {"a", "a/tool", "b", "c", "old", "w/m"}, {"a", "b", "c", "old", "w/m"}} {
		p := newProject(root, fsys)
		p.modules = goModulesOf(root, fsys, nil, goMods)
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
				t.Errorf("go.mod files %q: goScopeOf(%q) = %q, want %q", goMods, c.dir, got, c.want)
			}
			// What a file's facts record: another when the tree's
			// modules are others.
			a := p.goScopeAnswer(c.dir)
			if (a == "") != (c.want == "") {
				t.Errorf("go.mod files %q: goScopeAnswer(%q) = %q for the scope %q", goMods, c.dir, a, c.want)
			}
			if a != "" {
				if dir, seen := answers[a]; seen && dir != c.dir {
					t.Errorf("go.mod files %q: goScopeAnswer(%q) = goScopeAnswer of another scope or tree", goMods, c.dir)
				}
				answers[a] = c.dir
			}
		}
		p.close()
	}
	if len(answers) != 3*4 {
		t.Errorf("%d answers, want one per tree and scope: %q", len(answers), answers)
	}
}

func TestGoReach(t *testing.T) {
	scope := "example.com/a\nexample.com/a/tool/sub\nexample.com/ext\nscale.example/copy1"
	tree := map[string]bool{"example.com/a": true, "example.com/a/tool": true, "example.com/a/tool/sub": true, "example.com/b": true, "scale.example/copy1": true, "scale.example/copy10": true}
	for _, c := range []struct {
		pkg            string
		known, unknown bool // with the tree's modules known, and not
	}{
		{"example.com/a", true, true},
		{"example.com/a/internal/x", true, true},
		{"example.com/ab", false, false}, // a prefix, not a module of the scope
		{"example.com/a/tool", false, true},
		{"example.com/a/tool/x", false, true}, // a module of the tree out of reach
		{"example.com/a/tool/sub/x", true, true},
		{"example.com/a/toolbox", true, true},
		{"example.com/ext/y", true, true}, // a module outside the tree
		{"scale.example/copy1/fmt", true, true},
		{"scale.example/copy10/fmt", false, false},
		{"example.com/b", false, false},
		{"fmt", true, true},        // the standard library
		{"net/http", true, true},   // the standard library
		{"internal/x", true, true}, // no module: a dotless path, as the standard library's
		{"", true, true},
	} {
		if got := (&goReach{modules: tree}).in(c.pkg, scope); got != c.known {
			t.Errorf("in(%q), the tree's modules known = %v, want %v", c.pkg, got, c.known)
		}
		if got := (&goReach{}).in(c.pkg, scope); got != c.unknown {
			t.Errorf("in(%q), the tree's modules unknown = %v, want %v", c.pkg, got, c.unknown)
		}
	}
	if !(&goReach{modules: tree}).in("example.com/b", "") {
		t.Error("no scope refused a package")
	}
}

// TestScopedGroups: a reach's definitions taken from the groups of a
// name's definitions (made once per name) are the definitions whose
// packages goReach.in accepts, in table order, for every scope, with the
// tree's modules known and not.
func TestScopedGroups(t *testing.T) {
	tree := map[string]bool{"example.com/a": true, "example.com/a/tool": true, "example.com/b": true, "scale.example/copy1": true, "scale.example/copy10": true}
	pkgs := []string{
		"fmt", "example.com/a", "example.com/b", "example.com/a/tool/x", "scale.example/copy10/fmt",
		"example.com/ext/y", "example.com/a/internal", "internal/x", "scale.example/copy1/fmt", "example.com/ab",
		"example.com/b/sub", "example.com/ext", "net/http", "example.com/a", "other.org/z/w",
	}
	scopes := []string{
		"example.com/a",
		"example.com/a\nexample.com/b",
		"example.com/a/tool\nexample.com/a",                         // a module nested in another
		"scale.example/copy1\nexample.com/ext\nscale.example/copy1", // a module twice
		"scale.example/copy10",
		"nothing.example/m",
	}
	all := func(yield func(int32) bool) {
		for i := range pkgs {
			if !yield(int32(i)) {
				return
			}
		}
	}
	for _, reach := range []goReach{{modules: tree}, {}} {
		g := groupByReach(&reach, all, func(i int32) string { return pkgs[i] })
		for _, scope := range scopes {
			want := []int32{}
			for i, p := range pkgs {
				if reach.in(p, scope) {
					want = append(want, int32(i))
				}
			}
			if got := g.in(scope); !slices.Equal(got, want) {
				t.Errorf("modules known %v, scope %q: %v, want %v", reach.modules != nil, scope, got, want)
			}
		}
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
// every module reached; to any definition otherwise. The tree is indexed
// as a directory (walked) and as a git work tree (listed by git).
func TestGoModuleScope(t *testing.T) {
	want := []string{
		// a requires b: Flush is b's alone (not c's, nor that of a/tool
		// nested in a), Sync a's own (not c's), Reset b's (not c's 20).
		"example.com/a -> example.com/a Buf.Sync syntax:unique-global-name",
		"example.com/a -> example.com/b W.Flush syntax:unique-global-name",
		"example.com/a -> example.com/b W.Reset syntax:unique-global-name",
		// a/tool reaches a (it is nested in it), not b or c.
		"example.com/a/tool -> example.com/a Buf.Sync syntax:unique-global-name",
		"example.com/a/tool -> example.com/a/tool T.Flush syntax:unique-global-name",
		// Without a complete module graph, every definition is a
		// candidate (and Reset's 21 are too many to guess).
		"example.com/old -> example.com/a Buf.Sync syntax:ambiguous-global-name",
		"example.com/old -> example.com/a/tool T.Flush syntax:ambiguous-global-name",
		"example.com/old -> example.com/b W.Flush syntax:ambiguous-global-name",
		"example.com/old -> example.com/c W.Flush syntax:ambiguous-global-name",
		"example.com/old -> example.com/c W.Sync syntax:ambiguous-global-name",
		"example.com/w/m -> example.com/a Buf.Sync syntax:ambiguous-global-name",
		"example.com/w/m -> example.com/a/tool T.Flush syntax:ambiguous-global-name",
		"example.com/w/m -> example.com/b W.Flush syntax:ambiguous-global-name",
		"example.com/w/m -> example.com/c W.Flush syntax:ambiguous-global-name",
		"example.com/w/m -> example.com/c W.Sync syntax:ambiguous-global-name",
	}
	root := goScopeTree(t)
	for _, listing := range []string{"walk", "git"} {
		if listing == "git" {
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("git is not installed")
			}
			cmd := exec.Command("sh", "-c", "git init -q && git add -A")
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git: %v\n%s", err, out)
			}
		}
		// Of each document as it is put (by several workers at once): its
		// memory is not for keeps.
		var (
			mu  sync.Mutex
			got []string
		)
		if _, err := Build(context.Background(), IndexOptions{Root: root, Workers: 2}, func(_ context.Context, df graph.DocumentFacts) error {
			edges := globalEdges([]graph.DocumentFacts{df})
			mu.Lock()
			defer mu.Unlock()
			got = append(got, edges...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: global-name edges:\n got %q\nwant %q", listing, got, want)
		}
	}
}

// TestGoModuleScopeIncremental changes what a module requires and adds a
// go.work: an incremental index must resolve the module's files again and
// write what a full index writes.
func TestGoModuleScopeIncremental(t *testing.T) {
	ctx := context.Background()
	root := goScopeTree(t)
	opts := IndexOptions{Root: root, Workers: 2, TempDir: t.TempDir()}
	inc := openTestStore(t, "incremental")
	if _, err := Index(ctx, inc, opts); err != nil {
		t.Fatal(err)
	}
	for k, step := range []struct {
		name  string
		files map[string]string
		edge  string // an edge the step adds, if any
		never string // an edge there must not be after it, if any
	}{
		{"a requires c", map[string]string{"a/go.mod": "module example.com/a\n\ngo 1.21\n\nrequire (\n\texample.com/b v1.0.0\n\texample.com/c v1.0.0\n)\n"},
			`"syntax go example.com/a Use" -calls-> "syntax go example.com/c W.Flush" conf=0.09`, ""},
		// A module nested in a: out of a's reach, its Sync is no
		// candidate of a's (whose answer must change), nor of a/tool's.
		{"a module in a", map[string]string{
			"a/plug/go.mod": "module example.com/a/plug\n\ngo 1.21\n",
			"a/plug/p.go":   "package plug\n\ntype P struct{}\n\nfunc (P) Sync() {}\n",
		}, "", `"syntax go example.com/a Use" -calls-> "syntax go example.com/a/plug P.Sync"`},
		{"a go.work above a/tool", map[string]string{"go.work": "go 1.21\n\nuse ./a/tool\n"},
			`"syntax go example.com/a/tool Use" -calls-> "syntax go example.com/c W.Sync" conf=0.09`, ""},
	} {
		hasEdge := func(lines []string) bool {
			return step.edge != "" && slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, step.edge) })
		}
		if hasEdge(generationLines(t, inc)) {
			t.Fatalf("%s: the edge %s is there before", step.name, step.edge)
		}
		writeFiles(t, root, step.files)
		sum, err := Index(ctx, inc, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !sum.Incremental {
			t.Errorf("%s: the index was not incremental", step.name)
		}
		fopts := opts
		fopts.Full = true
		full := openTestStore(t, "full"+string(rune('a'+k)))
		if _, err := Index(ctx, full, fopts); err != nil {
			t.Fatal(err)
		}
		got, want := generationLines(t, inc), generationLines(t, full)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the incremental index differs from the full one\n%s", step.name, incrementalDiff(got, want))
		}
		if step.edge != "" && !hasEdge(got) {
			t.Errorf("%s: no edge %s", step.name, step.edge)
		}
		if step.never != "" && slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, step.never) }) {
			t.Errorf("%s: an edge %s", step.name, step.never)
		}
	}
}

// TestGoScopeWorkAbove checks that a go.work above the root, which makes
// the root's modules part of a workspace, leaves them without a scope.
func TestGoScopeWorkAbove(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	writeFiles(t, root, map[string]string{"m/go.mod": "module example.com/m\n\ngo 1.21\n"})
	scope := func() string {
		fsys, err := rootfs.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		defer fsys.Close()
		p := newProject(root, fsys)
		defer p.close()
		return p.goScopeOf("m")
	}
	if got := scope(); got != "example.com/m" {
		t.Fatalf("without a go.work: goScopeOf = %q", got)
	}
	writeFiles(t, parent, map[string]string{"go.work": "go 1.21\n\nuse ./ws/m\n"})
	if got := scope(); got != "" {
		t.Errorf("under a go.work above the root: goScopeOf = %q, want none", got)
	}
}
