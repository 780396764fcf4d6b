package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

// Strata of targets.
const (
	stratumExportedFunc   = "exported function"
	stratumUnexportedFunc = "unexported function"
	stratumMethod         = "method"
	stratumIfaceMethod    = "interface method with implementations"
	stratumImplMethod     = "method reached through an interface"
	stratumMethodValue    = "method value"
)

var strata = []string{stratumExportedFunc, stratumUnexportedFunc, stratumMethod, stratumIfaceMethod, stratumImplMethod, stratumMethodValue}

// Truth is the compiler's answer for every target.
type Truth struct {
	Tree     string   `json:"tree"`    // e.g. "GOROOT/src (go1.26.8)"
	Package  string   `json:"package"` // the package whose targets change
	Scope    []string `json:"scope"`   // the packages type-checked
	Files    []string `json:"files"`   // the documents the truth covers, relative to the tree
	Method   string   `json:"method"`  // how the truth was made
	Targets  []Target `json:"targets"`
	Problems []string `json:"problems,omitempty"`
}

// Target is one changed declaration and what the change breaks.
type Target struct {
	Name    string `json:"name"` // Func or Recv.Method or Iface.Method
	Stratum string `json:"stratum"`
	Path    string `json:"path"` // relative to the tree
	Line    int    `json:"line"` // of the name, 1-based
	Col     int    `json:"col"`  // of the name, 1-based (bytes)
	// Callers are the top-level declarations that reference the target
	// before the change; Breaks those with a compile error after it.
	// Each is "PATH:LINE" (the declaration's name) or "PATH:top" (a
	// package-level var, const or type declaration, or init expression).
	Callers []string `json:"callers"`
	Breaks  []string `json:"breaks"`
}

// unit is one type-checking unit: a package's files, parsed once.
type unit struct {
	path  string // import path
	files []*ast.File
	names []string // absolute file names
	test  bool     // the package with its internal test files
}

// tree holds what every mutation re-checks.
type tree struct {
	dir     string // the tree's root (GOROOT/src)
	fset    *token.FileSet
	target  string            // the changed package's path
	base    *unit             // the package without tests
	withTst *unit             // the package with its internal tests
	users   []*unit           // its importers, in dependency order
	export  map[string]string // import path → export data file
	src     map[string][]byte // absolute file name → original text
}

