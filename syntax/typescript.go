package syntax

import (
	"bytes"
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
)

// tsState is the TypeScript/JavaScript-specific part of a walk.
type tsState struct {
	imports map[string]Import // by local name
	self    string            // the module's symbol
	// defaults are the names the module exports as its default export, in
	// source order, each with its Signature marker.
	defaults []tsDefault
	// fields holds the declared types (as written) of the file's class
	// fields by their symbol, results those of the file's top-level
	// functions' return annotations by name: `this.f.m()` and
	// `const x = g(); x.m()` read them (a field or function declared above
	// its use).
	fields, results map[string]string
}

// tsDefault is a top-level name a module exports as its default export.
type tsDefault struct{ name, marker string }

// The Signature of a TS/JS definition that is its module's default export:
// `export default f` (and `export { f as default }`), or the CommonJS
// `module.exports = f`. A default import takes either; a require() binding
// only the CommonJS one.
const (
	markerExportDefault = "export default"
	markerModuleExports = "module.exports ="
)

func (w *walker) extractTS(root *node) {
	pkg, module := w.project.ask(queryTSModule, w.ff.Document.Path)
	w.pkg, w.idPkg = pkg, pkg
	w.modDesc = strings.TrimPrefix(strings.TrimPrefix(module, pkg), "/") + ":"
	w.ff.Document.Package = pkg
	w.ff.module = stripExt(w.ff.Document.Path)
	st := &tsState{imports: map[string]Import{}, self: packageID(w.lang, module), fields: map[string]string{}, results: map[string]string{}}
	w.ff.self = st.self
	w.defineModule(st.self, path.Base(module), root)
	w.walk(root, func(n *node) (bool, func()) { return w.visitTS(st, n) })
	w.tsMarkDefaults(st)
}

// tsMarkDefaults marks the module's default export, a top-level definition
// of the file, with its Signature marker; the last export of a kind wins,
// as at run time. A name the file does not define (an import, a global) and
// an anonymous default export mark nothing.
func (w *walker) tsMarkDefaults(st *tsState) {
	for _, d := range st.defaults {
		id := w.id(d.name)
		k := slices.IndexFunc(w.ff.Symbols, func(s graph.Symbol) bool { return s.ID == id })
		if k < 0 {
			continue
		}
		for j := range w.ff.Symbols {
			if w.ff.Symbols[j].Signature == d.marker {
				w.ff.Symbols[j].Signature = ""
			}
		}
		w.ff.Symbols[k].Signature = d.marker
	}
}

// tsExportDefault records the default export of an export statement
// without a source: `export default function f() {}`, `export default
// class C {}`, `export default f`, `export { f as default }`.
func (w *walker) tsExportDefault(st *tsState, n *node) {
	if w.inFunction() {
		return
	}
	// The tree keeps no keywords: `default` is the last word before the
	// declaration or value.
	d, v := n.ChildByFieldName("declaration"), n.ChildByFieldName("value")
	isDefault := false
	if first := cmp.Or(d, v); first != nil {
		isDefault = bytes.HasSuffix(bytes.TrimSpace(w.src[n.StartByte():first.StartByte()]), []byte("default"))
	}
	if !isDefault {
		for _, c := range w.children(n) {
			if w.typ(c) != "export_clause" {
				continue
			}
			for _, s := range w.children(c) {
				name, alias := s.ChildByFieldName("name"), s.ChildByFieldName("alias")
				if w.typ(s) == "export_specifier" && name != nil && alias != nil && w.text(alias) == "default" {
					st.defaults = append(st.defaults, tsDefault{w.text(name), markerExportDefault})
				}
			}
		}
		return
	}
	if d != nil {
		if name := d.ChildByFieldName("name"); name != nil {
			st.defaults = append(st.defaults, tsDefault{w.text(name), markerExportDefault})
		}
	} else if w.typ(v) == "identifier" {
		st.defaults = append(st.defaults, tsDefault{w.text(v), markerExportDefault})
	}
}

// defineModule records the symbol of a file-level module (TS/JS, Python).
// It has no name in the text: its definition is the empty range at the
// start of the file.
func (w *walker) defineModule(id, display string, root *node) {
	w.ff.Symbols = append(w.ff.Symbols, graph.Symbol{
		ID: id, DisplayName: display, Kind: "module", Language: w.lang, Package: w.pkg,
		Def: graph.Location{Path: w.ff.Document.Path}, DefExtent: rangeOf(root),
	})
}

