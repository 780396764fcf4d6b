package syntax

import (
	"context"
	"strconv"
	"strings"
)

// Go local type inference. The walk writes the type of an expression as a
// chain the resolver evaluates against the definitions it knows (this
// index's and the graph's), so that x.M finds M when x comes from a call,
// a field, an element or a conversion, not only from a declaration:
//
//	T, pkg.T, []T, map[]pkg.T   a type as written (a collection of it)
//	F(), pkg.F()               the first result of calling F (a conversion when F is a type)
//	…#K                        the K-th result of the call just before
//	…:f                        field f of the type so far
//	…:M()                      the first result of calling method M of the type so far
//	…:[]                       an element of the collection so far
//
// For example, after `d, _ := pebble.Open(…)`, `it := d.NewIter(nil)`
// gives `it` the type "pebble.Open()#0:NewIter()". The declared types the
// chain steps through are kept in the Signatures of Go symbols:
//
//	field             "name PKGPATH.T"         ([]/map[] in front for collections)
//	function, method  "Name() R0 R1 …"        a qualified type per result, "_" for others; unset when no result is named
//	type              "embeds PKGPATH.A …"     embedded fields and interfaces, an alias's target
const (
	wrapSlice = "[]"    // a slice or array of the type that follows
	wrapMap   = "map[]" // a map to the type that follows
	stepElem  = ":[]"   // an element of the collection before
	callMark  = "()"    // a call's first result
	embedMark = "embeds "
	// maxTypeChain caps the length of an inferred type: past it, the
	// type is left unknown.
	maxTypeChain = 256
)

// splitWrap splits the collection prefix off a type as written.
func splitWrap(te string) (wrap, rest string) {
	rest = te
	for {
		switch {
		case strings.HasPrefix(rest, wrapSlice):
			rest = rest[len(wrapSlice):]
		case strings.HasPrefix(rest, wrapMap):
			rest = rest[len(wrapMap):]
		default:
			return te[:len(te)-len(rest)], rest
		}
	}
}

// unwrapOne drops the outermost collection of a prefix; ok is false when
// there is none.
func unwrapOne(wrap string) (string, bool) {
	if s, ok := strings.CutPrefix(wrap, wrapSlice); ok {
		return s, true
	}
	if s, ok := strings.CutPrefix(wrap, wrapMap); ok {
		return s, true
	}
	return wrap, false
}

// setSignature sets the Signature of the symbol just defined as id.
func (w *walker) setSignature(id, sig string) {
	if last := len(w.ff.Symbols) - 1; sig != "" && last >= 0 && w.ff.Symbols[last].ID == id {
		w.ff.Symbols[last].Signature = sig
	}
}

// addEmbedded records that the type typeID (defined in this file) embeds
// the qualified type emb.
func (w *walker) addEmbedded(typeID, emb string) {
	if emb == "" {
		return
	}
	for k := len(w.ff.Symbols) - 1; k >= 0; k-- {
		if s := &w.ff.Symbols[k]; s.ID == typeID {
			if s.Signature == "" {
				s.Signature = embedMark + emb
			} else {
				s.Signature += " " + emb
			}
			return
		}
	}
}

// goResults returns the Signature of a function or method declaration n
// named name: its result types qualified, or "" when none is a named type.
func (w *walker) goResults(st *goState, name string, n *node) string {
	res := n.ChildByFieldName("result")
	if res == nil {
		return ""
	}
	var tparams []string
	if tp := n.ChildByFieldName("type_parameters"); tp != nil {
		for _, d := range w.children(tp) {
			for _, nm := range w.childrenOfField(d, "name") {
				tparams = append(tparams, w.text(nm))
			}
		}
	}
	qualify := func(t *node) string {
		te := w.goTypeExpr(st, t)
		_, base := splitWrap(te)
		for _, p := range tparams {
			if base == p {
				return "_"
			}
		}
		if q := w.goQualify(st, te); q != "" {
			return q
		}
		return "_"
	}
	var results []string
	if w.typ(res) == "parameter_list" {
		for _, d := range w.children(res) {
			if w.typ(d) != "parameter_declaration" {
				continue
			}
			q := qualify(d.ChildByFieldName("type"))
			for range max(1, len(w.childrenOfField(d, "name"))) {
				results = append(results, q)
			}
		}
	} else {
		results = append(results, qualify(res))
	}
	named := false
	for _, r := range results {
		named = named || r != "_"
	}
	if !named {
		return ""
	}
	return name + callMark + " " + strings.Join(results, " ")
}

