package syntax

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// This file builds, from go/parser's syntax tree, the flat tree
// tree-sitter-go gives the same source: the same named nodes with the same
// types, fields, ranges and order, comments included where tree-sitter
// puts them (a comment is a child of the innermost node whose tokens
// surround it). go/parser is several times faster than tree-sitter on Go,
// and the walkers read only the flat records, so they need not know which
// parser built them. Where the two grammars part ways in a way this
// converter does not reproduce, it declines and the file goes to
// tree-sitter (see goDecline).

// goDecline is why goFlat left a file to tree-sitter, and where.
type goDecline struct {
	Why string
	At  int // the start of the innermost node being built
}

// goParser converts Go files with goFlat, reusing its records from file
// to file.
type goParser struct {
	syms *goSyms
	recs []flatRec
}

// parse parses src into x.flat: a Go file through goFlat when it
// converts, any other file (and a Go file it declines) with tree-sitter.
// go/parser cannot be stopped midway, so a Go file whose conversion took
// longer than the parse timeout is reported as timed out afterwards, as
// tree-sitter would have.
func (x *Extractor) parse(g *grammar, src []byte) error {
	if g.name == "go" {
		p := &x.goast
		if p.syms == nil {
			p.syms = newGoSyms(g)
		}
		start := time.Now()
		recs, decline := goFlat(p.syms, src, p.recs)
		if time.Since(start) > x.opts.ParseTimeout {
			return errParseTimeout
		}
		if decline.Why == "" {
			p.recs = recs
			x.flat.install(g, recs)
			return nil
		}
	}
	return x.flat.parse(g, src, x.opts.ParseTimeout)
}

// goSyms holds the symbol and field ids of the Go grammar that goFlat
// writes, looked up by name once per grammar.
type goSyms struct {
	sym map[string]uint16
	fld map[string]uint16
	// The converter asks for a few dozen names millions of times: slots
	// indexed by a cheap hash of the name keep the last one met there.
	symSlot [256]goSlot
	fldSlot [64]goSlot
}

type goSlot struct {
	name string
	id   uint16
}

// slotOf hashes a non-empty name into size (a power of two) slots.
func slotOf(name string, size int) int {
	return (len(name)*31 + int(name[0])*7 + int(name[len(name)-1])) & (size - 1)
}

// newGoSyms looks up g's named symbols and fields by name. Aliases share
// a name; any named id with the name reads the same through node.Type.
func newGoSyms(g *grammar) *goSyms {
	s := &goSyms{sym: map[string]uint16{}, fld: map[string]uint16{}}
	for i, name := range g.names {
		if g.ts.SymbolType(sitter.Symbol(i)) != sitter.SymbolTypeRegular {
			continue
		}
		if _, ok := s.sym[name]; !ok {
			s.sym[name] = uint16(i)
		}
	}
	for i, name := range g.fields {
		if i > 0 {
			s.fld[name] = uint16(i)
		}
	}
	return s
}

// goConv is the state of one conversion.
type goConv struct {
	s     *goSyms
	src   []byte
	base  int
	lines []int // byte offset of each line's start
	recs  []flatRec
	open  []uint32 // the nodes being built, innermost last
	last  []uint32 // the last child of each open node
	cmts  []*ast.Comment
	next  int // the first comment not yet placed
	row   int // the row of the last node started
}

// goFlat parses src with go/parser and returns its flat tree in
// tree-sitter-go's shape, reusing buf. It declines (a non-empty reason)
// on a syntax error and on any construct it does not convert exactly.
func goFlat(s *goSyms, src []byte, buf []flatRec) (recs []flatRec, decline goDecline) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, goDecline{Why: "syntax error"}
	}
	c := &goConv{s: s, src: src, base: fset.File(file.Pos()).Base(), recs: buf[:0]}
	c.lines = append(make([]int, 0, len(src)/32+1), 0)
	for i, b := range src {
		if b == '\n' {
			c.lines = append(c.lines, i+1)
		}
	}
	for _, g := range file.Comments {
		c.cmts = append(c.cmts, g.List...)
	}
	defer func() {
		if r := recover(); r != nil {
			d, ok := r.(goDecline)
			if !ok {
				panic(r)
			}
			recs, decline = nil, d
		}
	}()
	c.sourceFile(file)
	return c.recs, goDecline{}
}

func (c *goConv) decline(format string, args ...any) {
	d := goDecline{Why: fmt.Sprintf(format, args...)}
	if k := len(c.open); k > 0 {
		d.At = int(c.recs[c.open[k-1]].startByte)
	}
	panic(d)
}

func (c *goConv) off(p token.Pos) int {
	if !p.IsValid() {
		c.decline("missing position")
	}
	return int(p) - c.base
}

// startPoint returns the row and byte column of offset o, which is not
// before the offset of the previous call: nodes start in order.
func (c *goConv) startPoint(o int) (uint32, uint32) {
	for c.row+1 < len(c.lines) && c.lines[c.row+1] <= o {
		c.row++
	}
	return uint32(c.row), uint32(o - c.lines[c.row])
}

// point returns the row and byte column of offset o, on row from or later.
func (c *goConv) point(o int, from uint32) (uint32, uint32) {
	lo, hi := int(from), len(c.lines)
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if c.lines[m] <= o {
			lo = m
		} else {
			hi = m
		}
	}
	return uint32(lo), uint32(o - c.lines[lo])
}

func (c *goConv) symbol(name string) uint16 {
	return c.id(c.s.symSlot[:], c.s.sym, "symbol", name)
}

func (c *goConv) field(name string) uint16 {
	if name == "" {
		return 0
	}
	return c.id(c.s.fldSlot[:], c.s.fld, "field", name)
}

// id looks name up in ids through slots, the slot of its hash keeping the
// last name met there; a name the grammar lacks declines the file.
func (c *goConv) id(slots []goSlot, ids map[string]uint16, what, name string) uint16 {
	slot := &slots[slotOf(name, len(slots))]
	if slot.name == name {
		return slot.id
	}
	id, ok := ids[name]
	if !ok {
		c.decline("no %s %s", what, name)
	}
	*slot = goSlot{name, id}
	return id
}

