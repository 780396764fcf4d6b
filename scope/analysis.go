package scope

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
)

// RootPackage names the package of documents that belong to no discovered
// package and carry no package in the graph.
const RootPackage = "(root)"

// DefaultMinConfidence is the confidence an edge needs for the reference
// it stands for to make a dependency: impact's default threshold, which
// keeps the syntax rules that follow names and types and drops global-name
// guesses (syntax/CALIBRATION.md).
const DefaultMinConfidence = 0.7

// Analysis joins a Workspace with a graph: every document has a package,
// and dependencies the graph observes are added to the declared ones.
// Observation is lazy: a package's documents are read the first time its
// dependencies are asked for, so a closure over a few packages of a large
// graph reads only those. The Reader must stay open while the Analysis is
// used; an Analysis is not safe for concurrent use.
type Analysis struct {
	ws      *Workspace
	r       *graph.Reader
	docPkg  map[string]string   // document path -> package name
	pkgDocs map[string][]string // package name -> its documents
	// defPkg caches, per symbol asked about, the package of the first
	// document (in path order) that defines it, "" when none does.
	defPkg   map[string]string
	observed map[string]map[string][]Why
	done     map[string]bool           // packages whose documents were observed
	docDeps  map[string]docObservation // per document observed: the packages it references, why
	names    map[string]string
	kinds    map[string]Kind
	// conf holds, per enclosing definition, the best confidence of its
	// edges to each target.
	conf map[string]map[string]float64
	// MinConfidence is the confidence below which a reference observed
	// through a weaker edge (a name guess) makes no dependency; a reference
	// without an edge (a precise fact) always counts. Analyze sets it to
	// DefaultMinConfidence.
	MinConfidence float64
	firstDef      map[string]firstDefinition // document -> its first function or type, once read
}

// firstDefinition is a document's first function or type, if it has one.
type firstDefinition struct {
	s  graph.Symbol
	ok bool
}

