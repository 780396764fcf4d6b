package syntax

import (
	"strconv"
	"strings"
	"unicode"
)

// pyState is the Python-specific part of a walk.
type pyState struct {
	imports map[string]Import // by local name (dotted for `import a.b`)
	self    string
	// fields holds the types (as written) of the file's instance fields
	// by their symbol (self.f = C(…), self.f: T, f: T in the class body),
	// results the return annotations of its top-level functions by name:
	// self.f.m() and x = g(); x.m() read them (declared above their use).
	fields, results map[string]string
}

func (w *walker) extractPython(root *node) {
	pkg, module := w.project.ask(queryPythonModule, w.ff.Document.Path)
	w.pkg, w.idPkg = pkg, pkg
	w.modDesc = module + ":"
	w.ff.Document.Package = pkg
	w.ff.module = module
	st := &pyState{imports: map[string]Import{}, self: packageID("python", module), fields: map[string]string{}, results: map[string]string{}}
	display := module
	if i := strings.LastIndexByte(module, '.'); i >= 0 {
		display = module[i+1:]
	}
	w.ff.self = st.self
	w.defineModule(st.self, display, root)
	w.walk(root, func(n *node) (bool, func()) { return w.visitPython(st, n) })
}

// pyBuiltins are names whose bare uses are not recorded.
var pyBuiltins = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`self cls print len range str int float bool list dict set tuple
		isinstance super object type open enumerate zip map filter sorted min max sum any all abs
		repr hasattr getattr setattr iter next Exception ValueError TypeError KeyError
		RuntimeError NotImplementedError property staticmethod classmethod`) {
		m[s] = true
	}
	return m
}()

// inClassBody reports whether the innermost scope is a class body.
func (w *walker) inClassBody() bool {
	return len(w.scopes) > 0 && w.scopes[len(w.scopes)-1].typ != "" && !w.scopes[len(w.scopes)-1].fn
}

func (w *walker) dotted(n *node) (string, bool) {
	switch w.typ(n) {
	case "identifier":
		return w.text(n), true
	case "dotted_name":
		return w.text(n), true
	case "attribute":
		obj, attr := n.ChildByFieldName("object"), n.ChildByFieldName("attribute")
		if obj == nil || attr == nil {
			return "", false
		}
		o, ok := w.dotted(obj)
		if !ok {
			return "", false
		}
		return o + "." + w.text(attr), true
	}
	return "", false
}

// pyModule resolves a relative import ("." dots plus an optional module).
func (w *walker) pyModule(n *node) string {
	if w.typ(n) != "relative_import" {
		return strings.ReplaceAll(w.text(n), " ", "")
	}
	dots, rest := 0, ""
	for _, c := range w.children(n) {
		switch w.typ(c) {
		case "import_prefix":
			dots = len(strings.TrimSpace(w.text(c)))
		case "dotted_name":
			rest = w.text(c)
		}
	}
	base := strings.Split(w.pkg, ".")
	if w.pkg == "" {
		base = nil
	}
	for i := 1; i < dots && len(base) > 0; i++ {
		base = base[:len(base)-1]
	}
	if rest != "" {
		base = append(base, rest)
	}
	return strings.Join(base, ".")
}