// add appends a node under the innermost open node.
func (c *goConv) add(typ, field string, start int) uint32 {
	i := uint32(len(c.recs))
	r := flatRec{startByte: uint32(start), parent: noNode, firstChild: noNode, nextSibling: noNode,
		symbol: c.symbol(typ), field: c.field(field), named: 1}
	r.startRow, r.startCol = c.startPoint(start)
	if k := len(c.open); k > 0 {
		r.parent = c.open[k-1]
		if l := c.last[k-1]; l != noNode {
			c.recs[l].nextSibling = i
		} else {
			c.recs[r.parent].firstChild = i
		}
		c.last[k-1] = i
	}
	c.recs = append(c.recs, r)
	return i
}

// comments places the comments that start before offset o under the
// innermost open node.
func (c *goConv) comments(o int) {
	for c.next < len(c.cmts) {
		cm := c.cmts[c.next]
		s := c.off(cm.Slash)
		if s >= o {
			return
		}
		c.next++
		c.leaf("comment", "", s, c.commentEnd(s))
	}
}

// commentEnd returns the end of the comment at offset s in the source.
// (ast.Comment.Text has carriage returns removed.) A line comment ends
// before its newline, as tree-sitter-go's "//.*" does.
func (c *goConv) commentEnd(s int) int {
	if c.src[s+1] == '/' {
		if k := bytes.IndexByte(c.src[s:], '\n'); k >= 0 {
			return s + k
		}
		return len(c.src)
	}
	k := bytes.Index(c.src[s+2:], []byte("*/"))
	if k < 0 {
		c.decline("unterminated comment")
	}
	return s + 2 + k + 2
}

// begin opens a node starting at offset start.
func (c *goConv) begin(typ, field string, start int) {
	c.comments(start)
	i := c.add(typ, field, start)
	c.open = append(c.open, i)
	c.last = append(c.last, noNode)
}

// end closes the innermost open node at offset end.
func (c *goConv) end(end int) {
	c.comments(end)
	k := len(c.open) - 1
	r := &c.recs[c.open[k]]
	r.endByte = uint32(end)
	r.endRow, r.endCol = c.point(end, r.startRow)
	c.open, c.last = c.open[:k], c.last[:k]
}

// leaf adds a node without children.
func (c *goConv) leaf(typ, field string, start, end int) {
	if typ != "comment" {
		c.comments(start)
	}
	i := c.add(typ, field, start)
	r := &c.recs[i]
	r.endByte = uint32(end)
	r.endRow, r.endCol = c.point(end, r.startRow)
}

func (c *goConv) sourceFile(f *ast.File) {
	start := c.off(f.Package)
	if len(c.cmts) > 0 {
		start = min(start, c.off(c.cmts[0].Slash))
	}
	c.begin("source_file", "", start)
	c.begin("package_clause", "", c.off(f.Package))
	c.leaf("package_identifier", "", c.off(f.Name.Pos()), c.off(f.Name.End()))
	c.end(c.off(f.Name.End()))
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			c.genDecl(d)
		case *ast.FuncDecl:
			c.funcDecl(d)
		default:
			c.decline("declaration %T", d)
		}
	}
	c.end(len(c.src))
}

func (c *goConv) genDecl(d *ast.GenDecl) {
	start, end := c.off(d.TokPos), c.off(d.End())
	switch d.Tok {
	case token.IMPORT:
		c.begin("import_declaration", "", start)
		if d.Lparen.IsValid() {
			c.begin("import_spec_list", "", c.off(d.Lparen))
		}
		for _, s := range d.Specs {
			c.importSpec(s.(*ast.ImportSpec))
		}
		if d.Lparen.IsValid() {
			c.end(end)
		}
	case token.CONST:
		c.begin("const_declaration", "", start)
		for _, s := range d.Specs {
			c.valueSpec("const_spec", s.(*ast.ValueSpec))
		}
	case token.VAR:
		c.begin("var_declaration", "", start)
		if d.Lparen.IsValid() {
			c.begin("var_spec_list", "", c.off(d.Lparen))
		}
		for _, s := range d.Specs {
			c.valueSpec("var_spec", s.(*ast.ValueSpec))
		}
		if d.Lparen.IsValid() {
			c.end(end)
		}
	case token.TYPE:
		c.begin("type_declaration", "", start)
		for _, s := range d.Specs {
			c.typeSpec(s.(*ast.TypeSpec))
		}
	default:
		c.decline("declaration %s", d.Tok)
	}
	c.end(end)
}

func (c *goConv) importSpec(s *ast.ImportSpec) {
	start := c.off(s.Path.Pos())
	if s.Name != nil {
		start = c.off(s.Name.Pos())
	}
	c.begin("import_spec", "", start)
	if n := s.Name; n != nil {
		typ := "package_identifier"
		switch n.Name {
		case ".":
			typ = "dot"
		case "_":
			typ = "blank_identifier"
		}
		c.leaf(typ, "name", c.off(n.Pos()), c.off(n.End()))
	}
	c.basicLit(s.Path, "path")
	c.end(c.off(s.Path.End()))
}

func (c *goConv) valueSpec(typ string, s *ast.ValueSpec) {
	c.begin(typ, "", c.off(s.Pos()))
	for _, n := range s.Names {
		c.leaf("identifier", "name", c.off(n.Pos()), c.off(n.End()))
	}
	if s.Type != nil {
		c.typ(s.Type, "type")
	}
	if len(s.Values) > 0 {
		c.exprList(s.Values, "value")
	}
	c.end(c.off(s.End()))
}

func (c *goConv) typeSpec(s *ast.TypeSpec) {
	typ := "type_spec"
	if s.Assign.IsValid() {
		typ = "type_alias"
		if s.TypeParams != nil {
			c.decline("generic type alias")
		}
	}
	c.begin(typ, "", c.off(s.Pos()))
	c.leaf("type_identifier", "name", c.off(s.Name.Pos()), c.off(s.Name.End()))
	if s.TypeParams != nil {
		c.typeParams(s.TypeParams)
	}
	c.typ(s.Type, "type")
	c.end(c.off(s.End()))
}

func (c *goConv) typeParams(l *ast.FieldList) {
	c.begin("type_parameter_list", "type_parameters", c.off(l.Opening))
	for _, f := range l.List {
		c.begin("type_parameter_declaration", "", c.off(f.Pos()))
		for _, n := range f.Names {
			c.leaf("identifier", "name", c.off(n.Pos()), c.off(n.End()))
		}
		c.typeElem("type_constraint", "type", f.Type)
		c.end(c.off(f.End()))
	}
	c.end(c.off(l.Closing) + 1)
}

