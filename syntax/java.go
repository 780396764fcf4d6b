package syntax

import (
	"strings"
)

// javaState is the Java-specific part of a walk.
type javaState struct {
	types map[string]bool // simple names of imported classes
}

func (w *walker) extractJava(root *node) {
	pkg := ""
	var clause, name *node
	for c := root.firstChild(); c != nil; c = c.nextSibling() {
		if w.typ(c) == "package_declaration" {
			clause = c
			name = c.NamedChild(0)
			for name != nil && w.typ(name) != "scoped_identifier" && w.typ(name) != "identifier" {
				name = name.nextSibling()
			}
			break
		}
	}
	if name != nil {
		pkg = w.text(name)
	} else {
		pkg = strings.ReplaceAll(dirOf(w.ff.Document.Path), "/", ".") // the default package, by directory
	}
	w.pkg, w.idPkg = pkg, pkg
	w.ff.Document.Package = pkg
	w.ff.module = pkg
	self := packageID("java", pkg)
	w.ff.self = self
	if name != nil {
		w.definePackage(self, pkg, name, clause)
	}
	st := &javaState{types: map[string]bool{}}
	w.walk(root, func(n *node) (bool, func()) { return w.visitJava(st, self, n) })
}

func (w *walker) visitJava(st *javaState, self string, n *node) (bool, func()) {
	t := w.typ(n)
	switch t {
	case "line_comment", "block_comment", "string_literal", "character_literal", "decimal_integer_literal",
		"hex_integer_literal", "decimal_floating_point_literal", "package_declaration", "modifiers":
		return false, nil

	case "import_declaration":
		var name *node
		static, wildcard := strings.HasPrefix(w.text(n), "import static"), false
		for _, c := range w.children(n) {
			switch w.typ(c) {
			case "scoped_identifier", "identifier":
				name = c
			case "asterisk":
				wildcard = true
			}
		}
		if name == nil {
			return false, nil
		}
		full := w.text(name)
		module, last := "", full
		if i := strings.LastIndexByte(full, '.'); i >= 0 {
			module, last = full[:i], full[i+1:]
		}
		imp := Import{Module: module, Range: rangeOf(name)}
		target := packageID("java", module)
		if wildcard {
			imp.Module, target = full, packageID("java", full)
		} else if !static {
			imp.Local, imp.Name = last, last
			st.types[last] = true
		}
		w.importPackage(self, imp, target)
		if imp.Local != "" {
			w.ff.Uses = append(w.ff.Uses, Use{Range: rangeOf(name), Name: last, Kind: UseBare, Import: true, Type: true})
		}
		return false, nil

	case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		if w.inFunction() {
			w.bindLocal(name)
			return true, w.push(scope{fn: true})
		}
		kind := "class"
		switch t {
		case "interface_declaration", "annotation_type_declaration":
			kind = "interface"
		case "enum_declaration":
			kind = "enum"
		}
		cn, container := w.text(name), ""
		if typ, _ := w.innerType(); typ != "" {
			container = typ
			cn = w.typeNameOf(typ) + "." + cn
		}
		sym := w.define(cn, w.text(name), kind, name, n, container)
		return true, w.leaveSupertypes(n, w.javaSupertypes(n), w.push(scope{sym: sym, typ: sym}))

	case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
		typ, _ := w.innerType()
		name := n.ChildByFieldName("name")
		if typ == "" || name == nil || w.inFunction() {
			return true, w.push(scope{fn: true})
		}
		m, kind := w.text(name), "method"
		if t != "method_declaration" {
			kind = "constructor"
		}
		sym := w.define(w.typeNameOf(typ)+"."+m, m, kind, name, n, typ)
		return true, w.push(scope{sym: sym, fn: true, typ: typ})

	case "field_declaration", "constant_declaration":
		typ, _ := w.innerType()
		if typ == "" || w.inFunction() {
			return true, nil
		}
		first := ""
		for _, d := range w.childrenOfField(n, "declarator") {
			if name := d.ChildByFieldName("name"); name != nil {
				f := w.text(name)
				id := w.define(w.typeNameOf(typ)+"."+f, f, "field", name, n, typ)
				if first == "" {
					first = id
				}
			}
		}
		return true, w.push(scope{sym: first})

	case "enum_constant":
		typ, _ := w.innerType()
		if name := n.ChildByFieldName("name"); name != nil && typ != "" && !w.inFunction() {
			f := w.text(name)
			w.define(w.typeNameOf(typ)+"."+f, f, "field", name, n, typ)
		}
		return true, nil

	case "formal_parameter", "spread_parameter", "catch_formal_parameter", "enhanced_for_statement":
		typ := w.javaTypeExpr(n.ChildByFieldName("type"))
		if name := n.ChildByFieldName("name"); name != nil {
			w.bindLocalTyped(name, typ)
		}
		for _, c := range w.children(n) { // spread_parameter: T... name
			if w.typ(c) == "variable_declarator" {
				if name := c.ChildByFieldName("name"); name != nil {
					w.bindLocalTyped(name, typ)
				}
			}
		}
		return true, nil

	case "local_variable_declaration", "resource":
		typ := w.javaTypeExpr(n.ChildByFieldName("type"))
		if name := n.ChildByFieldName("name"); name != nil { // resource
			w.bindLocalTyped(name, typ)
		}
		for _, d := range w.childrenOfField(n, "declarator") {
			if name := d.ChildByFieldName("name"); name != nil {
				dt := typ
				if v := d.ChildByFieldName("value"); v != nil && w.typ(v) == "object_creation_expression" && (dt == "" || dt == "var") {
					dt = w.javaTypeExpr(v.ChildByFieldName("type"))
				}
				if dt == "var" {
					dt = ""
				}
				w.bindLocalTyped(name, dt)
			}
		}
		return true, nil

	case "lambda_expression":
		leave := w.push(scope{fn: true})
		if p := n.ChildByFieldName("parameters"); p != nil {
			if w.typ(p) == "identifier" {
				w.bindLocal(p)
			}
			for _, c := range w.children(p) {
				if w.typ(c) == "identifier" {
					w.bindLocal(c)
				}
			}
		}
		return true, leave

	case "object_creation_expression":
		if ty := n.ChildByFieldName("type"); ty != nil {
			if w.typ(ty) == "generic_type" && ty.NamedChildCount() > 0 {
				ty = ty.NamedChild(0)
			}
			for w.typ(ty) == "scoped_type_identifier" && ty.NamedChildCount() > 0 {
				ty = ty.NamedChild(ty.NamedChildCount() - 1) // Outer.Inner: Inner is constructed
			}
			w.callee.add(ty.StartByte())
		}
		return true, nil

	case "method_invocation", "field_access":
		field := "name"
		if t == "field_access" {
			field = "field"
		}
		name, obj := n.ChildByFieldName(field), n.ChildByFieldName("object")
		if name == nil {
			return true, nil
		}
		call := t == "method_invocation"
		w.defNames.add(name.StartByte())
		switch {
		case obj == nil:
			// An unqualified call is a call on this (or a static import).
			if typ, _ := w.innerType(); typ != "" {
				w.use(name, UseMember, typ, call, false)
			} else {
				w.use(name, UseBare, "", call, false)
			}
		case w.typ(obj) == "this":
			if typ, _ := w.innerType(); typ != "" {
				w.use(name, UseMember, typ, call, false)
			}
		case w.typ(obj) == "identifier":
			q := w.text(obj)
			if lt, local := w.localType(q); local {
				if lt != "" {
					w.use(name, UseTyped, lt, call, false)
				} else {
					w.use(name, UseSelector, "", call, false)
				}
			} else if isCapitalized(q) {
				// Type.member: a static member of a class.
				w.use(name, UseTyped, q, call, false)
			} else {
				w.use(name, UseSelector, "", call, false)
			}
		default:
			w.use(name, UseSelector, "", call, false)
		}
		return true, nil

	case "identifier":
		if w.defNames.has(n.StartByte()) {
			return false, nil
		}
		name := w.text(n)
		if w.isLocal(name) {
			return false, nil
		}
		if typ, _ := w.innerType(); typ != "" && !isCapitalized(name) {
			w.use(n, UseMember, typ, false, false) // a field of this class
		} else {
			w.use(n, UseBare, "", w.callee.has(n.StartByte()), isCapitalized(name))
		}
		return false, nil

	case "type_identifier":
		if !w.defNames.has(n.StartByte()) && !w.isLocal(w.text(n)) {
			w.use(n, UseBare, "", w.callee.has(n.StartByte()), true)
		}
		return false, nil
	}
	return true, nil
}