// bindGoValues binds the names of `names := values` (or `var names =
// values`) in the innermost function, each with the type inferred from its
// value: one value per name, or the K-th result of a single call, or the
// value of `v, ok := x.(T)` and `v, ok := m[k]`.
func (w *walker) bindGoValues(st *goState, names, values []*node) {
	for i, c := range names {
		if w.typ(c) != "identifier" {
			continue
		}
		typ := ""
		switch {
		case len(values) == len(names):
			typ = w.goExprType(st, values[i])
		case len(values) == 1 && w.typ(values[0]) == "call_expression":
			if et := w.goExprType(st, values[0]); strings.HasSuffix(et, callMark) {
				typ = et + "#" + strconv.Itoa(i)
			}
		case len(values) == 1 && i == 0:
			if t := w.typ(values[0]); t == "type_assertion_expression" || t == "index_expression" {
				typ = w.goExprType(st, values[0])
			}
		}
		w.bindLocalTyped(c, typ)
	}
}

// goExprType returns the type of a Go expression as a chain (see above),
// or "" when the walk cannot follow it.
func (w *walker) goExprType(st *goState, n *node) string {
	t := w.goExprChain(st, n)
	if len(t) > maxTypeChain {
		return ""
	}
	return t
}

func (w *walker) goExprChain(st *goState, n *node) string {
	if n == nil {
		return ""
	}
	switch w.typ(n) {
	case "identifier":
		t, _ := w.localType(w.text(n))
		return t
	case "parenthesized_expression":
		return w.goExprChain(st, n.NamedChild(0))
	case "unary_expression":
		// &x and *x have x's type (pointers are not told apart).
		if o := w.src[n.StartByte()]; (o == '&' || o == '*') && n.NamedChildCount() == 1 {
			return w.goExprChain(st, n.NamedChild(0))
		}
		return ""
	case "composite_literal":
		return w.goTypeExpr(st, n.ChildByFieldName("type"))
	case "type_assertion_expression":
		return w.goTypeExpr(st, n.ChildByFieldName("type"))
	case "selector_expression":
		if n.NamedChildCount() != 2 {
			return ""
		}
		operand, field := n.NamedChild(0), n.NamedChild(1)
		if w.isPackage(st, operand) {
			return "" // a package-level variable: its type is not kept
		}
		if et := w.goExprChain(st, operand); et != "" {
			return et + ":" + w.text(field)
		}
		return ""
	case "index_expression":
		if et := w.goExprChain(st, n.ChildByFieldName("operand")); et != "" {
			return et + stepElem
		}
		return ""
	case "call_expression":
		return w.goCallType(st, n)
	}
	return ""
}

// goPointerTypeOperand returns T for the operand (*T) of a method
// expression (*T).M, T a type of the package: an identifier that is
// neither local, predeclared nor an import. Otherwise "".
func (w *walker) goPointerTypeOperand(st *goState, n *node) string {
	if w.typ(n) != "parenthesized_expression" || n.NamedChildCount() != 1 {
		return ""
	}
	u := n.NamedChild(0)
	if w.typ(u) != "unary_expression" || w.src[u.StartByte()] != '*' || u.NamedChildCount() != 1 {
		return ""
	}
	id := u.NamedChild(0)
	if w.typ(id) != "identifier" {
		return ""
	}
	name := w.text(id)
	if goPredeclared[name] || w.isLocal(name) || st.imports[name] {
		return ""
	}
	return name
}

// isPackage reports whether n is an identifier naming an import.
func (w *walker) isPackage(st *goState, n *node) bool {
	if w.typ(n) != "identifier" {
		return false
	}
	q := w.text(n)
	return st.imports[q] && !w.isLocal(q)
}

// goCallType returns the type of a call's first result: F(), pkg.F(),
// x.M() or a conversion; new(T) is T.
func (w *walker) goCallType(st *goState, n *node) string {
	fn := n.ChildByFieldName("function")
	if fn == nil {
		return ""
	}
	switch w.typ(fn) {
	case "identifier":
		name := w.text(fn)
		if name == "new" {
			if args := n.ChildByFieldName("arguments"); args != nil && args.NamedChildCount() == 1 {
				a := args.NamedChild(0)
				if w.typ(a) == "identifier" { // new(T) parses T as an expression
					if name := w.text(a); !goPredeclared[name] && !w.isLocal(name) {
						return name
					}
					return ""
				}
				return w.goTypeExpr(st, a)
			}
			return ""
		}
		if goPredeclared[name] || w.isLocal(name) {
			return ""
		}
		return name + callMark
	case "selector_expression":
		if fn.NamedChildCount() != 2 {
			return ""
		}
		operand, field := fn.NamedChild(0), fn.NamedChild(1)
		if w.isPackage(st, operand) {
			return w.text(operand) + "." + w.text(field) + callMark
		}
		if et := w.goExprChain(st, operand); et != "" {
			return et + ":" + w.text(field) + callMark
		}
	case "parenthesized_expression": // (*T)(x)
		return w.goTypeExpr(st, fn.NamedChild(0))
	}
	return ""
}

