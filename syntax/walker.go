package syntax

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// walker holds the state of one file's extraction.
type walker struct {
	g       *grammar
	src     []byte
	ff      *FileFacts
	project *project

	lang    string
	pkg     string // Symbol.Package of the file's definitions
	idPkg   string // package part of the file's symbol ids
	modDesc string // descriptor prefix: "" for Go, "src/index:" for TS, "shop.orders:" for Python

	// defNames holds the start bytes of identifiers that name a definition
	// or a local binding, so the generic walk does not take them for uses.
	defNames byteSet
	// callee holds the start bytes of the names that calls call.
	callee byteSet
	// scopes is the stack of definitions enclosing the current node.
	scopes []scope
	// seen de-duplicates symbols defined twice in one file.
	seen map[string]bool
	// tests is the depth of test-only code in a document that is not a
	// test document (Rust #[test] functions and #[cfg(test)] items).
	tests int
	// pop leaves the innermost scope (push returns it).
	pop func()
	buf *walkBuffers
}

// walkBuffers is memory reused from one file's walk to the next.
type walkBuffers struct {
	uses   []Use
	occs   []graph.Occurrence
	kids   []*node             // the lists children returns
	locals []map[string]string // emptied maps for function scopes
}

// byteSet is a set of byte offsets in a file.
type byteSet []uint64

func newByteSet(size int) byteSet { return make(byteSet, size/64+1) }

func (s *byteSet) add(off uint32) {
	i := int(off / 64)
	if i >= len(*s) {
		*s = append(*s, make(byteSet, i+1-len(*s))...)
	}
	(*s)[i] |= 1 << (off % 64)
}

func (s byteSet) has(off uint32) bool {
	i := int(off / 64)
	return i < len(s) && s[i]&(1<<(off%64)) != 0
}

// scope is one enclosing definition.
type scope struct {
	sym    string            // the definition's symbol ("" for an anonymous function)
	fn     bool              // a function body: names bound in it are local
	locals map[string]string // names bound locally (fn scopes only) → declared type ("" unknown)
	typ    string            // for a method: its type's symbol; for a class body: the class
	recv   string            // Go: the receiver's name
}

func newWalker(g *grammar, src []byte, ff *FileFacts, p *project) *walker {
	w := &walker{
		g:        g,
		src:      src,
		ff:       ff,
		project:  p,
		lang:     g.lang,
		defNames: newByteSet(len(src) + 1),
		callee:   newByteSet(len(src) + 1),
		seen:     map[string]bool{},
		buf:      &p.walk,
	}
	w.pop = w.leave
	// The file's uses and occurrences are collected in buffers kept from
	// the previous file, and copied out by finish.
	ff.Uses = w.buf.uses[:0]
	ff.Occurrences = w.buf.occs[:0]
	w.buf.kids = w.buf.kids[:0]
	return w
}

func (w *walker) typ(n *node) string { return n.Type() }

// markCallee records in w.callee the start byte of the name a call calls:
// f itself when it is an identifier, or the member field of f when f is a
// member access of type access (Python's attribute, TypeScript's
// member_expression). f may be nil.
func (w *walker) markCallee(f *node, access, member string) {
	if f == nil {
		return
	}
	switch w.typ(f) {
	case "identifier":
		w.callee.add(f.StartByte())
	case access:
		if m := f.ChildByFieldName(member); m != nil {
			w.callee.add(m.StartByte())
		}
	}
}

func (w *walker) text(n *node) string {
	return string(w.src[n.StartByte():n.EndByte()])
}

func rangeOf(n *node) textpos.Range {
	r := n.rec()
	return textpos.Range{
		Start: textpos.Position{Line: r.startRow, Col: r.startCol},
		End:   textpos.Position{Line: r.endRow, Col: r.endCol},
	}
}

// id returns the symbol id of a descriptor in the file's package or module.
func (w *walker) id(desc string) string {
	return "syntax " + w.lang + " " + w.idPkg + " " + w.modDesc + desc
}

// packageID is the symbol of a Go package, TS/JS or Python module.
func packageID(lang, pkg string) string { return "syntax " + lang + " " + pkg }

// walk visits n and its descendants in source order. visit returns
// whether to descend and what to run after the descendants.
func (w *walker) walk(n *node, visit func(*node) (bool, func())) {
	descend, leave := visit(n)
	if descend {
		for c := n.firstChild(); c != nil; c = c.nextSibling() {
			w.walk(c, visit)
		}
	}
	if leave != nil {
		leave()
	}
}