func (w *walker) visitPython(st *pyState, n *node) (bool, func()) {
	t := w.typ(n)
	switch t {
	case "comment", "integer", "float", "string_content", "escape_sequence":
		return false, nil

	case "import_statement":
		for _, c := range w.childrenOfField(n, "name") {
			name, local := c, ""
			if w.typ(c) == "aliased_import" {
				name = c.ChildByFieldName("name")
				if a := c.ChildByFieldName("alias"); a != nil {
					local = w.text(a)
					w.defNames.add(a.StartByte())
				}
			}
			if name == nil {
				continue
			}
			mod := w.text(name)
			imp := Import{Local: local, Module: mod, Range: rangeOf(name)}
			if local == "" {
				imp.Local = mod // `import a.b` binds a; uses spell out a.b
			}
			st.imports[imp.Local] = imp
			w.importPackage(st.self, imp, packageID("python", mod))
		}
		return false, nil

	case "import_from_statement":
		mn := n.ChildByFieldName("module_name")
		if mn == nil {
			return false, nil
		}
		mod := w.pyModule(mn)
		imp := Import{Module: mod, Range: rangeOf(mn)}
		w.importPackage(st.self, imp, packageID("python", mod))
		for _, c := range w.children(n) {
			if w.typ(c) == "wildcard_import" {
				// from m import *: names nothing else explains are looked up in m.
				star := imp
				star.Name = "*"
				w.ff.Imports = append(w.ff.Imports, star)
			}
		}
		for _, c := range w.childrenOfField(n, "name") {
			name, at := c, c
			if w.typ(c) == "aliased_import" {
				name = c.ChildByFieldName("name")
				at = c.ChildByFieldName("alias")
			}
			if name == nil || at == nil {
				continue
			}
			b := imp
			b.Name, b.Local = w.text(name), w.text(at)
			st.imports[b.Local] = b
			w.ff.Imports = append(w.ff.Imports, b)
			w.defNames.add(at.StartByte())
			w.ff.Uses = append(w.ff.Uses, Use{Range: rangeOf(at), Name: b.Local, Kind: UseBare, Import: true})
		}
		return false, nil

	case "class_definition":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		if w.inFunction() {
			w.bindLocal(name)
			return true, nil
		}
		cn := w.text(name)
		container := ""
		if w.inClassBody() {
			container, _ = w.innerType()
			cn = w.typeNameOf(container) + "." + cn
		}
		sym := w.define(cn, w.text(name), "class", name, n, container)
		leave := w.push(scope{sym: sym, typ: sym})
		var supers []*node
		if bases := n.ChildByFieldName("superclasses"); bases != nil {
			for b := bases.firstChild(); b != nil; b = b.nextSibling() {
				if name := w.supertypeName(b); name != nil {
					supers = append(supers, name)
				}
			}
		}
		return true, w.leaveSupertypes(n, supers, leave)

	case "function_definition":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, w.push(scope{fn: true})
		}
		fn := w.text(name)
		recv := ""
		if ps := n.ChildByFieldName("parameters"); ps != nil && ps.NamedChildCount() > 0 {
			if p := ps.NamedChild(0); w.typ(p) == "identifier" {
				recv = w.text(p)
			}
		}
		switch {
		case w.inFunction():
			w.bindLocal(name)
			return true, w.push(scope{fn: true})
		case w.inClassBody():
			typ, _ := w.innerType()
			sym := w.define(w.typeNameOf(typ)+"."+fn, fn, "method", name, n, typ)
			return true, w.push(scope{sym: sym, fn: true, typ: typ, recv: recv})
		}
		sym := w.define(fn, fn, "function", name, n, "")
		if rt := w.pyTypeExpr(n.ChildByFieldName("return_type")); rt != "" {
			st.results[fn] = rt
		}
		return true, w.push(scope{sym: sym, fn: true})

	case "parameters", "lambda_parameters":
		for _, c := range w.children(n) {
			w.pyBindParam(c)
		}
		return true, nil

	case "lambda":
		return true, w.push(scope{fn: true})

	case "assignment":
		left := n.ChildByFieldName("left")
		if left == nil {
			return true, nil
		}
		switch {
		case w.inFunction():
			typ := w.pyTypeExpr(n.ChildByFieldName("type"))
			if r := n.ChildByFieldName("right"); typ == "" && r != nil {
				typ = w.pyValueType(st, r)
			}
			if w.typ(left) == "attribute" {
				if leave, ok := w.pySelfField(left); ok {
					if typ != "" {
						st.fields[w.enclosing()] = typ
					}
					return true, leave
				}
			}
			if w.typ(left) == "identifier" {
				w.bindLocalTyped(left, typ)
				return true, nil
			}
			w.pyBindTargets(left)
			return true, nil
		case w.inClassBody():
			typ, _ := w.innerType()
			ft := w.pyTypeExpr(n.ChildByFieldName("type"))
			var first string
			for _, id := range w.pyTargets(left) {
				f := w.text(id)
				s := w.define(w.typeNameOf(typ)+"."+f, f, "field", id, n, typ)
				if first == "" {
					first = s
				}
				if ft != "" {
					st.fields[s] = ft
				}
			}
			return true, w.push(scope{sym: first})
		}
		var first string
		for _, id := range w.pyTargets(left) {
			v := w.text(id)
			kind := "variable"
			if isUpperName(v) {
				kind = "constant"
			}
			s := w.define(v, v, kind, id, n, "")
			if first == "" {
				first = s
			}
			if v == "__all__" {
				w.pyAll(s, n.ChildByFieldName("right"))
			}
		}
		return true, w.push(scope{sym: first})

	case "for_statement", "for_in_clause":
		if l := n.ChildByFieldName("left"); l != nil && w.inFunction() {
			w.pyBindTargets(l)
		}
		return true, nil

	case "as_pattern_target":
		if w.inFunction() {
			for _, c := range w.children(n) {
				w.pyBindTargets(c)
			}
		}
		return true, nil

	case "keyword_argument":
		if k := n.ChildByFieldName("name"); k != nil {
			w.defNames.add(k.StartByte())
		}
		return true, nil

	case "augmented_assignment":
		// __all__ += […] at module level: the literal no longer lists every
		// export.
		if l := n.ChildByFieldName("left"); l != nil && !w.inFunction() && !w.inClassBody() && w.text(l) == "__all__" {
			w.pyAllChanged()
		}
		return true, nil

	case "call":
		fn := n.ChildByFieldName("function")
		w.markCallee(fn, "attribute", "attribute")
		if fn != nil && w.typ(fn) == "attribute" && !w.inFunction() && !w.inClassBody() {
			// __all__.append(…), __all__.extend(…) at module level.
			if obj := fn.ChildByFieldName("object"); obj != nil && w.text(obj) == "__all__" {
				w.pyAllChanged()
			}
		}
		return true, nil

	case "attribute":
		obj, attr := n.ChildByFieldName("object"), n.ChildByFieldName("attribute")
		if obj == nil || attr == nil || w.defNames.has(attr.StartByte()) {
			return false, nil // a field definition (self.x = …) was recorded already
		}
		call := w.callee.has(attr.StartByte())
		if ft := w.pySelfFieldType(st, obj); ft != "" { // self.f.m
			w.use(attr, UseTyped, ft, call, false)
			return true, nil
		}
		if w.typ(obj) == "identifier" {
			if typ, recv := w.innerType(); recv != "" && w.text(obj) == recv {
				w.use(attr, UseMember, typ, call, false)
				return false, nil
			}
			if lt, _ := w.localType(w.text(obj)); lt != "" {
				w.use(attr, UseTyped, lt, call, false)
				return false, nil
			}
		}
		if d, ok := w.dotted(obj); ok {
			root := d
			if i := strings.IndexByte(d, '.'); i >= 0 {
				root = d[:i]
			}
			if _, ok := st.imports[d]; ok && !w.isLocal(root) {
				w.use(attr, UseQualified, d, call, false)
				return false, nil
			}
		}
		w.use(attr, UseSelector, "", call, false)
		return true, nil

	case "identifier":
		if !w.defNames.has(n.StartByte()) {
			if name := w.text(n); !pyBuiltins[name] {
				w.use(n, UseBare, "", w.callee.has(n.StartByte()), false)
			}
		}
		return false, nil
	}
	return true, nil
}