// typeElem writes a union of types (a constraint or a type argument).
func (c *goConv) typeElem(typ, field string, e ast.Expr) {
	c.begin(typ, field, c.off(e.Pos()))
	c.union(e)
	c.end(c.off(e.End()))
}

func (c *goConv) union(e ast.Expr) {
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.OR {
		c.union(b.X)
		c.union(b.Y)
		return
	}
	c.typ(e, "")
}

func (c *goConv) funcDecl(d *ast.FuncDecl) {
	typ := "function_declaration"
	if d.Recv != nil {
		typ = "method_declaration"
	}
	c.begin(typ, "", c.off(d.Type.Func))
	if d.Recv != nil {
		c.params(d.Recv, "receiver")
		c.leaf("field_identifier", "name", c.off(d.Name.Pos()), c.off(d.Name.End()))
	} else {
		c.leaf("identifier", "name", c.off(d.Name.Pos()), c.off(d.Name.End()))
		if d.Type.TypeParams != nil {
			c.typeParams(d.Type.TypeParams)
		}
	}
	c.signature(d.Type)
	end := c.off(d.Type.End())
	if d.Body != nil {
		c.block(d.Body, "body")
		end = c.off(d.Body.End())
	}
	c.end(end)
}

// signature writes a function's parameters and result.
func (c *goConv) signature(t *ast.FuncType) {
	c.params(t.Params, "parameters")
	if r := t.Results; r != nil {
		if !r.Opening.IsValid() && len(r.List) == 1 && len(r.List[0].Names) == 0 {
			c.typ(r.List[0].Type, "result")
		} else {
			c.params(r, "result")
		}
	}
}

func (c *goConv) params(l *ast.FieldList, field string) {
	if !l.Opening.IsValid() || !l.Closing.IsValid() {
		c.decline("parameter list without parentheses")
	}
	c.begin("parameter_list", field, c.off(l.Opening))
	for i, f := range l.List {
		if len(f.Names) >= 10 {
			c.decline("parameter declaration with %d names", len(f.Names))
		}
		switch f.Type.(type) {
		case *ast.MapType, *ast.FuncType:
			if i > 0 && len(f.Names) == 0 && len(l.List[i-1].Names) == 0 {
				if _, ok := l.List[i-1].Type.(*ast.Ident); ok {
					c.decline("map or func type after an unnamed parameter")
				}
			}
		}
		if e, ok := f.Type.(*ast.Ellipsis); ok {
			if len(f.Names) > 1 || e.Elt == nil {
				c.decline("variadic parameter")
			}
			c.begin("variadic_parameter_declaration", "", c.off(f.Pos()))
			for _, n := range f.Names {
				c.leaf("identifier", "name", c.off(n.Pos()), c.off(n.End()))
			}
			c.typ(e.Elt, "type")
			c.end(c.off(f.End()))
			continue
		}
		c.begin("parameter_declaration", "", c.off(f.Pos()))
		for _, n := range f.Names {
			c.leaf("identifier", "name", c.off(n.Pos()), c.off(n.End()))
		}
		c.typ(f.Type, "type")
		c.end(c.off(f.End()))
	}
	c.end(c.off(l.Closing) + 1)
}

func (c *goConv) block(b *ast.BlockStmt, field string) {
	c.begin("block", field, c.off(b.Lbrace))
	c.stmts(b.List)
	c.end(c.off(b.Rbrace) + 1)
}

func (c *goConv) stmts(l []ast.Stmt) {
	for i, s := range l {
		if i > 0 && explicitEmpty(s) && explicitEmpty(l[i-1]) {
			// tree-sitter-go takes a semicolon after an empty statement
			// as its terminator; go/parser as another empty statement.
			c.decline("consecutive empty statements")
		}
		if b, ok := s.(*ast.BlockStmt); ok && i > 0 && c.mayTakeBlock(l[i-1], b) {
			// tree-sitter-go does not insert semicolons: x.T\n{} is a
			// composite literal to it.
			c.decline("block after a statement ending in a name")
		}
		c.stmt(s, "")
	}
}

// mayTakeBlock reports whether tree-sitter-go may read block b, which
// follows statement prev with no semicolon between them, as the body of a
// composite literal: whether prev ends in something that parses as a type.
func (c *goConv) mayTakeBlock(prev ast.Stmt, b *ast.BlockStmt) bool {
	if c.skipSpace(c.off(prev.End())) != c.off(b.Lbrace) {
		return false // a semicolon between them
	}
	var tail ast.Expr
	switch s := prev.(type) {
	case *ast.ExprStmt:
		tail = s.X
	case *ast.AssignStmt:
		tail = s.Rhs[len(s.Rhs)-1]
	case *ast.SendStmt:
		tail = s.Value
	case *ast.ReturnStmt:
		if len(s.Results) > 0 {
			tail = s.Results[len(s.Results)-1]
		}
	case *ast.DeclStmt:
		d, ok := s.Decl.(*ast.GenDecl)
		if !ok || d.Rparen.IsValid() || len(d.Specs) == 0 {
			return false
		}
		// A type in a declaration is never an operand.
		if sp, ok := d.Specs[len(d.Specs)-1].(*ast.ValueSpec); ok && len(sp.Values) > 0 {
			tail = sp.Values[len(sp.Values)-1]
		}
	case *ast.LabeledStmt:
		return c.mayTakeBlock(s.Stmt, b)
	}
	return tail != nil && endsInType(tail)
}

// endsInType reports whether the last operand of e may parse as a type.
func endsInType(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		return endsInType(e.Y)
	case *ast.UnaryExpr:
		return endsInType(e.X)
	case *ast.StarExpr:
		return endsInType(e.X)
	case *ast.KeyValueExpr:
		return endsInType(e.Value)
	case *ast.Ident, *ast.SelectorExpr:
		return typeName(e)
	case *ast.IndexExpr, *ast.IndexListExpr:
		return true
	}
	return typeOnly(e)
}

func explicitEmpty(s ast.Stmt) bool {
	e, ok := s.(*ast.EmptyStmt)
	return ok && !e.Implicit
}

