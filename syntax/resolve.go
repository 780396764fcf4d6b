package syntax

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/arena"
)

// The confidence table. Every edge the package makes carries one of these
// reasons; the package documentation explains each rule. The confidences
// here are the defaults: an edge gets its rule's measured confidence in
// its document's language where there is one (calibration.go), these
// otherwise. Global-name guesses stay below the default impact threshold
// (0.7) either way.
const (
	ConfidenceDeclaration  = 1.0
	ConfidenceSameFile     = 0.9
	ConfidenceSamePackage  = 0.85
	ConfidenceImported     = 0.85
	ConfidenceReceiver     = 0.8
	ConfidenceDeclared     = 0.8
	ConfidenceInferred     = 0.8
	ConfidencePromoted     = 0.8
	ConfidenceUniqueGlobal = 0.6
	ConfidenceAmbiguous    = 0.3

	ReasonDeclaration  = "syntax:declaration"
	ReasonSameFile     = "syntax:same-file"
	ReasonSamePackage  = "syntax:same-package"
	ReasonImported     = "syntax:imported-package"
	ReasonReceiver     = "syntax:receiver-type"
	ReasonDeclared     = "syntax:declared-type"
	ReasonInferred     = "syntax:inferred-type"
	ReasonPromoted     = "syntax:promoted-member"
	ReasonUniqueGlobal = "syntax:unique-global-name"
	ReasonAmbiguous    = "syntax:ambiguous-global-name"

	// MaxAmbiguous is the most candidates an ambiguous name gets edges to;
	// a name with more candidates gets none.
	MaxAmbiguous = 8
)

// Rule is one row of the confidence table.
type Rule struct {
	Reason     string
	Confidence float64
}

// Rules returns the confidence table, strongest first.
func Rules() []Rule {
	return []Rule{
		{ReasonDeclaration, ConfidenceDeclaration},
		{ReasonSameFile, ConfidenceSameFile},
		{ReasonSamePackage, ConfidenceSamePackage},
		{ReasonImported, ConfidenceImported},
		{ReasonReceiver, ConfidenceReceiver},
		{ReasonDeclared, ConfidenceDeclared},
		{ReasonInferred, ConfidenceInferred},
		{ReasonPromoted, ConfidencePromoted},
		{ReasonUniqueGlobal, ConfidenceUniqueGlobal},
		{ReasonAmbiguous, ConfidenceAmbiguous},
	}
}

// Lookup finds definitions by display name. A NameTable serves a full index;
// a ReaderLookup serves re-extraction against an existing graph.
type Lookup interface {
	Named(ctx context.Context, name string) ([]graph.Symbol, error)
}

// NameTable is an in-memory Lookup over the definitions of extracted files,
// indexed for the resolution rules: by name, by (package, name), by
// (document, name) and by symbol. A table of a large tree holds one entry
// per definition in each index and stays live through a whole index, so
// the indexes hold no pointers and no strings: names, packages and paths
// are the indexes of the store's distinct strings (a lookup first finds
// its strings there), a name's symbols are a chain through an []int32,
// and the other keys are found through open-addressing tables of
// integers.
type NameTable struct {
	st   *defStore
	syms []int32 // the store's positions, in the files' order (nil: the store's own order, for a table read from its file)
	// byName holds the first symbol (plus one) of each name and class,
	// at twice the name's index among the store's strings plus the class
	// (nameOther, nameMember): a rule that wants members only, or no
	// members, walks those alone. A name's definitions grow with the
	// repository, and its members and the rest were walked together, each
	// decoded to be refused: at four GOROOTs the fallbacks to a global
	// name took 0.85 CPU-s (0.41 with the classes apart), at one too
	// little to sample; resolveUse grew 4.4× from one GOROOT to four, now
	// 3.6×.
	byName     []int32
	nameNext   []int32 // the next symbol of the same name and class (-1: none)
	byPkgName  pairIndex
	byPathName pairIndex
	// files holds the run of definitions of each document, by its path's
	// index among the store's strings, when every document's definitions
	// are one run of the table (then byPathName is not built: see inPath).
	files map[uint32][2]int32
	byID  idIndex // the first symbol of each id
	// defaults holds the TS/JS default exports by the module path of their
	// file (its path without extension).
	defaults map[string][]int32
}

// pairIndex finds the symbols of a NameTable by a pair of string indexes
// (package or path, and name), in table order: an open-addressing table
// from the pair to its first symbol, and a chain through next.
type pairIndex struct {
	keys  []uint64 // the pair, high and low 32 bits
	first []int32  // the first symbol plus one; 0: the slot is empty
	next  []int32  // the next symbol of the same pair (-1: none)
	shift uint     // 64 minus the bits of the table's size
}

// pairKey is the key of the strings of indexes a and b.
func pairKey(a, b uint32) uint64 { return uint64(a)<<32 | uint64(b) }

// tableBits returns the bits of an open-addressing table's size for n
// keys: at most three quarters full.
func tableBits(n int) uint {
	bits := uint(4)
	for 3<<bits < 4*n {
		bits++
	}
	return bits
}

// slot returns the position of k: its slot, or the empty one where it
// goes.
func (x *pairIndex) slot(k uint64) int {
	mask := len(x.keys) - 1
	j := int((k * 0x9E3779B97F4A7C15) >> x.shift)
	for x.first[j] != 0 && x.keys[j] != k {
		j = (j + 1) & mask
	}
	return j
}

// build indexes the n symbols of a table by their keys.
func (x *pairIndex) build(n int, key func(i int) uint64) {
	bits := tableBits(n)
	x.keys, x.first, x.next = make([]uint64, 1<<bits), make([]int32, 1<<bits), make([]int32, n)
	x.shift = 64 - bits
	// Back to front, so that each symbol goes before the ones after it.
	for i := n - 1; i >= 0; i-- {
		k := key(i)
		j := x.slot(k)
		x.keys[j] = k
		x.next[i] = x.first[j] - 1
		x.first[j] = int32(i) + 1
	}
}

