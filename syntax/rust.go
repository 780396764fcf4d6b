package syntax

import (
	"strings"

	"github.com/lspgraph/lspgraph/graph"
)

// rustState is the Rust-specific part of a walk.
type rustState struct {
	crate  string
	self   string     // the file's module symbol
	mods   []*rustMod // the modules enclosing the current node, innermost last
	callee map[uint32]bool
	body   int // depth of function bodies and closures
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

func (w *walker) extractRust(root *node) {
	crate, module := w.project.rustModule(w.ff.Document.Path)
	w.pkg, w.idPkg = module, module
	w.ff.Document.Package = module
	w.ff.module = module
	st := &rustState{crate: crate, self: packageID("rust", module), callee: map[uint32]bool{}, synth: map[string]bool{}}
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

// rustSegments returns the segments of a path (a::b::C) and the node of
// the last one; ok is false for paths it cannot spell (<T as Tr>::x).
func (w *walker) rustSegments(n *node) (segs []string, last *node, ok bool) {
	switch w.typ(n) {
	case "identifier", "type_identifier", "self", "crate", "super":
		return []string{w.text(n)}, n, true
	case "generic_type": // Vec::<T>::new: the path part is a generic type
		if t := n.ChildByFieldName("type"); t != nil {
			return w.rustSegments(t)
		}
	case "scoped_identifier", "scoped_type_identifier":
		name := n.ChildByFieldName("name")
		if name == nil {
			return nil, nil, false
		}
		p := n.ChildByFieldName("path")
		if p == nil { // ::name, a path from the extern prelude
			return []string{w.text(name)}, name, true
		}
		ps, _, ok := w.rustSegments(p)
		if !ok {
			return nil, nil, false
		}
		return append(ps, w.text(name)), name, true
	}
	return nil, nil, false
}

// rustExpand turns a path as written into a full path from a crate root:
// crate::, self:: and super:: roots, names bound by use declarations and
// submodules of the current module are expanded; known is false when the
// first segment is none of those (an external crate, a glob-imported
// module, a type in scope).
func (w *walker) rustExpand(st *rustState, segs []string) (full []string, known bool) {
	m := st.mod()
	switch segs[0] {
	case "crate":
		return append([]string{st.crate}, segs[1:]...), true
	case "self":
		return append(strings.Split(m.path, "::"), segs[1:]...), true
	case "super":
		base := strings.Split(m.path, "::")
		i := 0
		for ; i < len(segs) && segs[i] == "super"; i++ {
			if len(base) > 1 {
				base = base[:len(base)-1]
			}
		}
		return append(base, segs[i:]...), true
	}
	if p, ok := st.lookup(segs[0]); ok {
		return append(strings.Split(p, "::"), segs[1:]...), true
	}
	if m.subs[segs[0]] {
		return append(strings.Split(m.path, "::"), segs...), true
	}
	return segs, false
}

// rustUseTree records the imports of a use declaration's tree under the
// path prefix (the full path of the enclosing braces, if any).
func (w *walker) rustUseTree(st *rustState, n *node, prefix []string) {
	switch w.typ(n) {
	case "use_list":
		for c := n.firstChild(); c != nil; c = c.nextSibling() {
			w.rustUseTree(st, c, prefix)
		}
	case "scoped_use_list":
		pre := prefix
		if p := n.ChildByFieldName("path"); p != nil {
			segs, _, ok := w.rustSegments(p)
			if !ok {
				return
			}
			pre = w.rustUsePath(st, prefix, segs)
			w.rustImportModule(st, p, pre)
		}
		if l := n.ChildByFieldName("list"); l != nil {
			w.rustUseTree(st, l, pre)
		}
	case "use_wildcard":
		full := prefix // {…, *}: a glob of the braces' module
		if p := n.NamedChild(0); p != nil {
			segs, _, ok := w.rustSegments(p)
			if !ok {
				return
			}
			full = w.rustUsePath(st, prefix, segs)
			w.rustImportModule(st, p, full)
		}
		if len(full) == 0 {
			return
		}
		if full[0] == st.crate && strings.Join(full, "::") == parentModule(st.mod().path) {
			st.mod().super = true
		}
		if !rustStdRoots[full[0]] {
			w.ff.Imports = append(w.ff.Imports, Import{Module: strings.Join(full, "::"), Name: "*", Range: rangeOf(n)})
		}
	case "use_as_clause":
		p, alias := n.ChildByFieldName("path"), n.ChildByFieldName("alias")
		if p != nil {
			w.rustBind(st, prefix, p, alias)
		}
	case "identifier", "scoped_identifier", "self", "crate", "super":
		w.rustBind(st, prefix, n, nil)
	}
}

// parentModule returns the module a module path is declared in.
func parentModule(p string) string {
	if i := strings.LastIndex(p, "::"); i >= 0 {
		return p[:i]
	}
	return p
}

// rustUsePath returns the full path of a use tree's path: inside braces it
// continues the prefix; otherwise it is expanded like any path.
func (w *walker) rustUsePath(st *rustState, prefix, segs []string) []string {
	if len(prefix) > 0 {
		return append(append([]string(nil), prefix...), segs...)
	}
	full, _ := w.rustExpand(st, segs)
	return full
}

// rustBind records one name a use declaration binds: the use's path p
// (relative to prefix) under its own last name or alias.
func (w *walker) rustBind(st *rustState, prefix []string, p, alias *node) {
	segs, last, ok := w.rustSegments(p)
	if !ok {
		return
	}
	var full []string
	if len(segs) == 1 && segs[0] == "self" && len(prefix) > 0 {
		full = prefix // {self, …}: the module of the braces
	} else {
		full = w.rustUsePath(st, prefix, segs)
	}
	local := full[len(full)-1]
	if alias != nil {
		local = w.text(alias)
		w.defNames[alias.StartByte()] = true
	}
	if local == "self" || local == "crate" || local == "super" || local == "_" {
		return
	}
	m := st.mod()
	if w.typ(p) == "scoped_identifier" {
		if pp := p.ChildByFieldName("path"); pp != nil {
			w.rustImportModule(st, pp, full[:len(full)-1])
		}
	}
	if rustStdRoots[full[0]] {
		m.std[local] = true
		return
	}
	m.uses[local] = strings.Join(full, "::")
	if len(segs) == 1 && segs[0] == "self" {
		w.ff.Imports = append(w.ff.Imports, Import{Local: local, Module: strings.Join(full, "::"), Range: rangeOf(last)})
		return
	}
	if len(full) < 2 {
		return // use some_crate;
	}
	w.ff.Imports = append(w.ff.Imports, Import{
		Local: local, Module: strings.Join(full[:len(full)-1], "::"), Name: full[len(full)-1], Range: rangeOf(last),
	})
	w.ff.Uses = append(w.ff.Uses, Use{Range: rangeOf(last), Name: local, Kind: UseBare, Import: true, Test: w.tests > 0})
}

// rustImportModule records the import of the module full, named at n: an
// import occurrence and an imports edge from the file's module.
func (w *walker) rustImportModule(st *rustState, n *node, full []string) {
	if len(full) == 0 {
		return
	}
	target := packageID("rust", strings.Join(full, "::"))
	w.ff.Occurrences = append(w.ff.Occurrences, graph.Occurrence{
		Path: w.ff.Document.Path, Range: rangeOf(n), Symbol: target,
		Roles: graph.RoleImport | graph.RoleReference | w.testRole(),
	})
	if target != st.self {
		w.ff.Edges = append(w.ff.Edges, graph.Edge{
			From: st.self, To: target, Kind: graph.EdgeImports,
			Confidence: ConfidenceDeclaration, Source: graph.SourceSyntax,
			Reason: ReasonDeclaration, Count: 1,
		})
	}
}

// rustSynth gives a module path an import of its own (its Local is the
// path itself, which no Rust name can be), so that a qualified use or a
// declared type can name the module as its qualifier.
func (w *walker) rustSynth(st *rustState, module string) {
	if !st.synth[module] {
		st.synth[module] = true
		w.ff.Imports = append(w.ff.Imports, Import{Local: module, Module: module})
	}
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
func (w *walker) rustGenerics(n *node) {
	tp := n.ChildByFieldName("type_parameters")
	if tp == nil {
		return
	}
	for c := tp.firstChild(); c != nil; c = c.nextSibling() {
		switch w.typ(c) {
		case "type_identifier":
			w.bindLocal(c)
		case "constrained_type_parameter":
			if l := c.ChildByFieldName("left"); l != nil && w.typ(l) == "type_identifier" {
				w.bindLocal(l)
			}
		case "optional_type_parameter", "const_parameter":
			if name := c.ChildByFieldName("name"); name != nil {
				w.bindLocal(name)
			}
		}
	}
}

// rustImplType returns the symbol of the type an impl block is for and the
// module it is declared in: the type as written, expanded through the
// module's use declarations ("_" when it has no name: a tuple, a slice).
func (w *walker) rustImplType(st *rustState, t *node) (id, pkg string) {
	for t != nil {
		switch w.typ(t) {
		case "reference_type", "pointer_type":
			t = t.ChildByFieldName("type")
			continue
		case "generic_type":
			t = t.ChildByFieldName("type")
			continue
		case "primitive_type":
			return w.id(w.text(t)), w.pkg
		case "type_identifier", "scoped_type_identifier":
			segs, _, ok := w.rustSegments(t)
			if !ok {
				break
			}
			full, known := w.rustExpand(st, segs)
			if !known || len(full) < 2 {
				return w.id(segs[len(segs)-1]), w.pkg
			}
			pkg := strings.Join(full[:len(full)-1], "::")
			return "syntax rust " + pkg + " " + full[len(full)-1], pkg
		}
		break
	}
	return w.id("_"), w.pkg
}

// rustTypeExpr returns a declared type as the resolver reads it: "T" for
// a type in scope, "MODULE.T" for a path to a type (MODULE given an import
// by rustSynth), "Self" inside an impl; through references, pointers,
// Box/Rc/Arc, generic arguments, dyn and impl Trait. "" for any other type.
func (w *walker) rustTypeExpr(st *rustState, t *node) string {
	for t != nil {
		switch w.typ(t) {
		case "reference_type", "pointer_type":
			t = t.ChildByFieldName("type")
		case "dynamic_type", "abstract_type":
			t = t.ChildByFieldName("trait")
		case "generic_type":
			base := t.ChildByFieldName("type")
			if base != nil && w.typ(base) == "type_identifier" {
				switch w.text(base) {
				case "Box", "Rc", "Arc":
					if args := t.ChildByFieldName("type_arguments"); args != nil && args.NamedChildCount() > 0 {
						t = args.NamedChild(0)
						continue
					}
				}
			}
			t = base
		case "type_identifier":
			name := w.text(t)
			if w.isLocal(name) || (name != "Self" && st.skipName(name)) {
				return ""
			}
			return name
		case "scoped_type_identifier":
			return w.rustPathType(st, t)
		default:
			return ""
		}
	}
	return ""
}

// rustPathType returns the type a path names, as rustTypeExpr writes it,
// or "" when its owner is a type (an associated type) or unknown.
func (w *walker) rustPathType(st *rustState, p *node) string {
	segs, _, ok := w.rustSegments(p)
	if !ok || rustStdRoots[segs[0]] {
		return ""
	}
	if len(segs) == 1 {
		if w.isLocal(segs[0]) || (segs[0] != "Self" && st.skipName(segs[0])) {
			return ""
		}
		return segs[0]
	}
	full, _ := w.rustExpand(st, segs)
	if isCapitalized(full[len(full)-2]) {
		return ""
	}
	module := strings.Join(full[:len(full)-1], "::")
	w.rustSynth(st, module)
	return module + "." + full[len(full)-1]
}

// rustValueType guesses the type of a let binding's value: T for T {…}
// and T::f(…) (by convention, associated functions returning Self).
func (w *walker) rustValueType(st *rustState, v *node) string {
	for v != nil && w.typ(v) == "reference_expression" {
		v = v.ChildByFieldName("value")
	}
	if v == nil {
		return ""
	}
	switch w.typ(v) {
	case "struct_expression":
		name := v.ChildByFieldName("name")
		if name == nil {
			return ""
		}
		if w.typ(name) == "scoped_type_identifier" { // Enum::Variant {…}
			if p := name.ChildByFieldName("path"); p != nil && isCapitalized(w.text(p.lastSegment(w))) {
				return w.rustPathType(st, p)
			}
		}
		return w.rustPathType(st, name)
	case "call_expression":
		f := v.ChildByFieldName("function")
		if f == nil || w.typ(f) != "scoped_identifier" {
			return ""
		}
		if p := f.ChildByFieldName("path"); p != nil && isCapitalized(w.text(p.lastSegment(w))) {
			return w.rustPathType(st, p)
		}
	}
	return ""
}

// lastSegment returns the node of a path's last segment.
func (n *node) lastSegment(w *walker) *node {
	switch w.typ(n) {
	case "scoped_identifier", "scoped_type_identifier":
		if name := n.ChildByFieldName("name"); name != nil {
			return name
		}
	case "generic_type":
		if t := n.ChildByFieldName("type"); t != nil {
			return t.lastSegment(w)
		}
	}
	return n
}

// rustBindPattern binds the names a pattern introduces; typ is the
// declared type of a plain binding. Capitalised names in patterns are
// constants and unit variants, not bindings.
func (w *walker) rustBindPattern(p *node, typ string) {
	if p == nil {
		return
	}
	switch w.typ(p) {
	case "identifier":
		if !isCapitalized(w.text(p)) {
			w.bindLocalTyped(p, typ)
		}
	case "mut_pattern", "ref_pattern":
		for c := p.firstChild(); c != nil; c = c.nextSibling() {
			w.rustBindPattern(c, typ)
		}
	case "tuple_pattern", "slice_pattern", "or_pattern", "reference_pattern", "captured_pattern",
		"match_pattern", "tuple_struct_pattern", "struct_pattern":
		for c := p.firstChild(); c != nil; c = c.nextSibling() {
			if c.field() != "type" && c.field() != "condition" {
				w.rustBindPattern(c, "")
			}
		}
	case "field_pattern":
		if pat := p.ChildByFieldName("pattern"); pat != nil {
			w.rustBindPattern(pat, "")
		} else if name := p.ChildByFieldName("name"); name != nil {
			w.bindLocal(name) // Variant { x }: binds x
		}
	}
}

// rustPathUse records a path a::b::name used in code: a member of a type
// when the segment before name is a type (T::f, Enum::Variant, Self::f),
// else a name of a module. typ marks a path in a type position. It
// reports whether the path was handled (its nodes need no further visit).
func (w *walker) rustPathUse(st *rustState, n *node, call, typ bool) bool {
	segs, nameNode, ok := w.rustSegments(n)
	if !ok || len(segs) < 2 {
		return false
	}
	w.defNames[nameNode.StartByte()] = true
	prefix, pathNode := segs[:len(segs)-1], n.ChildByFieldName("path")
	if rustStdRoots[prefix[0]] || (len(prefix) == 1 && prefix[0] != "Self" && st.skipName(prefix[0])) {
		return true
	}
	if len(prefix) == 1 && prefix[0] == "Self" {
		if t, _ := w.innerType(); t != "" {
			w.use(nameNode, UseMember, t, call, false)
		}
		return true
	}
	full, known := w.rustExpand(st, prefix)
	if last := full[len(full)-1]; isCapitalized(last) {
		q := last
		if known && len(full) > 1 {
			module := strings.Join(full[:len(full)-1], "::")
			w.rustSynth(st, module)
			q = module + "." + last
		} else if w.isLocal(last) {
			return true // T::f with T a type parameter
		}
		w.use(nameNode, UseTyped, q, call, false)
		if pathNode != nil {
			w.rustTypeRef(st, pathNode)
		}
		return true
	}
	if !known && len(full) == 1 && w.isLocal(full[0]) {
		return true
	}
	module := strings.Join(full, "::")
	w.rustSynth(st, module)
	w.use(nameNode, UseQualified, module, call, typ)
	return true
}

// rustTypeRef records the type a path names (the T of T::f) as a type use.
func (w *walker) rustTypeRef(st *rustState, p *node) {
	switch w.typ(p) {
	case "identifier", "type_identifier":
		name := w.text(p)
		if !w.isLocal(name) && !st.skipName(name) {
			w.use(p, UseBare, "", false, true)
		}
	case "scoped_identifier", "scoped_type_identifier":
		w.rustPathUse(st, p, false, true)
	case "generic_type":
		if t := p.ChildByFieldName("type"); t != nil {
			w.rustTypeRef(st, t)
		}
	}
}

// rustTokenTree records the uses a macro's arguments spell, read from the
// tokens as text: name(…) a call, x.name a member (of self, of a typed
// local, or of anything), a::name a path, any other name a use.
func (w *walker) rustTokenTree(st *rustState, tt *node) {
	var prev *node
	var chain []*node // a path being read: a::b::c
	for c := tt.firstChild(); c != nil; prev, c = c, c.nextSibling() {
		t := w.typ(c)
		if t == "token_tree" {
			w.rustTokenTree(st, c)
			chain = nil
			continue
		}
		if t != "identifier" && t != "self" && t != "super" && t != "crate" {
			chain = nil
			continue
		}
		start := min(tt.StartByte()+1, c.StartByte())
		if prev != nil {
			start = prev.EndByte()
		}
		before := strings.TrimSpace(string(w.src[start:c.StartByte()]))
		after := strings.TrimLeft(string(w.src[c.EndByte():min(int(c.EndByte())+8, int(tt.EndByte()))]), " \t\r\n")
		call := strings.HasPrefix(after, "(")
		if before == "::" && len(chain) > 0 {
			chain = append(chain, c)
		} else {
			chain = []*node{c}
		}
		if t != "identifier" || strings.HasPrefix(after, "::") || strings.HasPrefix(after, "!") {
			continue // the path goes on, or a macro
		}
		name := w.text(c)
		switch {
		case before == "." && prev != nil && (w.typ(prev) == "self" || w.typ(prev) == "identifier"):
			w.defNames[c.StartByte()] = true
			w.rustMemberUse(c, prev, call)
		case before == ".":
			w.use(c, UseSelector, "", call, false)
		case len(chain) > 1:
			w.rustTokenPath(st, chain, call)
		case rustKeywords[name] || w.isLocal(name) || st.skipName(name) || !(call || isCapitalized(name)):
			// a keyword, a local, the prelude's; a lower-case name not
			// called is most likely a binding or a field name
		default:
			w.use(c, UseBare, "", call, false)
		}
		chain = nil
	}
}

// rustKeywords are the keywords a token tree may hold as identifiers.
var rustKeywords = map[string]bool{"let": true, "mut": true, "ref": true, "as": true, "in": true, "if": true,
	"else": true, "match": true, "for": true, "while": true, "loop": true, "return": true, "move": true,
	"fn": true, "struct": true, "enum": true, "impl": true, "pub": true, "use": true, "where": true}

// rustTokenPath records a path read from tokens: a::b::name.
func (w *walker) rustTokenPath(st *rustState, chain []*node, call bool) {
	segs := make([]string, len(chain))
	for i, c := range chain {
		segs[i] = w.text(c)
	}
	prefix, nameNode := segs[:len(segs)-1], chain[len(chain)-1]
	if rustStdRoots[prefix[0]] || (len(prefix) == 1 && prefix[0] != "Self" && st.skipName(prefix[0])) {
		return
	}
	if len(prefix) == 1 && prefix[0] == "Self" {
		if t, _ := w.innerType(); t != "" {
			w.use(nameNode, UseMember, t, call, false)
		}
		return
	}
	full, known := w.rustExpand(st, prefix)
	if last := full[len(full)-1]; isCapitalized(last) {
		q := last
		if known && len(full) > 1 {
			module := strings.Join(full[:len(full)-1], "::")
			w.rustSynth(st, module)
			q = module + "." + last
		}
		w.use(nameNode, UseTyped, q, call, false)
		if len(prefix) == 1 && !w.isLocal(last) {
			w.use(chain[0], UseBare, "", false, true)
		}
		return
	}
	module := strings.Join(full, "::")
	w.rustSynth(st, module)
	w.use(nameNode, UseQualified, module, call, false)
}

// rustMemberUse records obj.name: a member of the enclosing impl's type
// for self, of a local's declared type, or of an unknown type.
func (w *walker) rustMemberUse(name, obj *node, call bool) {
	if w.typ(obj) == "self" {
		if t, _ := w.innerType(); t != "" {
			w.use(name, UseMember, t, call, false)
			return
		}
	} else if lt, _ := w.localType(w.text(obj)); lt == "Self" {
		if t, _ := w.innerType(); t != "" {
			w.use(name, UseMember, t, call, false)
			return
		}
	} else if lt != "" {
		w.use(name, UseTyped, lt, call, false)
		return
	}
	w.use(name, UseSelector, "", call, false)
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

func (w *walker) visitRustNode(st *rustState, n *node, t string) (bool, func()) {
	switch t {
	case "string_literal", "raw_string_literal", "char_literal",
		"integer_literal", "float_literal", "boolean_literal", "inner_attribute_item",
		"visibility_modifier", "lifetime", "label", "use_declaration", "extern_crate_declaration",
		"self_parameter", "primitive_type", "metavariable":
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
			w.rustGenerics(n)
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
		w.rustGenerics(n)
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
		w.rustGenerics(n)
		typ, pkg := w.rustImplType(st, n.ChildByFieldName("type"))
		trait, body := n.ChildByFieldName("trait"), n.ChildByFieldName("body")
		for c := n.firstChild(); c != nil; c = c.nextSibling() {
			if c != trait && c != body {
				w.walk(c, st.visit)
			}
		}
		leave := w.push(scope{sym: typ, typ: typ})
		if trait != nil {
			w.walk(trait, st.visit)
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
		w.defNames[name.StartByte()] = true
		list := n.Parent()
		if list == nil || list.Parent() == nil {
			return true, nil
		}
		if owner := w.typ(list.Parent()); owner != "struct_item" && owner != "union_item" {
			return true, nil // a field of an enum variant
		}
		typ, _ := w.innerType()
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
				st.callee[f.StartByte()] = true
			case "scoped_identifier":
				if name := f.ChildByFieldName("name"); name != nil {
					st.callee[name.StartByte()] = true
				}
			case "field_expression":
				if field := f.ChildByFieldName("field"); field != nil {
					st.callee[field.StartByte()] = true
				}
			}
		}
		return true, nil

	case "field_expression":
		val, field := n.ChildByFieldName("value"), n.ChildByFieldName("field")
		if field == nil || val == nil || w.typ(field) != "field_identifier" {
			return true, nil
		}
		w.rustMemberUse(field, val, st.callee[field.StartByte()])
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
		return !w.rustPathUse(st, n, st.callee[n.lastSegment(w).StartByte()], false), nil

	case "scoped_type_identifier":
		return !w.rustPathUse(st, n, false, true), nil

	case "identifier":
		if w.defNames[n.StartByte()] {
			return false, nil
		}
		name := w.text(n)
		if !w.isLocal(name) && !st.skipName(name) {
			w.use(n, UseBare, "", st.callee[n.StartByte()], false)
		}
		return false, nil

	case "type_identifier":
		if w.defNames[n.StartByte()] {
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
	ls := strings.LastIndexByte(string(w.src[:n.StartByte()]), '\n') + 1
	var lines []string
	for ls > 0 {
		pls := strings.LastIndexByte(string(w.src[:ls-1]), '\n') + 1
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

// rustReexported keeps the candidates for a name a Rust path or use
// declaration takes from a module that does not define it, most often a
// re-export (pub use): the definitions of that name anywhere in the same
// crate, members left out. A module outside the workspace has none.
func rustReexported(module string) func(*graph.Symbol) bool {
	crate, _, _ := strings.Cut(module, "::")
	return func(s *graph.Symbol) bool {
		return !isMember(*s) && (s.Package == crate || strings.HasPrefix(s.Package, crate+"::"))
	}
}