// hasOneNamedChild reports whether n has exactly one named child, without
// counting the children of a long list.
func hasOneNamedChild(n *node) bool {
	k := 0
	for c := n.firstChild(); c != nil && k < 2; c = c.nextSibling() {
		if c.IsNamed() {
			k++
		}
	}
	return k == 1
}

// children returns n's named children. The lists of one walk share one
// buffer: each stays valid until the walk ends.
func (w *walker) children(n *node) []*node {
	start := len(w.buf.kids)
	for c := n.firstChild(); c != nil; c = c.nextSibling() {
		if c.IsNamed() {
			w.buf.kids = append(w.buf.kids, c)
		}
	}
	return w.buf.kids[start:len(w.buf.kids):len(w.buf.kids)]
}

// childrenOfField returns the children of n stored under a field name,
// in a list like children's.
func (w *walker) childrenOfField(n *node, field string) []*node {
	start := len(w.buf.kids)
	for c := n.firstChild(); c != nil; c = c.nextSibling() {
		if c.field() == field {
			w.buf.kids = append(w.buf.kids, c)
		}
	}
	return w.buf.kids[start:len(w.buf.kids):len(w.buf.kids)]
}

// define records a definition: its symbol, definition occurrence and,
// with a container, the contains edge. It returns the symbol id.
func (w *walker) define(desc, display, kind string, name, extent *node, container string) string {
	return w.defineID(w.id(desc), display, kind, name, extent, container)
}

// defineID is define with the symbol id given whole.
func (w *walker) defineID(id, display, kind string, name, extent *node, container string) string {
	w.defNames.add(name.StartByte())
	extent = w.outerExtent(extent)
	nr := rangeOf(name)
	if !w.seen[id] {
		w.seen[id] = true
		w.ff.Symbols = append(w.ff.Symbols, graph.Symbol{
			ID:          id,
			DisplayName: display,
			Kind:        kind,
			Language:    w.lang,
			Package:     w.pkg,
			Doc:         w.docBefore(extent),
			Def:         graph.Location{Path: w.ff.Document.Path, Range: nr},
			DefExtent:   rangeOf(extent),
		})
		if container != "" {
			w.ff.Edges = append(w.ff.Edges, graph.Edge{
				From: container, To: id, Kind: graph.EdgeContains,
				Confidence: ConfidenceDeclaration, Source: graph.SourceSyntax,
				Reason: ReasonDeclaration, Count: 1,
			})
		}
	}
	w.ff.Occurrences = append(w.ff.Occurrences, graph.Occurrence{
		Path: w.ff.Document.Path, Range: nr, Symbol: id,
		Roles: graph.RoleDefinition | w.testRole(), Enclosing: w.enclosing(),
	})
	return id
}

func (w *walker) testRole() graph.Role {
	if w.ff.Document.Flags&graph.DocTest != 0 || w.tests > 0 {
		return graph.RoleTest
	}
	return 0
}

// enclosing returns the innermost named enclosing definition.
func (w *walker) enclosing() string {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if w.scopes[i].sym != "" {
			return w.scopes[i].sym
		}
	}
	return ""
}

// push enters a definition's scope and returns the function that leaves it.
func (w *walker) push(s scope) func() {
	if s.fn && s.locals == nil {
		if k := len(w.buf.locals); k > 0 {
			s.locals = w.buf.locals[k-1]
			w.buf.locals = w.buf.locals[:k-1]
		} else {
			s.locals = map[string]string{}
		}
	}
	w.scopes = append(w.scopes, s)
	return w.pop
}

// leave leaves the innermost scope, keeping its locals' map for another.
func (w *walker) leave() {
	last := len(w.scopes) - 1
	// Emptying a map costs its capacity: keep only small ones.
	if m := w.scopes[last].locals; m != nil && len(m) <= 8 {
		clear(m)
		w.buf.locals = append(w.buf.locals, m)
	}
	w.scopes[last] = scope{}
	w.scopes = w.scopes[:last]
}

// bindLocal records a name bound in the innermost function scope.
func (w *walker) bindLocal(n *node) { w.bindLocalTyped(n, "") }

// bindLocalTyped records a name bound in the innermost function scope with
// its declared type, as written ("T", "pkg.T"; "" when unknown). A name
// bound again without a type keeps the type it had.
func (w *walker) bindLocalTyped(n *node, typ string) {
	w.defNames.add(n.StartByte())
	name := w.text(n)
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if w.scopes[i].fn {
			if old, ok := w.scopes[i].locals[name]; !ok || typ != "" || old == "" {
				w.scopes[i].locals[name] = typ
			}
			return
		}
	}
}