// head returns the first symbol of the pair k, -1 if none.
func (x *pairIndex) head(k uint64) int32 {
	if x.first == nil {
		return -1
	}
	return x.first[x.slot(k)] - 1
}

// idIndex finds the first symbol of each id of a NameTable.
type idIndex struct{ arena.Index }

// build indexes the n symbols of t by id.
func (x *idIndex) build(t *NameTable, n int) {
	id := func(i uint32) string { return t.id(int32(i)) }
	x.Reserve(n)
	for i := range uint32(n) {
		x.Add(id(i), i, id) // the first of an id keeps it
	}
}

// symbolList is a list of symbols of a NameTable: head is the first
// index (-1: none), next links them; a nil next means head alone. Every
// list holds exactly the symbols of its key: the indexes chain symbols by
// the strings' indexes, not by hashes that two keys may share.
type symbolList struct {
	head int32
	next []int32
	base int32 // next[i-base] follows symbol i
	// more, when above zero, is the first symbol (plus one) of a second
	// chain through next, merged with the first in table order.
	more int32
	// ids, when not nil, are the list's symbols instead of the chains.
	ids []int32
}

// all yields the symbols of the list in table order.
func (l *symbolList) all(yield func(int32) bool) {
	if l.ids != nil {
		for _, i := range l.ids {
			if !yield(i) {
				return
			}
		}
		return
	}
	a, b := l.head, l.more-1
	for a >= 0 || b >= 0 {
		i := a
		if a < 0 || (b >= 0 && b < a) {
			i, b = b, l.after(b)
		} else {
			a = l.after(a)
		}
		if !yield(i) {
			return
		}
	}
}

// The classes of a NameTable's index by name (see NameTable.byName), and
// both.
const (
	nameOther  = 0 // what isMember refuses
	nameMember = 1 // what isMember accepts
	nameAny    = 2
)

// after returns the symbol after i in the list, -1 after the last.
func (l *symbolList) after(i int32) int32 {
	if l.next == nil {
		return -1
	}
	return l.next[i-l.base]
}

// def returns the symbol i of the table.
func (t *NameTable) def(i int32) definition { return t.st.get(t.pos(i)) }

// pos returns the store's position of the symbol i of the table.
func (t *NameTable) pos(i int32) int32 {
	if t.syms == nil {
		return i
	}
	return t.syms[i]
}

// packed returns the stored form of the symbol i of the table.
func (t *NameTable) packed(i int32) *packedDef { return t.st.at(t.pos(i)) }

// id returns the id of the symbol i of the table.
func (t *NameTable) id(i int32) string { return t.st.text.String(t.packed(i).id) }

// named returns the symbols named name of a class (nameMember, nameOther
// or nameAny; f, when not nil, records the lookup: see FileFacts.look).
func (t *NameTable) named(f *FileFacts, name string, class int) symbolList {
	l, _, _ := t.namedKey(f, name, class)
	return l
}

// namedKey is named, with the key of name in the table (false: none has
// it, and the list is empty).
func (t *NameTable) namedKey(f *FileFacts, name string, class int) (symbolList, uint32, bool) {
	f.look(lookName, name, "")
	l := symbolList{head: -1, next: t.nameNext}
	k, ok := t.st.find(name)
	if !ok || 2*int(k)+1 >= len(t.byName) {
		return l, 0, false
	}
	if class == nameAny {
		l.head, l.more = t.byName[2*k+nameOther]-1, t.byName[2*k+nameMember]
	} else {
		l.head = t.byName[2*int(k)+class] - 1
	}
	return l, k, true
}

// nameClass returns the class of definitions of kind.
func nameClass(kind string) int {
	if isMemberKind(kind) {
		return nameMember
	}
	return nameOther
}

// pair returns the key of the strings a and b, false when one of them is
// none of the table's.
func (t *NameTable) pair(a, b string) (uint64, bool) {
	i, ok := t.st.find(a)
	if !ok {
		return 0, false
	}
	j, ok := t.st.find(b)
	return pairKey(i, j), ok
}

// inPackage returns the symbols named name of package pkg.
func (t *NameTable) inPackage(f *FileFacts, pkg, name string) symbolList {
	f.look(lookPackage, pkg, name)
	l := symbolList{head: -1, next: t.byPkgName.next}
	if k, ok := t.pair(pkg, name); ok {
		l.head = t.byPkgName.head(k)
	}
	return l
}

// inPath returns the symbols named name defined in the document of f.
// The table's own index by (path, name) serves when it has one; else the
// document's definitions, one run of the table, are indexed by name on
// first use (in f, for the time of its resolution), so that the table
// holds no entry per definition for the same-file rule.
func (t *NameTable) inPath(f *FileFacts, name string) symbolList {
	path := f.Document.Path
	f.look(lookPath, path, name)
	if t.byPathName.first != nil {
		l := symbolList{head: -1, next: t.byPathName.next}
		if k, ok := t.pair(path, name); ok {
			l.head = t.byPathName.head(k)
		}
		return l
	}
	if f.own == nil || f.own.path != path {
		var r [2]int32
		if k, ok := t.st.find(path); ok {
			r = t.files[k]
		}
		own := &documentIndex{path: path, lo: r[0]}
		n := int(r[1] - r[0])
		own.first = make(map[uint32]int32, n)
		own.next = make([]int32, n)
		for i := r[1] - 1; i >= r[0]; i-- {
			k := t.packed(i).name
			own.next[i-r[0]] = own.first[k] - 1
			own.first[k] = i + 1
		}
		f.own = own
	}
	l := symbolList{head: -1, next: f.own.next, base: f.own.lo}
	if k, ok := t.st.find(name); ok {
		l.head = f.own.first[k] - 1
	}
	return l
}

// documentIndex is the index by name (its index among the store's
// strings) of one document's run of a table's definitions
// [lo, lo+len(next)).
type documentIndex struct {
	path  string
	lo    int32
	first map[uint32]int32
	next  []int32
}

