package syntax

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
)

// goPredeclared are Go's predeclared identifiers; bare uses of them are not
// recorded.
var goPredeclared = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`any bool byte comparable complex64 complex128 error float32 float64
		int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr
		true false iota nil append cap clear close complex copy delete imag len make max min new
		panic print println real recover _`) {
		m[s] = true
	}
	return m
}()

// goVersionSuffix matches a major-version path element ("v2").
var goVersionSuffix = regexp.MustCompile(`^v[0-9]+$`)

// goImportName guesses the package name an import path binds: its last
// element without a major-version element, a ".vN" suffix or a "go-" prefix.
func goImportName(p string) string {
	elems := strings.Split(p, "/")
	name := elems[len(elems)-1]
	if goVersionSuffix.MatchString(name) && len(elems) > 1 {
		name = elems[len(elems)-2]
	}
	if i := strings.Index(name, ".v"); i > 0 {
		name = name[:i]
	}
	name = strings.TrimPrefix(name, "go-")
	return strings.ReplaceAll(name, "-", "_")
}

// goState is the Go-specific part of a walk.
type goState struct {
	imports map[string]bool   // local names of imports
	paths   map[string]string // import path by local name
}

func (w *walker) extractGo(root *node) {
	dir := dirOf(w.ff.Document.Path)
	pkgPath := w.project.askOne(queryGoPackage, dir)
	var clause *node
	for i := 0; i < int(root.NamedChildCount()) && i < 8; i++ {
		if c := root.NamedChild(i); w.typ(c) == "package_clause" {
			clause = c
			break
		}
	}
	pkgName := ""
	var pkgIdent *node
	if clause != nil && clause.NamedChildCount() > 0 {
		pkgIdent = clause.NamedChild(0)
		pkgName = w.text(pkgIdent)
	}
	if strings.HasSuffix(pkgName, "_test") && lang.IsTestPath(w.ff.Document.Path, "go") {
		pkgPath += "_test"
	}
	w.pkg, w.idPkg = pkgPath, pkgPath
	w.ff.Document.Package = pkgPath
	w.ff.module = pkgPath
	w.ff.goScope = w.project.goScopeOf(dir) // recorded with the package (queryGoPackage)
	self := packageID("go", pkgPath)
	w.ff.self = self
	if pkgIdent != nil {
		w.definePackage(self, pkgName, pkgIdent, clause)
	}
	st := &goState{imports: map[string]bool{}, paths: map[string]string{}}
	w.walk(root, func(n *node) (bool, func()) { return w.visitGo(st, self, n) })
}

// definePackage records the package (or module) symbol a file belongs to.
func (w *walker) definePackage(id, display string, name, extent *node) {
	w.defNames.add(name.StartByte())
	r := rangeOf(name)
	w.ff.Symbols = append(w.ff.Symbols, graph.Symbol{
		ID: id, DisplayName: display, Kind: "package", Language: w.lang, Package: w.pkg,
		Def: graph.Location{Path: w.ff.Document.Path, Range: r}, DefExtent: rangeOf(extent),
	})
	w.ff.Occurrences = append(w.ff.Occurrences, graph.Occurrence{
		Path: w.ff.Document.Path, Range: r, Symbol: id, Roles: graph.RoleDefinition | w.testRole(),
	})
}

// importPackage records an import of module (a package symbol) at n.
func (w *walker) importPackage(self string, imp Import, target string) {
	w.ff.Imports = append(w.ff.Imports, imp)
	w.ff.Occurrences = append(w.ff.Occurrences, graph.Occurrence{
		Path: w.ff.Document.Path, Range: imp.Range, Symbol: target,
		Roles: graph.RoleImport | graph.RoleReference | w.testRole(), Enclosing: w.enclosing(),
	})
	if self != "" && self != target {
		w.ff.Edges = append(w.ff.Edges, graph.Edge{
			From: self, To: target, Kind: graph.EdgeImports,
			Confidence: ConfidenceDeclaration, Source: graph.SourceSyntax,
			Reason: ReasonDeclaration, Count: 1,
		})
	}
}

func (w *walker) inFunction() bool {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if w.scopes[i].fn {
			return true
		}
	}
	return false
}

