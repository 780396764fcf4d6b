package goconv

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Kinds of conversion site.
const (
	KindAssign     = "assignment"
	KindVar        = "var declaration"
	KindArgument   = "argument"
	KindConversion = "explicit conversion"
	KindReturn     = "return"
	KindField      = "composite-literal field"
	KindElement    = "composite-literal element"
	KindMapKey     = "map key"
	KindSend       = "channel send"
	KindCompare    = "comparison"
	KindAssert     = "type assertion"
	KindSwitch     = "type switch case"
)

// Site is one place a concrete type becomes an interface value.
type Site struct {
	Path  string        // relative to the root, forward slashes
	Range textpos.Range // the converted expression (UTF-8 byte columns)
	Kind  string
	// Enclosing is the name range of the enclosing top-level declaration
	// (a function, a method, a named package-level variable); zero for a
	// site outside any (`var _ I = T{}`).
	Enclosing     textpos.Range
	EnclosingName string
	Concrete      string // the concrete type, qualified by package path
	Interface     string // the interface type, qualified by package path
	// Needs lists the conversion symbols of the concrete methods that
	// provide the interface's method set.
	Needs []string
}

// Result is what Collect found.
type Result struct {
	Packages int               // packages type-checked
	Errors   []string          // load and type errors (first few)
	Sites    map[string][]Site // by document path
}

// maxErrors bounds the errors kept in a Result.
const maxErrors = 20

// Collect type-checks the packages matching patterns (default ./...) in the
// module at root, tests included, and returns their conversion sites in
// documents under root.
func Collect(ctx context.Context, root string, patterns ...string) (*Result, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("goconv: resolving %s: %w", root, err)
	}
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	cfg := &packages.Config{
		Context: ctx,
		Dir:     abs,
		Tests:   true,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("goconv: loading %s in %s: %w", strings.Join(patterns, " "), abs, err)
	}
	res := &Result{Sites: map[string][]Site{}}
	seen := map[string]bool{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			if len(res.Errors) < maxErrors {
				res.Errors = append(res.Errors, e.Error())
			}
		}
		if p.TypesInfo == nil {
			continue
		}
		res.Packages++
		for _, f := range p.Syntax {
			name := p.Fset.File(f.Pos()).Name()
			rel, err := filepath.Rel(abs, name)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue // a generated or cached file outside the root
			}
			c := &collector{fset: p.Fset, info: p.TypesInfo, path: filepath.ToSlash(rel)}
			c.file(f)
			for _, s := range c.sites {
				k := fmt.Sprintf("%s\x00%v\x00%s\x00%s", s.Path, s.Range, s.Interface, s.Kind)
				if !seen[k] { // a package's files are checked again in its test variant
					seen[k] = true
					res.Sites[s.Path] = append(res.Sites[s.Path], s)
				}
			}
		}
	}
	for _, ss := range res.Sites {
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].Range.Start.Before(ss[j].Range.Start) })
	}
	return res, nil
}

// collector walks one file.
type collector struct {
	fset  *token.FileSet
	info  *types.Info
	path  string
	sites []Site
	// the enclosing top-level declaration of the node being walked
	encl     textpos.Range
	enclName string
	// results of the innermost function being walked
	results []*types.Tuple
}

func (c *collector) file(f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			c.encl, c.enclName = c.rangeOf(d.Name), d.Name.Name
			if sig, ok := c.info.Defs[d.Name].Type().(*types.Signature); ok {
				c.results = []*types.Tuple{sig.Results()}
			}
			if d.Body != nil {
				ast.Inspect(d.Body, c.visit)
			}
			c.results = nil
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				c.encl, c.enclName = textpos.Range{}, ""
				if vs, ok := spec.(*ast.ValueSpec); ok {
					for _, n := range vs.Names {
						if n.Name != "_" {
							c.encl, c.enclName = c.rangeOf(n), n.Name
							break
						}
					}
				}
				ast.Inspect(spec, c.visit)
			}
		}
	}
}

func (c *collector) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.FuncLit:
		if sig, ok := c.info.TypeOf(n).(*types.Signature); ok {
			c.results = append(c.results, sig.Results())
			ast.Inspect(n.Body, c.visit)
			c.results = c.results[:len(c.results)-1]
		}
		return false
	case *ast.AssignStmt:
		if n.Tok == token.ASSIGN && len(n.Lhs) == len(n.Rhs) {
			for i, r := range n.Rhs {
				c.convert(r, c.info.TypeOf(n.Lhs[i]), KindAssign)
			}
		}
	case *ast.ValueSpec:
		if n.Type != nil && len(n.Values) == len(n.Names) {
			t := c.info.TypeOf(n.Type)
			for _, v := range n.Values {
				c.convert(v, t, KindVar)
			}
		}
	case *ast.CallExpr:
		c.call(n)
	case *ast.ReturnStmt:
		if len(c.results) > 0 {
			res := c.results[len(c.results)-1]
			if res != nil && res.Len() == len(n.Results) {
				for i, r := range n.Results {
					c.convert(r, res.At(i).Type(), KindReturn)
				}
			}
		}
	case *ast.CompositeLit:
		c.composite(n)
	case *ast.SendStmt:
		if ch, ok := under(c.info.TypeOf(n.Chan)).(*types.Chan); ok {
			c.convert(n.Value, ch.Elem(), KindSend)
		}
	case *ast.BinaryExpr:
		if n.Op == token.EQL || n.Op == token.NEQ {
			x, y := c.info.TypeOf(n.X), c.info.TypeOf(n.Y)
			c.convert(n.Y, x, KindCompare)
			c.convert(n.X, y, KindCompare)
		}
	case *ast.TypeAssertExpr:
		if n.Type != nil {
			c.assert(n.Type, c.info.TypeOf(n.X), KindAssert)
		}
	case *ast.TypeSwitchStmt:
		var x ast.Expr
		switch a := n.Assign.(type) {
		case *ast.AssignStmt:
			x = a.Rhs[0].(*ast.TypeAssertExpr).X
		case *ast.ExprStmt:
			x = a.X.(*ast.TypeAssertExpr).X
		}
		xt := c.info.TypeOf(x)
		for _, cl := range n.Body.List {
			for _, e := range cl.(*ast.CaseClause).List {
				c.assert(e, xt, KindSwitch)
			}
		}
	}
	return true
}

