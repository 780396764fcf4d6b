package scope

import (
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func depStrings(deps []Dep) []string {
	var out []string
	for _, d := range deps {
		for _, w := range d.Why {
			out = append(out, d.From+" -> "+d.To+": "+w.String())
		}
	}
	return out
}

func TestDiscoverGoWork(t *testing.T) {
	w, err := DiscoverPackages("../testdata/gowork")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range w.Packages {
		got = append(got, string(p.Kind)+" "+p.Name+" "+p.Dir+" member="+p.Member+" module="+p.Module)
	}
	want := []string{
		"go-package example.com/billing billing member=go.work module=example.com/billing",
		"go-package example.com/pricing pricing member=go.work module=example.com/pricing",
		"go-package example.com/user user member=go.work module=example.com/user",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("packages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantDeps := []string{
		"example.com/billing -> example.com/pricing: declared in billing/billing.go:4: imports example.com/pricing",
	}
	if got := depStrings(w.Declared()); !reflect.DeepEqual(got, wantDeps) {
		t.Errorf("deps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantDeps, "\n"))
	}
	if p, ok := w.PackageOf("billing/billing.go"); !ok || p.Name != "example.com/billing" {
		t.Errorf("PackageOf(billing/billing.go) = %v, %v", p, ok)
	}
	if _, ok := w.PackageOf("go.work"); ok {
		t.Errorf("go.work belongs to no module")
	}
}

func TestDiscoverTSWorkspace(t *testing.T) {
	w, err := Discover("../testdata/tsworkspace")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range w.Packages {
		got = append(got, string(p.Kind)+" "+p.Name+" "+p.Dir+" member="+p.Member)
	}
	want := []string{
		"npm shop-workspace . member=",
		"npm @shop/order packages/order member=pnpm-workspace.yaml",
		"npm @shop/pricing packages/pricing member=pnpm-workspace.yaml",
		"npm @shop/user packages/user member=pnpm-workspace.yaml",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("packages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantDeps := []string{
		"@shop/order -> @shop/pricing: declared in packages/order/package.json:8: dependencies @shop/pricing workspace:*",
		"@shop/order -> @shop/pricing: declared in packages/order/tsconfig.json:8: tsconfig reference ../pricing",
		"@shop/order -> @shop/pricing: declared in packages/order/src/index.ts:1: imports @shop/pricing",
		"shop-workspace -> @shop/order: declared in tsconfig.json:5: tsconfig reference packages/order",
		"shop-workspace -> @shop/pricing: declared in tsconfig.json:4: tsconfig reference packages/pricing",
		"shop-workspace -> @shop/user: declared in tsconfig.json:6: tsconfig reference packages/user",
	}
	if got := depStrings(w.Declared()); !reflect.DeepEqual(got, wantDeps) {
		t.Errorf("deps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantDeps, "\n"))
	}
	if p, ok := w.PackageOf("packages/user/src/index.ts"); !ok || p.Name != "@shop/user" {
		t.Errorf("PackageOf(user) = %v, %v", p, ok)
	}
}

func TestDiscoverPyproject(t *testing.T) {
	w, err := DiscoverPackages("../testdata/pyproject")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range w.Packages {
		got = append(got, string(p.Kind)+" "+p.Name+" "+p.Dir+" "+p.Manifest)
	}
	want := []string{"py-package shop shop pyproject.toml", "py-package tests tests pyproject.toml"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("packages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantDeps := []string{
		"tests -> shop: declared in tests/test_orders.py:3: imports shop.orders",
		"tests -> shop: declared in tests/test_orders.py:4: imports shop.pricing",
	}
	if got := depStrings(w.Declared()); !reflect.DeepEqual(got, wantDeps) {
		t.Errorf("deps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantDeps, "\n"))
	}
}

// TestDiscoverManifests covers manifest forms the fixtures do not use:
// go.mod blocks, package.json workspaces objects and file: dependencies,
// tsconfig comments and paths, pyproject local path dependencies.
func TestDiscoverManifests(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.work":           "go 1.22\n\nuse ./svc // the service\nuse ./lib\n",
		"svc/go.mod":        "module example.com/svc\n\nrequire (\n\texample.com/lib v0.0.0 // indirect\n\tgolang.org/x/text v0.3.0\n)\n",
		"svc/main.go":       "package main\n\nimport (\n\t\"fmt\"\n\t\"example.com/lib/sub\"\n)\n",
		"lib/go.mod":        "module example.com/lib\n",
		"lib/sub/sub.go":    "package sub\n",
		"lib/sub/gen.go":    "//go:build ignore\n\npackage main\n\nimport \"example.com/svc\"\n",
		"lib/sub/x_test.go": "package sub_test\n\nimport \"example.com/svc\"\n",
		"svc/other.go":      "package main\n",
		"package.json":      `{"name": "root", "workspaces": {"packages": ["js/*"]}}`,
		"js/a/package.json": `{"name": "a", "dependencies": {"b": "file:../b", "left-pad": "1.0.0"}}`,
		"js/b/package.json": `{"name": "b", "version": "1.0.0"}`,
		"js/c/package.json": `{"name": "c"}`,
		"js/c/tsconfig.json": `{
  // comments and trailing commas are allowed
  "compilerOptions": {"baseUrl": ".", "paths": {"~b/*": ["../b/src/*"],},},
}`,
		"js/c/src/x.ts":                     "import { y } from '~b/y';\nconst z = require(\"a\");\n",
		"py/app/pyproject.toml":             "[project]\nname = \"app\" # the app\ndependencies = [\n  \"requests>=2\",\n  \"core @ file:../core\",\n]\n[tool.uv.sources]\ncore = { path = \"../core\" }\n",
		"py/core/pyproject.toml":            "[project]\nname = 'core'\n",
		"node_modules/x/package.json":       `{"name": "x"}`,
		"py/web/pyproject.toml":             "[project]\nname = \"web\"\n",
		"py/web/src/web/__init__.py":        "",
		"py/web/src/web/views.py":           "from . import models\nfrom .models import User\nimport os, web.api.routes as r\n\"\"\"\nimport scripts.run\n\"\"\"\n",
		"py/web/src/web/api/__init__.py":    "from ..models import User\n",
		"py/web/src/web/models/__init__.py": "def f():\n    import web.api\n",
		"py/web/scripts/run.py":             "from web.views import main\n",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "package.json"), []byte(`{"name": "outside"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "package.json"), filepath.Join(root, "linked", "package.json")); err != nil {
		t.Fatal(err)
	}
	w, err := DiscoverPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Package("outside"); ok {
		t.Errorf("a manifest symlinked from outside the root was read")
	}
	wantDeps := []string{
		"a -> b: declared in js/a/package.json:1: dependencies b file:../b",
		"app -> core: declared in py/app/pyproject.toml:3: dependency core @ file:../core",
		"app -> core: declared in py/app/pyproject.toml:8: tool.uv.sources core = { path = \"../core\" }",
		"c -> a: declared in js/c/src/x.ts:2: imports a",
		"c -> b: declared in js/c/src/x.ts:1: imports ~b/y",
		"example.com/svc -> example.com/lib/sub: declared in svc/main.go:5: imports example.com/lib/sub",
		"scripts -> web: declared in py/web/scripts/run.py:1: imports web.views",
		"web -> web.api: declared in py/web/src/web/views.py:3: imports web.api.routes",
		"web -> web.models: declared in py/web/src/web/views.py:2: imports .models",
		"web.api -> web.models: declared in py/web/src/web/api/__init__.py:1: imports ..models",
		"web.models -> web.api: declared in py/web/src/web/models/__init__.py:2: imports web.api",
	}
	if got := depStrings(w.Declared()); !reflect.DeepEqual(got, wantDeps) {
		t.Errorf("deps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantDeps, "\n"))
	}
	if _, ok := w.Package("x"); ok {
		t.Errorf("node_modules must not be discovered")
	}
	if p, ok := w.Package("a"); !ok || p.Member != "package.json workspaces" {
		t.Errorf("package a = %+v; want member of package.json workspaces", p)
	}
	if p, ok := w.Lookup("lib/sub"); !ok || p.Name != "example.com/lib/sub" || p.Module != "example.com/lib" || p.Member != "go.work" {
		t.Errorf("Lookup(lib/sub) = %+v, %v", p, ok)
	}
	if _, ok := w.Lookup("example.com/lib"); ok {
		t.Errorf("a module without Go files at its root is no package")
	}
	if p, ok := w.Package("web"); !ok || p.Kind != KindPyPackage || p.Dir != "py/web/src/web" || p.Manifest != "py/web/pyproject.toml" {
		t.Errorf("Python package web = %+v, %v", p, ok)
	}
	if p, ok := w.PackageOf("lib/sub/deeper/x.go"); ok && p.Kind == KindGoPackage {
		t.Errorf("a Go package does not hold a subdirectory's files: %+v", p)
	}
}

func TestParseSpec(t *testing.T) {
	for in, want := range map[string]Spec{
		"":                   {Closure: true},
		"closure":            {Closure: true},
		"repo":               {Repo: true},
		"a,b":                {Packages: []string{"a", "b"}},
		"closure,@shop/user": {Closure: true, Packages: []string{"@shop/user"}},
	} {
		if got := ParseSpec(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseSpec(%q) = %+v; want %+v", in, got, want)
		}
	}
}

func TestShortName(t *testing.T) {
	for in, want := range map[string]string{
		"scip-go gomod example.com/goapp v1 `example.com/goapp/service`/Catalog#Save().": "Save",
		"scip-typescript npm @shop/pricing 0.1.0 src/`index.ts`/quote().":                "quote",
		"scip-go gomod example.com/goapp v1 `example.com/goapp/store`/Store#":            "Store",
	} {
		if got := ShortName(in); got != want {
			t.Errorf("ShortName(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestDiscoverModules checks the units of Discover (a context pack's
// closure): a Go module and a Python project are one package each, with
// go.mod's require and replace directives among the reasons.
func TestDiscoverModules(t *testing.T) {
	w, err := Discover("../testdata/gowork")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range w.Packages {
		got = append(got, string(p.Kind)+" "+p.Name+" "+p.Dir+" member="+p.Member+" pkgs="+strings.Join(p.GoPackages, ","))
	}
	want := []string{
		"go-module example.com/billing billing member=go.work pkgs=example.com/billing",
		"go-module example.com/pricing pricing member=go.work pkgs=example.com/pricing",
		"go-module example.com/user user member=go.work pkgs=example.com/user",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("packages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantDeps := []string{
		"example.com/billing -> example.com/pricing: declared in billing/go.mod:7: replace example.com/pricing => ../pricing",
		"example.com/billing -> example.com/pricing: declared in billing/go.mod:5: require example.com/pricing (replaced by a local path)",
		"example.com/billing -> example.com/pricing: declared in billing/billing.go:4: imports example.com/pricing",
	}
	if got := depStrings(w.Declared()); !reflect.DeepEqual(got, wantDeps) {
		t.Errorf("deps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantDeps, "\n"))
	}
	py, err := Discover("../testdata/pyproject")
	if err != nil {
		t.Fatal(err)
	}
	if len(py.Packages) != 1 || py.Packages[0].Name != "shop" || py.Packages[0].Kind != KindPython || py.Packages[0].Dir != "." {
		t.Fatalf("packages = %+v; want one python project shop at .", py.Packages)
	}
}

// TestPackageOfDirLongestPrefix: the package of a directory, found by
// walking up its directories, is the one a scan of every package finds:
// the longest directory that contains it (the root's "." shorter than any
// other: a scan once took "." for as long as "a"), the first of several
// in one directory, a Go or Python package only for its own directory.
func TestPackageOfDirLongestPrefix(t *testing.T) {
	scan := func(w *Workspace, dir string) (Package, bool) {
		best, found := Package{}, false
		for _, p := range w.Packages {
			if (p.Kind == KindGoPackage || p.Kind == KindPyPackage) && p.Dir != dir {
				continue
			}
			if !dirContains(p.Dir, dir) {
				continue
			}
			// The root's "." is no longer than any directory in it.
			depth := func(d string) int {
				if d == "." {
					return 0
				}
				return len(d)
			}
			if !found || depth(p.Dir) > depth(best.Dir) {
				best, found = p, true
			}
		}
		return best, found
	}
	dirs := []string{".", "", "/", "/abs/x", "..", "../x", "zzz", "a-b", "a.b"}
	check := func(what string, w *Workspace) {
		t.Helper()
		var all []string
		for _, p := range w.Packages {
			all = append(all, p.Dir, p.Dir+"/sub", p.Dir+"/sub/deeper", path.Dir(p.Dir), p.Dir+"-sibling")
		}
		for _, d := range append(all, dirs...) {
			got, gok := w.packageOfDir(d)
			want, wok := scan(w, d)
			if gok != wok || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: package of %q = %v %+v, want %v %+v", what, d, gok, got, wok, want)
			}
		}
	}
	w := &Workspace{}
	for _, p := range []Package{
		{Name: "root", Kind: KindNPM, Dir: "."},
		{Name: "a", Kind: KindGoModule, Dir: "a"},
		{Name: "a-npm", Kind: KindNPM, Dir: "a"},
		{Name: "a/b", Kind: KindGoPackage, Dir: "a/b"},
		{Name: "a.b.c", Kind: KindPyPackage, Dir: "a/b/c"},
		{Name: "ab", Kind: KindNPM, Dir: "ab"},
		{Name: "x", Kind: KindPython, Dir: "x/y/z"},
		{Name: "root-go", Kind: KindGoPackage, Dir: "."},
	} {
		w.addPackage(p)
	}
	check("packages made here", w)
	for _, root := range []string{"../testdata/gowork", "../testdata/goapp", "../testdata/tsworkspace", "../testdata/pyproject"} {
		for _, by := range []bool{false, true} {
			dw, err := discover(root, by, nil)
			if err != nil {
				t.Fatal(err)
			}
			check(root, dw)
		}
	}
}
