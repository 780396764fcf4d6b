package syntax

import (
	"strings"

	"github.com/lspgraph/lspgraph/graph"
)

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
		w.defNames.add(alias.StartByte())
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

// rustImplType returns the symbol of the type an impl block is for and the
// module it is declared in: the type as written, expanded through the
// module's use declarations ("_" when it has no name: a tuple, a slice).
func (w *walker) rustImplType(st *rustState, t *node) (id, pkg string) {
	for t != nil {
		switch w.typ(t) {
		case "reference_type", "pointer_type":
			t = t.ChildByFieldName("type")
			continue
		case "dynamic_type": // impl dyn Trait {…}
			t = t.ChildByFieldName("trait")
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
			if bound, local := w.localType(name); local {
				return bound // a type parameter: its trait bound, if any
			}
			if name != "Self" && st.skipName(name) {
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
	w.defNames.add(nameNode.StartByte())
	w.rustPath(st, segs, nameNode, call, typ, func() {
		if p := n.ChildByFieldName("path"); p != nil {
			w.rustTypeRef(st, p)
		}
	})
	return true
}

// rustPath records the use of the last of segs, named at nameNode; typeRef
// records the use of the type before it, when that is a type.
func (w *walker) rustPath(st *rustState, segs []string, nameNode *node, call, typ bool, typeRef func()) {
	prefix := segs[:len(segs)-1]
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
	if !known && len(full) == 1 && w.isLocal(full[0]) {
		return // T::f with T a type parameter, or a local
	}
	if last := full[len(full)-1]; isCapitalized(last) {
		q := last
		if known && len(full) > 1 {
			module := strings.Join(full[:len(full)-1], "::")
			w.rustSynth(st, module)
			q = module + "." + last
		}
		w.use(nameNode, UseTyped, q, call, false)
		typeRef()
		return
	}
	module := strings.Join(full, "::")
	w.rustSynth(st, module)
	w.use(nameNode, UseQualified, module, call, typ)
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
			w.defNames.add(c.StartByte())
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
	w.rustPath(st, segs, chain[len(chain)-1], call, false, func() {
		if len(chain) == 2 {
			w.rustTypeRef(st, chain[0])
		}
	})
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

// rustReexported keeps the candidates for a name a Rust path or use
// declaration takes from a module that does not define it, most often a
// re-export (pub use): the definitions of that name anywhere in the same
// crate, members left out. A module outside the workspace has none.
func rustReexported(module string) func(*definition) bool {
	crate, _, _ := strings.Cut(module, "::")
	return func(s *definition) bool {
		return !isMember(s) && (s.Package == crate || strings.HasPrefix(s.Package, crate+"::"))
	}
}
