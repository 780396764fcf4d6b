package syntax

// Supertypes: a type's declaration names the interfaces, traits or base
// classes it implements (Java, Python, Rust, TypeScript/JavaScript). The generic walk makes ordinary type uses of
// those names; markSupertypes turns them into implements uses, which
// resolution makes into implements edges from the type to each supertype
// and from each of the declaration's methods to the supertype's method of
// the same name. Impact follows those edges from an interface method to
// its implementations.

// supertypeName returns the node that names a supertype as written: the
// last identifier of a qualified name, without type arguments.
func (w *walker) supertypeName(n *node) *node {
	for n != nil {
		switch w.typ(n) {
		case "type_identifier", "identifier", "property_identifier":
			return n
		case "generic_type":
			if t := n.ChildByFieldName("type"); t != nil {
				n = t
			} else {
				n = n.NamedChild(0)
			}
		case "scoped_type_identifier", "scoped_identifier":
			n = n.ChildByFieldName("name")
		case "attribute": // Python's pkg.Base
			n = n.ChildByFieldName("attribute")
		case "member_expression": // TS/JS pkg.Base
			n = n.ChildByFieldName("property")
		case "nested_type_identifier": // TS ns.Base in a type
			n = n.ChildByFieldName("name")
		default:
			return nil
		}
	}
	return nil
}

// methodNames returns the names of the methods defined directly in a
// class, trait-impl or interface body.
func (w *walker) methodNames(body *node) []string {
	var out []string
	for c := body.firstChild(); c != nil; c = c.nextSibling() {
		d := c
		if w.typ(d) == "decorated_definition" { // Python
			d = d.ChildByFieldName("definition")
		}
		if d == nil {
			continue
		}
		switch w.typ(d) {
		case "function_item", "function_signature_item", "method_declaration", "function_definition",
			"method_definition", "method_signature", "abstract_method_signature":
			if name := d.ChildByFieldName("name"); name != nil {
				out = append(out, w.text(name))
			}
		}
	}
	return out
}

// leaveSupertypes returns what leaves the type declaration decl, whose
// supertypes are named by supers, once its descendants are walked: the
// uses naming them are marked with the methods of decl's body, then leave
// runs. Without supertypes it is leave itself.
func (w *walker) leaveSupertypes(decl *node, supers []*node, leave func()) func() {
	if len(supers) == 0 {
		return leave
	}
	from := len(w.ff.Uses)
	return func() {
		var methods []string
		if body := decl.ChildByFieldName("body"); body != nil {
			methods = w.methodNames(body)
		}
		w.markSupertypes(from, supers, methods)
		leave()
	}
}

// markSupertypes marks the uses made since from whose range is one of
// names' as implements uses of the enclosing type, with members.
func (w *walker) markSupertypes(from int, names []*node, members []string) {
	if len(names) == 0 {
		return
	}
	// The supertypes come before the body, so their uses are among the
	// first made since from.
	found := 0
	for i := from; i < len(w.ff.Uses) && found < len(names); i++ {
		u := &w.ff.Uses[i]
		for _, n := range names {
			if u.Range == rangeOf(n) {
				u.Implements, u.Members = true, members
				found++
				break
			}
		}
	}
}