// symbolIndex returns the index of the first symbol whose id is id.
func (t *NameTable) symbolIndex(f *FileFacts, id string) (int32, bool) {
	f.look(lookID, id, "")
	i, ok := t.byID.Find(id, func(i uint32) string { return t.id(int32(i)) })
	if !ok {
		return -1, false
	}
	return int32(i), true
}

// NewNameTable indexes the definitions of files (package and module
// symbols left out).
func NewNameTable(files []*FileFacts) *NameTable {
	st := newDefStore()
	runs := make([][2]int32, 0, len(files))
	var l []definition
	for _, f := range files {
		if f == nil || f.Skipped != SkipNone {
			continue
		}
		l = l[:0]
		for k := range f.Symbols {
			if s := &f.Symbols[k]; s.Kind != "package" && s.Kind != "module" {
				l = append(l, definitionOf(s))
			}
		}
		runs = append(runs, st.add(l))
	}
	return newNameTable(st, runs)
}

// newNameTable indexes the definitions of st, a run of positions per
// document, in the order of runs. The store must no longer be added to.
func newNameTable(st *defStore, runs [][2]int32) *NameTable {
	n := 0
	for _, r := range runs {
		n += int(r[1] - r[0])
	}
	t := &NameTable{st: st, syms: make([]int32, 0, n), files: map[uint32][2]int32{}}
	for _, r := range runs {
		lo := int32(len(t.syms))
		for i := r[0]; i < r[1]; i++ {
			t.syms = append(t.syms, i)
			if t.files != nil && st.at(i).at != st.at(r[0]).at {
				t.files = nil // a run spanning documents
			}
		}
		if r[1] <= r[0] || t.files == nil {
			continue
		}
		path := st.at(r[0]).at
		if _, dup := t.files[path]; dup {
			t.files = nil // a document in two runs
			continue
		}
		t.files[path] = [2]int32{lo, int32(len(t.syms))}
	}
	// The indexes are independent: build them side by side.
	n = len(t.syms)
	var wg sync.WaitGroup
	wg.Go(func() {
		t.byName, t.nameNext = make([]int32, 2*len(st.strs)), make([]int32, n)
		// Back to front, so that each symbol goes before the ones after it.
		for i := n - 1; i >= 0; i-- {
			p := t.packed(int32(i))
			k := 2*int(p.name) + nameClass(st.short(p.kind))
			t.nameNext[i] = t.byName[k] - 1
			t.byName[k] = int32(i) + 1
		}
	})
	wg.Go(func() {
		t.byPkgName.build(n, func(i int) uint64 {
			p := t.packed(int32(i))
			return pairKey(p.pkg, p.name)
		})
	})
	if t.files == nil {
		wg.Go(func() {
			t.byPathName.build(n, func(i int) uint64 {
				p := t.packed(int32(i))
				return pairKey(p.at, p.name)
			})
		})
	}
	wg.Go(func() {
		t.defaults = map[string][]int32{}
		for i := range int32(n) {
			if p := t.packed(i); isDefaultExportOf(st.short(p.lang), t.st.text.String(p.sig)) {
				path := stripExt(st.short(p.at))
				t.defaults[path] = append(t.defaults[path], i)
			}
		}
	})
	wg.Go(func() { t.byID.build(t, n) })
	wg.Wait()
	return t
}

// Named returns the symbols named name.
func (t *NameTable) Named(_ context.Context, name string) ([]graph.Symbol, error) {
	var out []graph.Symbol
	l := t.named(nil, name, nameAny)
	for i := range l.all {
		d := t.def(i)
		out = append(out, d.symbol())
	}
	if out == nil {
		out = []graph.Symbol{}
	}
	return out, nil
}

// ReaderLookup is a Lookup over the symbols of a graph snapshot.
type ReaderLookup struct {
	Reader *graph.Reader
	// Limit caps the symbols returned per name (0: 64).
	Limit int
}

// Named returns the graph's symbols named name.
func (l ReaderLookup) Named(ctx context.Context, name string) ([]graph.Symbol, error) {
	limit := l.Limit
	if limit == 0 {
		limit = 64
	}
	syms, err := l.Reader.FindSymbols(ctx, name, false, limit)
	if err != nil {
		return nil, fmt.Errorf("syntax: looking up %q in the graph: %w", name, err)
	}
	return syms, nil
}

// DocumentLookup is a Lookup that also lists the definitions of a
// document. Resolving a TS/JS default import needs it: the import names the
// module, not the definition it exports.
type DocumentLookup interface {
	Lookup
	Defined(ctx context.Context, path string) ([]graph.Symbol, error)
}

// Defined returns the symbols the document at path defines in the graph.
func (l ReaderLookup) Defined(ctx context.Context, path string) ([]graph.Symbol, error) {
	syms, err := l.Reader.DocumentSymbols(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("syntax: listing the definitions of %s in the graph: %w", path, err)
	}
	return syms, nil
}

// Resolver turns the uses of extracted files into occurrences and edges. It
// is safe for concurrent use.
type Resolver struct {
	local    *NameTable
	paths    map[string]bool // documents being resolved: their old facts in external are stale
	external Lookup

	mu       sync.Mutex
	cache    map[string][]definition    // external lookups
	defaults map[string][]definition    // external default exports by module
	scoped   map[scopedKey][]int32      // see goScoped
	groups   map[groupKey]*scopedGroups // goScoped's lists before a reach filters them
	scopes   map[string]int32           // the reaches of goScoped's keys, numbered from 1
	reach    goReach                    // what a Go module reaches (set by an index, which knows the tree's modules)
}

// scopedKey is a list of goScoped: a reach (its number in
// Resolver.scopes), a name (its key in the table) and a class.
type scopedKey struct {
	scope int32
	name  uint32
	class int8
}

// groupKey is a name (its key in the table) and a class.
type groupKey struct {
	name  uint32
	class int8
}