// goType is a type a Go expression has: a type symbol under zero or more
// collections (wrap), with the confidence of the steps that found it.
type goType struct {
	id         string
	wrap       string
	confidence float64
	reason     string
}

// parseGoCall splits "F()#K" into F and K; ok is false when s is not a call.
func parseGoCall(s string) (name string, k int, ok bool) {
	i := strings.Index(s, callMark)
	if i < 0 {
		return "", 0, false
	}
	name, rest := s[:i], s[i+len(callMark):]
	if r, found := strings.CutPrefix(rest, "#"); found {
		n, err := strconv.Atoi(r)
		if err != nil {
			return "", 0, false
		}
		k = n
	}
	return name, k, true
}

// qualifiedGoType turns a qualified type ("[]PKGPATH.T") into its symbol
// id and collection prefix.
func qualifiedGoType(q string) (id, wrap string, ok bool) {
	wrap, q = splitWrap(q)
	j := strings.LastIndexByte(q, '.')
	if j <= 0 || j == len(q)-1 {
		return "", "", false
	}
	return "syntax go " + q[:j] + " " + q[j+1:], wrap, true
}

// goResultType returns the K-th result type of a function's Signature.
func goResultType(sig string, k int) (string, bool) {
	i := strings.Index(sig, callMark+" ")
	if i < 0 {
		return "", false
	}
	rest := sig[i+len(callMark)+1:]
	for {
		res, more, found := strings.Cut(rest, " ")
		if k == 0 {
			return res, res != "_" && res != ""
		}
		if !found {
			return "", false
		}
		k, rest = k-1, more
	}
}

// goFieldType returns the declared type of a field's Signature.
func goFieldType(sig string) (string, bool) {
	i := strings.LastIndexByte(sig, ' ')
	if i < 0 {
		return "", false
	}
	return sig[i+1:], true
}

// weaker returns the confidence and reason of the weaker of two steps.
func weaker(c float64, reason string, c2 float64, reason2 string) (float64, string) {
	if c2 < c {
		return c2, reason2
	}
	return c, reason
}

// promotedRule returns the rule of a member found on a type of confidence
// c: the promoted-member rule when it was promoted through an embedded
// field, at most as strong as c.
func promotedRule(c float64, reason string, promoted bool) (float64, string) {
	if !promoted {
		return c, reason
	}
	return min(c, ConfidencePromoted), ReasonPromoted
}

// goExprTypes evaluates the type chain of a UseTyped Go use, once per
// document and chain.
func (r *Resolver) goExprTypes(ctx context.Context, f *FileFacts, u *Use, imports map[string]Import, b *resolveBuffers) ([]goType, error) {
	if ts, ok := b.goTypes[u.Qualifier]; ok {
		return ts, nil
	}
	ts, err := r.evalGoChain(ctx, f, u, imports)
	if err != nil {
		return nil, err
	}
	if b.goTypes == nil {
		b.goTypes = map[string][]goType{}
	}
	b.goTypes[u.Qualifier] = ts
	return ts, nil
}