// tsResolveModule maps an import specifier to the imported module: a
// root-relative path without extension for a relative specifier, else the
// package name (with any subpath).
func (w *walker) tsResolveModule(spec string) (module string, relative bool) {
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		p := path.Join(dirOf(w.ff.Document.Path), spec)
		for _, ext := range []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx"} {
			if strings.HasSuffix(p, ext) {
				p = strings.TrimSuffix(p, ext)
				break
			}
		}
		return p, true
	}
	return spec, false
}

// tsTarget is the module symbol an import points at.
func (w *walker) tsTarget(module string, relative bool) string {
	if relative {
		_, m := w.project.ask(queryTSModule, module+".ts")
		return packageID(w.lang, m)
	}
	return packageID(w.lang, module)
}

func (w *walker) stringContent(n *node) string {
	s := w.text(n)
	if len(s) >= 2 {
		return s[1 : len(s)-1]
	}
	return s
}

func (w *walker) visitTS(st *tsState, n *node) (bool, func()) {
	t := w.typ(n)
	switch t {
	case "comment", "string", "number", "regex", "predefined_type", "this_type":
		return false, nil

	case "import_statement", "export_statement":
		src := n.ChildByFieldName("source")
		if src == nil {
			if t == "export_statement" {
				w.tsExportDefault(st, n)
				return true, nil
			}
			for _, c := range w.children(n) {
				// import m = require("./mod"): the TypeScript spelling of a require.
				if spec := c.ChildByFieldName("source"); w.typ(c) == "import_require_clause" && spec != nil && c.NamedChildCount() > 0 {
					if id := c.NamedChild(0); w.typ(id) == "identifier" {
						w.tsRequireBinding(st, id, spec)
					}
				}
			}
			return false, nil
		}
		module, rel := w.tsResolveModule(w.stringContent(src))
		imp := Import{Module: module, Relative: rel, Range: rangeOf(src)}
		w.importPackage(st.self, imp, w.tsTarget(module, rel))
		if t == "import_statement" {
			w.tsImportClause(st, n, imp)
		}
		return false, nil

	case "function_declaration", "generator_function_declaration", "function_signature":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, w.push(scope{fn: true})
		}
		if w.inFunction() {
			w.bindLocal(name)
			return true, w.push(scope{fn: true})
		}
		fn := w.text(name)
		sym := w.define(fn, fn, "function", name, n, "")
		if rt := w.tsTypeExpr(n.ChildByFieldName("return_type")); rt != "" {
			st.results[fn] = rt
		}
		return true, w.push(scope{sym: sym, fn: true})

	case "class_declaration", "abstract_class_declaration", "interface_declaration":
		name := n.ChildByFieldName("name")
		if name == nil || w.inFunction() {
			if name != nil {
				w.bindLocal(name)
			}
			return true, nil
		}
		kind := "class"
		if t == "interface_declaration" {
			kind = "interface"
		}
		cn := w.text(name)
		sym := w.define(cn, cn, kind, name, n, "")
		return true, w.leaveSupertypes(n, w.tsSupertypes(n), w.push(scope{sym: sym, typ: sym}))

	case "type_alias_declaration", "enum_declaration":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		if w.inFunction() {
			w.bindLocal(name)
			return true, nil
		}
		kind := "type"
		if t == "enum_declaration" {
			kind = "enum"
		}
		tn := w.text(name)
		sym := w.define(tn, tn, kind, name, n, "")
		return true, w.push(scope{sym: sym})

	case "method_definition", "method_signature", "abstract_method_signature":
		typ, _ := w.innerType()
		name := n.ChildByFieldName("name")
		if typ == "" || name == nil || w.inFunction() {
			return true, w.push(scope{fn: true})
		}
		m := w.text(name)
		sym := w.define(w.typeNameOf(typ)+"."+m, m, "method", name, n, typ)
		return true, w.push(scope{sym: sym, fn: true, typ: typ})

	case "public_field_definition", "field_definition", "property_signature":
		typ, _ := w.innerType()
		name := n.ChildByFieldName("name")
		if name == nil {
			name = n.ChildByFieldName("property")
		}
		if typ == "" || name == nil || w.inFunction() {
			return true, nil
		}
		f := w.text(name)
		sym := w.define(w.typeNameOf(typ)+"."+f, f, "field", name, n, typ)
		if ft := w.tsTypeExpr(n.ChildByFieldName("type")); ft != "" {
			st.fields[sym] = ft
		}
		return true, w.push(scope{sym: sym})

	case "required_parameter", "optional_parameter":
		pat := n.ChildByFieldName("pattern")
		if pat == nil {
			return true, nil
		}
		// A constructor parameter with an accessibility modifier is also a field.
		if n.NamedChildCount() > 0 && w.typ(n.NamedChild(0)) == "accessibility_modifier" && w.typ(pat) == "identifier" {
			if typ, _ := w.innerType(); typ != "" {
				f := w.text(pat)
				sym := w.define(w.typeNameOf(typ)+"."+f, f, "field", pat, n, typ)
				if ft := w.tsTypeExpr(n.ChildByFieldName("type")); ft != "" {
					st.fields[sym] = ft
				}
			}
		}
		if w.typ(pat) == "identifier" {
			w.bindLocalTyped(pat, w.tsTypeExpr(n.ChildByFieldName("type")))
		} else {
			w.bindPattern(pat)
		}
		return true, nil

	case "formal_parameters":
		// JavaScript parameters are bare patterns.
		for _, c := range w.children(n) {
			switch w.typ(c) {
			case "identifier", "object_pattern", "array_pattern", "rest_pattern", "assignment_pattern":
				w.bindPattern(c)
			}
		}
		return true, nil

	case "arrow_function", "function_expression", "function", "generator_function":
		leave := w.push(scope{fn: true})
		if p := n.ChildByFieldName("parameter"); p != nil {
			w.bindPattern(p) // x => …: x is bound in the arrow function
		}
		return true, leave

	case "variable_declarator":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		if spec := w.tsRequire(n.ChildByFieldName("value")); spec != nil {
			w.tsRequireBinding(st, name, spec)
			return false, nil
		}
		if w.inFunction() && w.typ(name) == "identifier" {
			typ := w.tsTypeExpr(n.ChildByFieldName("type"))
			if v := n.ChildByFieldName("value"); typ == "" && v != nil {
				typ = w.tsValueType(st, v)
			}
			w.bindLocalTyped(name, typ)
			return true, nil
		}
		if w.inFunction() || w.typ(name) != "identifier" {
			w.bindPattern(name)
			return true, nil
		}
		kind := "variable"
		if p := n.Parent(); p != nil && w.typ(p) == "lexical_declaration" && bytes.HasPrefix(w.src[p.StartByte():], []byte("const")) {
			kind = "constant"
		}
		if v := n.ChildByFieldName("value"); v != nil {
			switch w.typ(v) {
			case "arrow_function", "function_expression", "function", "generator_function":
				kind = "function"
			case "class":
				kind = "class"
			}
		}
		vn := w.text(name)
		sym := w.define(vn, vn, kind, name, n, "")
		return true, w.push(scope{sym: sym})

	case "for_in_statement":
		if l := n.ChildByFieldName("left"); l != nil && w.inFunction() {
			w.bindPattern(l)
		}
		return true, nil

	case "catch_clause":
		if p := n.ChildByFieldName("parameter"); p != nil {
			w.bindPattern(p)
		}
		return true, nil

	case "assignment_expression":
		if w.inFunction() || w.enclosing() != "" {
			return true, nil
		}
		return w.tsExportAssignment(st, n)

	case "call_expression":
		if spec := w.tsRequire(n); spec != nil {
			// A require whose module is not bound to a name: an import all the same.
			module, rel := w.tsResolveModule(w.stringContent(spec))
			w.importPackage(st.self, Import{Module: module, Relative: rel, Range: rangeOf(spec)}, w.tsTarget(module, rel))
			return false, nil
		}
		w.markCallee(n.ChildByFieldName("function"), "member_expression", "property")
		return true, nil

	case "new_expression":
		w.markCallee(n.ChildByFieldName("constructor"), "member_expression", "property")
		return true, nil

	case "member_expression":
		obj, prop := n.ChildByFieldName("object"), n.ChildByFieldName("property")
		if obj == nil || prop == nil {
			return true, nil
		}
		call := w.callee.has(prop.StartByte())
		switch w.typ(obj) {
		case "this":
			if typ, _ := w.innerType(); typ != "" {
				w.use(prop, UseMember, typ, call, false)
				return false, nil
			}
		case "member_expression":
			// this.f.m where the class declares f with a type.
			if ft := w.tsThisFieldType(st, obj); ft != "" {
				w.use(prop, UseTyped, ft, call, false)
				return true, nil
			}
		case "identifier":
			q := w.text(obj)
			if lt, _ := w.localType(q); lt != "" {
				w.use(prop, UseTyped, lt, call, false)
				return false, nil
			}
			if imp, ok := st.imports[q]; ok && imp.Name == "" && !w.isLocal(q) {
				w.use(prop, UseQualified, q, call, false)
				return false, nil
			}
		}
		if w.tsIsExports(obj) {
			// exports.f, module.exports.f: the module's own f.
			w.use(prop, UseBare, "", call, false)
			return false, nil
		}
		w.use(prop, UseSelector, "", call, false)
		return true, nil

	case "nested_type_identifier":
		if n.NamedChildCount() == 2 {
			mod, name := n.NamedChild(0), n.NamedChild(1)
			if imp, ok := st.imports[w.text(mod)]; ok && imp.Name == "" {
				w.use(name, UseQualified, w.text(mod), false, true)
			}
		}
		return false, nil

	case "identifier", "shorthand_property_identifier":
		if !w.defNames.has(n.StartByte()) {
			if name := w.text(n); name != "undefined" {
				w.use(n, UseBare, "", w.callee.has(n.StartByte()), false)
			}
		}
		return false, nil

	case "type_identifier":
		if !w.defNames.has(n.StartByte()) {
			w.use(n, UseBare, "", false, true)
		}
		return false, nil
	}
	return true, nil
}