// scopedGroups are the definitions of a name and class, grouped by what
// puts a package in a reach (reachClass), each group in table order: a
// reach's list is its groups merged. Made once per name, they spare each
// reach a pass over every definition of the name, most of which, in a
// repository of many modules, are other modules' (a pass per reach grew
// with the square of the modules defining the name).
type scopedGroups struct {
	always   []int32            // in every reach
	byModule map[string][]int32 // in a module of the tree, by module
	other    []int32            // in no module the tree knows
	otherPkg []string           // their packages
}

// groupByReach groups syms, in table order, by the reach classes of
// their packages.
func groupByReach(reach *goReach, syms iter.Seq[int32], pkgOf func(int32) string) *scopedGroups {
	g := &scopedGroups{byModule: map[string][]int32{}}
	for i := range syms {
		pkg := pkgOf(i)
		switch c := reach.classOf(pkg); {
		case c.always:
			g.always = append(g.always, i)
		case c.module != "":
			g.byModule[c.module] = append(g.byModule[c.module], i)
		default:
			g.other = append(g.other, i)
			g.otherPkg = append(g.otherPkg, pkg)
		}
	}
	return g
}

// in returns the symbols in scope (not ""), in table order.
func (g *scopedGroups) in(scope string) []int32 {
	ids := append(make([]int32, 0, len(g.always)), g.always...)
	merged := false
	for m := range strings.SplitSeq(scope, "\n") {
		if mod := g.byModule[m]; len(mod) > 0 {
			ids, merged = append(ids, mod...), true
		}
	}
	for j, i := range g.other {
		if (reachClass{}).in(g.otherPkg[j], scope) {
			ids, merged = append(ids, i), true
		}
	}
	if merged {
		slices.Sort(ids)
		ids = slices.Compact(ids) // a scope may list a module twice
	}
	return ids
}

// maxScoped bounds the lists goScoped keeps (four GOROOTs' index asks for
// about 300,000); all are dropped when full.
const maxScoped = 1 << 19

// NewResolver prepares the resolution of files. Their own definitions are
// always candidates; external (nil for none) supplies the rest, minus any
// symbol it reports as defined in one of files (an older version of them).
func NewResolver(files []*FileFacts, external Lookup) *Resolver {
	paths := map[string]bool{}
	for _, f := range files {
		if f != nil {
			paths[f.Document.Path] = true
		}
	}
	return newResolver(NewNameTable(files), paths, external)
}

// newResolver returns a Resolver over the definitions of table, paths
// being the documents resolved (their old facts in external are stale).
func newResolver(table *NameTable, paths map[string]bool, external Lookup) *Resolver {
	return &Resolver{local: table, paths: paths, external: external,
		cache: map[string][]definition{}, defaults: map[string][]definition{}, scoped: map[scopedKey][]int32{}, groups: map[groupKey]*scopedGroups{}, scopes: map[string]int32{}}
}

// Resolve resolves files (extracted by Extractor.File) against their own
// definitions and external, returning each non-skipped file's facts.
func Resolve(ctx context.Context, files []*FileFacts, external Lookup) ([]graph.DocumentFacts, error) {
	r := NewResolver(files, external)
	var out []graph.DocumentFacts
	for _, f := range files {
		if f == nil || f.Skipped != SkipNone {
			continue
		}
		df, err := r.Document(ctx, f)
		if err != nil {
			return nil, err
		}
		out = append(out, df)
	}
	return out, nil
}

// externalNamed returns external's symbols named name that the files being
// resolved do not supersede.
func (r *Resolver) externalNamed(ctx context.Context, name string) ([]definition, error) {
	if r.external == nil {
		return nil, nil
	}
	r.mu.Lock()
	ext, ok := r.cache[name]
	r.mu.Unlock()
	if ok {
		return ext, nil
	}
	syms, err := r.external.Named(ctx, name)
	if err != nil {
		return nil, err
	}
	for _, s := range syms {
		if s.External || r.paths[s.Def.Path] || s.Kind == "package" || s.Kind == "module" {
			continue
		}
		ext = append(ext, definitionOf(&s))
	}
	r.mu.Lock()
	r.cache[name] = ext
	r.mu.Unlock()
	return ext, nil
}

// target is one resolution of a use.
type target struct {
	id         string
	confidence float64
	reason     string
}

// resolveBuffers is the scratch space of one document's resolution: the
// targets of a use are read before the next use is resolved, so each list
// is reused from use to use.
type resolveBuffers struct {
	targets []target   // a use's targets
	types   []target   // the types of x in x.Name or x.f.Name
	derived []target   // the members of those types
	key     []byte     // a symbol id being looked up
	cand    definition // the candidate of the table being tried
	// goTypes holds the types of the Go type chains met in the document.
	goTypes map[string][]goType
}