// evalGoChain evaluates a type chain step by step. A chain that is a type
// as written gives the declared-type rule; any other, the inferred-type
// rule, each step as strong as the weakest before it.
func (r *Resolver) evalGoChain(ctx context.Context, f *FileFacts, u *Use, imports map[string]Import) ([]goType, error) {
	base, rest, chained := strings.Cut(u.Qualifier, ":")
	scratch := &resolveBuffers{}
	var cur []goType
	if name, k, ok := parseGoCall(base); ok {
		cu := Use{Range: u.Range, Name: name, Kind: UseBare, Call: true, Enclosing: u.Enclosing}
		if q, n, ok := strings.Cut(name, "."); ok {
			cu.Kind, cu.Qualifier, cu.Name = UseQualified, q, n
		}
		targets, err := r.resolveUse(ctx, f, &cu, imports, nil, scratch)
		if err != nil {
			return nil, err
		}
		ext, err := r.externalNamed(ctx, cu.Name)
		if err != nil {
			return nil, err
		}
		for _, t := range targets {
			s, ok := r.symbolOf(f, t.id, ext)
			if !ok {
				continue
			}
			c, reason := weaker(ConfidenceInferred, ReasonInferred, t.confidence, t.reason)
			if isTypeLike(s) { // a conversion
				cur = append(cur, goType{s.ID, "", c, reason})
				continue
			}
			if res, ok := goResultType(s.Signature, k); ok {
				if id, wrap, ok := qualifiedGoType(res); ok {
					cur = append(cur, goType{id, wrap, c, reason})
				}
			}
		}
	} else {
		wrap, te := splitWrap(base)
		tu := Use{Range: u.Range, Name: te, Kind: UseBare, Type: true, Enclosing: u.Enclosing}
		if q, name, ok := strings.Cut(te, "."); ok {
			if _, imported := imports[q]; !imported {
				return nil, nil
			}
			tu.Kind, tu.Qualifier, tu.Name = UseQualified, q, name
		}
		types, err := r.resolveUse(ctx, f, &tu, imports, nil, scratch)
		if err != nil {
			return nil, err
		}
		rule, ruleReason := ConfidenceDeclared, ReasonDeclared
		if chained {
			rule, ruleReason = ConfidenceInferred, ReasonInferred
		}
		for _, t := range types {
			c, reason := weaker(rule, ruleReason, t.confidence, t.reason)
			cur = append(cur, goType{t.id, wrap, c, reason})
		}
	}
	for chained && len(cur) > 0 {
		var step string
		step, rest, chained = strings.Cut(rest, ":")
		var next []goType
		for _, t := range cur {
			if step == "[]" {
				if wrap, ok := unwrapOne(t.wrap); ok {
					t.wrap = wrap
					next = append(next, t)
				}
				continue
			}
			if t.wrap != "" {
				continue
			}
			name, k, call := parseGoCall(step)
			if !call {
				name = step
			}
			m, promoted, err := r.goMember(ctx, f, t.id, name, 0)
			if err != nil {
				return nil, err
			}
			var q string
			var ok bool
			switch {
			case m == nil:
			case call && m.Kind == "method":
				q, ok = goResultType(m.Signature, k)
			case !call && m.Kind == "field":
				q, ok = goFieldType(m.Signature)
			}
			if !ok {
				continue
			}
			id, wrap, ok := qualifiedGoType(q)
			if !ok {
				continue
			}
			c, reason := promotedRule(t.confidence, t.reason, promoted)
			next = append(next, goType{id, wrap, c, reason})
		}
		cur = next
	}
	return cur, nil
}

// maxEmbedDepth bounds the embedded fields followed to find a promoted
// member.
const maxEmbedDepth = 3

// goMember finds the member name of the Go type typeID, directly or
// promoted through its embedded fields (promoted is then true).
func (r *Resolver) goMember(ctx context.Context, f *FileFacts, typeID, name string, depth int) (*definition, bool, error) {
	ext, err := r.externalNamed(ctx, name)
	if err != nil {
		return nil, false, err
	}
	var key [128]byte
	if s, ok := r.symbolByID(f, memberID(key[:0], typeID, name), ext); ok {
		return s, false, nil
	}
	if depth >= maxEmbedDepth {
		return nil, false, nil
	}
	display := typeID[strings.LastIndexByte(typeID, ' ')+1:]
	tsyms, err := r.externalNamed(ctx, display)
	if err != nil {
		return nil, false, err
	}
	ts, ok := r.symbolOf(f, typeID, tsyms)
	if !ok {
		return nil, false, nil
	}
	embedded, ok := strings.CutPrefix(ts.Signature, embedMark)
	if !ok {
		return nil, false, nil
	}
	for embedded != "" {
		var e string
		e, embedded, _ = strings.Cut(embedded, " ")
		id, wrap, ok := qualifiedGoType(e)
		if !ok || wrap != "" || id == typeID {
			continue
		}
		s, _, err := r.goMember(ctx, f, id, name, depth+1)
		if err != nil || s != nil {
			return s, s != nil, err
		}
	}
	return nil, false, nil
}

// resolveGoTyped resolves x.Name where x has the type chain u.Qualifier.
// None found, the caller falls back to a global guess.
func (r *Resolver) resolveGoTyped(ctx context.Context, f *FileFacts, u *Use, imports map[string]Import, out []target, b *resolveBuffers) ([]target, error) {
	types, err := r.goExprTypes(ctx, f, u, imports, b)
	if err != nil {
		return nil, err
	}
	for _, t := range types {
		if t.wrap != "" {
			continue
		}
		s, promoted, err := r.goMember(ctx, f, t.id, u.Name, 0)
		if err != nil {
			return nil, err
		}
		if s == nil {
			continue
		}
		c, reason := promotedRule(t.confidence, t.reason, promoted)
		if !containsTarget(out, s.ID) {
			out = append(out, target{s.ID, c, reason})
		}
	}
	return out, nil
}

// symbolOf is symbolByID for an id held as a string.
func (r *Resolver) symbolOf(f *FileFacts, id string, ext []definition) (*definition, bool) {
	if i, ok := r.local.symbolIndex(f, id); ok {
		d := r.local.def(i)
		return &d, true
	}
	for k := range ext {
		if ext[k].ID == id {
			return &ext[k], true
		}
	}
	return nil, false
}

func containsTarget(ts []target, id string) bool {
	for _, t := range ts {
		if t.id == id {
			return true
		}
	}
	return false
}