// tsImportClause records an import statement's bindings.
func (w *walker) tsImportClause(st *tsState, n *node, imp Import) {
	var clause *node
	for _, c := range w.children(n) {
		if w.typ(c) == "import_clause" {
			clause = c
		}
	}
	if clause == nil {
		return
	}
	for _, c := range w.children(clause) {
		switch w.typ(c) {
		case "identifier": // default import
			b := imp
			b.Local, b.Name = w.text(c), "default"
			w.bindImport(st, b, c)
		case "namespace_import":
			if c.NamedChildCount() > 0 {
				id := c.NamedChild(0)
				b := imp
				b.Local = w.text(id)
				w.bindImport(st, b, nil)
				w.defNames.add(id.StartByte())
			}
		case "named_imports":
			for _, s := range w.children(c) {
				if w.typ(s) != "import_specifier" {
					continue
				}
				name, alias := s.ChildByFieldName("name"), s.ChildByFieldName("alias")
				if name == nil {
					continue
				}
				b := imp
				b.Name = w.text(name)
				b.Local = b.Name
				at := name
				if alias != nil {
					b.Local = w.text(alias)
					at = alias
				}
				w.bindImport(st, b, at)
			}
		}
	}
}

// bindImport records an import binding; at, when set, is the binding's
// name in the file, recorded as an import use of the imported name.
func (w *walker) bindImport(st *tsState, b Import, at *node) {
	st.imports[b.Local] = b
	w.ff.Imports = append(w.ff.Imports, b)
	if at != nil {
		w.defNames.add(at.StartByte())
		w.ff.Uses = append(w.ff.Uses, Use{Range: rangeOf(at), Name: b.Local, Kind: UseBare, Import: true})
	}
}