// afterTerminator returns the end of the statement list that ends with s
// in a case clause: a newline or semicolon after s belongs to it, unless
// s is a label with no statement (the grammar's empty_labeled_statement,
// which only ends a list).
func (c *goConv) afterTerminator(s ast.Stmt) int {
	o := c.stmtEnd(s)
	if l, ok := s.(*ast.LabeledStmt); ok {
		if e, ok := l.Stmt.(*ast.EmptyStmt); ok && e.Implicit {
			return o
		}
	}
	for o < len(c.src) {
		switch c.src[o] {
		case ' ', '\t', '\r':
			o++
			continue
		case ';':
			return o + 1
		case '\n':
			// tree-sitter-go lexes a run of newlines as one terminator.
			for o < len(c.src) && c.src[o] == '\n' {
				o++
			}
			return o
		case '/':
			if end, ok := c.commentAt(o); ok {
				o = end
				continue
			}
		}
		break
	}
	return c.stmtEnd(s)
}

// stmtEnd is the end of statement s as tree-sitter sees it.
func (c *goConv) stmtEnd(s ast.Stmt) int {
	if l, ok := s.(*ast.LabeledStmt); ok {
		if e, ok := l.Stmt.(*ast.EmptyStmt); ok && e.Implicit {
			return c.off(l.Colon) + 1
		}
	}
	return c.off(s.End())
}

func (c *goConv) stmt(s ast.Stmt, field string) {
	switch s := s.(type) {
	case *ast.DeclStmt:
		if field != "" {
			c.decline("declaration as %s", field)
		}
		c.genDecl(s.Decl.(*ast.GenDecl))
	case *ast.EmptyStmt:
		if s.Implicit {
			return
		}
		c.leaf("empty_statement", field, c.off(s.Semicolon), c.off(s.Semicolon)+1)
	case *ast.ExprStmt:
		c.begin("expression_statement", field, c.off(s.Pos()))
		c.expr(s.X, "")
		c.end(c.off(s.End()))
	case *ast.SendStmt:
		c.begin("send_statement", field, c.off(s.Pos()))
		c.expr(s.Chan, "channel")
		c.expr(s.Value, "value")
		c.end(c.off(s.End()))
	case *ast.IncDecStmt:
		typ := "inc_statement"
		if s.Tok == token.DEC {
			typ = "dec_statement"
		}
		c.begin(typ, field, c.off(s.Pos()))
		c.expr(s.X, "")
		c.end(c.off(s.End()))
	case *ast.AssignStmt:
		typ := "assignment_statement"
		if s.Tok == token.DEFINE {
			typ = "short_var_declaration"
		}
		c.begin(typ, field, c.off(s.Pos()))
		c.exprList(s.Lhs, "left")
		c.exprList(s.Rhs, "right")
		c.end(c.off(s.End()))
	case *ast.LabeledStmt:
		c.begin("labeled_statement", field, c.off(s.Pos()))
		c.leaf("label_name", "label", c.off(s.Label.Pos()), c.off(s.Label.End()))
		if e, ok := s.Stmt.(*ast.EmptyStmt); ok && e.Implicit {
			c.end(c.off(s.Colon) + 1)
			return
		}
		c.stmt(s.Stmt, "")
		c.end(c.off(s.End()))
	case *ast.GoStmt:
		c.begin("go_statement", field, c.off(s.Pos()))
		c.expr(s.Call, "")
		c.end(c.off(s.End()))
	case *ast.DeferStmt:
		c.begin("defer_statement", field, c.off(s.Pos()))
		c.expr(s.Call, "")
		c.end(c.off(s.End()))
	case *ast.ReturnStmt:
		c.begin("return_statement", field, c.off(s.Pos()))
		if len(s.Results) > 0 {
			c.exprList(s.Results, "")
		}
		c.end(c.off(s.End()))
	case *ast.BranchStmt:
		var typ string
		switch s.Tok {
		case token.BREAK:
			typ = "break_statement"
		case token.CONTINUE:
			typ = "continue_statement"
		case token.GOTO:
			typ = "goto_statement"
		case token.FALLTHROUGH:
			typ = "fallthrough_statement"
		default:
			c.decline("branch %s", s.Tok)
		}
		c.begin(typ, field, c.off(s.Pos()))
		if s.Label != nil {
			c.leaf("label_name", "", c.off(s.Label.Pos()), c.off(s.Label.End()))
		}
		c.end(c.off(s.End()))
	case *ast.BlockStmt:
		c.block(s, field)
	case *ast.IfStmt:
		c.begin("if_statement", field, c.off(s.Pos()))
		if s.Init != nil {
			c.stmt(s.Init, "initializer")
		}
		c.expr(s.Cond, "condition")
		c.block(s.Body, "consequence")
		if s.Else != nil {
			c.stmt(s.Else, "alternative")
		}
		c.end(c.off(s.End()))
	case *ast.ForStmt:
		c.forStmt(s, field)
	case *ast.RangeStmt:
		c.begin("for_statement", field, c.off(s.Pos()))
		start := c.off(s.Range)
		if s.Key != nil {
			start = c.off(s.Key.Pos())
		}
		c.begin("range_clause", "", start)
		if s.Key != nil {
			l := []ast.Expr{s.Key}
			if s.Value != nil {
				l = append(l, s.Value)
			}
			c.exprList(l, "left")
		}
		c.expr(s.X, "right")
		c.end(c.off(s.X.End()))
		c.block(s.Body, "body")
		c.end(c.off(s.End()))
	case *ast.SwitchStmt:
		c.begin("expression_switch_statement", field, c.off(s.Pos()))
		if s.Init != nil {
			c.stmt(s.Init, "initializer")
		}
		if s.Tag != nil {
			c.expr(s.Tag, "value")
		}
		for _, cl := range s.Body.List {
			cl := cl.(*ast.CaseClause)
			if cl.List == nil {
				c.caseClause("default_case", cl.Case, cl.Colon, cl.Body, func() {})
				continue
			}
			c.caseClause("expression_case", cl.Case, cl.Colon, cl.Body, func() { c.exprList(cl.List, "value") })
		}
		c.end(c.off(s.End()))
	case *ast.TypeSwitchStmt:
		c.begin("type_switch_statement", field, c.off(s.Pos()))
		if s.Init != nil {
			c.stmt(s.Init, "initializer")
		}
		var x ast.Expr
		switch a := s.Assign.(type) {
		case *ast.AssignStmt:
			if len(a.Lhs) != 1 || len(a.Rhs) != 1 || a.Tok != token.DEFINE {
				c.decline("type switch guard")
			}
			c.exprList(a.Lhs, "alias")
			x = a.Rhs[0]
		case *ast.ExprStmt:
			x = a.X
		}
		ta, ok := x.(*ast.TypeAssertExpr)
		if !ok || ta.Type != nil {
			c.decline("type switch guard")
		}
		c.expr(ta.X, "value")
		for _, cl := range s.Body.List {
			cl := cl.(*ast.CaseClause)
			if cl.List == nil {
				c.caseClause("default_case", cl.Case, cl.Colon, cl.Body, func() {})
				continue
			}
			c.caseClause("type_case", cl.Case, cl.Colon, cl.Body, func() {
				for _, t := range cl.List {
					c.typ(t, "type")
				}
			})
		}
		c.end(c.off(s.End()))
	case *ast.SelectStmt:
		c.begin("select_statement", field, c.off(s.Pos()))
		for _, cl := range s.Body.List {
			cl := cl.(*ast.CommClause)
			if cl.Comm == nil {
				c.caseClause("default_case", cl.Case, cl.Colon, cl.Body, func() {})
				continue
			}
			c.caseClause("communication_case", cl.Case, cl.Colon, cl.Body, func() { c.comm(cl.Comm) })
		}
		c.end(c.off(s.End()))
	default:
		c.decline("statement %T", s)
	}
}

