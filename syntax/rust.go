package syntax

import (
	"bytes"
	"strings"
)

// rustState is the Rust-specific part of a walk.
type rustState struct {
	crate string
	self  string     // the file's module symbol
	mods  []*rustMod // the modules enclosing the current node, innermost last
	body  int        // depth of function bodies and closures
	// testAttr is set between a test attribute (#[test], #[cfg(test)])
	// and the item it applies to.
	testAttr bool
	synth    map[string]bool // module paths given an import of their own
	visit    func(*node) (bool, func())
}

// rustMod is the name scope of one module: the file's, or an inline mod.
type rustMod struct {
	path  string            // "shop::orders"
	uses  map[string]string // local name → full path of the item or module a use declaration binds
	subs  map[string]bool   // submodules the module declares (mod x)
	std   map[string]bool   // names imported from std, core or alloc: never resolved in the workspace
	super bool              // the module glob-imports its parent (use super::*)
}

// rustStdRoots are the crates of the standard library: paths into them are
// not looked up in the workspace.
var rustStdRoots = map[string]bool{"std": true, "core": true, "alloc": true}

// rustPrelude are names of the standard prelude and primitive types, whose
// uses are not recorded unless the module imports the name itself.
var rustPrelude = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`Some None Ok Err Option Result Vec String Box ToString ToOwned Clone Copy
		Default Drop Fn FnMut FnOnce From Into Iterator IntoIterator Extend Send Sync Sized PartialEq Eq
		PartialOrd Ord AsRef AsMut drop Self
		u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 bool char str`) {
		m[s] = true
	}
	return m
}()

// extractRust extracts a .rs file: its module (from Cargo.toml and the
// file's path), its items, its use declarations and the names it uses.
func (w *walker) extractRust(root *node) {
	crate, module := w.project.ask(queryRustModule, w.ff.Document.Path)
	w.pkg, w.idPkg = module, module
	w.ff.Document.Package = module
	w.ff.module = module
	st := &rustState{crate: crate, self: packageID("rust", module), synth: map[string]bool{}}
	w.ff.self = st.self
	w.defineModule(st.self, module[strings.LastIndex(module, ":")+1:], root)
	st.visit = func(n *node) (bool, func()) { return w.visitRust(st, n) }
	leave := w.rustEnterModule(st, module, root)
	w.walk(root, st.visit)
	leave()
}

// rustEnterModule enters a module whose items are body's children: it
// reads the module's mod and use declarations first (a use may follow the
// code it serves) and returns the function that leaves the module.
func (w *walker) rustEnterModule(st *rustState, path string, body *node) func() {
	m := &rustMod{path: path, uses: map[string]string{}, subs: map[string]bool{}, std: map[string]bool{}}
	st.mods = append(st.mods, m)
	pkg, idPkg := w.pkg, w.idPkg
	w.pkg, w.idPkg = path, path
	for c := body.firstChild(); c != nil; c = c.nextSibling() {
		if w.typ(c) == "mod_item" {
			if name := c.ChildByFieldName("name"); name != nil {
				m.subs[w.text(name)] = true
			}
		}
	}
	for c := body.firstChild(); c != nil; c = c.nextSibling() {
		if w.typ(c) == "use_declaration" {
			if arg := c.ChildByFieldName("argument"); arg != nil {
				w.rustUseTree(st, arg, nil)
			}
		}
	}
	return func() {
		st.mods = st.mods[:len(st.mods)-1]
		w.pkg, w.idPkg = pkg, idPkg
	}
}

// mod returns the innermost module.
func (st *rustState) mod() *rustMod { return st.mods[len(st.mods)-1] }

// lookup returns the full path a use declaration binds to name in the
// current module (or in its parent, when the module glob-imports it).
func (st *rustState) lookup(name string) (string, bool) {
	for i := len(st.mods) - 1; i >= 0; i-- {
		if full, ok := st.mods[i].uses[name]; ok {
			return full, true
		}
		if !st.mods[i].super {
			break
		}
	}
	return "", false
}

// imported reports whether name is bound by a use declaration, or comes
// from the standard library (std reports which).
func (st *rustState) imported(name string) (workspace, std bool) {
	for i := len(st.mods) - 1; i >= 0; i-- {
		if st.mods[i].std[name] {
			return false, true
		}
		if _, ok := st.mods[i].uses[name]; ok {
			return true, false
		}
		if !st.mods[i].super {
			break
		}
	}
	return false, false
}

// skipName reports whether a bare name is the standard library's: a
// prelude name or primitive type the module does not import, or a name it
// imports from std, core or alloc.
func (st *rustState) skipName(name string) bool {
	ws, std := st.imported(name)
	return std || (rustPrelude[name] && !ws)
}