// pySelfField defines self.x = … in a method as a field of its class (the
// first assignment only) and returns the scope to leave.
func (w *walker) pySelfField(left *node) (func(), bool) {
	obj, attr := left.ChildByFieldName("object"), left.ChildByFieldName("attribute")
	typ, recv := w.innerType()
	if obj == nil || attr == nil || recv == "" || w.typ(obj) != "identifier" || w.text(obj) != recv {
		return nil, false
	}
	f := w.text(attr)
	id := w.id(w.typeNameOf(typ) + "." + f)
	if w.seen[id] {
		return nil, false // a later assignment: a use of the field
	}
	// The field's extent is the assignment's statement.
	sym := w.define(w.typeNameOf(typ)+"."+f, f, "field", attr, left.Parent(), typ)
	w.defNames.add(obj.StartByte())
	return w.push(scope{sym: sym}), true
}

// pyTargets returns the identifiers an assignment target binds.
func (w *walker) pyTargets(n *node) []*node {
	switch w.typ(n) {
	case "identifier":
		return []*node{n}
	case "pattern_list", "tuple_pattern", "list_pattern", "expression_list":
		var out []*node
		for _, c := range w.children(n) {
			out = append(out, w.pyTargets(c)...)
		}
		return out
	}
	return nil
}

func (w *walker) pyBindTargets(n *node) {
	for _, id := range w.pyTargets(n) {
		w.bindLocal(id)
	}
}