func (w *walker) visitGo(st *goState, self string, n *node) (bool, func()) {
	switch w.typ(n) {
	case "comment", "interpreted_string_literal", "raw_string_literal", "rune_literal",
		"int_literal", "float_literal", "imaginary_literal", "package_clause":
		return false, nil

	case "import_spec":
		var pathNode, nameNode *node
		for _, c := range w.children(n) {
			switch w.typ(c) {
			case "interpreted_string_literal", "raw_string_literal":
				pathNode = c
			case "package_identifier", "dot", "blank_identifier":
				nameNode = c
			}
		}
		if pathNode == nil {
			return false, nil
		}
		ip, err := strconv.Unquote(w.text(pathNode))
		if err != nil {
			return false, nil
		}
		local := goImportName(ip)
		if nameNode != nil {
			local = w.text(nameNode)
		}
		if local != "_" && local != "." {
			st.imports[local] = true
			st.paths[local] = ip
		}
		w.importPackage(self, Import{Local: local, Module: ip, Range: rangeOf(pathNode)}, packageID("go", ip))
		return false, nil

	case "function_declaration":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		fn := w.text(name)
		desc := fn
		if fn == "init" {
			desc = "init#" + path.Base(w.ff.Document.Path)
		}
		sym := ""
		if fn != "_" {
			sym = w.define(desc, fn, "function", name, n, "")
			w.setSignature(sym, w.goResults(st, fn, n))
		}
		return true, w.push(scope{sym: sym, fn: true})

	case "method_declaration":
		name := n.ChildByFieldName("name")
		recv := n.ChildByFieldName("receiver")
		if name == nil || recv == nil {
			return true, nil
		}
		typeName, recvName := w.goReceiver(recv)
		if typeName == "" {
			return true, nil
		}
		typeID := w.id(typeName)
		m := w.text(name)
		sym := w.define(typeName+"."+m, m, "method", name, n, typeID)
		w.setSignature(sym, w.goResults(st, m, n))
		leave := w.push(scope{sym: sym, fn: true, typ: typeID, recv: recvName})
		return true, leave

	case "type_spec", "type_alias":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		if w.inFunction() {
			w.bindLocal(name)
			return true, nil
		}
		kind := "type"
		if t := n.ChildByFieldName("type"); t != nil {
			switch w.typ(t) {
			case "struct_type":
				kind = "struct"
			case "interface_type":
				kind = "interface"
			}
		}
		tn := w.text(name)
		sym := w.define(tn, tn, kind, name, w.soleSpec(n), "")
		if w.typ(n) == "type_alias" {
			// An alias has its target's members: read like an embedding.
			w.addEmbedded(sym, w.goQualify(st, w.goTypeExpr(st, n.ChildByFieldName("type"))))
		}
		return true, w.push(scope{sym: sym, typ: sym})

	case "field_declaration":
		typ, _ := w.innerType()
		names := w.childrenOfField(n, "name")
		if typ == "" || w.inFunction() {
			return true, nil
		}
		if len(names) == 0 { // embedded field: its type is a use, and its members are promoted
			w.addEmbedded(typ, w.goQualify(st, w.goTypeExpr(st, n.ChildByFieldName("type"))))
			return true, nil
		}
		typeName := w.typeNameOf(typ)
		qualified := w.goQualify(st, w.goTypeExpr(st, n.ChildByFieldName("type")))
		first := ""
		for _, nm := range names {
			f := w.text(nm)
			id := w.define(typeName+"."+f, f, "field", nm, n, typ)
			if last := len(w.ff.Symbols) - 1; qualified != "" && w.ff.Symbols[last].ID == id {
				w.ff.Symbols[last].Signature = f + " " + qualified
			}
			if first == "" {
				first = id
			}
		}
		return true, w.push(scope{sym: first})

	case "type_elem":
		// An interface embedding another: its methods are promoted.
		if typ, _ := w.innerType(); typ != "" && !w.inFunction() && n.NamedChildCount() == 1 {
			w.addEmbedded(typ, w.goQualify(st, w.goTypeExpr(st, n.NamedChild(0))))
		}
		return true, nil

	case "method_elem", "method_spec":
		typ, _ := w.innerType()
		name := n.ChildByFieldName("name")
		if typ == "" || name == nil || w.inFunction() {
			return true, nil
		}
		m := w.text(name)
		sym := w.define(w.typeNameOf(typ)+"."+m, m, "method", name, n, typ)
		w.setSignature(sym, w.goResults(st, m, n))
		return true, w.push(scope{sym: sym, fn: true})

	case "const_spec", "var_spec":
		names := w.childrenOfField(n, "name")
		if w.inFunction() {
			if t := n.ChildByFieldName("type"); t != nil {
				typ := w.goTypeExpr(st, t)
				for _, nm := range names {
					w.bindLocalTyped(nm, typ)
				}
				return true, nil
			}
			var values []*node
			if v := n.ChildByFieldName("value"); v != nil {
				values = w.children(v)
			}
			w.bindGoValues(st, names, values)
			return true, nil
		}
		kind := "variable"
		if w.typ(n) == "const_spec" {
			kind = "constant"
		}
		first := ""
		for _, nm := range names {
			v := w.text(nm)
			if v == "_" {
				w.defNames.add(nm.StartByte())
				continue
			}
			id := w.define(v, v, kind, nm, w.soleSpec(n), "")
			if first == "" {
				first = id
			}
		}
		return true, w.push(scope{sym: first})

	case "short_var_declaration", "range_clause":
		left := n.ChildByFieldName("left")
		if left == nil {
			return true, nil
		}
		names := w.children(left)
		right := n.ChildByFieldName("right")
		if w.typ(n) == "range_clause" {
			// for k, v := range xs: v is an element of xs.
			elem := ""
			if right != nil && len(names) == 2 {
				if et := w.goExprType(st, right); et != "" {
					elem = et + stepElem
				}
			}
			for i, c := range names {
				if w.typ(c) != "identifier" {
					continue
				}
				if i == 1 {
					w.bindLocalTyped(c, elem)
				} else {
					w.bindLocalTyped(c, "")
				}
			}
			return true, nil
		}
		var values []*node
		if right != nil {
			values = w.children(right)
		}
		w.bindGoValues(st, names, values)
		return true, nil

	case "parameter_declaration":
		typ := w.goTypeExpr(st, n.ChildByFieldName("type"))
		for _, nm := range w.childrenOfField(n, "name") {
			w.bindLocalTyped(nm, typ)
		}
		return true, nil

	case "variadic_parameter_declaration":
		typ := w.goTypeExpr(st, n.ChildByFieldName("type"))
		if typ != "" {
			typ = wrapSlice + typ
		}
		for _, nm := range w.childrenOfField(n, "name") {
			w.bindLocalTyped(nm, typ)
		}
		return true, nil

	case "type_parameter_declaration":
		for _, nm := range w.childrenOfField(n, "name") {
			w.bindLocal(nm)
		}
		return true, nil

	case "type_switch_statement":
		for _, a := range w.childrenOfField(n, "alias") {
			for _, c := range w.children(a) {
				w.bindLocal(c)
			}
			if w.typ(a) == "identifier" {
				w.bindLocal(a)
			}
		}
		return true, nil

	case "func_literal":
		return true, w.push(scope{fn: true})

	case "keyed_element":
		// The key of a keyed composite literal element names a field of a
		// type the walk does not know: not a use of a package-level name.
		if k := n.NamedChild(0); k != nil {
			if w.typ(k) == "literal_element" && k.NamedChildCount() == 1 {
				k = k.NamedChild(0)
			}
			if t := w.typ(k); t == "identifier" || t == "field_identifier" {
				w.defNames.add(k.StartByte())
			}
		}
		return true, nil

	case "call_expression":
		if f := n.NamedChild(0); f != nil {
			switch w.typ(f) {
			case "identifier":
				w.callee.add(f.StartByte())
			case "selector_expression":
				if f.NamedChildCount() == 2 {
					w.callee.add(f.NamedChild(1).StartByte())
				}
			}
		}
		return true, nil

	case "selector_expression":
		if n.NamedChildCount() != 2 {
			return true, nil
		}
		operand, field := n.NamedChild(0), n.NamedChild(1)
		call := w.callee.has(field.StartByte())
		isIdent := w.typ(operand) == "identifier"
		if isIdent {
			q := w.text(operand)
			typ, recv := w.innerType()
			_, local := w.localType(q)
			switch {
			case recv != "" && q == recv:
				w.use(field, UseMember, typ, call, false)
				return false, nil
			case st.imports[q] && !local:
				w.use(field, UseQualified, q, call, false)
				return false, nil
			}
		}
		// (*T).Name, a method expression: Name is a method of T.
		if t := w.goPointerTypeOperand(st, operand); t != "" {
			w.use(field, UseTyped, t, call, false)
			return true, nil
		}
		// x.Name where the type of x is declared or inferred: Name is a
		// member of that type.
		if et := w.goExprType(st, operand); et != "" {
			w.use(field, UseTyped, et, call, false)
			return !isIdent, nil
		}
		w.use(field, UseSelector, "", call, false)
		return true, nil

	case "qualified_type":
		if n.NamedChildCount() == 2 {
			pkg, name := n.NamedChild(0), n.NamedChild(1)
			if q := w.text(pkg); st.imports[q] {
				w.use(name, UseQualified, q, false, true)
			}
		}
		return false, nil

	case "identifier":
		if !w.defNames.has(n.StartByte()) {
			if name := w.text(n); !goPredeclared[name] {
				w.use(n, UseBare, "", w.callee.has(n.StartByte()), false)
			}
		}
		return false, nil

	case "type_identifier":
		if !w.defNames.has(n.StartByte()) {
			if name := w.text(n); !goPredeclared[name] {
				w.use(n, UseBare, "", false, true)
			}
		}
		return false, nil
	}
	return true, nil
}