// bindPattern binds every identifier of a binding pattern as a local,
// leaving default values alone.
func (w *walker) bindPattern(n *node) {
	switch w.typ(n) {
	case "identifier", "shorthand_property_identifier_pattern":
		w.bindLocal(n)
	case "assignment_pattern", "object_assignment_pattern":
		if l := n.ChildByFieldName("left"); l != nil {
			w.bindPattern(l)
		}
	case "pair_pattern":
		if v := n.ChildByFieldName("value"); v != nil {
			w.bindPattern(v)
		}
	case "object_pattern", "array_pattern", "rest_pattern":
		for _, c := range w.children(n) {
			w.bindPattern(c)
		}
	}
}

// tsValueType returns the type of a value a local is initialized with,
// as written: new C(…), a call of a top-level function of the file with a
// return annotation, this.f for a typed field f; "" for any other value.
func (w *walker) tsValueType(st *tsState, v *node) string {
	switch w.typ(v) {
	case "new_expression":
		return w.tsTypeExpr(v.ChildByFieldName("constructor"))
	case "await_expression":
		if v.NamedChildCount() == 1 {
			return w.tsValueType(st, v.NamedChild(0))
		}
	case "call_expression":
		if fn := v.ChildByFieldName("function"); fn != nil && w.typ(fn) == "identifier" && !w.isLocal(w.text(fn)) {
			return st.results[w.text(fn)]
		}
	case "member_expression":
		return w.tsThisFieldType(st, v)
	}
	return ""
}