func loadTree(ctx context.Context, dir, target string, importers []string) (*tree, error) {
	cfg := &packages.Config{Context: ctx, Dir: dir, Tests: true,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports | packages.NeedDeps | packages.NeedExportFile}
	pkgs, err := packages.Load(cfg, append([]string{target}, importers...)...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", target, err)
	}
	t := &tree{dir: dir, fset: token.NewFileSet(), target: target, export: map[string]string{}, src: map[string][]byte{}}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.ExportFile != "" && !strings.Contains(p.ID, " [") {
			t.export[p.PkgPath] = p.ExportFile
		}
	})
	byPath := map[string]*packages.Package{}
	for _, p := range pkgs {
		switch {
		case p.ID == target:
			byPath[target] = p
		case p.ID == target+" ["+target+".test]":
			byPath[target+".test"] = p
		case !strings.Contains(p.ID, " ") && !strings.HasSuffix(p.ID, ".test") && !strings.HasSuffix(p.ID, "_test"):
			byPath[p.ID] = p
		}
	}
	mk := func(p *packages.Package, test bool) (*unit, error) {
		if p == nil {
			return nil, fmt.Errorf("package missing from go list's answer")
		}
		u := &unit{path: p.PkgPath, test: test}
		for _, name := range p.CompiledGoFiles {
			b, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			t.src[name] = b
			u.names = append(u.names, name)
		}
		return u, nil
	}
	if t.base, err = mk(byPath[target], false); err != nil {
		return nil, fmt.Errorf("%s: %w", target, err)
	}
	if p := byPath[target+".test"]; p != nil { // absent when the package has no internal tests
		if t.withTst, err = mk(p, true); err != nil {
			return nil, fmt.Errorf("%s with tests: %w", target, err)
		}
	}
	// Importers in dependency order: one that imports another comes after.
	done := map[string]bool{}
	var visit func(string) error
	visit = func(path string) error {
		if done[path] {
			return nil
		}
		done[path] = true
		p := byPath[path]
		if p == nil {
			return fmt.Errorf("importer %s missing from go list's answer", path)
		}
		for imp := range p.Imports {
			if slicesContains(importers, imp) {
				if err := visit(imp); err != nil {
					return err
				}
			}
		}
		u, err := mk(p, false)
		if err != nil {
			return err
		}
		t.users = append(t.users, u)
		return nil
	}
	for _, imp := range importers {
		if err := visit(imp); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func slicesContains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// rel returns a file's path relative to the tree.
func (t *tree) rel(name string) string {
	r, err := filepath.Rel(t.dir, name)
	if err != nil {
		return name
	}
	return filepath.ToSlash(r)
}

// parse parses a unit's files, with one file's text replaced.
func (t *tree) parse(u *unit, fset *token.FileSet, replace map[string][]byte) ([]*ast.File, error) {
	var files []*ast.File
	for _, name := range u.names {
		src := t.src[name]
		if r, ok := replace[name]; ok {
			src = r
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// result of checking every unit once.
type checked struct {
	fset   *token.FileSet
	files  map[*token.File]*ast.File
	errors []types.Error
	infos  []*types.Info
	pkgs   map[string]*types.Package // the changed package and its checked importers
	base   *types.Package
	test   *types.Package
}

// check type-checks the package, its internal tests and its importers,
// with one file replaced, and returns every error.
func (t *tree) check(replace map[string][]byte) (*checked, error) {
	c := &checked{fset: token.NewFileSet(), files: map[*token.File]*ast.File{}, pkgs: map[string]*types.Package{}}
	imports := map[string]*types.Package{}
	imp := importerFunc(func(path string) (*types.Package, error) {
		if p, ok := c.pkgs[path]; ok {
			return p, nil
		}
		if p, ok := imports[path]; ok && p.Complete() {
			return p, nil
		}
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		file, ok := t.export[path]
		if !ok {
			// GOROOT vendors golang.org/x/net under its own path.
			file, ok = t.export["vendor/"+path]
			path = "vendor/" + path
		}
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r, err := gcexportdata.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("reading export data of %s: %w", path, err)
		}
		return gcexportdata.Read(r, c.fset, imports, path)
	})
	run := func(u *unit) (*types.Package, error) {
		files, err := t.parse(u, c.fset, replace)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			c.files[c.fset.File(f.Pos())] = f
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{}, Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: imp, Error: func(err error) {
			if te, ok := err.(types.Error); ok && !te.Soft {
				c.errors = append(c.errors, te)
			}
		}, FakeImportC: true}
		p, _ := conf.Check(u.path, c.fset, files, info)
		c.infos = append(c.infos, info)
		return p, nil
	}
	var err error
	if c.base, err = run(t.base); err != nil {
		return nil, err
	}
	c.pkgs[t.target] = c.base
	for _, u := range t.users {
		p, err := run(u)
		if err != nil {
			return nil, err
		}
		c.pkgs[u.path] = p
	}
	delete(c.pkgs, t.target)
	if t.withTst != nil {
		if c.test, err = run(t.withTst); err != nil {
			return nil, err
		}
	}
	return c, nil
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// declAt names the top-level declaration containing pos.
func (t *tree) declAt(c *checked, pos token.Pos) string {
	tf := c.fset.File(pos)
	if tf == nil {
		return ""
	}
	return declKey(c.fset, t.rel(tf.Name()), c.files[tf], pos)
}

// declKey names the top-level declaration of file f containing pos.
func declKey(fset *token.FileSet, rel string, f *ast.File, pos token.Pos) string {
	if f == nil {
		return rel + ":top"
	}
	for _, d := range f.Decls {
		if d.Pos() <= pos && pos < d.End() {
			if fd, ok := d.(*ast.FuncDecl); ok {
				return fmt.Sprintf("%s:%d", rel, fset.Position(fd.Name.Pos()).Line)
			}
			return rel + ":top"
		}
	}
	return rel + ":top"
}
