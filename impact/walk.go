package impact

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/resolve"
)

// maxSiteLocations bounds the site locations listed per dependent.
const maxSiteLocations = 10

// walker holds one computation's reader, options and caches.
type walker struct {
	r       *graph.Reader
	o       Options
	kinds   []graph.EdgeKind // kinds followed by the depth walk (no implements)
	syms    map[string]symEntry
	docs    map[string]docEntry
	occs    map[string][]graph.Occurrence
	commits map[graph.Layer]string
	// d1Sites holds the reference sites of each d=1 dependent (by key),
	// for verification.
	d1Sites map[string][]graph.Location
	// aliases maps a symbol id to the other ids of the same declaration
	// (its base SCIP identity and its live syntax identity, for a
	// document the overlay re-extracted): dependents recorded against
	// either are dependents of both.
	aliases map[string][]string
	// ifaceLines caches, per interface, the lines that reference it and
	// the definitions enclosing those references.
	ifaceLines map[string]map[lineKey][]string
}

type symEntry struct {
	s  graph.Symbol
	ok bool
}

type docEntry struct {
	d  graph.Document
	ok bool
}

func newWalker(r *graph.Reader, o Options) (*walker, error) {
	w := &walker{r: r, o: o, syms: map[string]symEntry{}, docs: map[string]docEntry{},
		occs: map[string][]graph.Occurrence{}, commits: map[graph.Layer]string{},
		d1Sites: map[string][]graph.Location{}}
	for _, k := range o.Kinds {
		if k != graph.EdgeImplements {
			w.kinds = append(w.kinds, k)
		}
	}
	for _, l := range []graph.Layer{graph.Base, graph.Live} {
		m, ok, err := r.Manifest(l)
		if err != nil {
			return nil, fmt.Errorf("impact: reading the %s manifest: %w", l, err)
		}
		if ok {
			w.commits[l] = m.Commit
		}
	}
	return w, nil
}