func (c *goConv) caseClause(typ string, kw, colon token.Pos, body []ast.Stmt, head func()) {
	c.begin(typ, "", c.off(kw))
	head()
	end := c.off(colon) + 1
	var last ast.Stmt
	for _, s := range body {
		if e, ok := s.(*ast.EmptyStmt); ok && e.Implicit {
			continue
		}
		last = s
	}
	c.stmts(body)
	if last != nil {
		end = c.afterTerminator(last)
	}
	c.end(end)
}

func (c *goConv) comm(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.SendStmt:
		c.stmt(s, "communication")
	case *ast.ExprStmt:
		c.begin("receive_statement", "communication", c.off(s.Pos()))
		c.expr(s.X, "right")
		c.end(c.off(s.End()))
	case *ast.AssignStmt:
		if len(s.Rhs) != 1 {
			c.decline("receive statement")
		}
		c.begin("receive_statement", "communication", c.off(s.Pos()))
		c.exprList(s.Lhs, "left")
		c.expr(s.Rhs[0], "right")
		c.end(c.off(s.End()))
	default:
		c.decline("communication %T", s)
	}
}

// forStmt writes a three-clause or condition-only for statement. go/ast
// does not keep the semicolons, so they are found in the source.
func (c *goConv) forStmt(s *ast.ForStmt, field string) {
	c.begin("for_statement", field, c.off(s.Pos()))
	head := c.off(s.For) + len("for")
	body := c.off(s.Body.Lbrace)
	if s.Init == nil && s.Post == nil && s.Cond != nil && c.skipSpace(head) == c.off(s.Cond.Pos()) {
		c.expr(s.Cond, "")
	} else if s.Init != nil || s.Post != nil || s.Cond != nil || c.skipSpace(head) != body {
		first := c.skipSpace(head)
		c.begin("for_clause", "", first)
		o := head
		if s.Init != nil {
			c.stmt(s.Init, "initializer")
			o = c.off(s.Init.End())
		}
		semi1 := c.semicolon(o)
		o = semi1 + 1
		if s.Cond != nil {
			c.expr(s.Cond, "condition")
			o = c.off(s.Cond.End())
		}
		semi2 := c.semicolon(o)
		end := semi2 + 1
		if s.Post != nil {
			c.stmt(s.Post, "update")
			end = c.off(s.Post.End())
		}
		c.end(end)
	}
	c.block(s.Body, "body")
	c.end(c.off(s.End()))
}

// commentAt returns the end of the comment starting at o, if one does: the
// newline ending a line comment (not included), or just after a block
// comment's "*/".
func (c *goConv) commentAt(o int) (int, bool) {
	if o+1 >= len(c.src) || c.src[o] != '/' {
		return o, false
	}
	switch c.src[o+1] {
	case '/':
		if k := bytes.IndexByte(c.src[o:], '\n'); k >= 0 {
			return o + k, true
		}
		return len(c.src), true
	case '*':
		k := bytes.Index(c.src[o+2:], []byte("*/"))
		if k < 0 {
			c.decline("unterminated comment")
		}
		return o + k + 4, true
	}
	return o, false
}

// skipSpace returns the first offset at or after o that is neither white
// space nor in a comment.
func (c *goConv) skipSpace(o int) int {
	for o < len(c.src) {
		switch c.src[o] {
		case ' ', '\t', '\r', '\n':
			o++
			continue
		case '/':
			if end, ok := c.commentAt(o); ok {
				o = end
				continue
			}
		}
		return o
	}
	return o
}

// semicolon returns the offset of the semicolon that is the next token at
// or after o.
func (c *goConv) semicolon(o int) int {
	o = c.skipSpace(o)
	if o >= len(c.src) || c.src[o] != ';' {
		c.decline("for clause without semicolon")
	}
	return o
}

func (c *goConv) exprList(l []ast.Expr, field string) {
	c.begin("expression_list", field, c.off(l[0].Pos()))
	for _, e := range l {
		c.expr(e, "")
	}
	c.end(c.off(l[len(l)-1].End()))
}

// goKeywordIdent reports whether tree-sitter-go parses the identifier
// name as a node of its own (nil, true, false, iota) in expressions.
func goKeywordIdent(name string) bool {
	switch name {
	case "nil", "true", "false", "iota":
		return true
	}
	return false
}

