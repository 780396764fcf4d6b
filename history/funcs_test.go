package history

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goRepo makes a repository whose commits write whole files (oldest
// first) and returns its directory.
func goRepo(t *testing.T, commits []map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	git := gitIn(t, dir)
	git("init", "-q")
	for _, files := range commits {
		for name, text := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", "-A")
		git("commit", "-q", "-m", "c")
	}
	return dir
}

// goFile writes functions whose bodies return the given values, so that
// changing one value changes one function's body.
func goFile(recv string, fns map[string]int, order ...string) string {
	var b strings.Builder
	b.WriteString("package p\n\ntype DB struct{}\n")
	for _, name := range order {
		sig := "func " + name + "() int {\n"
		if recv != "" {
			sig = "func (d *" + recv + ") " + name + "() int {\n"
		}
		b.WriteString("\n// " + name + " returns a number.\n" + sig + "\tx := 1\n\treturn x + " + strings.Repeat("1+", fns[name]) + "0\n}\n")
	}
	return b.String()
}

func TestCoupledFuncsFollowsHunks(t *testing.T) {
	a := func(get, put, del int) string {
		return goFile("DB", map[string]int{"Get": get, "Put": put, "Delete": del}, "Get", "Put", "Delete")
	}
	b := func(enc, dec int) string {
		return goFile("", map[string]int{"encode": enc, "decode": dec}, "encode", "decode")
	}
	dir := goRepo(t, []map[string]string{
		{"a.go": a(0, 0, 0), "b.go": b(0, 0)}, // every function added
		{"a.go": a(1, 0, 0), "b.go": b(1, 0)}, // Get with encode
		{"a.go": a(2, 0, 0), "b.go": b(2, 0)}, // Get with encode again
		{"a.go": a(2, 1, 0), "b.go": b(2, 1)}, // Put with decode
		{"a.go": a(2, 1, 1)},                  // Delete alone
	})
	ctx := context.Background()
	l, err := Load(ctx, dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.CoupledFuncs(ctx, "a.go", "DB.Get", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Path != "b.go" || got[0].Name != "encode" || got[0].Commits != 3 {
		t.Fatalf("CoupledFuncs(a.go, DB.Get) = %+v; want b.go encode first, from 3 commits", got)
	}
	for _, c := range got {
		if c.Path == "a.go" && c.Name == "DB.Get" {
			t.Errorf("the function itself is listed: %+v", got)
		}
		if c.Name == "decode" && c.Weight >= got[0].Weight/2 {
			t.Errorf("decode changed only in a commit without Get: weight %.3f vs encode %.3f", c.Weight, got[0].Weight)
		}
	}
	put, err := l.CoupledFuncs(ctx, "a.go", "DB.Put", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(put) == 0 || put[0].Name != "decode" {
		t.Errorf("CoupledFuncs(a.go, DB.Put) = %+v; want decode first", put)
	}
	if none, err := l.CoupledFuncs(ctx, "nowhere.go", "f", 10); err != nil || len(none) != 0 {
		t.Errorf("unknown file: %v, %v", none, err)
	}
}

func TestDeclName(t *testing.T) {
	for _, c := range []struct{ file, line, want string }{
		{"a.go", "func (d *DB) Get(key []byte) error {", "DB.Get"},
		{"a.go", "func (s Set[T]) Add(v T) {", "Set.Add"},
		{"a.go", "func newIter[K any](k K) *iter {", "newIter"},
		{"a.go", "type Options struct {", "Options"},
		{"a.go", "\treturn nil", ""},
		{"a.ts", "export function createApp(rootComponent: Component) {", "createApp"},
		{"a.ts", "  const patch: PatchFn = (n1, n2, container) => {", "patch"},
		{"a.ts", "export class ReactiveEffect<T = any> {", "ReactiveEffect"},
		{"a.ts", "  run(): T {", "run"},
		{"a.ts", "  if (x) {", ""},
		{"a.py", "    def render(self):", "render"},
	} {
		if got := declName(c.file, c.line); got != c.want {
			t.Errorf("declName(%s, %q) = %q; want %q", c.file, c.line, got, c.want)
		}
	}
}