// rustInTypeBody reports whether an item is directly in the body of an
// impl or trait: an associated item.
func (w *walker) rustInTypeBody(n *node) bool {
	p := n.Parent()
	if p == nil || w.typ(p) != "declaration_list" {
		return false
	}
	pp := p.Parent()
	return pp != nil && (w.typ(pp) == "impl_item" || w.typ(pp) == "trait_item")
}

// rustGenerics binds the type parameters of an item as locals of the
// innermost function scope (the caller pushes one).
func (w *walker) rustGenerics(st *rustState, n *node) {
	tp := n.ChildByFieldName("type_parameters")
	if tp == nil {
		return
	}
	for c := tp.firstChild(); c != nil; c = c.nextSibling() {
		switch w.typ(c) {
		case "type_identifier":
			w.bindLocal(c)
		case "constrained_type_parameter":
			// T: Trait: a value of type T is read as a Trait (the first
			// bound of the workspace's).
			bound := ""
			if bs := c.ChildByFieldName("bounds"); bs != nil {
				for b := bs.firstChild(); b != nil && bound == ""; b = b.nextSibling() {
					bound = w.rustTypeExpr(st, b)
				}
			}
			if l := c.ChildByFieldName("left"); l != nil && w.typ(l) == "type_identifier" {
				w.bindLocalTyped(l, bound)
			}
		case "optional_type_parameter", "const_parameter":
			if name := c.ChildByFieldName("name"); name != nil {
				w.bindLocal(name)
			}
		}
	}
}

// visitRust visits a node; an item under a test attribute and everything
// in it is test-only code.
func (w *walker) visitRust(st *rustState, n *node) (bool, func()) {
	t := w.typ(n)
	switch t {
	case "attribute_item":
		st.testAttr = st.testAttr || rustTestAttribute(w.text(n))
		return false, nil
	case "line_comment", "block_comment":
		return false, nil
	}
	if !st.testAttr {
		return w.visitRustNode(st, n, t)
	}
	st.testAttr = false
	w.tests++
	descend, leave := w.visitRustNode(st, n, t)
	return descend, func() {
		if leave != nil {
			leave()
		}
		w.tests--
	}
}

// rustTestAttribute reports whether an attribute marks test-only code:
// #[test], #[tokio::test] and the like, #[cfg(test)].
func rustTestAttribute(attr string) bool {
	s := strings.Join(strings.Fields(attr), "")
	return s == "#[test]" || strings.HasSuffix(s, "::test]") || strings.Contains(s, "cfg(test)")
}