func (c *goConv) expr(e ast.Expr, field string) {
	switch e := e.(type) {
	case *ast.Ident:
		typ := "identifier"
		if goKeywordIdent(e.Name) {
			typ = e.Name
		}
		c.leaf(typ, field, c.off(e.Pos()), c.off(e.End()))
	case *ast.BasicLit:
		c.basicLit(e, field)
	case *ast.CompositeLit:
		c.compositeLit(e, field)
	case *ast.FuncLit:
		c.begin("func_literal", field, c.off(e.Pos()))
		c.signature(e.Type)
		c.block(e.Body, "body")
		c.end(c.off(e.End()))
	case *ast.ParenExpr:
		c.begin("parenthesized_expression", field, c.off(e.Pos()))
		c.expr(e.X, "")
		c.end(c.off(e.End()))
	case *ast.SelectorExpr:
		c.begin("selector_expression", field, c.off(e.Pos()))
		c.expr(e.X, "operand")
		c.leaf("field_identifier", "field", c.off(e.Sel.Pos()), c.off(e.Sel.End()))
		c.end(c.off(e.End()))
	case *ast.IndexExpr:
		// tree-sitter-go prefers a reading with generic types where one
		// parses: a[b][c] and a[b[c]] are instantiations, a[b] an index.
		switch {
		case genericable(e.X) && typeArgLike(e.Index), typeName(e.X) && genericArg(e.Index):
			c.begin("type_instantiation_expression", field, c.off(e.Pos()))
			c.typ(e.X, "type")
			c.typ(e.Index, "")
			c.end(c.off(e.End()))
			return
		case !exprOnly(e.X) && !exprOnly(e.Index) && (indexLike(e.X) || indexLike(e.Index)):
			c.decline("nested index of types")
		}
		c.begin("index_expression", field, c.off(e.Pos()))
		c.expr(e.X, "operand")
		c.expr(e.Index, "index")
		c.end(c.off(e.End()))
	case *ast.IndexListExpr:
		c.begin("type_instantiation_expression", field, c.off(e.Pos()))
		c.typ(e.X, "type")
		for _, t := range e.Indices {
			c.typ(t, "")
		}
		c.end(c.off(e.End()))
	case *ast.SliceExpr:
		c.begin("slice_expression", field, c.off(e.Pos()))
		c.expr(e.X, "operand")
		if e.Low != nil {
			c.expr(e.Low, "start")
		}
		if e.High != nil {
			c.expr(e.High, "end")
		}
		if e.Max != nil {
			c.expr(e.Max, "capacity")
		}
		c.end(c.off(e.End()))
	case *ast.TypeAssertExpr:
		if e.Type == nil {
			c.decline("type switch guard outside a switch")
		}
		c.begin("type_assertion_expression", field, c.off(e.Pos()))
		c.expr(e.X, "operand")
		c.typ(e.Type, "type")
		c.end(c.off(e.End()))
	case *ast.CallExpr:
		c.call(e, field)
	case *ast.StarExpr:
		if call, ok := e.X.(*ast.CallExpr); ok && typeOnly(call.Fun) {
			// *(*T)(x) converts x to the type *(*T).
			if len(call.Args) != 1 || call.Ellipsis.IsValid() {
				c.decline("conversion with %d arguments", len(call.Args))
			}
			c.begin("type_conversion_expression", field, c.off(e.Pos()))
			c.begin("pointer_type", "type", c.off(e.Pos()))
			c.typ(call.Fun, "")
			c.end(c.off(call.Fun.End()))
			c.expr(call.Args[0], "operand")
			c.end(c.off(e.End()))
			return
		}
		c.begin("unary_expression", field, c.off(e.Pos()))
		c.expr(e.X, "operand")
		c.end(c.off(e.End()))
	case *ast.UnaryExpr:
		if e.Op == token.TILDE {
			c.decline("~ in an expression")
		}
		c.begin("unary_expression", field, c.off(e.Pos()))
		c.expr(e.X, "operand")
		c.end(c.off(e.End()))
	case *ast.BinaryExpr:
		c.begin("binary_expression", field, c.off(e.Pos()))
		c.expr(e.X, "left")
		c.expr(e.Y, "right")
		c.end(c.off(e.End()))
	default:
		c.decline("expression %T", e)
	}
}

func (c *goConv) basicLit(l *ast.BasicLit, field string) {
	start := c.off(l.Pos())
	end := start + len(l.Value)
	switch l.Kind {
	case token.INT:
		c.leaf("int_literal", field, start, end)
	case token.FLOAT:
		c.leaf("float_literal", field, start, end)
	case token.IMAG:
		c.leaf("imaginary_literal", field, start, end)
	case token.CHAR:
		c.leaf("rune_literal", field, start, end)
	case token.STRING:
		if l.Value[0] == '`' {
			if k := bytes.IndexByte(c.src[start+1:], '`'); k < 0 || start+1+k+1 != end {
				// go/scanner drops carriage returns from raw strings, so
				// go/ast's ranges after this one are short.
				c.decline("raw string with carriage returns")
			}
			c.leaf("raw_string_literal", field, start, end)
			return
		}
		c.begin("interpreted_string_literal", field, start)
		v := l.Value
		for i := 1; i < len(v)-1; i++ {
			if v[i] != '\\' {
				continue
			}
			n := escapeLen(v[i:])
			if n == 0 {
				c.decline("escape sequence")
			}
			c.leaf("escape_sequence", "", start+i, start+i+n)
			i += n - 1
		}
		c.end(end)
	default:
		c.decline("literal %s", l.Kind)
	}
}

// escapeLen returns the length of the escape sequence at the start of s
// as tree-sitter-go's escape_sequence token matches it (the longest of
// its alternatives), or 0.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	count := func(from int, ok func(byte) bool, max int) int {
		n := 0
		for from+n < len(s) && n < max && ok(s[from+n]) {
			n++
		}
		return n
	}
	isHex := func(b byte) bool {
		return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
	}
	isDigit := func(b byte) bool { return '0' <= b && b <= '9' }
	switch b := s[1]; {
	case b == 'x':
		if count(2, isHex, 2) == 2 {
			return 4
		}
		return 0
	case b == 'u':
		if count(2, isHex, 4) == 4 {
			return 6
		}
		return 0
	case b == 'U':
		if count(2, isHex, 8) == 8 {
			return 10
		}
		return 0
	case isDigit(b):
		if n := count(1, isDigit, 3); n >= 2 {
			return 1 + n
		}
		return 2
	case b < 0x80:
		return 2
	}
	return 0 // a multi-byte character after the backslash
}