// Document resolves one file's uses and returns its complete facts.
func (r *Resolver) Document(ctx context.Context, f *FileFacts) (graph.DocumentFacts, error) {
	defer func() { f.own, f.scope = nil, 0 }() // for this resolution only (inPath, goScoped)
	df := graph.DocumentFacts{
		Document: f.Document,
		Symbols:  append([]graph.Symbol(nil), f.Symbols...),
		Terms:    f.Terms,
	}
	// The uses' occurrences go after room for the file's own, which are
	// merged in front of them at the end. Most uses yield one occurrence.
	nDef := len(f.Occurrences)
	occs := make([]graph.Occurrence, nDef, nDef+len(f.Uses))
	imports := make(map[string]Import, len(f.Imports))
	for _, imp := range f.Imports {
		if imp.Local != "" {
			imports[imp.Local] = imp
		}
	}
	type edgeKey struct {
		from, to string
		kind     graph.EdgeKind
	}
	// Each distinct edge is kept once, in the order first met, its
	// count summed and its best confidence kept.
	edges := make(map[edgeKey]int32, len(f.Edges)+len(f.Uses)/2)
	df.Edges = make([]graph.Edge, 0, len(f.Edges)+len(f.Uses)/2)
	addEdge := func(e graph.Edge) {
		k := edgeKey{e.From, e.To, e.Kind}
		if i, ok := edges[k]; ok {
			old := &df.Edges[i]
			old.Count += e.Count
			if e.Confidence > old.Confidence {
				old.Confidence, old.Reason = e.Confidence, e.Reason
			}
			return
		}
		edges[k] = int32(len(df.Edges))
		df.Edges = append(df.Edges, e)
	}
	for _, e := range f.Edges {
		addEdge(e)
	}
	measured := calibrated[f.Document.Language]
	var testRole graph.Role
	if f.Document.Flags&graph.DocTest != 0 {
		testRole = graph.RoleTest
	}
	b := &resolveBuffers{
		targets: make([]target, 0, MaxAmbiguous+1),
		types:   make([]target, 0, MaxAmbiguous+1),
		derived: make([]target, 0, MaxAmbiguous+1),
		key:     make([]byte, 0, 128),
	}
	for i := range f.Uses {
		if i%256 == 0 && ctx.Err() != nil {
			return graph.DocumentFacts{}, fmt.Errorf("syntax: resolving %s: %w", f.Document.Path, ctx.Err())
		}
		u := &f.Uses[i]
		targets, err := r.resolveUse(ctx, f, u, imports, b.targets, b)
		if err != nil {
			return graph.DocumentFacts{}, fmt.Errorf("syntax: resolving %s: %w", f.Document.Path, err)
		}
		if len(targets) == 0 {
			continue
		}
		roles := graph.RoleReference | testRole
		kind := graph.EdgeReferences
		if u.Call {
			roles |= graph.RoleCall
			kind = graph.EdgeCalls
		}
		if u.Implements {
			kind = graph.EdgeImplements
		}
		if u.Import {
			roles = graph.RoleImport | testRole
		}
		if u.Test {
			roles |= graph.RoleTest
		}
		from := u.Enclosing
		if from == "" {
			from = f.self
		}
		for _, t := range targets {
			if c, ok := measured[t.reason]; ok {
				t.confidence = c
			}
			if t.reason != ReasonAmbiguous {
				occs = append(occs, graph.Occurrence{
					Path: f.Document.Path, Range: u.Range, Symbol: t.id, Roles: roles, Enclosing: u.Enclosing,
				})
			}
			if u.Import || from == "" {
				continue
			}
			addEdge(graph.Edge{From: from, To: t.id, Kind: kind, Confidence: t.confidence,
				Source: graph.SourceSyntax, Reason: t.reason, Count: 1})
			if u.Implements && u.Enclosing != "" {
				if err := r.implementedMethods(ctx, f, u, t, b, addEdge); err != nil {
					return graph.DocumentFacts{}, fmt.Errorf("syntax: resolving %s: %w", f.Document.Path, err)
				}
			}
		}
	}
	df.Occurrences = mergeOccurrences(f.Occurrences, occs)
	if len(df.Edges) == 0 {
		df.Edges = nil // as when nothing was added
	} else {
		sortEdges(df.Edges)
	}
	return df, nil
}

// compareOccurrences orders a document's occurrences by range, then symbol.
func compareOccurrences(a, b *graph.Occurrence) int {
	if c := compareRange(a.Range, b.Range); c != 0 {
		return c
	}
	return strings.Compare(a.Symbol, b.Symbol)
}

// mergeOccurrences returns a document's occurrences in their stable order by
// (range, symbol): defs (the file's own occurrences), then the uses'
// occurrences, which occs holds after len(defs) unused slots. Both lists
// come sorted by range (the walker sorts them, and uses are resolved in
// order), so one merge and a sort of each run of equal ranges by symbol
// give the order a stable sort of the concatenation would.
func mergeOccurrences(defs, occs []graph.Occurrence) []graph.Occurrence {
	uses := occs[len(defs):]
	if len(occs) == 0 {
		return nil
	}
	byRange := func(a, b graph.Occurrence) int { return compareRange(a.Range, b.Range) }
	if !slices.IsSortedFunc(defs, byRange) || !slices.IsSortedFunc(uses, byRange) {
		copy(occs, defs)
		slices.SortStableFunc(occs, func(a, b graph.Occurrence) int { return compareOccurrences(&a, &b) })
		return occs
	}
	// Merge front to back: the write position i+j never passes the
	// read position len(defs)+j of the next use.
	i, j, k := 0, 0, 0
	for i < len(defs) {
		if j < len(uses) && compareRange(uses[j].Range, defs[i].Range) < 0 {
			occs[k] = uses[j]
			j++
		} else {
			occs[k] = defs[i]
			i++
		}
		k++
	}
	// The rest of uses is in place. Order each run of equal ranges by
	// symbol, keeping the merged order among equal symbols.
	for lo := 0; lo < len(occs); {
		hi := lo + 1
		for hi < len(occs) && occs[hi].Range == occs[lo].Range {
			hi++
		}
		if hi-lo > 1 {
			run := occs[lo:hi]
			for a := 1; a < len(run); a++ {
				for b := a; b > 0 && strings.Compare(run[b-1].Symbol, run[b].Symbol) > 0; b-- {
					run[b-1], run[b] = run[b], run[b-1]
				}
			}
		}
		lo = hi
	}
	return occs
}

// compareEdges orders a document's edges by source, kind and target.
func compareEdges(a, b *graph.Edge) int {
	if c := strings.Compare(a.From, b.From); c != 0 {
		return c
	}
	if a.Kind != b.Kind {
		return strings.Compare(string(a.Kind), string(b.Kind))
	}
	return strings.Compare(a.To, b.To)
}

// sortEdges sorts a document's edges by compareEdges. No two edges compare
// equal (Document keeps one edge per source, kind and target), so any sort
// gives the same order: this one sorts positions rather than moving the
// edges around, then moves each edge once.
func sortEdges(edges []graph.Edge) {
	if slices.IsSortedFunc(edges, func(a, b graph.Edge) int { return compareEdges(&a, &b) }) {
		return
	}
	order := make([]int32, len(edges))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return compareEdges(&edges[a], &edges[b]) })
	// Apply the permutation cycle by cycle: position k receives the edge
	// at order[k]; a visited position is marked by order[k] = k.
	for start := range order {
		if order[start] == int32(start) {
			continue
		}
		tmp := edges[start]
		k := start
		for {
			from := int(order[k])
			order[k] = int32(k)
			if from == start {
				edges[k] = tmp
				break
			}
			edges[k] = edges[from]
			k = from
		}
	}
}

