package impact

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
)

// Group names of the non-depth groups.
const (
	GroupDispatch       = "dispatch"
	GroupSatisfaction   = "satisfaction"
	GroupImplementation = "implementation"
)

// groups adds the implementation, dispatch and satisfaction groups of one
// target. visited holds the depth walk's dependents: a declaration that
// references the target directly stays in d=1 and is not repeated.
func (w *walker) groups(ctx context.Context, a *Answer, t graph.Symbol, visited map[string]bool) error {
	impls, err := w.edgesOf(ctx, t.ID, true)
	if err != nil {
		return err
	}
	for _, e := range impls {
		c := &cand{id: e.From, via: e, count: max(e.Count, 1)}
		d, err := w.dependent(ctx, c, 0)
		if err != nil {
			return err
		}
		if d.Test && !w.o.IncludeTests {
			continue
		}
		d.Group = GroupImplementation
		a.Implementations = append(a.Implementations, d)
	}
	sortDependents(a.Implementations)

	ifaceMethods, err := w.implemented(ctx, t)
	if err != nil {
		return err
	}
	for _, m := range ifaceMethods {
		ref, err := w.ref(ctx, m)
		if err != nil {
			return err
		}
		a.Implements = append(a.Implements, ref)
	}
	// Dispatch: who calls the interface methods the target implements.
	seen := map[string]bool{}
	for _, m := range ifaceMethods {
		if t.Kind == "type" || t.Kind == "struct" || t.Kind == "class" || t.Kind == "interface" {
			break // a type implementing an interface dispatches nothing itself
		}
		cands, err := w.dependents(ctx, m)
		if err != nil {
			return err
		}
		for _, c := range cands {
			if visited[c.key()] || seen[c.key()] || c.id == t.ID {
				continue
			}
			seen[c.key()] = true
			d, err := w.dependent(ctx, c, 0)
			if err != nil {
				return err
			}
			if d.Test && !w.o.IncludeTests {
				continue
			}
			d.Group = GroupDispatch
			d.Via.Reason = "calls through interface method " + nameOrID(w, ctx, m) + " (" + d.Via.Reason + ")"
			a.Dispatch = append(a.Dispatch, d)
		}
	}
	sortDependents(a.Dispatch)
	return w.satisfaction(ctx, a, t, visited)
}

func nameOrID(w *walker, ctx context.Context, id string) string {
	n, err := w.nameOf(ctx, id)
	if err != nil || n == "" {
		return id
	}
	return n
}

// edgesOf returns the implements edges into id (incoming true) or out of it.
func (w *walker) edgesOf(ctx context.Context, id string, incoming bool) ([]graph.Edge, error) {
	if !w.follows(graph.EdgeImplements) {
		return nil, nil
	}
	f := graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeImplements}, MinConfidence: w.o.MinConfidence}
	var es []graph.Edge
	var err error
	if incoming {
		es, err = w.r.Incoming(ctx, id, f)
	} else {
		es, err = w.r.Outgoing(ctx, id, f)
	}
	if err != nil {
		return nil, fmt.Errorf("impact: reading implements edges of %q: %w", id, err)
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].From != es[j].From {
			return es[i].From < es[j].From
		}
		return es[i].To < es[j].To
	})
	return es, nil
}

// container returns the type that contains member id (its receiver or
// class), from contains edges, or "".
func (w *walker) container(ctx context.Context, id string) (string, error) {
	es, err := w.r.Incoming(ctx, id, graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeContains}})
	if err != nil {
		return "", fmt.Errorf("impact: reading the container of %q: %w", id, err)
	}
	for _, e := range es {
		s, _, err := w.symbol(ctx, e.From)
		if err != nil {
			return "", err
		}
		if isTypeKind(s.Kind) || s.Kind == "" {
			return e.From, nil
		}
	}
	return "", nil
}