// visitRustNode visits a node of type t: it records definitions, binds
// locals and records uses, and returns whether to descend and what to run
// after the descendants.
func (w *walker) visitRustNode(st *rustState, n *node, t string) (bool, func()) {
	switch t {
	case "string_literal", "raw_string_literal", "char_literal",
		"integer_literal", "float_literal", "boolean_literal", "inner_attribute_item",
		"visibility_modifier", "lifetime", "label", "extern_crate_declaration",
		"self_parameter", "primitive_type", "metavariable":
		return false, nil

	case "use_declaration":
		// A module's own use declarations were read on entering it; one
		// in a function body binds its names from there on.
		if arg := n.ChildByFieldName("argument"); arg != nil && st.body > 0 {
			w.rustUseTree(st, arg, nil)
		}
		return false, nil

	case "mod_item":
		name := n.ChildByFieldName("name")
		if name == nil || st.body > 0 {
			return false, nil
		}
		path := st.mod().path + "::" + w.text(name)
		w.defineID(packageID("rust", path), w.text(name), "module", name, n, "")
		body := n.ChildByFieldName("body")
		if body == nil {
			return false, nil
		}
		return true, w.rustEnterModule(st, path, body)

	case "function_item", "function_signature_item":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		fn := w.text(name)
		enter := func(s scope) func() {
			leave := w.push(s)
			st.body++
			w.rustGenerics(st, n)
			return func() { st.body--; leave() }
		}
		switch {
		case st.body > 0: // an item local to a function body
			w.bindLocal(name)
			return true, enter(scope{fn: true})
		case w.rustInTypeBody(n):
			typ, _ := w.innerType()
			sym := w.defineID(typ+"."+fn, fn, "method", name, n, typ)
			return true, enter(scope{sym: sym, fn: true, typ: typ})
		}
		sym := w.define(fn, fn, "function", name, n, "")
		return true, enter(scope{sym: sym, fn: true})

	case "struct_item", "union_item", "enum_item", "trait_item", "type_item":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		if st.body > 0 {
			w.bindLocal(name)
			return true, nil
		}
		kind := map[string]string{"struct_item": "struct", "union_item": "struct", "enum_item": "enum",
			"trait_item": "interface", "type_item": "type"}[t]
		tn, container := w.text(name), ""
		if w.rustInTypeBody(n) { // an associated type
			container, _ = w.innerType()
			sym := w.defineID(container+"."+tn, tn, kind, name, n, container)
			return true, w.push(scope{sym: sym})
		}
		sym := w.define(tn, tn, kind, name, n, "")
		leave := w.push(scope{sym: sym, typ: sym, fn: true})
		w.rustGenerics(st, n)
		return true, leave

	case "associated_type":
		if name := n.ChildByFieldName("name"); name != nil && w.rustInTypeBody(n) {
			typ, _ := w.innerType()
			tn := w.text(name)
			w.defineID(typ+"."+tn, tn, "type", name, n, typ)
		}
		return true, nil

	case "impl_item":
		leaveGenerics := w.push(scope{fn: true})
		w.rustGenerics(st, n)
		if st.body > 0 { // an impl of a type local to a function body
			return true, leaveGenerics
		}
		typ, pkg := w.rustImplType(st, n.ChildByFieldName("type"))
		trait, body := n.ChildByFieldName("trait"), n.ChildByFieldName("body")
		for c := n.firstChild(); c != nil; c = c.nextSibling() {
			if c != trait && c != body {
				w.walk(c, st.visit)
			}
		}
		leave := w.push(scope{sym: typ, typ: typ})
		if trait != nil {
			from := len(w.ff.Uses)
			w.walk(trait, st.visit)
			if name := w.supertypeName(trait); name != nil {
				var methods []string
				if body != nil {
					methods = w.methodNames(body)
				}
				w.markSupertypes(from, []*node{name}, methods)
			}
		}
		if body != nil {
			saved := w.pkg
			w.pkg = pkg // the methods belong to the type's module
			w.walk(body, st.visit)
			w.pkg = saved
		}
		leave()
		leaveGenerics()
		return false, nil

	case "field_declaration":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		w.defNames.add(name.StartByte())
		list := n.Parent()
		if list == nil || list.Parent() == nil || st.body > 0 {
			return true, nil
		}
		if owner := w.typ(list.Parent()); owner != "struct_item" && owner != "union_item" {
			return true, nil // a field of an enum variant
		}
		typ, _ := w.innerType()
		if typ == "" {
			return true, nil
		}
		f := w.text(name)
		sym := w.defineID(typ+"."+f, f, "field", name, n, typ)
		return true, w.push(scope{sym: sym})

	case "enum_variant":
		name := n.ChildByFieldName("name")
		typ, _ := w.innerType()
		if name == nil || typ == "" || st.body > 0 {
			return true, nil
		}
		v := w.text(name)
		sym := w.defineID(typ+"."+v, v, "enum-member", name, n, typ)
		return true, w.push(scope{sym: sym})

	case "const_item", "static_item":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		if st.body > 0 {
			w.bindLocal(name)
			return true, nil
		}
		kind, c := "constant", w.text(name)
		if t == "static_item" {
			kind = "variable"
		}
		var sym string
		if w.rustInTypeBody(n) {
			typ, _ := w.innerType()
			sym = w.defineID(typ+"."+c, c, kind, name, n, typ)
		} else {
			sym = w.define(c, c, kind, name, n, "")
		}
		return true, w.push(scope{sym: sym})

	case "macro_definition":
		if name := n.ChildByFieldName("name"); name != nil && st.body == 0 {
			m := w.text(name) + "!"
			w.define(m, m, "macro", name, n, "")
		}
		return false, nil

	case "macro_invocation":
		if m := n.ChildByFieldName("macro"); m != nil {
			name := m.lastSegment(w)
			if w.typ(name) == "identifier" {
				w.ff.Uses = append(w.ff.Uses, Use{Range: rangeOf(name), Name: w.text(name) + "!",
					Kind: UseBare, Call: true, Test: w.tests > 0, Enclosing: w.enclosing()})
			}
		}
		for c := n.firstChild(); c != nil; c = c.nextSibling() {
			if w.typ(c) == "token_tree" {
				w.rustTokenTree(st, c)
			}
		}
		return false, nil

	case "parameter":
		w.rustBindPattern(n.ChildByFieldName("pattern"), w.rustTypeExpr(st, n.ChildByFieldName("type")))
		return true, nil

	case "let_declaration":
		typ := w.rustTypeExpr(st, n.ChildByFieldName("type"))
		if typ == "" {
			typ = w.rustValueType(st, n.ChildByFieldName("value"))
		}
		w.rustBindPattern(n.ChildByFieldName("pattern"), typ)
		return true, nil

	case "for_expression", "let_condition":
		w.rustBindPattern(n.ChildByFieldName("pattern"), "")
		return true, nil

	case "match_pattern":
		w.rustBindPattern(n, "")
		return true, nil

	case "closure_expression":
		leave := w.push(scope{fn: true})
		st.body++
		if ps := n.ChildByFieldName("parameters"); ps != nil {
			for c := ps.firstChild(); c != nil; c = c.nextSibling() {
				if w.typ(c) != "parameter" {
					w.rustBindPattern(c, "")
				}
			}
		}
		return true, func() { st.body--; leave() }

	case "call_expression":
		f := n.ChildByFieldName("function")
		for f != nil && w.typ(f) == "generic_function" {
			f = f.ChildByFieldName("function")
		}
		if f != nil {
			switch w.typ(f) {
			case "identifier":
				w.callee.add(f.StartByte())
			case "scoped_identifier":
				if name := f.ChildByFieldName("name"); name != nil {
					w.callee.add(name.StartByte())
				}
			case "field_expression":
				if field := f.ChildByFieldName("field"); field != nil {
					w.callee.add(field.StartByte())
				}
			}
		}
		return true, nil

	case "field_expression":
		val, field := n.ChildByFieldName("value"), n.ChildByFieldName("field")
		if field == nil || val == nil || w.typ(field) != "field_identifier" {
			return true, nil
		}
		w.rustMemberUse(field, val, w.callee.has(field.StartByte()))
		return true, nil

	case "struct_expression":
		name := n.ChildByFieldName("name")
		if name == nil {
			return true, nil
		}
		q := ""
		switch w.typ(name) {
		case "type_identifier":
			q = w.text(name)
		case "scoped_type_identifier":
			if p := name.ChildByFieldName("path"); p == nil || !isCapitalized(w.text(p.lastSegment(w))) {
				q = w.rustPathType(st, name) // a path to a struct, not an enum variant
			}
		}
		body := n.ChildByFieldName("body")
		if q == "" || body == nil || w.isLocal(q) {
			return true, nil
		}
		for c := body.firstChild(); c != nil; c = c.nextSibling() {
			var field *node
			switch w.typ(c) {
			case "field_initializer":
				field = c.ChildByFieldName("field")
			case "shorthand_field_initializer":
				field = c.NamedChild(0)
			}
			if field == nil {
				continue
			}
			if q == "Self" {
				if typ, _ := w.innerType(); typ != "" {
					w.use(field, UseMember, typ, false, false)
				}
			} else {
				w.use(field, UseTyped, q, false, false)
			}
		}
		return true, nil

	case "scoped_identifier":
		return !w.rustPathUse(st, n, w.callee.has(n.lastSegment(w).StartByte()), false), nil

	case "scoped_type_identifier":
		return !w.rustPathUse(st, n, false, true), nil

	case "identifier":
		if w.defNames.has(n.StartByte()) {
			return false, nil
		}
		name := w.text(n)
		if !w.isLocal(name) && !st.skipName(name) {
			w.use(n, UseBare, "", w.callee.has(n.StartByte()), false)
		}
		return false, nil

	case "type_identifier":
		if w.defNames.has(n.StartByte()) {
			return false, nil
		}
		if name := w.text(n); !w.isLocal(name) && !st.skipName(name) {
			w.use(n, UseBare, "", false, true)
		}
		return false, nil
	}
	return true, nil
}

// rustDoc returns the first paragraph of the /// or /** */ comment above a
// Rust item, attributes between them skipped.
func (w *walker) rustDoc(n *node) string {
	ls := bytes.LastIndexByte(w.src[:n.StartByte()], '\n') + 1
	var lines []string
	for ls > 0 {
		pls := bytes.LastIndexByte(w.src[:ls-1], '\n') + 1
		line := strings.TrimSpace(string(w.src[pls : ls-1]))
		ls = pls
		if strings.HasPrefix(line, "#[") || strings.HasPrefix(line, "#!") {
			if len(lines) > 0 {
				break
			}
			continue // an attribute between the comment and the item
		}
		if !strings.HasPrefix(line, "///") && !strings.HasPrefix(line, "/**") && !strings.HasPrefix(line, "*") {
			break
		}
		lines = append(lines, line)
	}
	var b []string
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(strings.TrimSuffix(lines[i], "*/"))
		for _, p := range []string{"///", "/**", "*"} {
			if strings.HasPrefix(l, p) {
				l = strings.TrimSpace(l[len(p):])
				break
			}
		}
		if l == "" {
			if len(b) > 0 {
				break
			}
			continue
		}
		b = append(b, l)
	}
	return strings.Join(b, " ")
}