// goReceiver returns a method receiver's base type name and receiver name.
func (w *walker) goReceiver(recv *node) (typeName, recvName string) {
	if recv.NamedChildCount() == 0 {
		return "", ""
	}
	p := recv.NamedChild(0)
	if name := p.ChildByFieldName("name"); name != nil {
		recvName = w.text(name)
		w.defNames.add(name.StartByte())
	}
	t := p.ChildByFieldName("type")
	for t != nil {
		switch w.typ(t) {
		case "pointer_type", "parenthesized_type":
			if t.NamedChildCount() == 0 {
				return "", recvName
			}
			t = t.NamedChild(0)
		case "generic_type":
			t = t.ChildByFieldName("type")
		case "type_identifier":
			return w.text(t), recvName
		default:
			return "", recvName
		}
	}
	return "", recvName
}

// typeNameOf returns the descriptor of a type symbol of this file's package.
func (w *walker) typeNameOf(typeID string) string {
	return strings.TrimPrefix(typeID, w.id(""))
}

// soleSpec returns a spec's declaration when the spec is its only one
// (`type T struct{…}`), so a definition's extent includes the keyword and
// its documentation sits right above it; else the spec itself.
func (w *walker) soleSpec(spec *node) *node {
	p := spec.Parent()
	if p == nil {
		return spec
	}
	switch w.typ(p) {
	case "type_declaration", "const_declaration", "var_declaration":
		if hasOneNamedChild(p) {
			return p
		}
	}
	return spec
}