// Analyze maps the graph's documents to workspace packages. Dependencies
// are observed on demand: a reference from a document of package A to a
// symbol defined in a document of package B makes A depend on B, the
// package defining each symbol looked up (in the graph's definition
// index) as the first reference to it is observed. Nothing is read of
// the documents of packages no question reaches: an analysis costs what
// its closures hold, not what the graph holds. (Reading every document's
// symbols to map them to packages up front cost a CLI context question
// on four copies of GOROOT's source 0.8 s of its 1.5 s.) A nil reader
// gives an analysis of the declared dependencies only.
func Analyze(ctx context.Context, ws *Workspace, r *graph.Reader) (*Analysis, error) {
	a := &Analysis{
		ws:       ws,
		r:        r,
		docPkg:   map[string]string{},
		pkgDocs:  map[string][]string{},
		defPkg:   map[string]string{},
		observed: map[string]map[string][]Why{},
		done:     map[string]bool{},
		docDeps:  map[string]docObservation{},
		names:    map[string]string{},
		kinds:    map[string]Kind{},
		conf:     map[string]map[string]float64{},

		MinConfidence: DefaultMinConfidence,
		firstDef:      map[string]firstDefinition{},
	}
	for _, p := range ws.Packages {
		a.kinds[p.Name] = p.Kind
	}
	if r == nil {
		return a, nil // declared dependencies only
	}
	err := r.Documents(ctx, func(d graph.Document) error {
		name := a.packageFor(d)
		a.docPkg[d.Path] = name
		a.pkgDocs[name] = append(a.pkgDocs[name], d.Path)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scope: listing documents: %w", err)
	}
	return a, nil
}

// lookUpDefinitions finds the defining packages of the symbols that the
// documents ps reference and that are not known yet, in one batch (see
// graph.Reader.DefiningDocuments): looked up one at a time as references
// were observed, they cost a context question on GOROOT's source more
// than the whole graph's symbols read in one scan. The documents are read
// again to be observed: keeping their references between the two reads
// instead measured slower (0.85 s against 0.63 for a context question on
// GOROOT's source, 40 MB more memory).
func (a *Analysis) lookUpDefinitions(ctx context.Context, ps []string) error {
	var syms []string
	seen := map[string]bool{}
	for _, p := range ps {
		err := a.r.EachOccurrence(ctx, p, func(o graph.Occurrence) error {
			if o.Roles&graph.RoleDefinition != 0 || graph.DocLocal(o.Symbol, p) || seen[o.Symbol] {
				return nil
			}
			if _, ok := a.defPkg[o.Symbol]; !ok {
				sym := strings.Clone(o.Symbol)
				seen[sym] = true
				syms = append(syms, sym)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("scope: reading occurrences of %s: %w", p, err)
		}
	}
	return a.addDefinitions(ctx, syms)
}

// addDefinitions looks up and keeps the defining packages of syms.
func (a *Analysis) addDefinitions(ctx context.Context, syms []string) error {
	if len(syms) == 0 {
		return nil
	}
	paths, err := a.r.DefiningDocuments(ctx, syms)
	if err != nil {
		return fmt.Errorf("scope: %w", err)
	}
	for i, sym := range syms {
		a.defPkg[sym] = a.docPkg[paths[i]] // "" when no document defines it
	}
	return nil
}

// definingPackage returns the package of the first document, in path
// order, with a definition of sym, and false when no document of the
// graph defines it.
func (a *Analysis) definingPackage(ctx context.Context, sym string) (string, bool, error) {
	pkg, ok := a.defPkg[sym]
	if !ok {
		if err := a.addDefinitions(ctx, []string{strings.Clone(sym)}); err != nil {
			return "", false, err
		}
		pkg = a.defPkg[sym]
	}
	return pkg, pkg != "", nil
}

// Update makes the analysis hold for r, whose documents differ from those
// of the reader it was made with at most at paths (in a session: the live
// layer's documents, before and after), for the cost of those documents
// rather than of the whole graph. Each path's package is read again, and
// its references observed again when its package, before or after, is
// next asked for; the other documents' observations are kept. The
// packages defining symbols are looked up again as references to them
// are observed, in r: other documents' references to a symbol that moved
// count where it is now once they change too.
func (a *Analysis) Update(ctx context.Context, r *graph.Reader, paths []string) error {
	a.r = r
	if r == nil || len(paths) == 0 {
		return nil
	}
	stale := map[string]bool{}
	for _, p := range paths {
		delete(a.docDeps, p)
		if pkg, ok := a.docPkg[p]; ok {
			stale[pkg] = true
			a.pkgDocs[pkg] = slices.DeleteFunc(a.pkgDocs[pkg], func(q string) bool { return q == p })
			delete(a.docPkg, p)
		}
		delete(a.firstDef, p)
		d, ok, err := r.Document(ctx, p)
		if err != nil {
			return fmt.Errorf("scope: reading document %s: %w", p, err)
		}
		if !ok {
			continue
		}
		pkg := a.packageFor(d)
		stale[pkg] = true
		a.docPkg[p] = pkg
		// In path order, as Analyze lists them, so that observing reads
		// them in the same order.
		i, _ := slices.BinarySearch(a.pkgDocs[pkg], p)
		a.pkgDocs[pkg] = slices.Insert(a.pkgDocs[pkg], i, p)
	}
	for pkg := range stale {
		delete(a.observed, pkg)
		delete(a.done, pkg)
	}
	// The caches of defining packages, names and edge confidences may
	// describe the old documents' symbols; they are refilled as packages
	// are observed. The other packages' observations are kept: a
	// reference of theirs to a symbol that moved counts once they change
	// too.
	clear(a.defPkg)
	clear(a.names)
	clear(a.conf)
	return nil
}

// observe records the packages a package's documents reference, from
// each document's own observation (observeDocument), kept per document so
// that a changed document is read again alone (Update): a package's
// reasons are its documents' in path order, the first maxWhy per
// dependency.
func (a *Analysis) observe(ctx context.Context, from string) error {
	if a.r == nil || a.done[from] {
		return nil
	}
	skip := func(p string) bool {
		// As with imports: a Go test's references, or a file the build
		// leaves out.
		return a.ws.byPackage && (strings.HasSuffix(p, "_test.go") || a.ws.goExcluded[p])
	}
	var fresh []string
	for _, p := range a.pkgDocs[from] {
		if _, ok := a.docDeps[p]; !ok && !skip(p) {
			fresh = append(fresh, p)
		}
	}
	if err := a.lookUpDefinitions(ctx, fresh); err != nil {
		return err
	}
	m := map[string][]Why{}
	for _, p := range a.pkgDocs[from] {
		if err := ctx.Err(); err != nil {
			return err
		}
		if skip(p) {
			continue
		}
		d, ok := a.docDeps[p]
		if ok && d.short(m) {
			ok = false // it skipped references the package now needs
		}
		if !ok {
			var err error
			if d, err = a.observeDocument(ctx, p, from, m); err != nil {
				return err
			}
			a.docDeps[p] = d
		}
		for to, why := range d.why {
			m[to] = append(m[to], why[:min(len(why), maxWhy-len(m[to]))]...)
		}
	}
	if len(m) > 0 {
		a.observed[from] = m
	}
	a.done[from] = true
	return nil
}

// docObservation is what a document's references show: the packages they
// reference, with the first references to each (at most maxWhy), and the
// packages whose further references were not judged because the
// documents before it had given maxWhy reasons already.
type docObservation struct {
	why     map[string][]Why
	skipped map[string]bool
}

// short reports whether the observation skipped references to a package
// that the reasons gathered before it (had) no longer fill.
func (d docObservation) short(had map[string][]Why) bool {
	for to := range d.skipped {
		if len(had[to])+len(d.why[to]) < maxWhy {
			return true
		}
	}
	return false
}

// observeDocument reads the occurrences of document p, of package from,
// and returns the other packages they reference, with the first maxWhy
// references to each. A reference to a package that had (the reasons of
// the documents before p) and p's own fill needs no more: it is skipped
// before the edge reads that judge a reference weak.
func (a *Analysis) observeDocument(ctx context.Context, p, from string, had map[string][]Why) (docObservation, error) {
	var d docObservation
	// A closure's documents are read whole, every occurrence of each: they
	// are read without a copy of each (EachOccurrence), and what is kept
	// is copied.
	err := a.r.EachOccurrence(ctx, p, func(o graph.Occurrence) error {
		if o.Roles&graph.RoleDefinition != 0 || graph.DocLocal(o.Symbol, p) {
			return nil
		}
		to, ok, err := a.definingPackage(ctx, o.Symbol)
		if err != nil || !ok || to == from || len(d.why[to]) >= maxWhy {
			return err
		}
		if len(had[to])+len(d.why[to]) >= maxWhy {
			if d.skipped == nil {
				d.skipped = map[string]bool{}
			}
			d.skipped[to] = true
			return nil
		}
		if weak, err := a.weak(ctx, o); err != nil || weak {
			return err
		}
		if d.why == nil {
			d.why = map[string][]Why{}
		}
		name, ok := a.names[o.Symbol]
		if !ok {
			name = strings.Clone(displayName(ctx, a.r, o.Symbol))
			a.names[strings.Clone(o.Symbol)] = name
		}
		d.why[to] = append(d.why[to], Why{Observed: true, File: p, Line: int(o.Range.Start.Line) + 1, Detail: "references `" + name + "`"})
		return nil
	})
	if err != nil {
		return d, fmt.Errorf("scope: reading occurrences of %s: %w", p, err)
	}
	return d, nil
}

// weak reports whether an occurrence is backed only by edges below
// MinConfidence: its enclosing definition's edges to the symbol exist and
// are all weaker.
func (a *Analysis) weak(ctx context.Context, o graph.Occurrence) (bool, error) {
	if o.Enclosing == "" {
		return false, nil
	}
	best, ok := a.conf[o.Enclosing]
	if !ok {
		es, err := a.r.Outgoing(ctx, o.Enclosing, graph.EdgeFilter{})
		if err != nil {
			return false, fmt.Errorf("scope: reading edges of %s: %w", o.Enclosing, err)
		}
		best = map[string]float64{}
		for _, e := range es {
			best[e.To] = max(best[e.To], e.Confidence)
		}
		a.conf[strings.Clone(o.Enclosing)] = best
	}
	c, ok := best[o.Symbol]
	return ok && c < a.MinConfidence, nil
}

// displayName is a symbol's display name, or the last descriptor of its id.
func displayName(ctx context.Context, r *graph.Reader, id string) string {
	if s, ok, err := r.Symbol(ctx, id); err == nil && ok && s.DisplayName != "" {
		return s.DisplayName
	}
	return ShortName(id)
}

// ShortName returns the last descriptor of a SCIP-like symbol id, for
// messages: "…/Catalog#Save()." → "Save".
func ShortName(id string) string {
	s := strings.TrimRight(id, ".#/:()!")
	s = strings.TrimSuffix(s, "()")
	s = strings.TrimRight(s, ".#/:()!")
	if i := strings.LastIndexAny(s, "/#.` "); i >= 0 && i+1 < len(s) {
		s = s[i+1:]
	}
	return strings.Trim(s, "`")
}

func (a *Analysis) packageFor(d graph.Document) string {
	if p, ok := a.ws.PackageOf(d.Path); ok {
		return p.Name
	}
	if d.Package != "" {
		if _, ok := a.kinds[d.Package]; !ok {
			a.kinds[d.Package] = KindGraph
		}
		return d.Package
	}
	a.kinds[RootPackage] = KindGraph
	return RootPackage
}

// Workspace returns the discovered workspace.
func (a *Analysis) Workspace() *Workspace { return a.ws }

// PackageOfDocument returns the package a document belongs to. Paths the
// graph does not know are mapped by directory.
func (a *Analysis) PackageOfDocument(path string) string {
	if p, ok := a.docPkg[path]; ok {
		return p
	}
	if p, ok := a.ws.PackageOf(path); ok {
		return p.Name
	}
	return RootPackage
}

// HasDocument reports whether the graph has a document at a root-relative path.
func (a *Analysis) HasDocument(path string) bool {
	_, ok := a.docPkg[path]
	return ok
}

// Packages returns every package name: discovered ones and those only the
// graph knows, sorted.
func (a *Analysis) Packages() []string {
	return sortedStrings(a.kinds)
}

// Kind returns how a package was found.
func (a *Analysis) Kind(name string) Kind { return a.kinds[name] }

// Documents returns the number of graph documents of a package.
func (a *Analysis) Documents(name string) int { return len(a.pkgDocs[name]) }

// Observed returns every dependency the graph shows, sorted. It reads every
// document.
func (a *Analysis) Observed(ctx context.Context) ([]Dep, error) {
	for _, name := range a.Packages() {
		if err := a.observe(ctx, name); err != nil {
			return nil, err
		}
	}
	return flattenDeps(a.observed), nil
}

// Deps returns a package's direct dependencies, declared ∪ observed, with
// the declared reasons first.
func (a *Analysis) Deps(ctx context.Context, name string) ([]Dep, error) {
	if err := a.observe(ctx, name); err != nil {
		return nil, err
	}
	tos := map[string][]Why{}
	for to, why := range a.ws.deps[name] {
		tos[to] = append(tos[to], why...)
	}
	for to, why := range a.observed[name] {
		tos[to] = append(tos[to], why...)
	}
	out := make([]Dep, 0, len(tos))
	for _, to := range sortedStrings(tos) {
		out = append(out, Dep{From: name, To: to, Why: tos[to]})
	}
	return out, nil
}

// Resolve maps a user's package argument (name, directory, Go package
// import path) to a package name.
func (a *Analysis) Resolve(s string) (string, bool) {
	if _, ok := a.kinds[s]; ok {
		return s, true
	}
	if p, ok := a.ws.Lookup(s); ok {
		return p.Name, true
	}
	return "", false
}

// Member is one package of a closure.
type Member struct {
	Name  string `json:"name"`
	Kind  Kind   `json:"kind"`
	Depth int    `json:"depth"` // 0: the start package; 1: a direct dependency; …
	// Via is the dependency that brought the package in (nil for the start
	// and for extra packages).
	Via   *Dep `json:"via,omitempty"`
	Extra bool `json:"extra,omitempty"` // added by the caller, not reached through dependencies
}

// Closure is a set of packages a question is answered within.
type Closure struct {
	Start   string
	All     bool // every package (the "repo" scope)
	Members []Member
	set     map[string]bool
}

// Contains reports whether a package is in the closure.
func (c *Closure) Contains(pkg string) bool { return c.All || c.set[pkg] }

// Names returns the member names in closure order.
func (c *Closure) Names() []string {
	out := make([]string, len(c.Members))
	for i, m := range c.Members {
		out[i] = m.Name
	}
	return out
}

// Closure returns start's transitive dependencies (breadth-first, so each
// member's Via is a shortest chain) plus extra packages.
func (a *Analysis) Closure(ctx context.Context, start string, extra []string) (*Closure, error) {
	c := &Closure{Start: start, set: map[string]bool{start: true}}
	c.Members = append(c.Members, Member{Name: start, Kind: a.kinds[start]})
	queue := []string{start}
	depthOf := map[string]int{start: 0}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		deps, err := a.Deps(ctx, cur)
		if err != nil {
			return nil, err
		}
		for _, d := range deps {
			if c.set[d.To] {
				continue
			}
			c.set[d.To] = true
			depthOf[d.To] = depthOf[cur] + 1
			c.Members = append(c.Members, Member{Name: d.To, Kind: a.kinds[d.To], Depth: depthOf[d.To], Via: &d})
			queue = append(queue, d.To)
		}
	}
	for _, e := range extra {
		name, ok := a.Resolve(e)
		if !ok {
			return nil, a.unknown(e)
		}
		if c.set[name] {
			continue
		}
		c.set[name] = true
		c.Members = append(c.Members, Member{Name: name, Kind: a.kinds[name], Extra: true})
	}
	return c, nil
}

// unknown explains a package name that matches nothing, naming some that do.
func (a *Analysis) unknown(name string) error {
	known := a.Packages()
	const show = 12
	list := strings.Join(known[:min(show, len(known))], ", ")
	if len(known) > show {
		list += fmt.Sprintf(", … (%d in all; `lspgraph scope` lists them)", len(known))
	}
	return fmt.Errorf("scope: unknown package %q: give a package name, directory or Go import path (known: %s)", name, list)
}

// Exactly returns a closure made of start and the named packages only.
func (a *Analysis) Exactly(start string, names []string) (*Closure, error) {
	c := &Closure{Start: start, set: map[string]bool{start: true}}
	c.Members = append(c.Members, Member{Name: start, Kind: a.kinds[start]})
	for _, e := range names {
		name, ok := a.Resolve(e)
		if !ok {
			return nil, a.unknown(e)
		}
		if !c.set[name] {
			c.set[name] = true
			c.Members = append(c.Members, Member{Name: name, Kind: a.kinds[name], Extra: true})
		}
	}
	return c, nil
}

// Everything returns the closure holding every package.
func (a *Analysis) Everything(start string) *Closure {
	c := &Closure{Start: start, All: true, set: map[string]bool{}}
	names := a.Packages()
	sort.SliceStable(names, func(i, j int) bool { return names[i] == start && names[j] != start })
	for _, n := range names {
		c.set[n] = true
		c.Members = append(c.Members, Member{Name: n, Kind: a.kinds[n], Extra: n != start})
	}
	return c
}

// Spec is a parsed scope argument: "closure" (default), "repo", or a comma
// list of packages, optionally with "closure" among them to add the
// packages to the closure rather than replace it.
type Spec struct {
	Repo     bool
	Closure  bool
	Packages []string
}

// ParseSpec parses a scope argument.
func ParseSpec(s string) Spec {
	s = strings.TrimSpace(s)
	if s == "" || s == "closure" {
		return Spec{Closure: true}
	}
	if s == "repo" {
		return Spec{Repo: true}
	}
	var sp Spec
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		switch part {
		case "":
		case "closure":
			sp.Closure = true
		case "repo":
			sp.Repo = true
		default:
			sp.Packages = append(sp.Packages, part)
		}
	}
	return sp
}

// String renders the spec back in the form ParseSpec reads.
func (s Spec) String() string {
	switch {
	case s.Repo:
		return "repo"
	case s.Closure && len(s.Packages) == 0:
		return "closure"
	case s.Closure:
		return "closure," + strings.Join(s.Packages, ",")
	}
	return strings.Join(s.Packages, ",")
}

// For builds the closure a spec describes around the package of a document.
func (a *Analysis) For(ctx context.Context, start string, s Spec) (*Closure, error) {
	switch {
	case s.Repo:
		return a.Everything(start), nil
	case s.Closure:
		return a.Closure(ctx, start, s.Packages)
	}
	return a.Exactly(start, s.Packages)
}

// DocumentsOf returns the graph documents of a package, sorted.
func (a *Analysis) DocumentsOf(name string) []string {
	out := append([]string(nil), a.pkgDocs[name]...)
	sort.Strings(out)
	return out
}

// UseWorkspace makes the analysis use ws, discovered again under the same
// root, when ws has the same packages (names, kinds, directories) as the
// workspace the analysis was made with: then every document keeps its
// package, and only the declared dependencies and the files the build
// leaves out, read from ws when asked, differ. It reports whether it did.
func (a *Analysis) UseWorkspace(ws *Workspace) bool {
	same := ws.byPackage == a.ws.byPackage && slices.EqualFunc(ws.Packages, a.ws.Packages, func(p, q Package) bool {
		return p.Name == q.Name && p.Kind == q.Kind && p.Dir == q.Dir
	})
	if same {
		a.ws = ws
	}
	return same
}

// UseReader points the analysis at another reader of the same store
// version (one that shows the same facts), for an analysis kept across
// requests: the one it was built with may be closed by then.
func (a *Analysis) UseReader(r *graph.Reader) { a.r = r }

// lead reports a symbol that can stand for its document: a function,
// method or type (not a local).
// cloneSymbol copies the strings of a symbol read without a copy.
func cloneSymbol(s graph.Symbol) graph.Symbol {
	c := s
	for _, f := range []*string{&c.ID, &c.DisplayName, &c.Kind, &c.Language, &c.Package, &c.Signature, &c.Doc, &c.Def.Path} {
		*f = strings.Clone(*f)
	}
	return c
}

func lead(s graph.Symbol) bool {
	if strings.HasPrefix(s.ID, "local ") {
		return false
	}
	switch s.Kind {
	case "function", "method", "type", "struct", "interface", "class", "enum", "trait", "type-alias", "typealias":
		return true
	}
	return false
}

// FirstDefinition returns a document's first function, method or type
// (by position, of those it defines), read once and kept.
func (a *Analysis) FirstDefinition(ctx context.Context, path string) (graph.Symbol, bool, error) {
	if f, ok := a.firstDef[path]; ok || a.r == nil {
		return f.s, f.ok, nil
	}
	var f firstDefinition
	err := a.r.EachDocumentSymbol(ctx, path, func(s graph.Symbol) error {
		// A document also describes symbols it merely references.
		if s.External || s.Def.Path != path || !lead(s) {
			return nil
		}
		if !f.ok || s.Def.Range.Start.Before(f.s.Def.Range.Start) {
			f = firstDefinition{cloneSymbol(s), true}
		}
		return nil
	})
	if err != nil {
		return graph.Symbol{}, false, fmt.Errorf("scope: reading symbols of %s: %w", path, err)
	}
	a.firstDef[path] = f
	return f.s, f.ok, nil
}