// sameFamily reports whether a symbol of language l can be used from a file
// of language fl (TypeScript and JavaScript import each other).
func sameFamily(fl, l string) bool {
	if fl == l {
		return true
	}
	js := func(s string) bool { return s == "typescript" || s == "javascript" }
	return js(fl) && js(l)
}

func isMember(s *definition) bool { return isMemberKind(s.Kind) }

// isMemberKind reports whether definitions of kind are members of a type.
func isMemberKind(kind string) bool {
	return kind == "method" || kind == "field" || kind == "constructor"
}

func isTypeLike(s *definition) bool {
	switch s.Kind {
	case "struct", "interface", "type", "class", "enum":
		return true
	}
	return false
}

// resolveUse applies the rules of the confidence table to one use. The
// targets are appended to buf[:0] (the result may share buf's array); the
// other lists of b hold the intermediate steps of typed and field uses.
func (r *Resolver) resolveUse(ctx context.Context, f *FileFacts, u *Use, imports map[string]Import, buf []target, b *resolveBuffers) ([]target, error) {
	lang := f.Document.Language
	// Only named imports (TS/JS, Python, Java) rename a bare use or bind
	// one: a Go import binds a package, which a bare Go name never is.
	var imp Import
	var imported bool
	if lang != "go" || u.Import {
		imp, imported = imports[u.Name]
	}
	name := u.Name
	if u.Kind == UseBare && imported && imp.Name != "" && (u.Import || lang != "go") {
		name = imp.Name
	}
	ext, err := r.externalNamed(ctx, name)
	if err != nil {
		return nil, err
	}
	t := r.local
	out := buf[:0]
	seen := func(id string) bool {
		for _, x := range out {
			if x.id == id {
				return true
			}
		}
		return false
	}
	// add collects the acceptable symbols among the local symbols l and ext
	// that keep accepts; it stops after limit distinct symbols (0: no limit)
	// and reports whether it stopped early.
	add := func(l symbolList, keep func(*definition) bool, c float64, reason string, limit int) bool {
		try := func(s *definition) bool {
			if !sameFamily(lang, s.Language) || (u.Type && !isTypeLike(s)) || !keep(s) || seen(s.ID) {
				return true
			}
			out = append(out, target{s.ID, c, reason})
			return limit == 0 || len(out) <= limit
		}
		for i := range l.all {
			if b.cand = t.def(i); !try(&b.cand) {
				return true
			}
		}
		for k := range ext {
			if !try(&ext[k]) {
				return true
			}
		}
		return false
	}
	member := func(s *definition) bool { return isMember(s) }
	notMember := func(s *definition) bool { return !isMember(s) }
	// global collects the candidates of class (keep accepts none of the
	// other) among all the definitions of name; for Go, only those in
	// packages the file's module can reach (goScoped): in a repository of
	// many modules, a name's definitions in modules this one does not
	// require are no candidates, neither for an edge nor against the limit.
	global := func(class int, keep func(*definition) bool) []target {
		out = out[:0]
		l, k, ok := t.namedKey(f, name, class)
		if ok && lang == "go" && f.goScope != "" {
			l = r.goScoped(f, k, class, l)
		}
		if add(l, keep, ConfidenceAmbiguous, ReasonAmbiguous, MaxAmbiguous) {
			return nil // too many candidates to guess
		}
		if len(out) == 1 {
			out[0].confidence, out[0].reason = ConfidenceUniqueGlobal, ReasonUniqueGlobal
		}
		return out
	}
	fromImport := func(imp Import, module string) []target {
		in := func(s *definition) bool { return !isMember(s) && inModule(lang, imp.Relative, module, s) }
		if lang == "go" || lang == "java" || lang == "rust" {
			add(t.inPackage(f, module, name), in, ConfidenceImported, ReasonImported, 0)
		} else {
			add(t.named(f, name, nameOther), in, ConfidenceImported, ReasonImported, 0)
		}
		return out
	}
	switch u.Kind {
	case UseMember:
		b.key = memberID(b.key[:0], u.Qualifier, u.Name)
		id := b.key
		l := symbolList{head: -1}
		if i, ok := t.symbolIndex(f, string(id)); ok {
			l.head = i
		}
		add(l, func(s *definition) bool { return s.ID == string(id) }, ConfidenceReceiver, ReasonReceiver, 0)
		if len(out) > 0 {
			return out, nil
		}
		if lang == "go" { // a member promoted through an embedded field
			s, promoted, err := r.goMember(ctx, f, u.Qualifier, name, 0)
			if err != nil {
				return nil, err
			}
			if s != nil && promoted {
				c, reason := promotedRule(ConfidenceReceiver, ReasonReceiver, true)
				return append(out, target{s.ID, c, reason}), nil
			}
		}
		return global(nameMember, member), nil // an inherited or embedded member
	case UseQualified:
		q, ok := imports[u.Qualifier]
		if !ok {
			return nil, nil
		}
		module := q.Module
		if q.Name != "" && lang == "python" {
			module += "." + q.Name // from pkg import module; module.Name
		}
		if fromImport(q, module); len(out) > 0 || lang != "rust" {
			return out, nil
		}
		return global(nameOther, rustReexported(module)), nil
	case UseSelector:
		return global(nameMember, member), nil
	case UseTyped:
		if lang == "go" {
			typed, err := r.resolveGoTyped(ctx, f, u, imports, out, b)
			if err != nil || len(typed) > 0 {
				return typed, err
			}
			return global(nameMember, member), nil
		}
		typed, err := r.resolveTyped(ctx, f, u, imports, ext, b)
		if err != nil || len(typed) > 0 {
			return typed, err
		}
		return global(nameMember, member), nil
	}
	// UseBare.
	js := lang == "typescript" || lang == "javascript"
	if u.Import && js && (imp.Name == "default" || imp.Require) {
		return r.defaultExport(ctx, f, lang, imp, u, out)
	}
	if u.Import {
		if fromImport(imp, imp.Module); len(out) > 0 || lang != "rust" {
			return out, nil
		}
		return global(nameOther, rustReexported(imp.Module)), nil
	}
	path := f.Document.Path
	add(t.inPath(f, name), func(s *definition) bool { return !isMember(s) && s.Path == path },
		ConfidenceSameFile, ReasonSameFile, 0)
	if len(out) > 0 {
		return out, nil
	}
	if lang == "go" || lang == "java" || lang == "rust" {
		pkg := f.Document.Package
		add(t.inPackage(f, pkg, name), func(s *definition) bool { return !isMember(s) && s.Package == pkg },
			ConfidenceSamePackage, ReasonSamePackage, 0)
		if lang == "go" || len(out) > 0 {
			return out, nil
		}
	}
	if imported {
		if js && (imp.Name == "default" || imp.Require) {
			return r.defaultExport(ctx, f, lang, imp, u, out)
		}
		if imp.Name == "" || imp.Name == "default" {
			return nil, nil
		}
		if fromImport(imp, imp.Module); len(out) > 0 || lang != "rust" {
			return out, nil
		}
		return global(nameOther, rustReexported(imp.Module)), nil
	}
	if lang == "python" {
		// from m import *: the last such import that exports name wins, as
		// at run time.
		for i := len(f.Imports) - 1; i >= 0 && len(out) == 0; i-- {
			if g := f.Imports[i]; g.Name == "*" {
				exported, err := r.starExports(ctx, f, g.Module, name)
				if err != nil {
					return nil, err
				}
				add(t.named(f, name, nameAny), exported, ConfidenceImported, ReasonImported, 0)
			}
		}
		if len(out) > 0 {
			return out, nil
		}
		return global(nameOther, notMember), nil
	}
	for _, g := range f.Imports { // Rust glob imports: use m::*
		if g.Name == "*" {
			add(t.inPackage(f, g.Module, name), func(s *definition) bool { return !isMember(s) && s.Package == g.Module },
				ConfidenceImported, ReasonImported, 0)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	return global(nameOther, notMember), nil
}

// goScoped returns the symbols of l, the definitions of class named by the
// table's key k, whose packages are in f's reach (goReach.in), in table
// order. A module's files ask for the same names again and again, and in a
// repository of many modules most of a common name's definitions are
// other modules': each name's list is filtered once per reach and kept,
// so that a use visits the candidates of its reach alone, as many in a
// repository of four modules as in one, and finds them by two numbers.
func (r *Resolver) goScoped(f *FileFacts, k uint32, class int, l symbolList) symbolList {
	r.mu.Lock()
	if f.scope == 0 {
		if f.scope = r.scopes[f.goScope]; f.scope == 0 {
			f.scope = int32(len(r.scopes) + 1)
			r.scopes[strings.Clone(f.goScope)] = f.scope
		}
	}
	key := scopedKey{f.scope, k, int8(class)}
	ids, ok := r.scoped[key]
	gk := groupKey{k, int8(class)}
	g := r.groups[gk]
	r.mu.Unlock()
	if !ok {
		if g == nil {
			t := r.local
			g = groupByReach(&r.reach, l.all, func(i int32) string { return t.st.short(t.packed(i).pkg) })
		}
		ids = g.in(f.goScope)
		r.mu.Lock()
		if len(r.scoped) >= maxScoped {
			clear(r.scoped)
		}
		if len(r.groups) >= maxScoped {
			clear(r.groups)
		}
		r.scoped[key] = ids
		r.groups[gk] = g
		r.mu.Unlock()
	}
	return symbolList{head: -1, ids: ids}
}

// isDefaultExport reports whether s is its TS/JS module's default export.
func isDefaultExport(s *definition) bool { return isDefaultExportOf(s.Language, s.Signature) }

// isDefaultExportOf is isDefaultExport of a symbol's language and signature.
func isDefaultExportOf(language, signature string) bool {
	return (language == "typescript" || language == "javascript") &&
		(signature == markerExportDefault || signature == markerModuleExports)
}

// defaultExport appends to out the default export of the module a TS/JS
// default import (or a require() binding: only `module.exports = f`)
// names, from the files being resolved or else from the graph when the
// external Lookup is a DocumentLookup. Imports of packages are left out.
func (r *Resolver) defaultExport(ctx context.Context, f *FileFacts, lang string, imp Import, u *Use, out []target) ([]target, error) {
	if !imp.Relative {
		return out, nil
	}
	accept := func(s *definition) bool {
		if !sameFamily(lang, s.Language) || isMember(s) || !isDefaultExport(s) || (u.Type && !isTypeLike(s)) {
			return false
		}
		return !imp.Require || s.Signature == markerModuleExports
	}
	for _, p := range [...]string{imp.Module, imp.Module + "/index"} {
		f.look(lookDefaults, p, "")
		for _, i := range r.local.defaults[p] {
			if s := r.local.def(i); accept(&s) && !slices.ContainsFunc(out, func(t target) bool { return t.id == s.ID }) {
				out = append(out, target{s.ID, ConfidenceImported, ReasonImported})
			}
		}
	}
	ext, err := r.externalDefaults(ctx, imp.Module)
	if err != nil {
		return nil, err
	}
	for k := range ext {
		if s := &ext[k]; accept(s) && !slices.ContainsFunc(out, func(t target) bool { return t.id == s.ID }) {
			out = append(out, target{s.ID, ConfidenceImported, ReasonImported})
		}
	}
	return out, nil
}

// externalDefaults returns the default exports the graph records for the
// files of a relative TS/JS module, but for the files being resolved.
func (r *Resolver) externalDefaults(ctx context.Context, module string) ([]definition, error) {
	dl, ok := r.external.(DocumentLookup)
	if !ok {
		return nil, nil
	}
	r.mu.Lock()
	ext, ok := r.defaults[module]
	r.mu.Unlock()
	if ok {
		return ext, nil
	}
	// The files a relative module path can name.
	for _, suffix := range [...]string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs",
		"/index.ts", "/index.tsx", "/index.js", "/index.jsx", "/index.mjs", "/index.cjs"} {
		p := module + suffix
		if r.paths[p] {
			continue
		}
		syms, err := dl.Defined(ctx, p)
		if err != nil {
			return nil, err
		}
		for _, s := range syms {
			if d := definitionOf(&s); !s.External && s.Def.Path == p && isDefaultExport(&d) {
				ext = append(ext, d)
			}
		}
	}
	r.mu.Lock()
	r.defaults[module] = ext
	r.mu.Unlock()
	return ext, nil
}

// starExports returns whether a symbol is the top-level definition of name
// in the Python module module and exported by it to `from module import *`:
// listed in the module's __all__ when that is a literal list or tuple of
// strings, else not starting with "_".
func (r *Resolver) starExports(ctx context.Context, f *FileFacts, module, name string) (func(*definition) bool, error) {
	allSyms, err := r.externalNamed(ctx, "__all__")
	if err != nil {
		return nil, err
	}
	suffix := " " + module + ":" + name
	return func(s *definition) bool {
		if isMember(s) || !strings.HasSuffix(s.ID, suffix) {
			return false
		}
		id := []byte(s.ID[:len(s.ID)-len(name)] + "__all__")
		if all, ok := r.symbolByID(f, id, allSyms); ok {
			if names, ok := pyAllNames(all.Signature); ok {
				return slices.Contains(names, name)
			}
		}
		return !strings.HasPrefix(name, "_")
	}, nil
}

// implementedMethods adds an implements edge from each method of u.Members
// (a method of u.Enclosing) to the method of the same name of the supertype
// t, when t has one, with the confidence of t's resolution.
func (r *Resolver) implementedMethods(ctx context.Context, f *FileFacts, u *Use, t target, b *resolveBuffers, addEdge func(graph.Edge)) error {
	for _, m := range u.Members {
		ext, err := r.externalNamed(ctx, m)
		if err != nil {
			return err
		}
		b.key = memberID(b.key[:0], t.id, m)
		s, ok := r.symbolByID(f, b.key, ext)
		if !ok || (s.Kind != "method" && s.Kind != "function") {
			continue
		}
		addEdge(graph.Edge{From: u.Enclosing + "." + m, To: s.ID, Kind: graph.EdgeImplements, Confidence: t.confidence,
			Source: graph.SourceSyntax, Reason: t.reason, Count: 1})
	}
	return nil
}

// memberID appends the symbol id of member name of the type typeID to dst.
func memberID(dst []byte, typeID, name string) []byte {
	dst = append(dst, typeID...)
	dst = append(dst, '.')
	return append(dst, name...)
}

// symbolByID returns the symbol whose id is id, from the files being
// resolved or else from ext.
func (r *Resolver) symbolByID(f *FileFacts, id []byte, ext []definition) (*definition, bool) {
	if i, ok := r.local.symbolIndex(f, string(id)); ok {
		d := r.local.def(i)
		return &d, true
	}
	for k := range ext {
		if ext[k].ID == string(id) {
			return &ext[k], true
		}
	}
	return nil, false
}

// typesOf resolves the declared type u.Qualifier of a UseTyped use into
// b.types.
func (r *Resolver) typesOf(ctx context.Context, f *FileFacts, u *Use, imports map[string]Import, b *resolveBuffers) ([]target, error) {
	tu := Use{Range: u.Range, Name: u.Qualifier, Kind: UseBare, Type: true, Enclosing: u.Enclosing}
	if q, name, ok := strings.Cut(u.Qualifier, "."); ok {
		if _, imported := imports[q]; !imported {
			return nil, nil
		}
		tu.Kind, tu.Qualifier, tu.Name = UseQualified, q, name
	}
	types, err := r.resolveUse(ctx, f, &tu, imports, b.types, b)
	if cap(types) > cap(b.types) {
		b.types = types[:0]
	}
	return types, err
}

// resolveTyped resolves x.Name where x is declared with type u.Qualifier:
// the type is resolved as a type use of the file, and the member is looked
// up in each type found. The edge is as strong as the weaker of the two
// steps. When no type has the member (it is embedded or inherited), the
// caller falls back to a global guess.
func (r *Resolver) resolveTyped(ctx context.Context, f *FileFacts, u *Use, imports map[string]Import, ext []definition, b *resolveBuffers) ([]target, error) {
	types, err := r.typesOf(ctx, f, u, imports, b)
	if err != nil || len(types) == 0 {
		return nil, err
	}
	out := b.derived[:0]
	for _, t := range types {
		b.key = memberID(b.key[:0], t.id, u.Name)
		s, ok := r.symbolByID(f, b.key, ext)
		if !ok {
			continue
		}
		c, reason := ConfidenceDeclared, ReasonDeclared
		if t.confidence < c {
			c, reason = t.confidence, t.reason // the type itself was a guess
		}
		out = append(out, target{s.ID, c, reason})
	}
	if cap(out) > cap(b.derived) {
		b.derived = out[:0]
	}
	return out, nil
}

// inModule reports whether s is defined in (or exported by the package of)
// an imported module.
func inModule(lang string, relative bool, module string, s *definition) bool {
	switch lang {
	case "go", "java":
		return s.Package == module
	case "python":
		if s.Package == module {
			return true
		}
		p := strings.TrimSuffix(stripExt(s.Path), "/__init__")
		dotted := strings.ReplaceAll(p, "/", ".")
		return dotted == module || strings.HasSuffix(dotted, "."+module)
	}
	if relative {
		p := stripExt(s.Path)
		return p == module || p == module+"/index"
	}
	return s.Package == module
}