// call records arguments passed to interface parameters and explicit
// conversions to an interface type.
func (c *collector) call(n *ast.CallExpr) {
	tv, ok := c.info.Types[n.Fun]
	if !ok {
		return
	}
	if tv.IsType() {
		if len(n.Args) == 1 {
			c.convert(n.Args[0], tv.Type, KindConversion)
		}
		return
	}
	sig, ok := under(tv.Type).(*types.Signature)
	if !ok {
		return
	}
	params := sig.Params()
	for i, a := range n.Args {
		var pt types.Type
		switch {
		case sig.Variadic() && i >= params.Len()-1:
			if n.Ellipsis.IsValid() {
				continue
			}
			if s, ok := params.At(params.Len() - 1).Type().(*types.Slice); ok {
				pt = s.Elem()
			}
		case i < params.Len():
			pt = params.At(i).Type()
		}
		if pt != nil {
			c.convert(a, pt, KindArgument)
		}
	}
}

// composite records struct fields, slice and array elements and map keys
// and values that are interfaces.
func (c *collector) composite(n *ast.CompositeLit) {
	t := c.info.TypeOf(n)
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch u := under(t).(type) {
	case *types.Struct:
		for i, e := range n.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					if f, ok := c.info.Uses[id].(*types.Var); ok {
						c.convert(kv.Value, f.Type(), KindField)
					}
				}
			} else if i < u.NumFields() {
				c.convert(e, u.Field(i).Type(), KindField)
			}
		}
	case *types.Slice:
		c.elements(n, nil, u.Elem())
	case *types.Array:
		c.elements(n, nil, u.Elem())
	case *types.Map:
		c.elements(n, u.Key(), u.Elem())
	}
}

func (c *collector) elements(n *ast.CompositeLit, key, elem types.Type) {
	for _, e := range n.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if key != nil {
				c.convert(kv.Key, key, KindMapKey)
			}
			e = kv.Value
		}
		c.convert(e, elem, KindElement)
	}
}

// convert records e as a site when its type is concrete and to is an
// interface with methods.
func (c *collector) convert(e ast.Expr, to types.Type, kind string) {
	if e == nil || to == nil {
		return
	}
	tv, ok := c.info.Types[e]
	if !ok || tv.Type == nil || tv.IsType() || tv.IsNil() {
		return
	}
	c.record(e, tv.Type, to, kind)
}

// assert records a type assertion or type-switch case of the concrete type
// named by te on a value of interface type x.
func (c *collector) assert(te ast.Expr, x types.Type, kind string) {
	tv, ok := c.info.Types[te]
	if !ok || !tv.IsType() || x == nil {
		return
	}
	c.record(te, tv.Type, x, kind)
}

func (c *collector) record(e ast.Expr, from, to types.Type, kind string) {
	iface, ok := under(to).(*types.Interface)
	if !ok || iface.NumMethods() == 0 || types.IsInterface(from) {
		return
	}
	var needs []string
	for i := 0; i < iface.NumMethods(); i++ {
		m := iface.Method(i)
		obj, _, _ := types.LookupFieldOrMethod(from, true, m.Pkg(), m.Name())
		fn, ok := obj.(*types.Func)
		if !ok {
			continue // does not implement it: the code does not compile
		}
		if sym := methodSymbol(fn); sym != "" {
			needs = append(needs, sym)
		}
	}
	if len(needs) == 0 {
		return
	}
	sort.Strings(needs)
	c.sites = append(c.sites, Site{
		Path: c.path, Range: c.rangeOf(e), Kind: kind, Enclosing: c.encl, EnclosingName: c.enclName,
		Concrete: types.TypeString(from, nil), Interface: types.TypeString(to, nil), Needs: needs,
	})
}

// methodSymbol names a concrete method by its receiver's package path and
// type name.
func methodSymbol(fn *types.Func) string {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil || fn.Pkg() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return ""
	}
	return graph.ConversionSymbol(fn.Pkg().Path(), named.Obj().Name(), fn.Name())
}

func under(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// rangeOf converts a node's extent to 0-based lines and UTF-8 byte columns.
func (c *collector) rangeOf(n ast.Node) textpos.Range {
	s, e := c.fset.Position(n.Pos()), c.fset.Position(n.End())
	return textpos.Range{
		Start: textpos.Position{Line: uint32(s.Line - 1), Col: uint32(s.Column - 1)},
		End:   textpos.Position{Line: uint32(e.Line - 1), Col: uint32(e.Column - 1)},
	}
}