// javaTypeExpr returns a declared type as the resolver reads it: "T" for a
// simple class type, generic arguments dropped; "" for primitives, arrays
// and qualified names.
func (w *walker) javaTypeExpr(t *node) string {
	for t != nil {
		switch w.typ(t) {
		case "generic_type":
			t = t.NamedChild(0)
		case "type_identifier":
			return w.text(t)
		default:
			return ""
		}
	}
	return ""
}

// javaSupertypes returns the names of the class a declaration extends and
// of the interfaces it implements (or, for an interface, extends).
func (w *walker) javaSupertypes(decl *node) []*node {
	var out []*node
	for c := decl.firstChild(); c != nil; c = c.nextSibling() {
		switch w.typ(c) {
		case "superclass":
			for t := c.firstChild(); t != nil; t = t.nextSibling() {
				if name := w.supertypeName(t); name != nil {
					out = append(out, name)
				}
			}
		case "super_interfaces", "extends_interfaces":
			for l := c.firstChild(); l != nil; l = l.nextSibling() {
				if w.typ(l) != "type_list" {
					continue
				}
				for t := l.firstChild(); t != nil; t = t.nextSibling() {
					if name := w.supertypeName(t); name != nil {
						out = append(out, name)
					}
				}
			}
		}
	}
	return out
}
