package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"math/rand"
	"sort"
	"strings"
)

// candidate is a declaration that may become a target.
type candidate struct {
	Target
	obj     *types.Func
	params  token.Pos // the opening parenthesis of its parameters
	unnamed bool      // its parameters have no names
	file    string    // absolute name
}

// candidates lists the functions and methods of the changed package (its
// non-test files) by stratum, from one clean check.
func (t *tree) candidates(c *checked) map[string][]candidate {
	info := c.infos[0] // the package without tests is checked first
	out := map[string][]candidate{}
	// Interface methods implemented by some concrete type of the package,
	// and the concrete methods implementing one.
	var ifaces []*types.Named
	var concrete []*types.Named
	scope := c.base.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok || n.TypeParams().Len() > 0 {
			continue
		}
		if types.IsInterface(n) {
			ifaces = append(ifaces, n)
		} else {
			concrete = append(concrete, n)
		}
	}
	implemented := map[*types.Func]bool{} // interface methods with an implementation
	implementing := map[*types.Func]bool{}
	for _, in := range ifaces {
		iface := in.Underlying().(*types.Interface)
		for _, cn := range concrete {
			var typ types.Type = cn
			if !types.Implements(typ, iface) {
				typ = types.NewPointer(cn)
				if !types.Implements(typ, iface) {
					continue
				}
			}
			for i := 0; i < iface.NumExplicitMethods(); i++ {
				m := iface.ExplicitMethod(i)
				implemented[m] = true
				obj, _, _ := types.LookupFieldOrMethod(typ, true, m.Pkg(), m.Name())
				if f, ok := obj.(*types.Func); ok && f.Pkg() == c.base {
					implementing[f] = true
				}
			}
		}
	}
	// Method values: selections of a method not in call position.
	called := map[*ast.SelectorExpr]bool{}
	valued := map[*types.Func]bool{}
	for _, f := range c.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
					called[sel] = true
				}
			}
			return true
		})
	}
	for _, inf := range c.infos {
		for sel, s := range inf.Selections {
			if f, ok := s.Obj().(*types.Func); ok && f.Pkg() == c.base && !called[sel] && (s.Kind() == types.MethodVal || s.Kind() == types.MethodExpr) {
				valued[f] = true
			}
		}
	}
	for id, obj := range info.Defs {
		f, ok := obj.(*types.Func)
		if !ok || f.Pkg() != c.base || strings.HasSuffix(c.fset.File(id.Pos()).Name(), "_test.go") {
			continue
		}
		sig := f.Type().(*types.Signature)
		if sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0 || f.Name() == "init" || f.Name() == "_" {
			continue
		}
		cd, ok := t.candidate(c, id, f)
		if !ok {
			continue
		}
		switch {
		case sig.Recv() == nil && f.Exported():
			cd.Stratum = stratumExportedFunc
		case sig.Recv() == nil:
			cd.Stratum = stratumUnexportedFunc
		case types.IsInterface(sig.Recv().Type()):
			if !implemented[f] {
				continue
			}
			cd.Stratum = stratumIfaceMethod
		case valued[f]:
			cd.Stratum = stratumMethodValue
		case implementing[f]:
			cd.Stratum = stratumImplMethod
		default:
			cd.Stratum = stratumMethod
		}
		out[cd.Stratum] = append(out[cd.Stratum], cd)
	}
	for _, cs := range out {
		sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	}
	return out
}