func (w *walker) pyBindParam(p *node) {
	switch w.typ(p) {
	case "identifier":
		w.bindLocal(p)
	case "typed_parameter", "list_splat_pattern", "dictionary_splat_pattern":
		for _, c := range w.children(p) {
			if w.typ(c) == "identifier" {
				typ := ""
				if w.typ(p) == "typed_parameter" {
					typ = w.pyTypeExpr(p.ChildByFieldName("type"))
				}
				w.bindLocalTyped(c, typ)
				return
			}
			if w.typ(c) == "list_splat_pattern" || w.typ(c) == "dictionary_splat_pattern" {
				w.pyBindParam(c)
				return
			}
		}
	case "default_parameter":
		if name := p.ChildByFieldName("name"); name != nil {
			w.bindLocal(name)
		}
	case "typed_default_parameter":
		if name := p.ChildByFieldName("name"); name != nil {
			w.bindLocalTyped(name, w.pyTypeExpr(p.ChildByFieldName("type")))
		}
	}
}

func isUpperName(s string) bool {
	hasLetter := false
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsUpper(r) {
			hasLetter = true
		}
	}
	return hasLetter
}

// pyDocstring returns the first paragraph of a function's or class's
// docstring.
func (w *walker) pyDocstring(def *node) string {
	t := w.typ(def)
	if t != "function_definition" && t != "class_definition" {
		return ""
	}
	body := def.ChildByFieldName("body")
	if body == nil || body.NamedChildCount() == 0 {
		return ""
	}
	first := body.NamedChild(0)
	if w.typ(first) != "expression_statement" || first.NamedChildCount() != 1 || w.typ(first.NamedChild(0)) != "string" {
		return ""
	}
	s := w.text(first.NamedChild(0))
	s = strings.TrimLeft(s, "rRbBuUfF")
	for _, q := range []string{`"""`, "'''", `"`, "'"} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 2*len(q) {
			s = s[len(q) : len(s)-len(q)]
			break
		}
	}
	para, _, _ := strings.Cut(strings.TrimSpace(s), "\n\n")
	return strings.Join(strings.Fields(para), " ")
}