// tsThisFieldType returns the declared type of f in this.f, when the
// enclosing class declares f with a type.
func (w *walker) tsThisFieldType(st *tsState, n *node) string {
	obj, prop := n.ChildByFieldName("object"), n.ChildByFieldName("property")
	if obj == nil || prop == nil || w.typ(obj) != "this" {
		return ""
	}
	typ, _ := w.innerType()
	if typ == "" {
		return ""
	}
	return st.fields[typ+"."+w.text(prop)]
}

// tsTypeExpr returns a declared type as the resolver reads it: "T" or
// "ns.T" for a named (possibly generic) type, from a type annotation, a
// type or a constructor expression; "" for any other type.
func (w *walker) tsTypeExpr(t *node) string {
	for t != nil {
		switch w.typ(t) {
		case "type_annotation":
			t = t.NamedChild(0)
		case "generic_type":
			t = t.ChildByFieldName("name")
		case "type_identifier", "identifier":
			return w.text(t)
		case "nested_type_identifier", "member_expression":
			if s := w.text(t); strings.Count(s, ".") == 1 && !strings.ContainsAny(s, " \t\n") {
				return s
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}

// tsRequire returns the module specifier of a CommonJS require call with
// a string literal argument, require("./mod"); nil for anything else
// (n may be nil).
func (w *walker) tsRequire(n *node) *node {
	if n == nil || w.typ(n) != "call_expression" {
		return nil
	}
	fn, args := n.ChildByFieldName("function"), n.ChildByFieldName("arguments")
	if fn == nil || args == nil || w.typ(fn) != "identifier" || w.text(fn) != "require" || w.isLocal("require") {
		return nil
	}
	if !hasOneNamedChild(args) {
		return nil
	}
	for c := args.firstChild(); c != nil; c = c.nextSibling() {
		if c.IsNamed() && w.typ(c) == "string" {
			return c
		}
	}
	return nil
}

// tsRequireBinding records `const m = require("./mod")` as
// `import * as m from "./mod"` and `const { a, b: c } = require("./mod")`
// as `import { a, b as c } from "./mod"`. Inside a function the names are
// locals; the import is recorded either way.
func (w *walker) tsRequireBinding(st *tsState, name, spec *node) {
	module, rel := w.tsResolveModule(w.stringContent(spec))
	imp := Import{Module: module, Relative: rel, Range: rangeOf(spec)}
	w.importPackage(st.self, imp, w.tsTarget(module, rel))
	if w.inFunction() {
		w.bindPattern(name)
		return
	}
	switch w.typ(name) {
	case "identifier":
		b := imp
		b.Local, b.Require = w.text(name), true
		w.bindImport(st, b, name)
	case "object_pattern":
		for _, p := range w.children(name) {
			var key, at *node
			switch w.typ(p) {
			case "shorthand_property_identifier_pattern":
				key, at = p, p
			case "object_assignment_pattern": // { a = fallback }
				if l := p.ChildByFieldName("left"); l != nil && w.typ(l) == "shorthand_property_identifier_pattern" {
					key, at = l, l
				}
			case "pair_pattern": // { b: c }
				k, v := p.ChildByFieldName("key"), p.ChildByFieldName("value")
				if k != nil && v != nil && w.typ(k) == "property_identifier" && w.typ(v) == "identifier" {
					key, at = k, v
				}
			}
			if key == nil {
				w.bindPattern(p)
				continue
			}
			b := imp
			b.Name, b.Local = w.text(key), w.text(at)
			w.bindImport(st, b, at)
		}
	default:
		w.bindPattern(name)
	}
}

// tsIsExports reports whether n is `exports` or `module.exports`, the
// CommonJS export object of the file.
func (w *walker) tsIsExports(n *node) bool {
	switch w.typ(n) {
	case "identifier":
		return w.text(n) == "exports" && !w.isLocal("exports")
	case "member_expression":
		obj, prop := n.ChildByFieldName("object"), n.ChildByFieldName("property")
		return obj != nil && prop != nil && w.typ(obj) == "identifier" && w.text(obj) == "module" &&
			w.text(prop) == "exports" && !w.isLocal("module")
	}
	return false
}

// tsExportAssignment defines f for a top-level CommonJS export assignment,
// `exports.f = …` or `module.exports.f = …`, and walks the value inside f.
// `module.exports = …` itself defines nothing: the value's names are uses
// (`module.exports = { f, g }` refers to the file's f and g).
func (w *walker) tsExportAssignment(st *tsState, n *node) (bool, func()) {
	left, right := n.ChildByFieldName("left"), n.ChildByFieldName("right")
	if left == nil || right == nil || w.typ(left) != "member_expression" {
		return true, nil
	}
	visit := func(c *node) (bool, func()) { return w.visitTS(st, c) }
	if w.tsIsExports(left) {
		switch w.typ(right) {
		case "object":
			w.tsExportObject(st, right)
		case "identifier": // module.exports = f: f is the module's value
			st.defaults = append(st.defaults, tsDefault{w.text(right), markerModuleExports})
			w.walk(right, visit)
		case "function_expression", "function", "generator_function", "class":
			// module.exports = function f() {} / class C {}: the name is the
			// module's value, defined like a top-level f.
			if name := right.ChildByFieldName("name"); name != nil {
				extent := n
				if p := n.Parent(); p != nil && w.typ(p) == "expression_statement" {
					extent = p
				}
				w.tsExportDefine(st, name, extent, right)
				st.defaults = append(st.defaults, tsDefault{w.text(name), markerModuleExports})
				return false, nil
			}
			w.walk(right, visit)
		default:
			w.walk(right, visit)
		}
		return false, nil
	}
	obj, prop := left.ChildByFieldName("object"), left.ChildByFieldName("property")
	if obj == nil || prop == nil || w.typ(prop) != "property_identifier" || !w.tsIsExports(obj) {
		return true, nil
	}
	extent := n
	if p := n.Parent(); p != nil && w.typ(p) == "expression_statement" {
		extent = p
	}
	w.tsExportDefine(st, prop, extent, right)
	return false, nil
}

// tsExportDefine defines the exported name at for the value, with the
// given extent, and walks the value inside it.
func (w *walker) tsExportDefine(st *tsState, at, extent, value *node) {
	kind := "variable"
	switch w.typ(value) {
	case "arrow_function", "function_expression", "function", "generator_function", "method_definition":
		kind = "function"
	case "class":
		kind = "class"
	}
	f := w.text(at)
	sym := w.define(f, f, kind, at, extent, "")
	leave := w.push(scope{sym: sym})
	w.walk(value, func(c *node) (bool, func()) { return w.visitTS(st, c) })
	leave()
}

// tsExportObject reads `module.exports = { … }`: a shorthand f or f: f
// refers to the file's f; f: value and a method f() {} define f, the
// value or method walked inside it.
func (w *walker) tsExportObject(st *tsState, obj *node) {
	visit := func(c *node) (bool, func()) { return w.visitTS(st, c) }
	for _, c := range w.children(obj) {
		switch w.typ(c) {
		case "pair":
			k, v := c.ChildByFieldName("key"), c.ChildByFieldName("value")
			if k == nil || v == nil || w.typ(k) != "property_identifier" ||
				(w.typ(v) == "identifier" && w.text(v) == w.text(k)) {
				w.walk(c, visit)
				continue
			}
			w.tsExportDefine(st, k, c, v)
		case "method_definition":
			if name := c.ChildByFieldName("name"); name != nil && w.typ(name) == "property_identifier" {
				w.tsExportDefine(st, name, c, c)
				continue
			}
			w.walk(c, visit)
		default:
			w.walk(c, visit)
		}
	}
}

// tsSupertypes returns the names of what a class extends and implements,
// or what an interface extends.
func (w *walker) tsSupertypes(decl *node) []*node {
	var out []*node
	add := func(list *node) {
		for t := list.firstChild(); t != nil; t = t.nextSibling() {
			if name := w.supertypeName(t); name != nil {
				out = append(out, name)
			}
		}
	}
	for c := decl.firstChild(); c != nil; c = c.nextSibling() {
		switch w.typ(c) {
		case "class_heritage":
			for h := c.firstChild(); h != nil; h = h.nextSibling() {
				switch w.typ(h) {
				case "extends_clause", "implements_clause":
					add(h)
				default: // JavaScript: class A extends B
					if name := w.supertypeName(h); name != nil {
						out = append(out, name)
					}
				}
			}
		case "extends_type_clause":
			add(c)
		}
	}
	return out
}
