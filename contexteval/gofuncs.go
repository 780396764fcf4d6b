package contexteval

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
)

// GoFuncs finds Go functions and methods with go/parser: "Type.Method" for
// a method, the bare name for a function.
type GoFuncs struct{}

// Pathspecs implements Parser.
func (GoFuncs) Pathspecs() []string { return []string{"*.go"} }

// Funcs implements Parser. A file that does not parse has no functions.
func (GoFuncs) Funcs(_ context.Context, srcs []Source) ([][]Func, error) {
	out := make([][]Func, len(srcs))
	for i, s := range srcs {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, s.Path, s.Text, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			from := fset.Position(fd.Pos()).Line
			if fd.Doc != nil {
				from = fset.Position(fd.Doc.Pos()).Line
			}
			out[i] = append(out[i], Func{Name: goFuncName(fd), From: from, To: fset.Position(fd.End()).Line})
		}
	}
	return out, nil
}

func goFuncName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}