// members returns the members of a type named name, from contains edges.
func (w *walker) members(ctx context.Context, typ, name string) ([]string, error) {
	es, err := w.r.Outgoing(ctx, typ, graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeContains}})
	if err != nil {
		return nil, fmt.Errorf("impact: reading the members of %q: %w", typ, err)
	}
	var out []string
	for _, e := range es {
		s, _, err := w.symbol(ctx, e.To)
		if err != nil {
			return nil, err
		}
		if s.DisplayName == name {
			out = append(out, e.To)
		}
	}
	return out, nil
}

func isTypeKind(k string) bool {
	switch k {
	case "type", "struct", "class", "interface", "enum", "trait", "protocol", "type-alias":
		return true
	}
	return false
}

// implemented returns the interface methods (or interfaces, for a type) the
// target implements: from its own implements edges, else, for a method,
// the same-named methods of the interfaces its receiver type implements.
func (w *walker) implemented(ctx context.Context, t graph.Symbol) ([]string, error) {
	es, err := w.edgesOf(ctx, t.ID, false)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, e := range es {
		set[e.To] = true
	}
	if len(set) == 0 && !isTypeKind(t.Kind) && t.DisplayName != "" {
		recv, err := w.container(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		if recv != "" {
			ifaces, err := w.edgesOf(ctx, recv, false)
			if err != nil {
				return nil, err
			}
			for _, e := range ifaces {
				ms, err := w.members(ctx, e.To, t.DisplayName)
				if err != nil {
					return nil, err
				}
				for _, m := range ms {
					set[m] = true
				}
			}
		}
	}
	return sortedKeys(set), nil
}

// satisfaction adds the places where a concrete type is used as an
// interface it implements, for the (type, interface) pairs the target
// takes part in: its receiver type and that type's interfaces for a
// concrete method or type; the interface and its implementations for an
// interface or interface method. A use is a reference to the concrete type
// on the same line as a reference to the interface (`var _ I = (*T)(nil)`,
// `var s I = T{}`, a conversion `I(t)`); SCIP records no reference for
// the implicit conversion itself.
func (w *walker) satisfaction(ctx context.Context, a *Answer, t graph.Symbol, visited map[string]bool) error {
	if !w.follows(graph.EdgeImplements) {
		return nil
	}
	if isGo(t) {
		return w.conversions(ctx, a, t)
	}
	typ := t.ID
	if !isTypeKind(t.Kind) {
		c, err := w.container(ctx, t.ID)
		if err != nil {
			return err
		}
		if c == "" {
			return nil
		}
		typ = c
	}
	type pair struct{ concrete, iface string }
	var pairs []pair
	out, err := w.edgesOf(ctx, typ, false)
	if err != nil {
		return err
	}
	for _, e := range out {
		pairs = append(pairs, pair{typ, e.To})
	}
	in, err := w.edgesOf(ctx, typ, true)
	if err != nil {
		return err
	}
	for _, e := range in {
		pairs = append(pairs, pair{e.From, typ})
	}
	seen := map[string]bool{}
	for _, p := range pairs {
		refs, err := w.r.References(ctx, p.concrete, 0)
		if err != nil {
			return fmt.Errorf("impact: reading references of %q: %w", p.concrete, err)
		}
		for _, o := range refs {
			if o.Roles&(graph.RoleDefinition|graph.RoleImport) != 0 {
				continue
			}
			ok, err := w.onSameLine(ctx, o, p.iface, p.concrete)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			top, err := w.isTopLevel(ctx, o.Enclosing)
			if err != nil {
				return err
			}
			if top {
				if imp, err := w.isImportLine(ctx, o); err != nil {
					return err
				} else if imp {
					continue
				}
			}
			c := &cand{id: o.Enclosing, path: o.Path, topLevel: top,
				sites: []graph.Location{{Path: o.Path, Range: o.Range}}, count: 1}
			if top {
				c.id = ""
			}
			if w.inD1(c.key()) || seen[c.key()+"\x00"+p.iface] {
				continue
			}
			seen[c.key()+"\x00"+p.iface] = true
			err = w.addSatisfaction(ctx, a, c, p.concrete, p.iface, "type used as the interface it implements",
				func() string {
					return fmt.Sprintf("%s used as %s", nameOrID(w, ctx, p.concrete), nameOrID(w, ctx, p.iface))
				})
			if err != nil {
				return err
			}
		}
	}
	for _, p := range pairs {
		if err := w.passedAs(ctx, a, p.concrete, p.iface, visited, seen); err != nil {
			return err
		}
	}
	sortDependents(a.Satisfaction)
	if len(pairs) > 0 {
		// Only Go has conversion sites from a type checker: elsewhere
		// what is listed is found by name and no list can be vouched for.
		language := lang.Of(t.Def.Path)
		if language == "" {
			language = lang.Normalize(t.Language)
		}
		a.UnknownGroups = append(a.UnknownGroups, UnknownGroup{Group: GroupSatisfaction,
			Reason: fmt.Sprintf("no type checker's conversion sites for %s: the uses of the type as its interfaces listed (if any) are found by name on the same line, a lower bound", orDashString(language))})
	}
	return nil
}

func orDashString(s string) string {
	if s == "" {
		return "this language"
	}
	return s
}

// inD1 reports whether a dependent key is in the d=1 group: satisfaction
// sites repeat deeper dependents (they break, whatever their distance) but
// not direct ones.
func (w *walker) inD1(key string) bool {
	_, ok := w.d1Sites[key]
	return ok
}

// passedAs adds the calls that pass a value made by a producer of the
// concrete type (a function whose signature returns it) straight to a
// consumer of the interface (a function with a parameter of that type):
// `service.NewCatalog(memstore.New())`. It reads Go-style signatures
// ("func New() *Mem", "func NewCatalog(st store.Store) *Catalog"); for
// languages whose index records no signatures it finds nothing.
func (w *walker) passedAs(ctx context.Context, a *Answer, concrete, iface string, visited, seen map[string]bool) error {
	cs, _, err := w.symbol(ctx, concrete)
	if err != nil {
		return err
	}
	is, _, err := w.symbol(ctx, iface)
	if err != nil {
		return err
	}
	if cs.DisplayName == "" || is.DisplayName == "" {
		return nil
	}
	consumers, err := w.signatureUsers(ctx, iface, is.DisplayName, true)
	if err != nil || len(consumers) == 0 {
		return err
	}
	consumerLines := map[lineKey]string{}
	for _, c := range consumers {
		refs, err := w.r.References(ctx, c, 0)
		if err != nil {
			return fmt.Errorf("impact: reading references of %q: %w", c, err)
		}
		for _, o := range refs {
			if o.Roles&graph.RoleDefinition == 0 {
				consumerLines[lineKey{o.Path, o.Range.Start.Line}] = c
			}
		}
	}
	producers, err := w.signatureUsers(ctx, concrete, cs.DisplayName, false)
	if err != nil {
		return err
	}
	for _, p := range producers {
		refs, err := w.r.References(ctx, p, 0)
		if err != nil {
			return fmt.Errorf("impact: reading references of %q: %w", p, err)
		}
		for _, o := range refs {
			consumer, ok := consumerLines[lineKey{o.Path, o.Range.Start.Line}]
			if !ok || o.Roles&graph.RoleDefinition != 0 {
				continue
			}
			top, err := w.isTopLevel(ctx, o.Enclosing)
			if err != nil {
				return err
			}
			c := &cand{id: o.Enclosing, path: o.Path, topLevel: top,
				sites: []graph.Location{{Path: o.Path, Range: o.Range}}, count: 1}
			if top {
				c.id = ""
			}
			k := c.key() + "\x00" + iface
			if w.inD1(c.key()) || seen[k] {
				continue
			}
			seen[k] = true
			err = w.addSatisfaction(ctx, a, c, concrete, iface, "value of the type passed as the interface",
				func() string {
					return fmt.Sprintf("%s (from %s) passed to %s as %s", nameOrID(w, ctx, concrete),
						nameOrID(w, ctx, p), nameOrID(w, ctx, consumer), nameOrID(w, ctx, iface))
				})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// signatureUsers returns the functions that reference typ in their
// signature's parameters (params) or results (!params), among the
// declarations enclosing typ's references.
func (w *walker) signatureUsers(ctx context.Context, typ, name string, params bool) ([]string, error) {
	refs, err := w.r.References(ctx, typ, 0)
	if err != nil {
		return nil, fmt.Errorf("impact: reading references of %q: %w", typ, err)
	}
	set := map[string]bool{}
	for _, o := range refs {
		if o.Enclosing == "" || set[o.Enclosing] || o.Roles&graph.RoleDefinition != 0 {
			continue
		}
		s, _, err := w.symbol(ctx, o.Enclosing)
		if err != nil {
			return nil, err
		}
		ps, rs, ok := splitSignature(s.Signature)
		if !ok {
			continue
		}
		part := rs
		if params {
			part = ps
		}
		if mentions(part, name) {
			set[o.Enclosing] = true
		}
	}
	return sortedKeys(set), nil
}

// splitSignature splits a Go-style function signature ("func Name(params)
// results", "func (*T).Name(params) results") into its parameter list and
// its results.
func splitSignature(sig string) (params, results string, ok bool) {
	rest, found := strings.CutPrefix(sig, "func ")
	if !found {
		return "", "", false
	}
	if strings.HasPrefix(rest, "(") { // receiver
		end := matchParen(rest)
		if end < 0 {
			return "", "", false
		}
		rest = rest[end+1:]
	}
	open := strings.IndexByte(rest, '(')
	if open < 0 {
		return "", "", false
	}
	rest = rest[open:]
	end := matchParen(rest)
	if end < 0 {
		return "", "", false
	}
	return rest[1:end], rest[end+1:], true
}

// matchParen returns the index of the parenthesis closing s[0], or -1.
func matchParen(s string) int {
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// mentions reports whether text names the identifier name as a whole word.
func mentions(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isIdentByte(text[j-1])
		after := j+len(name) == len(text) || !isIdentByte(text[j+len(name)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// onSameLine reports whether o's line also references iface. The lines
// referencing each interface are read once per computation.
func (w *walker) onSameLine(ctx context.Context, o graph.Occurrence, iface, concrete string) (bool, error) {
	lines, ok := w.ifaceLines[iface]
	if !ok {
		refs, err := w.r.References(ctx, iface, 0)
		if err != nil {
			return false, fmt.Errorf("impact: reading references of %q: %w", iface, err)
		}
		lines = map[lineKey][]string{}
		for _, r := range refs {
			if r.Roles&graph.RoleDefinition == 0 {
				k := lineKey{r.Path, r.Range.Start.Line}
				lines[k] = append(lines[k], r.Enclosing)
			}
		}
		if w.ifaceLines == nil {
			w.ifaceLines = map[string]map[lineKey][]string{}
		}
		w.ifaceLines[iface] = lines
	}
	// A reference enclosed by the concrete type itself is its declaration
	// naming the interface (Rust's impl Trait for Type, a class's
	// implements list), not a use of the type as the interface.
	for _, enclosing := range lines[lineKey{o.Path, o.Range.Start.Line}] {
		if enclosing != concrete {
			return true, nil
		}
	}
	return false, nil
}

// lineKey is one line of one document.
type lineKey struct {
	path string
	line uint32
}

// addSatisfaction puts c, a site in c.path where concrete is used as iface,
// in the satisfaction group (unless it is a test and tests are left out).
// edgeReason names the rule; reason words the site for the answer.
func (w *walker) addSatisfaction(ctx context.Context, a *Answer, c *cand, concrete, iface, edgeReason string, reason func() string) error {
	c.via = graph.Edge{From: concrete, To: iface, Kind: graph.EdgeImplements, Confidence: 1.0, Path: c.path, Reason: edgeReason}
	if d, ok, err := w.document(ctx, c.path); err != nil {
		return err
	} else if ok {
		c.via.Source, c.via.Layer = d.Source, d.Layer
	}
	d, err := w.dependent(ctx, c, 0)
	if err != nil {
		return err
	}
	if d.Test && !w.o.IncludeTests {
		return nil
	}
	d.Group, d.Breaks = GroupSatisfaction, true
	d.Via.Reason = reason()
	a.Satisfaction = append(a.Satisfaction, d)
	return nil
}

func isGo(t graph.Symbol) bool {
	if l := lang.Of(t.Def.Path); l != "" {
		return l == "go"
	}
	return lang.Normalize(t.Language) == "go"
}

// conversions adds, for a Go method, the conversion sites the type checker
// recorded (see graph.ConversionSymbol): the places where a concrete type
// becomes a value of an interface that declares the method, directly or
// by embedding. For an interface method they are the sites whose
// interface's method set has it. Without such facts in the base layer the group is
// UNKNOWN: a guess from names would be wrong both ways.
func (w *walker) conversions(ctx context.Context, a *Answer, t graph.Symbol) error {
	if isTypeKind(t.Kind) || t.DisplayName == "" {
		return nil
	}
	if recv, err := w.container(ctx, t.ID); err != nil || recv == "" {
		return err
	}
	// For an interface method the sites record the method itself: the
	// sites converting to an interface whose method set has it (an
	// implementation's own sites may convert to other interfaces).
	methods := []graph.Symbol{t}
	m, ok, err := w.r.Manifest(graph.Base)
	if err != nil {
		return fmt.Errorf("impact: reading the base manifest: %w", err)
	}
	if !ok || m.Extra[graph.ManifestConversionPackages] == 0 {
		a.UnknownGroups = append(a.UnknownGroups, UnknownGroup{Group: GroupSatisfaction,
			Reason: "the graph holds no conversion sites from the Go type checker (import with lspgraph scip import --go-types)"})
		return nil
	}
	seen := map[string]*cand{}
	var order []string
	for _, meth := range methods {
		recv, err := w.container(ctx, meth.ID)
		if err != nil {
			return err
		}
		typ, _, err := w.symbol(ctx, recv)
		if err != nil {
			return err
		}
		if typ.DisplayName == "" || meth.Package == "" {
			continue
		}
		key := graph.ConversionSymbol(meth.Package, typ.DisplayName, meth.DisplayName)
		occs, err := w.r.References(ctx, key, 0)
		if err != nil {
			return fmt.Errorf("impact: reading conversion sites of %q: %w", key, err)
		}
		for _, o := range occs {
			if o.Roles&graph.RoleConversion == 0 {
				continue
			}
			top, err := w.isTopLevel(ctx, o.Enclosing)
			if err != nil {
				return err
			}
			c := &cand{id: o.Enclosing, path: o.Path, topLevel: top}
			if top {
				c.id = ""
			}
			if w.inD1(c.key()) {
				continue
			}
			if prev := seen[c.key()]; prev != nil {
				c = prev
			} else {
				seen[c.key()] = c
				order = append(order, c.key())
				reason := fmt.Sprintf("%s converted to an interface that declares %s (go/types)", typ.DisplayName, meth.DisplayName)
				if typ.Kind == "interface" {
					reason = fmt.Sprintf("a concrete value converted to an interface whose method set has %s.%s (go/types)", typ.DisplayName, meth.DisplayName)
				}
				c.via = graph.Edge{From: c.id, To: meth.ID, Kind: graph.EdgeImplements, Confidence: 1.0, Path: o.Path, Reason: reason}
			}
			site := graph.Location{Path: o.Path, Range: o.Range}
			if !slices.Contains(c.sites, site) { // one site can need the method under two keys
				c.sites = append(c.sites, site)
			}
			c.count = len(c.sites)
		}
	}
	for _, k := range order {
		c := seen[k]
		if d, ok, err := w.document(ctx, c.path); err != nil {
			return err
		} else if ok {
			c.via.Source, c.via.Layer = d.Source, d.Layer
		}
		d, err := w.dependent(ctx, c, 0)
		if err != nil {
			return err
		}
		if d.Test && !w.o.IncludeTests {
			continue
		}
		d.Group, d.Breaks = GroupSatisfaction, true
		a.Satisfaction = append(a.Satisfaction, d)
	}
	sortDependents(a.Satisfaction)
	return nil
}
