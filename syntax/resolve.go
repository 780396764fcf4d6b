package syntax

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
)

// The confidence table. Every edge the package makes carries one of these
// (confidence, reason) pairs; the package documentation explains each rule.
// Global-name guesses stay below the default impact threshold (0.7).
const (
	ConfidenceDeclaration  = 1.0
	ConfidenceSameFile     = 0.9
	ConfidenceSamePackage  = 0.85
	ConfidenceImported     = 0.85
	ConfidenceReceiver     = 0.8
	ConfidenceDeclared     = 0.8
	ConfidenceUniqueGlobal = 0.6
	ConfidenceAmbiguous    = 0.3

	ReasonDeclaration  = "syntax:declaration"
	ReasonSameFile     = "syntax:same-file"
	ReasonSamePackage  = "syntax:same-package"
	ReasonImported     = "syntax:imported-package"
	ReasonReceiver     = "syntax:receiver-type"
	ReasonDeclared     = "syntax:declared-type"
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
// (document, name) and by symbol.
type NameTable struct {
	syms       []graph.Symbol
	byName     map[string][]int32
	byPkgName  map[[2]string][]int32
	byPathName map[[2]string][]int32
	byID       map[string]int32
}

// NewNameTable indexes the definitions of files (package and module
// symbols left out).
func NewNameTable(files []*FileFacts) *NameTable {
	t := &NameTable{
		byName:     map[string][]int32{},
		byPkgName:  map[[2]string][]int32{},
		byPathName: map[[2]string][]int32{},
		byID:       map[string]int32{},
	}
	for _, f := range files {
		if f == nil || f.Skipped != SkipNone {
			continue
		}
		for _, s := range f.Symbols {
			if s.Kind == "package" || s.Kind == "module" {
				continue
			}
			i := int32(len(t.syms))
			t.syms = append(t.syms, s)
			t.byName[s.DisplayName] = append(t.byName[s.DisplayName], i)
			t.byPkgName[[2]string{s.Package, s.DisplayName}] = append(t.byPkgName[[2]string{s.Package, s.DisplayName}], i)
			t.byPathName[[2]string{s.Def.Path, s.DisplayName}] = append(t.byPathName[[2]string{s.Def.Path, s.DisplayName}], i)
			if _, ok := t.byID[s.ID]; !ok {
				t.byID[s.ID] = i
			}
		}
	}
	return t
}

// Named returns the symbols named name.
func (t *NameTable) Named(_ context.Context, name string) ([]graph.Symbol, error) {
	idx := t.byName[name]
	out := make([]graph.Symbol, len(idx))
	for k, i := range idx {
		out[k] = t.syms[i]
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

// Resolver turns the uses of extracted files into occurrences and edges. It
// is safe for concurrent use.
type Resolver struct {
	local    *NameTable
	paths    map[string]bool // documents being resolved: their old facts in external are stale
	external Lookup

	mu    sync.Mutex
	cache map[string][]graph.Symbol // external lookups
}

// NewResolver prepares the resolution of files. Their own definitions are
// always candidates; external (nil for none) supplies the rest, minus any
// symbol it reports as defined in one of files (an older version of them).
func NewResolver(files []*FileFacts, external Lookup) *Resolver {
	r := &Resolver{local: NewNameTable(files), paths: map[string]bool{}, external: external, cache: map[string][]graph.Symbol{}}
	for _, f := range files {
		if f != nil {
			r.paths[f.Document.Path] = true
		}
	}
	return r
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
func (r *Resolver) externalNamed(ctx context.Context, name string) ([]graph.Symbol, error) {
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
		ext = append(ext, s)
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

// Document resolves one file's uses and returns its complete facts.
func (r *Resolver) Document(ctx context.Context, f *FileFacts) (graph.DocumentFacts, error) {
	df := graph.DocumentFacts{
		Document: f.Document,
		Symbols:  append([]graph.Symbol(nil), f.Symbols...),
		// Room for one occurrence per use, which most uses yield.
		Occurrences: append(make([]graph.Occurrence, 0, len(f.Occurrences)+len(f.Uses)), f.Occurrences...),
	}
	imports := map[string]Import{}
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
	edges := make(map[edgeKey]int, len(f.Edges)+len(f.Uses)/2)
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
		edges[k] = len(df.Edges)
		df.Edges = append(df.Edges, e)
	}
	for _, e := range f.Edges {
		addEdge(e)
	}
	var testRole graph.Role
	if f.Document.Flags&graph.DocTest != 0 {
		testRole = graph.RoleTest
	}
	// The targets of a use are read before the next use is resolved, so
	// one buffer holds them all.
	scratch := make([]target, 0, MaxAmbiguous+1)
	for i := range f.Uses {
		if i%256 == 0 && ctx.Err() != nil {
			return graph.DocumentFacts{}, fmt.Errorf("syntax: resolving %s: %w", f.Document.Path, ctx.Err())
		}
		u := &f.Uses[i]
		targets, err := r.resolveUse(ctx, f, u, imports, scratch)
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
		if u.Import {
			roles = graph.RoleImport | testRole
		}
		if u.Test {
			roles |= graph.RoleTest
		}
		for _, t := range targets {
			if t.reason != ReasonAmbiguous {
				df.Occurrences = append(df.Occurrences, graph.Occurrence{
					Path: f.Document.Path, Range: u.Range, Symbol: t.id, Roles: roles, Enclosing: u.Enclosing,
				})
			}
			if u.Import {
				continue
			}
			from := u.Enclosing
			if from == "" {
				from = f.self
			}
			if from == "" {
				continue
			}
			addEdge(graph.Edge{From: from, To: t.id, Kind: kind, Confidence: t.confidence,
				Source: graph.SourceSyntax, Reason: t.reason, Count: 1})
		}
	}
	if len(df.Edges) == 0 {
		df.Edges = nil // as when nothing was added
	}
	if len(df.Occurrences) == 0 {
		df.Occurrences = nil
	}
	slices.SortStableFunc(df.Occurrences, func(a, b graph.Occurrence) int {
		if c := compareRange(a.Range, b.Range); c != 0 {
			return c
		}
		return strings.Compare(a.Symbol, b.Symbol)
	})
	slices.SortStableFunc(df.Edges, func(a, b graph.Edge) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(string(a.Kind), string(b.Kind)), strings.Compare(a.To, b.To))
	})
	return df, nil
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

func isMember(s graph.Symbol) bool {
	return s.Kind == "method" || s.Kind == "field" || s.Kind == "constructor"
}

func isTypeLike(s graph.Symbol) bool {
	switch s.Kind {
	case "struct", "interface", "type", "class", "enum":
		return true
	}
	return false
}

// resolveUse applies the rules of the confidence table to one use. The
// targets are appended to buf[:0] when buf is not nil (the result may then
// share buf's array).
func (r *Resolver) resolveUse(ctx context.Context, f *FileFacts, u *Use, imports map[string]Import, buf []target) ([]target, error) {
	lang := f.Document.Language
	imp, imported := imports[u.Name]
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
	// add collects the acceptable symbols among local indices idx and ext
	// that keep accepts; it stops after limit distinct symbols (0: no limit)
	// and reports whether it stopped early.
	add := func(idx []int32, keep func(*graph.Symbol) bool, c float64, reason string, limit int) bool {
		try := func(s *graph.Symbol) bool {
			if !sameFamily(lang, s.Language) || (u.Type && !isTypeLike(*s)) || !keep(s) || seen(s.ID) {
				return true
			}
			out = append(out, target{s.ID, c, reason})
			return limit == 0 || len(out) <= limit
		}
		for _, i := range idx {
			if !try(&t.syms[i]) {
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
	member := func(s *graph.Symbol) bool { return isMember(*s) }
	notMember := func(s *graph.Symbol) bool { return !isMember(*s) }
	global := func(keep func(*graph.Symbol) bool) []target {
		out = out[:0]
		if add(t.byName[name], keep, ConfidenceAmbiguous, ReasonAmbiguous, MaxAmbiguous) {
			return nil // too many candidates to guess
		}
		if len(out) == 1 {
			out[0].confidence, out[0].reason = ConfidenceUniqueGlobal, ReasonUniqueGlobal
		}
		return out
	}
	fromImport := func(imp Import, module string) []target {
		in := func(s *graph.Symbol) bool { return !isMember(*s) && inModule(lang, imp.Relative, module, *s) }
		if lang == "go" || lang == "java" || lang == "rust" {
			add(t.byPkgName[[2]string{module, name}], in, ConfidenceImported, ReasonImported, 0)
		} else {
			add(t.byName[name], in, ConfidenceImported, ReasonImported, 0)
		}
		return out
	}
	if u.Via != "" && (u.Kind == UseMember || u.Kind == UseTyped) {
		return r.resolveVia(ctx, f, u, imports, ext, global(member))
	}
	switch u.Kind {
	case UseMember:
		id := u.Qualifier + "." + u.Name
		var idx []int32
		if i, ok := t.byID[id]; ok {
			idx = []int32{i}
		}
		add(idx, func(s *graph.Symbol) bool { return s.ID == id }, ConfidenceReceiver, ReasonReceiver, 0)
		if len(out) > 0 {
			return out, nil
		}
		return global(member), nil // an inherited or embedded member
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
		return global(rustReexported(module)), nil
	case UseSelector:
		return global(member), nil
	case UseTyped:
		return r.resolveTyped(ctx, f, u, imports, ext, global(member))
	}
	// UseBare.
	if u.Import {
		if fromImport(imp, imp.Module); len(out) > 0 || lang != "rust" {
			return out, nil
		}
		return global(rustReexported(imp.Module)), nil
	}
	path := f.Document.Path
	add(t.byPathName[[2]string{path, name}], func(s *graph.Symbol) bool { return !isMember(*s) && s.Def.Path == path },
		ConfidenceSameFile, ReasonSameFile, 0)
	if len(out) > 0 {
		return out, nil
	}
	if lang == "go" || lang == "java" || lang == "rust" {
		pkg := f.Document.Package
		add(t.byPkgName[[2]string{pkg, name}], func(s *graph.Symbol) bool { return !isMember(*s) && s.Package == pkg },
			ConfidenceSamePackage, ReasonSamePackage, 0)
		if lang == "go" || len(out) > 0 {
			return out, nil
		}
	}
	if imported {
		if imp.Name == "" || imp.Name == "default" {
			return nil, nil
		}
		if fromImport(imp, imp.Module); len(out) > 0 || lang != "rust" {
			return out, nil
		}
		return global(rustReexported(imp.Module)), nil
	}
	for _, g := range f.Imports { // Rust glob imports: use m::*
		if g.Name == "*" {
			add(t.byPkgName[[2]string{g.Module, name}], func(s *graph.Symbol) bool { return !isMember(*s) && s.Package == g.Module },
				ConfidenceImported, ReasonImported, 0)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	return global(notMember), nil
}

// resolveVia resolves x.Via.Name: the types of x (the receiver's type, or
// the declared type of a local), then each type's field Via and its
// declared type (a Go field's Signature), then Name in that type.
func (r *Resolver) resolveVia(ctx context.Context, f *FileFacts, u *Use, imports map[string]Import, ext []graph.Symbol, fallback []target) ([]target, error) {
	var bases []target
	if u.Kind == UseMember {
		bases = []target{{u.Qualifier, ConfidenceReceiver, ReasonReceiver}}
	} else {
		tu := *u
		tu.Via = ""
		types, err := r.typesOf(ctx, f, &tu, imports)
		if err != nil {
			return nil, err
		}
		bases = types
	}
	viaSyms, err := r.externalNamed(ctx, u.Via)
	if err != nil {
		return nil, err
	}
	symbol := func(id string, ext []graph.Symbol) (graph.Symbol, bool) {
		if i, ok := r.local.byID[id]; ok {
			return r.local.syms[i], true
		}
		for _, s := range ext {
			if s.ID == id {
				return s, true
			}
		}
		return graph.Symbol{}, false
	}
	var out []target
	for _, b := range bases {
		field, ok := symbol(b.id+"."+u.Via, viaSyms)
		if !ok || field.Kind != "field" {
			continue
		}
		ft, ok := goFieldType(field.Signature)
		if !ok {
			continue
		}
		id := ft + "." + u.Name
		if _, ok := symbol(id, ext); !ok {
			continue
		}
		c, reason := ConfidenceDeclared, ReasonDeclared
		if b.confidence < c {
			c, reason = b.confidence, b.reason
		}
		out = append(out, target{id, c, reason})
	}
	if len(out) == 0 {
		return fallback, nil
	}
	return out, nil
}

// typesOf resolves the declared type u.Qualifier of a UseTyped use.
func (r *Resolver) typesOf(ctx context.Context, f *FileFacts, u *Use, imports map[string]Import) ([]target, error) {
	tu := Use{Range: u.Range, Name: u.Qualifier, Kind: UseBare, Type: true, Enclosing: u.Enclosing}
	if q, name, ok := strings.Cut(u.Qualifier, "."); ok {
		if _, imported := imports[q]; !imported {
			return nil, nil
		}
		tu.Kind, tu.Qualifier, tu.Name = UseQualified, q, name
	}
	return r.resolveUse(ctx, f, &tu, imports, nil)
}

// resolveTyped resolves x.Name where x is declared with type u.Qualifier:
// the type is resolved as a type use of the file, and the member is looked
// up in each type found. The edge is as strong as the weaker of the two
// steps. When no type has the member (it is embedded or inherited), the
// global guess stands.
func (r *Resolver) resolveTyped(ctx context.Context, f *FileFacts, u *Use, imports map[string]Import, ext []graph.Symbol, fallback []target) ([]target, error) {
	types, err := r.typesOf(ctx, f, u, imports)
	if err != nil || len(types) == 0 {
		return fallback, err
	}
	var out []target
	for _, t := range types {
		id := t.id + "." + u.Name
		found := false
		if _, ok := r.local.byID[id]; ok {
			found = true
		}
		for k := 0; k < len(ext) && !found; k++ {
			found = ext[k].ID == id
		}
		if !found {
			continue
		}
		c, reason := ConfidenceDeclared, ReasonDeclared
		if t.confidence < c {
			c, reason = t.confidence, t.reason // the type itself was a guess
		}
		out = append(out, target{id, c, reason})
	}
	if len(out) == 0 {
		return fallback, nil
	}
	return out, nil
}

// inModule reports whether s is defined in (or exported by the package of)
// an imported module.
func inModule(lang string, relative bool, module string, s graph.Symbol) bool {
	switch lang {
	case "go", "java":
		return s.Package == module
	case "python":
		if s.Package == module {
			return true
		}
		p := strings.TrimSuffix(stripExt(s.Def.Path), "/__init__")
		dotted := strings.ReplaceAll(p, "/", ".")
		return dotted == module || strings.HasSuffix(dotted, "."+module)
	}
	if relative {
		p := stripExt(s.Def.Path)
		return p == module || p == module+"/index"
	}
	return s.Package == module
}