// candidate finds where a function's parameters open.
func (t *tree) candidate(c *checked, id *ast.Ident, f *types.Func) (candidate, bool) {
	tf := c.fset.File(id.Pos())
	file := c.files[tf]
	var ft *ast.FuncType
	name := f.Name()
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Name == id {
				ft = n.Type
			}
		case *ast.Field:
			for _, nm := range n.Names {
				if nm == id {
					ft, _ = n.Type.(*ast.FuncType)
				}
			}
		}
		return ft == nil
	})
	if ft == nil || ft.Params == nil || !ft.Params.Opening.IsValid() {
		return candidate{}, false
	}
	if recv := f.Type().(*types.Signature).Recv(); recv != nil {
		rt := recv.Type()
		if p, ok := rt.(*types.Pointer); ok {
			rt = p.Elem()
		}
		if n, ok := types.Unalias(rt).(*types.Named); ok {
			name = n.Obj().Name() + "." + name
		} else {
			// an interface method: its interface is the named type
			// declaring it
			name = ifaceName(c.base, f) + "." + name
		}
	}
	p := c.fset.Position(id.Pos())
	unnamed := len(ft.Params.List) > 0 && len(ft.Params.List[0].Names) == 0
	return candidate{Target: Target{Name: name, Path: t.rel(tf.Name()), Line: p.Line, Col: p.Column},
		obj: f, params: ft.Params.Opening, unnamed: unnamed, file: tf.Name()}, true
}

// ifaceName finds the named interface that declares method m.
func ifaceName(pkg *types.Package, m *types.Func) string {
	for _, name := range pkg.Scope().Names() {
		if tn, ok := pkg.Scope().Lookup(name).(*types.TypeName); ok {
			if it, ok := tn.Type().Underlying().(*types.Interface); ok {
				for i := 0; i < it.NumExplicitMethods(); i++ {
					if it.ExplicitMethod(i) == m {
						return name
					}
				}
			}
		}
	}
	return "?"
}

// pick takes n candidates of each stratum, spread by a seeded shuffle.
func pick(cands map[string][]candidate, n int, seed int64) []candidate {
	r := rand.New(rand.NewSource(seed))
	var out []candidate
	for _, s := range strata {
		cs := append([]candidate(nil), cands[s]...)
		r.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
		if len(cs) > n {
			cs = cs[:n]
		}
		out = append(out, cs...)
	}
	return out
}

// mutate gives the candidate a new first parameter of a fresh type.
func (t *tree) mutate(c *checked, cd candidate) map[string][]byte {
	src := t.src[cd.file]
	off := c.fset.Position(cd.params).Offset + 1
	var b bytes.Buffer
	b.Write(src[:off])
	if !cd.unnamed {
		b.WriteString("_ ")
	}
	b.WriteString("breaktruthFresh")
	rest := src[off:]
	if !bytes.HasPrefix(bytes.TrimLeft(rest, " \t"), []byte(")")) {
		b.WriteString(", ")
	}
	b.Write(rest)
	b.WriteString("\n\ntype breaktruthFresh struct{}\n")
	return map[string][]byte{cd.file: b.Bytes()}
}

// truthOf computes the callers and the breaking declarations of one
// target.
func (t *tree) truthOf(clean *checked, cd candidate) (Target, error) {
	tg := cd.Target
	callers := map[string]bool{}
	self := fmt.Sprintf("%s:%d", cd.Path, cd.Line)
	for _, info := range clean.infos {
		for id, obj := range info.Uses {
			if same(clean.fset, obj, cd.obj) {
				if k := t.declAt(clean, id.Pos()); k != "" && k != self {
					callers[k] = true
				}
			}
		}
	}
	after, err := t.check(t.mutate(clean, cd))
	if err != nil {
		return tg, err
	}
	before := map[string]bool{}
	for _, e := range clean.errors {
		before[t.declAt(clean, e.Pos)+" "+e.Msg] = true
	}
	breaks := map[string]bool{}
	for _, e := range after.errors {
		k := t.declAt(after, e.Pos)
		if k != "" && k != self && !before[k+" "+e.Msg] {
			breaks[k] = true
		}
	}
	tg.Callers, tg.Breaks = keys(callers), keys(breaks)
	return tg, nil
}

// same reports whether obj is the target, also as seen from the package
// with its tests (another check of the same file, at other positions of
// the file set).
func same(fset *token.FileSet, obj types.Object, f *types.Func) bool {
	if obj == f {
		return true
	}
	g, ok := obj.(*types.Func)
	if !ok || g.Name() != f.Name() || g.Pkg() == nil || g.Pkg().Path() != f.Pkg().Path() {
		return false
	}
	a, b := fset.Position(g.Pos()), fset.Position(f.Pos())
	return a.Filename == b.Filename && a.Line == b.Line && a.Column == b.Column
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