func (w *walker) follows(k graph.EdgeKind) bool {
	for _, x := range w.o.Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// symbol returns a symbol by id, cached; unknown ids give a bare symbol.
func (w *walker) symbol(ctx context.Context, id string) (graph.Symbol, bool, error) {
	if e, ok := w.syms[id]; ok {
		return e.s, e.ok, nil
	}
	s, ok, err := w.r.Symbol(ctx, id)
	if err != nil {
		return graph.Symbol{}, false, fmt.Errorf("impact: reading symbol %q: %w", id, err)
	}
	if !ok {
		s = graph.Symbol{ID: id}
	}
	w.syms[id] = symEntry{s, ok}
	return s, ok, nil
}

// document returns a document record, cached.
func (w *walker) document(ctx context.Context, p string) (graph.Document, bool, error) {
	if e, ok := w.docs[p]; ok {
		return e.d, e.ok, nil
	}
	d, ok, err := w.r.Document(ctx, p)
	if err != nil {
		return graph.Document{}, false, fmt.Errorf("impact: reading document %s: %w", p, err)
	}
	w.docs[p] = docEntry{d, ok}
	return d, ok, nil
}

// occurrences returns a document's occurrences, cached.
func (w *walker) occurrences(ctx context.Context, p string) ([]graph.Occurrence, error) {
	if o, ok := w.occs[p]; ok {
		return o, nil
	}
	o, err := w.r.Occurrences(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("impact: reading occurrences of %s: %w", p, err)
	}
	w.occs[p] = o
	return o, nil
}

// isTest reports whether a document is a test document, by its flag or by
// its language's naming convention.
func (w *walker) isTest(ctx context.Context, p string) (bool, error) {
	if p == "" {
		return false, nil
	}
	if lang.IsTestPath(p, lang.Of(p)) {
		return true, nil
	}
	d, ok, err := w.document(ctx, p)
	if err != nil || !ok {
		return false, err
	}
	return d.Flags&graph.DocTest != 0, nil
}

// cand is a dependent found from one node before it is placed in the answer.
type cand struct {
	id       string // "" for a top-level use
	path     string // the document of a top-level use
	via      graph.Edge
	sites    []graph.Location
	count    int
	topLevel bool
}

func (c *cand) key() string {
	if c.topLevel {
		return "top:" + c.path
	}
	return c.id
}

// dependents returns what directly depends on id: the declarations
// enclosing its references, plus the sources of its incoming edges of the
// followed kinds with enough confidence. Sorted by key.
func (w *walker) dependents(ctx context.Context, id string) ([]*cand, error) {
	out, err := w.dependentsOf(ctx, id)
	if err != nil || len(w.aliases[id]) == 0 {
		return out, err
	}
	seen := map[string]bool{id: true}
	for _, c := range out {
		seen[c.key()] = true
	}
	for _, a := range w.aliases[id] {
		seen[a] = true
	}
	for _, a := range w.aliases[id] {
		more, err := w.dependentsOf(ctx, a)
		if err != nil {
			return nil, err
		}
		for _, c := range more {
			if !seen[c.key()] {
				seen[c.key()] = true
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out, nil
}

func (w *walker) dependentsOf(ctx context.Context, id string) ([]*cand, error) {
	byKey := map[string]*cand{}
	// What implements id is not a dependent: SCIP indexers add a reference
	// relationship beside the implementation one.
	impl, err := w.r.Incoming(ctx, id, graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeImplements}})
	if err != nil {
		return nil, fmt.Errorf("impact: reading implementations of %q: %w", id, err)
	}
	implementers := map[string]bool{}
	topEdges := map[string]graph.Edge{} // document → edge from its package or module symbol
	for _, e := range impl {
		implementers[e.From] = true
	}
	if len(w.kinds) > 0 {
		edges, err := w.r.Incoming(ctx, id, graph.EdgeFilter{Kinds: w.kinds, MinConfidence: w.o.MinConfidence})
		if err != nil {
			return nil, fmt.Errorf("impact: reading edges into %q: %w", id, err)
		}
		refs := w.follows(graph.EdgeReferences) || w.follows(graph.EdgeCalls)
		for _, e := range edges {
			if e.From == id || e.From == "" || implementers[e.From] {
				continue
			}
			top, err := w.isTopLevel(ctx, e.From)
			if err != nil {
				return nil, err
			}
			if top {
				if refs {
					// The references below name each document; keep the
					// edge for its confidence and reason.
					if old, ok := topEdges[e.Path]; !ok || betterVia(e, old) {
						topEdges[e.Path] = e
					}
					continue
				}
				if e.Path == "" {
					continue
				}
				k := "top:" + e.Path
				if byKey[k] == nil {
					byKey[k] = &cand{path: e.Path, via: e, topLevel: true}
				}
				byKey[k].count += max(e.Count, 1)
				continue
			}
			c := byKey[e.From]
			if c == nil {
				c = &cand{id: e.From, via: e}
				byKey[e.From] = c
			} else if betterVia(e, c.via) {
				c.via = e
			}
			c.count = max(c.count, e.Count)
		}
	}
	if w.follows(graph.EdgeReferences) || w.follows(graph.EdgeCalls) {
		occs, err := w.r.References(ctx, id, 0)
		if err != nil {
			return nil, fmt.Errorf("impact: reading references of %q: %w", id, err)
		}
		if err := w.addReferenceSites(ctx, id, occs, byKey, implementers, topEdges); err != nil {
			return nil, err
		}
	}
	out := make([]*cand, 0, len(byKey))
	for _, c := range byKey {
		if c.count < len(c.sites) {
			c.count = len(c.sites)
		}
		if c.count == 0 {
			c.count = 1
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out, nil
}

// addReferenceSites adds the non-definition, non-import references of id to
// byKey under their enclosing declaration (or the document, at top level).
func (w *walker) addReferenceSites(ctx context.Context, id string, occs []graph.Occurrence, byKey map[string]*cand, implementers map[string]bool, topEdges map[string]graph.Edge) error {
	for _, o := range occs {
		if o.Roles&(graph.RoleDefinition|graph.RoleImport|graph.RoleForwardDefinition) != 0 || o.Enclosing == id {
			continue
		}
		if implementers[o.Enclosing] && lang.Of(o.Path) != "go" {
			// A supertype clause names the interface method; in Go, an
			// implementation's body using the interface method is a use.
			continue
		}
		loc := graph.Location{Path: o.Path, Range: o.Range}
		top, err := w.isTopLevel(ctx, o.Enclosing)
		if err != nil {
			return err
		}
		if top {
			imp, err := w.isImportLine(ctx, o)
			if err != nil {
				return err
			}
			if imp {
				continue
			}
		}
		k := o.Enclosing
		if top {
			k = "top:" + o.Path
		}
		c := byKey[k]
		if c == nil {
			e, ok := topEdges[o.Path]
			if !top || !ok {
				if e, err = w.occurrenceEdge(ctx, o, id); err != nil {
					return err
				}
			}
			if e.Confidence < w.o.MinConfidence {
				continue
			}
			c = &cand{id: o.Enclosing, path: o.Path, via: e, topLevel: top}
			if top {
				c.id = ""
			}
			byKey[k] = c
		} else if top && c.id != "" {
			// An edge from the package symbol: keep it as a top-level use.
			c.id, c.path, c.topLevel = "", o.Path, true
		}
		c.sites = append(c.sites, loc)
	}
	return nil
}

// isTopLevel reports whether a use enclosed by id sits outside any
// declaration: no enclosing symbol, or a package, module or namespace
// (whose extent is the whole file). Such uses are listed per document and
// not walked further: what imports the package does not depend on them.
func (w *walker) isTopLevel(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return true, nil
	}
	s, _, err := w.symbol(ctx, id)
	if err != nil {
		return false, err
	}
	return isContainerKind(s.Kind), nil
}

func isContainerKind(k string) bool {
	switch k {
	case "package", "namespace", "module", "file":
		return true
	}
	return false
}

// isImportLine reports whether a top-level use in a TypeScript, JavaScript
// or Python document sits on an import (or re-export) line: a line that
// also references a module. Importing a name does not break when its
// signature changes, and the uses that do are listed on their own.
func (w *walker) isImportLine(ctx context.Context, o graph.Occurrence) (bool, error) {
	switch lang.Of(o.Path) {
	case "typescript", "javascript", "python":
	default:
		return false, nil
	}
	occs, err := w.occurrences(ctx, o.Path)
	if err != nil {
		return false, err
	}
	i := sort.Search(len(occs), func(i int) bool { return occs[i].Range.Start.Line >= o.Range.Start.Line })
	for ; i < len(occs) && occs[i].Range.Start.Line == o.Range.Start.Line; i++ {
		if occs[i].Symbol == o.Symbol || occs[i].Roles&graph.RoleDefinition != 0 {
			continue
		}
		if occs[i].Roles&graph.RoleImport != 0 {
			return true, nil
		}
		s, _, err := w.symbol(ctx, occs[i].Symbol)
		if err != nil {
			return false, err
		}
		if isContainerKind(s.Kind) {
			return true, nil
		}
	}
	return false, nil
}

// occurrenceEdge makes the edge a reference stands for when no stored edge
// covers it: precise when its document comes from SCIP or the language
// server, the lowest confidence the syntax layer records occurrences with
// otherwise.
func (w *walker) occurrenceEdge(ctx context.Context, o graph.Occurrence, to string) (graph.Edge, error) {
	d, _, err := w.document(ctx, o.Path)
	if err != nil {
		return graph.Edge{}, err
	}
	e := graph.Edge{From: o.Enclosing, To: to, Kind: graph.EdgeReferences, Source: d.Source, Path: o.Path, Layer: d.Layer, Count: 1}
	if o.Roles&graph.RoleCall != 0 {
		e.Kind = graph.EdgeCalls
	}
	switch d.Source {
	case graph.SourceSCIP, graph.SourceLSP:
		e.Confidence = 1.0
	default:
		e.Confidence = 0.6
	}
	where := "reference-in-body"
	if o.Enclosing == "" {
		where = "reference-at-top-level"
	}
	src := d.Source
	if src == "" {
		src = "graph"
	}
	e.Reason = src + ":" + where
	return e, nil
}

// betterVia prefers a calls edge to a references edge, then higher
// confidence.
func betterVia(a, b graph.Edge) bool {
	if a.Confidence != b.Confidence {
		return a.Confidence > b.Confidence
	}
	if (a.Kind == graph.EdgeCalls) != (b.Kind == graph.EdgeCalls) {
		return a.Kind == graph.EdgeCalls
	}
	return a.Kind < b.Kind
}

// dependencies returns what id directly depends on (downstream): the
// targets of its outgoing edges of the followed kinds.
func (w *walker) dependencies(ctx context.Context, id string) ([]*cand, error) {
	edges, err := w.r.Outgoing(ctx, id, graph.EdgeFilter{Kinds: w.kinds, MinConfidence: w.o.MinConfidence})
	if err != nil {
		return nil, fmt.Errorf("impact: reading edges from %q: %w", id, err)
	}
	byKey := map[string]*cand{}
	for _, e := range edges {
		if e.To == id || e.To == "" || strings.HasPrefix(e.To, "local ") {
			continue
		}
		c := byKey[e.To]
		if c == nil {
			c = &cand{id: e.To, via: e}
			byKey[e.To] = c
		} else if betterVia(e, c.via) {
			c.via = e
		}
		c.count = max(c.count, e.Count, 1)
	}
	out := make([]*cand, 0, len(byKey))
	for _, c := range byKey {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out, nil
}

// ref builds the answer's reference to a symbol.
func (w *walker) ref(ctx context.Context, id string) (Ref, error) {
	s, _, err := w.symbol(ctx, id)
	if err != nil {
		return Ref{}, err
	}
	return w.refOf(ctx, s)
}

func (w *walker) refOf(ctx context.Context, s graph.Symbol) (Ref, error) {
	r := Ref{Symbol: s.ID, Name: resolve.DisplayQualified(s), Kind: s.Kind, Package: s.Package, External: s.External}
	if s.Def.Path != "" {
		l := locOf(s.Def)
		r.Location = &l
		if r.Package == "" {
			d, ok, err := w.document(ctx, s.Def.Path)
			if err != nil {
				return r, err
			}
			if ok {
				r.Package = d.Package
			}
		}
	}
	return r, nil
}

func locOf(l graph.Location) Loc {
	return Loc{
		Path: l.Path,
		Line: int(l.Range.Start.Line) + 1, Col: int(l.Range.Start.Col) + 1,
		EndLine: int(l.Range.End.Line) + 1, EndCol: int(l.Range.End.Col) + 1,
	}
}

// via renders an edge for the answer, with the commit of its layer.
func (w *walker) via(e graph.Edge) Via {
	v := Via{Kind: string(e.Kind), From: e.From, To: e.To, Source: e.Source, Confidence: e.Confidence, Reason: e.Reason}
	if e.Layer != 0 {
		v.Layer = e.Layer.String()
		v.Commit = w.commits[e.Layer]
	}
	return v
}

// dependent turns a candidate into an answer entry.
func (w *walker) dependent(ctx context.Context, c *cand, depth int) (Dependent, error) {
	d := Dependent{Depth: depth, Via: w.via(c.via), Sites: c.count, TopLevel: c.topLevel,
		Breaks: depth == 1 && w.o.Direction != graph.Downstream}
	if c.topLevel {
		d.Ref = Ref{Name: "(top level of " + c.path + ")", Kind: "file"}
		if len(c.sites) > 0 {
			l := locOf(c.sites[0])
			d.Location = &l
		}
		doc, ok, err := w.document(ctx, c.path)
		if err != nil {
			return d, err
		}
		if ok {
			d.Package = doc.Package
		}
	} else {
		ref, err := w.ref(ctx, c.id)
		if err != nil {
			return d, err
		}
		d.Ref = ref
	}
	for i, s := range c.sites {
		if i == maxSiteLocations {
			break
		}
		d.SiteLocations = append(d.SiteLocations, locOf(s))
	}
	p := c.path
	if d.Location != nil {
		p = d.Location.Path
	} else if p == "" && len(c.sites) > 0 {
		p = c.sites[0].Path
	}
	test, err := w.isTest(ctx, p)
	if err != nil {
		return d, err
	}
	d.Test = test
	return d, nil
}

// sortDependents orders dependents by location, then name and symbol.
func sortDependents(ds []Dependent) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if c := compareLoc(a.Location, b.Location); c != 0 {
			return c < 0
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Symbol < b.Symbol
	})
}

// compareLoc orders locations by path, line and column, nil last.
func compareLoc(a, b *Loc) int {
	switch {
	case a == nil || b == nil:
		return cmp.Compare(boolInt(a == nil), boolInt(b == nil))
	case a.Path != b.Path:
		return strings.Compare(a.Path, b.Path)
	case a.Line != b.Line:
		return cmp.Compare(a.Line, b.Line)
	}
	return cmp.Compare(a.Col, b.Col)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