// goTypeExpr returns a declared type as the resolver reads it: "T" for a
// package-level type of this package, "pkg.T" for an imported one, through
// pointers and generic instantiations, with "[]" in front for a slice or
// array of it and "map[]" for a map to it; "" for any other type.
func (w *walker) goTypeExpr(st *goState, t *node) string {
	prefix := ""
	for t != nil {
		switch w.typ(t) {
		case "pointer_type", "parenthesized_type":
			t = t.NamedChild(0)
		case "slice_type", "array_type", "implicit_length_array_type":
			prefix += wrapSlice
			t = t.ChildByFieldName("element")
		case "map_type":
			prefix += wrapMap
			t = t.ChildByFieldName("value")
		case "generic_type":
			t = t.ChildByFieldName("type")
		case "type_identifier":
			name := w.text(t)
			if goPredeclared[name] || w.isLocal(name) { // a type parameter
				return ""
			}
			return prefix + name
		case "qualified_type":
			if t.NamedChildCount() != 2 {
				return ""
			}
			pkg := w.text(t.NamedChild(0))
			if !st.imports[pkg] {
				return ""
			}
			return prefix + pkg + "." + w.text(t.NamedChild(1))
		default:
			return ""
		}
	}
	return ""
}

// goQualify turns a type as goTypeExpr writes it into "PKGPATH.T" (its
// collection prefix kept).
func (w *walker) goQualify(st *goState, te string) string {
	if te == "" {
		return ""
	}
	wrap, te := splitWrap(te)
	if pkg, name, ok := strings.Cut(te, "."); ok {
		if p, ok := st.paths[pkg]; ok {
			return wrap + p + "." + name
		}
		return ""
	}
	return wrap + w.pkg + "." + te
}