func (c *goConv) compositeLit(l *ast.CompositeLit, field string) {
	if l.Type == nil {
		c.literalValue(l, field)
		return
	}
	c.begin("composite_literal", field, c.off(l.Pos()))
	switch t := l.Type.(type) {
	case *ast.ArrayType, *ast.MapType, *ast.StructType, *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
		c.typ(t, "type")
	default:
		c.decline("composite literal of %T", t)
	}
	c.literalValue(l, "body")
	c.end(c.off(l.End()))
}

func (c *goConv) literalValue(l *ast.CompositeLit, field string) {
	c.begin("literal_value", field, c.off(l.Lbrace))
	for _, e := range l.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			c.begin("keyed_element", "", c.off(kv.Pos()))
			c.literalElement(kv.Key)
			c.literalElement(kv.Value)
			c.end(c.off(kv.End()))
			continue
		}
		c.literalElement(e)
	}
	c.end(c.off(l.Rbrace) + 1)
}

func (c *goConv) literalElement(e ast.Expr) {
	c.begin("literal_element", "", c.off(e.Pos()))
	if l, ok := e.(*ast.CompositeLit); ok && l.Type == nil {
		c.literalValue(l, "")
	} else {
		c.expr(e, "")
	}
	c.end(c.off(e.End()))
}

// typeOnly reports whether e can only be a type (never an expression) in
// tree-sitter-go's grammar.
func typeOnly(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType:
		return true
	case *ast.StarExpr:
		return typeOnly(e.X)
	case *ast.ParenExpr:
		if s, ok := e.X.(*ast.StarExpr); ok && pointsToGeneric(s) || genericable(e.X) {
			return true // (G[T]) and (*G[T]) read as parenthesized types
		}
		return typeOnly(e.X)
	}
	return false
}

// pointsToGeneric reports whether e is *G[T], **G[T], ...
func pointsToGeneric(e *ast.StarExpr) bool {
	switch x := e.X.(type) {
	case *ast.StarExpr:
		return pointsToGeneric(x)
	default:
		return genericable(x)
	}
}

// typeName reports whether e is a type name that tree-sitter-go may read
// as a generic type's base: T or pkg.T.
func typeName(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return !goKeywordIdent(e.Name)
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && !goKeywordIdent(x.Name)
	}
	return false
}

// typeLike reports whether e parses as a type argument: a type name or a
// type-only expression.
func typeLike(e ast.Expr) bool {
	return typeName(e) || typeOnly(e)
}

// genericable reports whether e parses as a generic type: T[A] or
// pkg.T[A, B] with type-like arguments.
func genericable(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.IndexExpr:
		return typeName(e.X) && typeArgLike(e.Index)
	case *ast.IndexListExpr:
		if !typeName(e.X) {
			return false
		}
		for _, a := range e.Indices {
			if !typeArgLike(a) {
				return false
			}
		}
		return true
	}
	return false
}

// typeArgLike reports whether e parses as a type argument.
func typeArgLike(e ast.Expr) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		return typeArgLike(s.X)
	}
	return typeLike(e) || genericable(e)
}

// genericArg reports whether e, as a type argument, holds a generic type,
// which tree-sitter-go prefers to an expression reading.
func genericArg(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.StarExpr:
		return pointsToGeneric(e)
	}
	return genericable(e)
}

// indexLike reports whether e is an index or instantiation.
func indexLike(e ast.Expr) bool {
	switch e.(type) {
	case *ast.IndexExpr, *ast.IndexListExpr:
		return true
	}
	return false
}

// exprOnly reports whether e can only be an expression.
func exprOnly(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit, *ast.CompositeLit, *ast.FuncLit, *ast.CallExpr, *ast.BinaryExpr, *ast.UnaryExpr,
		*ast.SliceExpr, *ast.TypeAssertExpr:
		return true
	case *ast.Ident:
		return goKeywordIdent(e.Name)
	case *ast.ParenExpr:
		return exprOnly(e.X)
	case *ast.SelectorExpr:
		_, ok := e.X.(*ast.Ident)
		return !ok
	case *ast.IndexExpr:
		return exprOnly(e.X) || exprOnly(e.Index)
	}
	return false
}

func (c *goConv) call(e *ast.CallExpr, field string) {
	fun := e.Fun
	conversion := func(typ func()) {
		if len(e.Args) != 1 || e.Ellipsis.IsValid() {
			c.decline("conversion with %d arguments", len(e.Args))
		}
		c.begin("type_conversion_expression", field, c.off(e.Pos()))
		typ()
		c.expr(e.Args[0], "operand")
		c.end(c.off(e.End()))
	}
	switch f := fun.(type) {
	case *ast.Ident:
		if f.Name == "new" || f.Name == "make" {
			if len(e.Args) == 0 || e.Ellipsis.IsValid() || !typeArgLike(e.Args[0]) {
				c.decline("%s without a type", f.Name)
			}
			c.begin("call_expression", field, c.off(e.Pos()))
			c.leaf("identifier", "function", c.off(f.Pos()), c.off(f.End()))
			c.begin("argument_list", "arguments", c.off(e.Lparen))
			c.typ(e.Args[0], "")
			for _, a := range e.Args[1:] {
				c.expr(a, "")
			}
			c.end(c.off(e.Rparen) + 1)
			c.end(c.off(e.End()))
			return
		}
	case *ast.IndexExpr:
		if typeArgLike(f.Index) {
			c.instantiatedCall(e, f.X, []ast.Expr{f.Index}, f.Lbrack, f.Rbrack, field)
			return
		}
		if !exprOnly(f.Index) {
			c.decline("call of an index")
		}
	case *ast.IndexListExpr:
		for _, t := range f.Indices {
			if !typeArgLike(t) {
				c.decline("call of an instantiation")
			}
		}
		c.instantiatedCall(e, f.X, f.Indices, f.Lbrack, f.Rbrack, field)
		return
	default:
		if typeOnly(fun) {
			conversion(func() { c.typ(fun, "type") })
			return
		}
	}
	c.begin("call_expression", field, c.off(e.Pos()))
	c.expr(fun, "function")
	c.arguments(e)
	c.end(c.off(e.End()))
}