// pyTypeExpr returns an annotation or class expression as the resolver
// reads it: "T" or "mod.T" (quotes of a forward reference removed); "" for
// any other type (generics, unions, deeper attributes).
func (w *walker) pyTypeExpr(t *node) string {
	for t != nil {
		switch w.typ(t) {
		case "type":
			t = t.NamedChild(0)
		case "identifier":
			return w.text(t)
		case "attribute":
			if d, ok := w.dotted(t); ok && strings.Count(d, ".") == 1 {
				return d
			}
			return ""
		case "string":
			s := strings.Trim(w.text(t), `"'`)
			if s != "" && !strings.ContainsAny(s, " []|,") && strings.Count(s, ".") <= 1 {
				return s
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}

// pyValueType returns the type (as written) of a value a name is bound
// to: Name(…) with a capitalised Name (by convention a class), a call of
// a top-level function of the file with a return annotation, self.f with
// a typed field f; "" for any other value.
func (w *walker) pyValueType(st *pyState, v *node) string {
	switch w.typ(v) {
	case "call":
		fn := v.ChildByFieldName("function")
		if fn == nil {
			return ""
		}
		if name := w.pyTypeExpr(fn); name != "" && isCapitalized(name[strings.LastIndexByte(name, '.')+1:]) {
			return name
		}
		if w.typ(fn) == "identifier" && !w.isLocal(w.text(fn)) {
			return st.results[w.text(fn)]
		}
	case "attribute":
		return w.pySelfFieldType(st, v)
	}
	return ""
}

// pySelfFieldType returns the type of f in self.f (n), when the class
// gives f one.
func (w *walker) pySelfFieldType(st *pyState, n *node) string {
	if w.typ(n) != "attribute" {
		return ""
	}
	obj, attr := n.ChildByFieldName("object"), n.ChildByFieldName("attribute")
	typ, recv := w.innerType()
	if obj == nil || attr == nil || recv == "" || w.typ(obj) != "identifier" || w.text(obj) != recv {
		return ""
	}
	return st.fields[typ+"."+w.text(attr)]
}

func isCapitalized(s string) bool {
	return s != "" && s[0] >= 'A' && s[0] <= 'Z'
}

// pyAll records, as the Signature of a module's __all__ symbol id, the
// names of `__all__ = [...]` or `(...)` when the value is a literal list or
// tuple of strings: `["a", "b"]`. Any other value leaves it empty.
// A later assignment replaces an earlier one's names, as at run time.
func (w *walker) pyAll(id string, right *node) {
	sig := w.pyAllLiteral(right)
	for k := len(w.ff.Symbols) - 1; k >= 0; k-- {
		if w.ff.Symbols[k].ID == id {
			w.ff.Symbols[k].Signature = sig
			return
		}
	}
}

// pyAllChanged forgets the literal names of the module's __all__ when the
// module changes it after its definition: its exports are then the names
// without a leading underscore.
func (w *walker) pyAllChanged() {
	id := w.id("__all__")
	for k := range w.ff.Symbols {
		if w.ff.Symbols[k].ID == id {
			w.ff.Symbols[k].Signature = ""
		}
	}
}

// pyAllLiteral returns the names of a literal list or tuple of strings as
// `["a", "b"]`, or "" for any other value.
func (w *walker) pyAllLiteral(right *node) string {
	if right == nil || (w.typ(right) != "list" && w.typ(right) != "tuple") {
		return ""
	}
	var names []string
	for _, c := range w.children(right) {
		if w.typ(c) != "string" {
			return ""
		}
		s := w.text(c)
		if len(s) < 2 || (s[0] != '"' && s[0] != '\'') || s[len(s)-1] != s[0] {
			return "" // a prefixed, triple-quoted or implicitly concatenated string
		}
		name := s[1 : len(s)-1]
		if name == "" || strings.ContainsAny(name, "\"'\\, ") {
			return ""
		}
		names = append(names, strconv.Quote(name))
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// pyAllNames parses a Signature pyAll wrote; ok is false when there is none.
func pyAllNames(sig string) (names []string, ok bool) {
	inner, ok := strings.CutPrefix(sig, "[")
	if !ok {
		return nil, false
	}
	if inner, ok = strings.CutSuffix(inner, "]"); !ok {
		return nil, false
	}
	for f := range strings.SplitSeq(inner, ", ") {
		if f == "" {
			continue
		}
		name, err := strconv.Unquote(f)
		if err != nil {
			return nil, false
		}
		names = append(names, name)
	}
	return names, true
}