// isLocal reports whether name is bound in an enclosing function.
func (w *walker) isLocal(name string) bool {
	_, ok := w.localType(name)
	return ok
}

// localType returns the declared type of a local name, and whether the
// name is local at all.
func (w *walker) localType(name string) (string, bool) {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if w.scopes[i].fn {
			if t, ok := w.scopes[i].locals[name]; ok {
				return t, true
			}
		}
	}
	return "", false
}

// innerType returns the type of the innermost method or class scope.
func (w *walker) innerType() (typ, recv string) {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if w.scopes[i].typ != "" {
			return w.scopes[i].typ, w.scopes[i].recv
		}
	}
	return "", ""
}

// use records a name used in the file.
func (w *walker) use(n *node, kind UseKind, qualifier string, call, typ bool) {
	name := w.text(n)
	if kind == UseBare && w.isLocal(name) {
		return
	}
	w.ff.Uses = append(w.ff.Uses, Use{
		Range: rangeOf(n), Name: name, Kind: kind, Qualifier: qualifier,
		Call: call, Type: typ, Test: w.tests > 0, Enclosing: w.enclosing(),
	})
}

// docBefore returns the first paragraph of the comment block right above a
// definition (Go, TS/JS), with comment markers removed.
func (w *walker) docBefore(n *node) string {
	switch w.lang {
	case "python":
		return w.pyDocstring(n)
	case "rust":
		return w.rustDoc(n)
	}
	ls := bytes.LastIndexByte(w.src[:n.StartByte()], '\n') + 1
	var lines []string
	for ls > 0 {
		pls := bytes.LastIndexByte(w.src[:ls-1], '\n') + 1
		line := bytes.TrimSpace(w.src[pls : ls-1])
		if !bytes.HasPrefix(line, []byte("//")) && !bytes.HasPrefix(line, []byte("*")) &&
			!bytes.HasPrefix(line, []byte("/*")) && !bytes.HasSuffix(line, []byte("*/")) {
			break
		}
		lines = append(lines, string(line))
		ls = pls
	}
	var b []string
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(strings.TrimSuffix(lines[i], "*/"))
		for _, p := range []string{"/**", "/*", "//", "*"} {
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

// finish sorts the file's facts into a deterministic order.
func (w *walker) finish() {
	ff := w.ff
	slices.SortStableFunc(ff.Occurrences, func(a, b graph.Occurrence) int { return compareRange(a.Range, b.Range) })
	slices.SortStableFunc(ff.Uses, func(a, b Use) int { return compareRange(a.Range, b.Range) })
	// The facts of every file stay in memory until resolution: drop the
	// spare capacity append left.
	// The uses and occurrences were collected in buffers: copy them out,
	// and let the buffers drop their strings.
	uses, occs := ff.Uses, ff.Occurrences
	ff.Uses, ff.Occurrences = clone(uses), clone(occs)
	clear(uses)
	clear(occs)
	w.buf.uses, w.buf.occs = uses[:0], occs[:0]
	ff.Symbols = shrink(ff.Symbols)
	ff.Edges = shrink(ff.Edges)
	ff.Imports = shrink(ff.Imports)
}

// clone returns a copy of s of its own length, nil when s is empty.
func clone[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

// shrink returns s in a slice of its own length when it wastes a quarter or more.
func shrink[T any](s []T) []T {
	if cap(s)-len(s) < len(s)/4+1 {
		return s
	}
	return slices.Clone(s)
}

func comparePos(a, b textpos.Position) int {
	if a.Line != b.Line {
		return cmp.Compare(a.Line, b.Line)
	}
	return cmp.Compare(a.Col, b.Col)
}

func compareRange(a, b textpos.Range) int {
	if a.Start != b.Start {
		return comparePos(a.Start, b.Start)
	}
	return comparePos(a.End, b.End)
}

// outerExtent widens a TS/JS definition's extent to its declaration
// statement: `export class C {…}` rather than `class C {…}`, and
// `const x = …;` for a declaration's only declarator.
func (w *walker) outerExtent(n *node) *node {
	if w.lang != "typescript" && w.lang != "javascript" {
		return n
	}
	if w.typ(n) == "variable_declarator" {
		if p := n.Parent(); p != nil && hasOneNamedChild(p) {
			n = p
		}
	}
	if p := n.Parent(); p != nil && w.typ(p) == "export_statement" {
		n = p
	}
	return n
}