// instantiatedCall writes x[args](...): a conversion to a generic type
// when it can be one, else a call with type arguments.
func (c *goConv) instantiatedCall(e *ast.CallExpr, x ast.Expr, args []ast.Expr, lbrack, rbrack token.Pos, field string) {
	if typeName(x) && len(e.Args) == 1 && !e.Ellipsis.IsValid() {
		c.begin("type_conversion_expression", field, c.off(e.Pos()))
		c.genericType(x, args, lbrack, rbrack, "type")
		c.expr(e.Args[0], "operand")
		c.end(c.off(e.End()))
		return
	}
	c.begin("call_expression", field, c.off(e.Pos()))
	c.expr(x, "function")
	c.typeArguments(args, lbrack, rbrack)
	c.arguments(e)
	c.end(c.off(e.End()))
}

func (c *goConv) arguments(e *ast.CallExpr) {
	c.begin("argument_list", "arguments", c.off(e.Lparen))
	for i, a := range e.Args {
		if i == len(e.Args)-1 && e.Ellipsis.IsValid() {
			c.begin("variadic_argument", "", c.off(a.Pos()))
			c.expr(a, "")
			c.end(c.off(e.Ellipsis) + 3)
			continue
		}
		c.expr(a, "")
	}
	c.end(c.off(e.Rparen) + 1)
}

func (c *goConv) typ(e ast.Expr, field string) {
	switch t := e.(type) {
	case *ast.Ident:
		c.leaf("type_identifier", field, c.off(t.Pos()), c.off(t.End()))
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		if !ok {
			c.decline("qualified type of %T", t.X)
		}
		c.begin("qualified_type", field, c.off(t.Pos()))
		c.leaf("package_identifier", "package", c.off(x.Pos()), c.off(x.End()))
		c.leaf("type_identifier", "name", c.off(t.Sel.Pos()), c.off(t.Sel.End()))
		c.end(c.off(t.End()))
	case *ast.StarExpr:
		c.begin("pointer_type", field, c.off(t.Pos()))
		c.typ(t.X, "")
		c.end(c.off(t.End()))
	case *ast.ParenExpr:
		c.begin("parenthesized_type", field, c.off(t.Pos()))
		c.typ(t.X, "")
		c.end(c.off(t.End()))
	case *ast.ArrayType:
		switch {
		case t.Len == nil:
			c.begin("slice_type", field, c.off(t.Pos()))
		case isEllipsis(t.Len):
			c.begin("implicit_length_array_type", field, c.off(t.Pos()))
		default:
			c.begin("array_type", field, c.off(t.Pos()))
			c.expr(t.Len, "length")
		}
		c.typ(t.Elt, "element")
		c.end(c.off(t.End()))
	case *ast.MapType:
		c.begin("map_type", field, c.off(t.Pos()))
		c.typ(t.Key, "key")
		c.typ(t.Value, "value")
		c.end(c.off(t.End()))
	case *ast.ChanType:
		if _, ok := t.Value.(*ast.ChanType); ok && t.Dir == ast.SEND {
			c.decline("chan<- chan") // tree-sitter-go reads chan (<-chan T)
		}
		c.begin("channel_type", field, c.off(t.Pos()))
		c.typ(t.Value, "value")
		c.end(c.off(t.End()))
	case *ast.FuncType:
		if !t.Func.IsValid() {
			c.decline("function type without func")
		}
		c.begin("function_type", field, c.off(t.Pos()))
		c.signature(t)
		c.end(c.off(t.End()))
	case *ast.StructType:
		c.begin("struct_type", field, c.off(t.Pos()))
		c.begin("field_declaration_list", "", c.off(t.Fields.Opening))
		for _, f := range t.Fields.List {
			c.fieldDecl(f)
		}
		c.end(c.off(t.Fields.Closing) + 1)
		c.end(c.off(t.End()))
	case *ast.InterfaceType:
		c.begin("interface_type", field, c.off(t.Pos()))
		for _, f := range t.Methods.List {
			if len(f.Names) == 0 {
				c.typeElem("type_elem", "", f.Type)
				continue
			}
			ft, ok := f.Type.(*ast.FuncType)
			if !ok || len(f.Names) != 1 {
				c.decline("interface method")
			}
			c.begin("method_elem", "", c.off(f.Pos()))
			c.leaf("field_identifier", "name", c.off(f.Names[0].Pos()), c.off(f.Names[0].End()))
			c.signature(ft)
			c.end(c.off(f.End()))
		}
		c.end(c.off(t.End()))
	case *ast.IndexExpr:
		c.genericType(t.X, []ast.Expr{t.Index}, t.Lbrack, t.Rbrack, field)
	case *ast.IndexListExpr:
		c.genericType(t.X, t.Indices, t.Lbrack, t.Rbrack, field)
	case *ast.UnaryExpr:
		if t.Op != token.TILDE {
			c.decline("type %s", t.Op)
		}
		c.begin("negated_type", field, c.off(t.Pos()))
		c.typ(t.X, "")
		c.end(c.off(t.End()))
	default:
		c.decline("type %T", e)
	}
}

func isEllipsis(e ast.Expr) bool {
	_, ok := e.(*ast.Ellipsis)
	return ok
}

func (c *goConv) genericType(x ast.Expr, args []ast.Expr, lbrack, rbrack token.Pos, field string) {
	if !typeName(x) {
		c.decline("generic type of %T", x)
	}
	c.begin("generic_type", field, c.off(x.Pos()))
	c.typ(x, "type")
	c.typeArguments(args, lbrack, rbrack)
	c.end(c.off(rbrack) + 1)
}

func (c *goConv) typeArguments(args []ast.Expr, lbrack, rbrack token.Pos) {
	c.begin("type_arguments", "type_arguments", c.off(lbrack))
	for _, a := range args {
		c.typeElem("type_elem", "", a)
	}
	c.end(c.off(rbrack) + 1)
}

func (c *goConv) fieldDecl(f *ast.Field) {
	c.begin("field_declaration", "", c.off(f.Pos()))
	for _, n := range f.Names {
		c.leaf("field_identifier", "name", c.off(n.Pos()), c.off(n.End()))
	}
	t := f.Type
	if len(f.Names) == 0 {
		if s, ok := t.(*ast.StarExpr); ok {
			t = s.X
		}
		switch t.(type) {
		case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
		default:
			c.decline("embedded field %T", t)
		}
	}
	c.typ(t, "type")
	if f.Tag != nil {
		c.basicLit(f.Tag, "tag")
	}
	c.end(c.off(f.End()))
}
