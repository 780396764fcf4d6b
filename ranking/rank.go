package ranking

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/resolve"
	"github.com/lspgraph/lspgraph/scope"
)

// Candidate is one thing a reader may need to see.
type Candidate struct {
	// Key identifies the candidate: the symbol id, or "site:PATH:LINE" for a
	// place in a test document that belongs to no named definition.
	Key      string
	Symbol   graph.Symbol
	Role     Role
	Distance int    // hops from the target; 0 for the definition
	Reason   string // in words: "calls `Quote` at billing/billing.go:16"
	// Site is where the relation shows (a call site, a use); nil when the
	// definition alone is the point.
	Site       *graph.Location
	Package    string
	Score      float64
	Centrality float64 // the personalized PageRank share, before weighting
}

// Location is where a reader finds the candidate: its definition, else its site.
func (c *Candidate) Location() graph.Location {
	if c.Symbol.Def.Path != "" {
		return c.Symbol.Def
	}
	if c.Site != nil {
		return *c.Site
	}
	return graph.Location{}
}

// Name is the candidate's display name.
func (c *Candidate) Name() string {
	if c.Symbol.ID != "" {
		return name(c.Symbol)
	}
	if c.Site != nil {
		return fmt.Sprintf("%s:%d", path.Base(c.Site.Path), c.Site.Range.Start.Line+1)
	}
	return c.Key
}

// Options configure Rank.
type Options struct {
	// Analysis maps documents to packages; nil leaves packages empty.
	Analysis *scope.Analysis
	// Scope is the closure answers stay within; nil means everything.
	Scope *scope.Closure
	// MinConfidence drops edges below it (name-based syntax edges have
	// confidence below 1).
	MinConfidence float64
	// History, when set, adds files that changed together with the
	// target's (evolutionary coupling).
	History History
	// Without turns signals off, to measure what each adds: "locality"
	// (the score's locality terms), "neighbours" (the target file's
	// definitions and its directory's files), "tests" (the tests of
	// callees and the paired test files), "history-functions" (the
	// functions that changed with the target).
	Without []string
	// Weights replace DefaultWeights when set.
	Weights *Weights
	// Cache, when set, keeps the graph reads across calls on the same
	// store version.
	Cache *Cache
}

func (o Options) without(signal string) bool {
	for _, s := range o.Without {
		if s == signal {
			return true
		}
	}
	return false
}

// Result is the ranked neighbourhood of a target.
type Result struct {
	Target graph.Symbol
	// Items are the candidates inside the scope, best first; the definition
	// is always Items[0].
	Items []Candidate
	// OutOfScope are the candidates whose package is outside the scope,
	// best first.
	OutOfScope []Candidate
}

// Rank collects and scores the candidates around target.
func Rank(ctx context.Context, r *graph.Reader, target graph.Symbol, o Options) (*Result, error) {
	c := &collector{
		ctx: ctx, r: r, g: reads{ctx, r, o.Cache}, o: o, target: target,
		cands:   map[string]*Candidate{},
		syms:    map[string]symEntry{},
		names:   map[string]string{},
		docTest: map[string]bool{},
		adj:     map[string]map[string]bool{},
		weights: map[string]float64{},
		w:       DefaultWeights(),
	}
	if o.Weights != nil {
		c.w = *o.Weights
	}
	c.syms[target.ID] = symEntry{target, true}
	def := &Candidate{Key: target.ID, Symbol: target, Role: RoleDefinition, Reason: "definition of `" + name(target) + "`"}
	def.Package = c.packageOf(def.Location().Path)
	c.cands[target.ID] = def
	c.order = append(c.order, target.ID)
	steps := []func() error{c.implementations, c.callers, c.callees, c.typeEdges, c.containment}
	if !o.without("neighbours") {
		steps = append(steps, c.fileNeighbours)
	}
	steps = append(steps, c.secondHop, c.tests)
	if !o.without("tests") {
		steps = append(steps, c.calleeTests, c.pairedTests)
	}
	if !o.without("neighbours") {
		steps = append(steps, c.directoryNeighbours)
	}
	steps = append(steps, c.coChanged)
	if !o.without("history-functions") {
		steps = append(steps, c.coChangedFuncs)
	}
	steps = append(steps, c.namesakes, c.linkCandidates)
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("ranking: %s: %w", target.ID, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return c.result(), nil
}

type symEntry struct {
	s  graph.Symbol
	ok bool
}

type collector struct {
	ctx     context.Context
	r       *graph.Reader
	g       reads // r, through o.Cache
	o       Options
	target  graph.Symbol
	cands   map[string]*Candidate
	order   []string // insertion order, for deterministic iteration
	syms    map[string]symEntry
	names   map[string]string // name of each symbol id
	docTest map[string]bool
	imports map[string]map[uint32]bool // per document, lines holding imports
	adj     map[string]map[string]bool
	// coupling is the history's weight of each file coupled with the
	// target's; weights scales a candidate's role score (co-changed files).
	coupling map[string]float64
	weights  map[string]float64
	// funcCoupling is the history's tie of a candidate function to the
	// target found another way; docSyms caches the definitions of the
	// files history names functions in.
	funcCoupling map[string]float64
	docSyms      map[string][]graph.Symbol
	w            Weights
}

// name is the short qualified name of a symbol ("Catalog.Save"), for
// reasons and item names.
func name(s graph.Symbol) string {
	if s.ID != "" {
		if q := resolve.DisplayQualified(s); q != "" && q != s.ID {
			return q
		}
	}
	if s.DisplayName != "" {
		return s.DisplayName
	}
	return scope.ShortName(s.ID)
}

// name is name(s), computed once per symbol of a ranking: reasons name the
// target and the candidates again and again.
func (c *collector) name(s graph.Symbol) string {
	if s.ID == "" {
		return name(s)
	}
	if n, ok := c.names[s.ID]; ok {
		return n
	}
	n := name(s)
	c.names[s.ID] = n
	return n
}

func at(l graph.Location) string {
	return fmt.Sprintf("%s:%d", l.Path, l.Range.Start.Line+1)
}

func (c *collector) sym(id string) (graph.Symbol, bool) {
	if e, ok := c.syms[id]; ok {
		return e.s, e.ok
	}
	if strings.HasPrefix(id, "local ") {
		// A document-local symbol (a variable, a parameter) is never an
		// item (usable), and a body mentions many: none is read.
		return graph.Symbol{}, false
	}
	s, ok, err := c.g.Symbol(id)
	if err != nil {
		ok = false
	}
	c.syms[id] = symEntry{s, ok}
	return s, ok
}

func (c *collector) isTestDoc(path string) bool {
	if t, ok := c.docTest[path]; ok {
		return t
	}
	d, ok, err := c.g.Document(path)
	t := err == nil && ok && d.Flags&graph.DocTest != 0
	c.docTest[path] = t
	return t
}

// isModuleSymbol reports a SCIP id naming a module or file: scip-typescript
// "…src/`index.ts`/", scip-python "…`shop.pricing`/__init__:".
func isModuleSymbol(id string) bool {
	return strings.HasSuffix(id, "/") || strings.HasSuffix(id, "/__init__:")
}

// importLine reports whether a line of a non-Go document references a
// module: an import statement, whose other references only bind names and
// do not use them. (In Go, imports name packages, never the target, and a
// package qualifier sits on the same line as real uses.)
func (c *collector) importLine(path string, line uint32) bool {
	if c.imports == nil {
		c.imports = map[string]map[uint32]bool{}
	}
	lines, ok := c.imports[path]
	if !ok {
		lines = map[uint32]bool{}
		c.imports[path] = lines
		d, found, err := c.g.Document(path)
		if err == nil && found && d.Language != "go" {
			occs, err := c.g.Occurrences(path)
			if err == nil {
				for _, o := range occs {
					if o.Roles&graph.RoleDefinition == 0 && isModuleSymbol(o.Symbol) {
						lines[o.Range.Start.Line] = true
					}
				}
			}
		}
	}
	return lines[line]
}

func (c *collector) packageOf(path string) string {
	if c.o.Analysis == nil || path == "" {
		return ""
	}
	return c.o.Analysis.PackageOfDocument(path)
}

func (c *collector) inScope(cand *Candidate) bool {
	if c.o.Scope == nil || cand.Key == c.target.ID {
		return true
	}
	return c.o.Scope.Contains(cand.Package)
}

// usable reports whether a symbol can be shown as an item: defined in the
// workspace, and not a local, a parameter or a type parameter.
func usable(s graph.Symbol) bool {
	if s.External || s.Def.Path == "" || strings.HasPrefix(s.ID, "local ") {
		return false
	}
	switch s.Kind {
	case "local", "parameter", "type-parameter", "typeparameter", "type parameter", "package", "namespace", "module":
		return false
	}
	return true
}

func isCallable(s graph.Symbol) bool {
	switch s.Kind {
	case "function", "method", "method-specification", "abstract-method", "trait-method", "constructor", "func", "macro":
		return true
	}
	return strings.HasSuffix(s.ID, ").")
}

func isType(s graph.Symbol) bool {
	switch s.Kind {
	case "type", "interface", "struct", "class", "enum", "type-alias", "typealias", "trait", "protocol":
		return true
	}
	return strings.HasSuffix(s.ID, "#") && s.Kind == ""
}

// verb describes what using the target means.
func verb(s graph.Symbol) string {
	switch {
	case isCallable(s):
		return "calls"
	case isType(s):
		return "uses type"
	}
	return "uses"
}

// add records a candidate, keeping the strongest role when it is reached
// several ways, and links it to from for the centrality term.
func (c *collector) add(from string, s graph.Symbol, key string, role Role, dist int, reason string, site *graph.Location) *Candidate {
	if key == "" {
		key = s.ID
	}
	if from != "" {
		c.link(from, key)
	}
	if cur, ok := c.cands[key]; ok {
		if baseScore(role, dist) > baseScore(cur.Role, cur.Distance) && cur.Role != RoleDefinition {
			cur.Role, cur.Distance, cur.Reason, cur.Site = role, dist, reason, site
		}
		return cur
	}
	cand := &Candidate{Key: key, Symbol: s, Role: role, Distance: dist, Reason: reason, Site: site}
	cand.Package = c.packageOf(cand.Location().Path)
	c.cands[key] = cand
	c.order = append(c.order, key)
	return cand
}

func (c *collector) link(a, b string) {
	if a == b {
		return
	}
	for _, p := range [][2]string{{a, b}, {b, a}} {
		m := c.adj[p[0]]
		if m == nil {
			m = map[string]bool{}
			c.adj[p[0]] = m
		}
		m[p[1]] = true
	}
}

func (c *collector) filter(kinds ...graph.EdgeKind) graph.EdgeFilter {
	return graph.EdgeFilter{Kinds: kinds, MinConfidence: c.o.MinConfidence}
}

// callers adds the definitions that reference the target (role caller, or
// test when the reference is in a test document).
func (c *collector) callers() error {
	t := c.target
	refs, err := c.g.References(t.ID, maxReferences)
	if err != nil {
		return fmt.Errorf("reading references: %w", err)
	}
	for _, o := range refs {
		if o.Roles&(graph.RoleDefinition|graph.RoleImport) != 0 || o.Enclosing == t.ID {
			continue
		}
		site := &graph.Location{Path: o.Path, Range: o.Range}
		test := o.Roles&graph.RoleTest != 0 || c.isTestDoc(o.Path)
		s, ok := c.sym(o.Enclosing)
		if o.Enclosing == "" || !ok || !usable(s) {
			// Top-level code (a module body, a package-level var): the
			// site itself is the evidence.
			if o.Roles&graph.RoleImport != 0 || c.importLine(o.Path, o.Range.Start.Line) {
				continue
			}
			key := fmt.Sprintf("site:%s:%d", o.Path, o.Range.Start.Line+1)
			if test {
				c.add(t.ID, graph.Symbol{}, key, RoleTest, 1, fmt.Sprintf("test code %s `%s` at %s", verb(t), c.name(t), at(*site)), site)
			} else {
				c.add(t.ID, graph.Symbol{}, key, RoleCaller, 1, fmt.Sprintf("top-level code %s `%s` at %s", verb(t), c.name(t), at(*site)), site)
			}
			continue
		}
		if cur, seen := c.cands[s.ID]; seen && cur.Distance <= 1 {
			continue // the first site (in path order), or a stronger relation, explains it
		}
		if test {
			c.add(t.ID, s, "", RoleTest, 1, fmt.Sprintf("test of `%s`: %s it at %s", c.name(t), verb(t), at(*site)), site)
		} else {
			c.add(t.ID, s, "", RoleCaller, 1, fmt.Sprintf("%s `%s` at %s", verb(t), c.name(t), at(*site)), site)
		}
	}
	// Edges catch callers whose occurrences lack an enclosing definition.
	in, err := c.g.Incoming(t.ID, c.filter(graph.EdgeCalls, graph.EdgeReferences))
	if err != nil {
		return fmt.Errorf("reading incoming edges: %w", err)
	}
	for _, e := range in {
		s, ok := c.sym(e.From)
		if !ok || !usable(s) || s.ID == t.ID {
			continue
		}
		if cur, seen := c.cands[s.ID]; seen && cur.Distance <= 1 {
			continue
		}
		role := RoleCaller
		if c.isTestDoc(s.Def.Path) {
			role = RoleTest
		}
		c.add(t.ID, s, "", role, 1, fmt.Sprintf("%s `%s` (in %s)", verb(t), c.name(t), e.Path), nil)
	}
	return nil
}

// uses returns what a definition references in its body, with the first
// site of each: outgoing edges, plus occurrences enclosed by it.
func (c *collector) uses(s graph.Symbol) ([]string, map[string]*graph.Location, error) {
	sites := map[string]*graph.Location{}
	var ids []string
	if s.Def.Path != "" {
		occs, err := c.g.Occurrences(s.Def.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("reading occurrences of %s: %w", s.Def.Path, err)
		}
		extent := s.DefExtent
		hasExtent := extent.Start != extent.End
		for _, o := range occs {
			if o.Roles&graph.RoleDefinition != 0 || o.Symbol == s.ID {
				continue
			}
			inside := o.Enclosing == s.ID || (o.Enclosing == "" && hasExtent && extent.ContainsRange(o.Range))
			if !inside {
				continue
			}
			if _, ok := sites[o.Symbol]; !ok {
				sites[o.Symbol] = &graph.Location{Path: o.Path, Range: o.Range}
				ids = append(ids, o.Symbol)
			}
		}
	}
	out, err := c.g.Outgoing(s.ID, c.filter(graph.EdgeCalls, graph.EdgeReferences))
	if err != nil {
		return nil, nil, fmt.Errorf("reading outgoing edges: %w", err)
	}
	for _, e := range out {
		if _, ok := sites[e.To]; !ok {
			sites[e.To] = nil
			ids = append(ids, e.To)
		}
	}
	return ids, sites, nil
}

// callees adds what the target calls (callee), the types it mentions (type)
// and the other symbols it uses (uses).
func (c *collector) callees() error {
	t := c.target
	ids, sites, err := c.uses(t)
	if err != nil {
		return err
	}
	for _, id := range ids {
		s, ok := c.sym(id)
		if !ok || !usable(s) || s.ID == t.ID {
			continue
		}
		site := sites[id]
		where := ""
		if site != nil {
			where = " at " + at(*site)
		}
		switch {
		case isCallable(s):
			c.add(t.ID, s, "", RoleCallee, 1, fmt.Sprintf("called by `%s`%s", c.name(t), where), site)
		case isType(s):
			c.add(t.ID, s, "", RoleType, 1, fmt.Sprintf("type used by `%s`%s", c.name(t), where), site)
		default:
			c.add(t.ID, s, "", RoleUses, 1, fmt.Sprintf("used by `%s`%s", c.name(t), where), site)
		}
	}
	return nil
}

// typeEdges adds the target's declared types.
func (c *collector) typeEdges() error {
	out, err := c.g.Outgoing(c.target.ID, c.filter(graph.EdgeTypeOf, graph.EdgeTypeDef))
	if err != nil {
		return fmt.Errorf("reading type edges: %w", err)
	}
	for _, e := range out {
		if s, ok := c.sym(e.To); ok && usable(s) {
			c.add(c.target.ID, s, "", RoleType, 1, fmt.Sprintf("type of `%s`", c.name(c.target)), nil)
		}
	}
	return nil
}

// implementations adds what implements the target and what it implements,
// and (distance 2) the callers of an implemented interface method: calls
// through the interface reach the target by dispatch.
func (c *collector) implementations() error {
	t := c.target
	in, err := c.g.Incoming(t.ID, c.filter(graph.EdgeImplements))
	if err != nil {
		return fmt.Errorf("reading implementations: %w", err)
	}
	for _, e := range in {
		s, ok := c.sym(e.From)
		if !ok || !usable(s) {
			continue
		}
		c.add(t.ID, s, "", RoleImplementation, 1, fmt.Sprintf("implements `%s`", c.name(t)), nil)
		// The tests of an implementation pin the behaviour the interface
		// method promises.
		refs, err := c.g.References(s.ID, maxPerExpansion)
		if err != nil {
			return fmt.Errorf("reading references of %s: %w", s.ID, err)
		}
		for _, o := range refs {
			if o.Roles&graph.RoleDefinition != 0 || !(o.Roles&graph.RoleTest != 0 || c.isTestDoc(o.Path)) {
				continue
			}
			ts, ok := c.sym(o.Enclosing)
			if !ok || !usable(ts) {
				continue
			}
			site := &graph.Location{Path: o.Path, Range: o.Range}
			c.add(s.ID, ts, "", RoleTest, 2, fmt.Sprintf("test of `%s`, which implements `%s`: calls it at %s", c.name(s), c.name(t), at(*site)), site)
		}
	}
	out, err := c.g.Outgoing(t.ID, c.filter(graph.EdgeImplements))
	if err != nil {
		return fmt.Errorf("reading implemented interfaces: %w", err)
	}
	for _, e := range out {
		iface, ok := c.sym(e.To)
		if !ok || !usable(iface) {
			continue
		}
		c.add(t.ID, iface, "", RoleImplementation, 1, fmt.Sprintf("`%s` implements it", c.name(t)), nil)
		if !isCallable(iface) {
			continue
		}
		refs, err := c.g.References(iface.ID, maxPerExpansion)
		if err != nil {
			return fmt.Errorf("reading references of %s: %w", iface.ID, err)
		}
		for _, o := range refs {
			if o.Roles&graph.RoleDefinition != 0 || o.Enclosing == "" {
				continue
			}
			s, ok := c.sym(o.Enclosing)
			if !ok || !usable(s) || s.ID == t.ID {
				continue
			}
			site := &graph.Location{Path: o.Path, Range: o.Range}
			role := RoleCaller
			if c.isTestDoc(o.Path) {
				role = RoleTest
			}
			c.add(iface.ID, s, "", role, 2, fmt.Sprintf("calls `%s` at %s, which `%s` implements", c.name(iface), at(*site), c.name(t)), site)
		}
	}
	return nil
}

// parentID returns the type a member's SCIP id belongs to ("…/Catalog#Save()."
// → "…/Catalog#"), or "".
func parentID(id string) string {
	s := id
	switch {
	case strings.HasSuffix(s, ")."):
		i := strings.LastIndex(s, "(")
		if i < 0 {
			return ""
		}
		s = s[:i]
	case strings.HasSuffix(s, "."), strings.HasSuffix(s, "#"):
		s = s[:len(s)-1]
	default:
		return ""
	}
	if strings.HasSuffix(s, "`") {
		i := strings.LastIndex(s[:len(s)-1], "`")
		if i < 0 {
			return ""
		}
		s = s[:i]
	} else {
		i := strings.LastIndexAny(s, "#./ ")
		if i < 0 {
			return ""
		}
		s = s[:i+1]
	}
	if strings.HasSuffix(s, "#") {
		return s
	}
	return ""
}

// containment adds the type the target belongs to, its members (for a
// type), and its siblings: the other members of its type, else the other
// definitions of its file.
func (c *collector) containment() error {
	t := c.target
	parent := ""
	in, err := c.g.Incoming(t.ID, c.filter(graph.EdgeContains))
	if err != nil {
		return fmt.Errorf("reading containers: %w", err)
	}
	for _, e := range in {
		if s, ok := c.sym(e.From); ok && usable(s) && isType(s) {
			parent = s.ID
			break
		}
	}
	if parent == "" {
		if p := parentID(t.ID); p != "" {
			if s, ok := c.sym(p); ok && usable(s) {
				parent = p
			}
		}
	}
	if parent != "" {
		ps, _ := c.sym(parent)
		c.add(t.ID, ps, "", RoleType, 1, fmt.Sprintf("`%s` is a member of `%s`", c.name(t), c.name(ps)), nil)
		members, err := c.members(ps)
		if err != nil {
			return err
		}
		for _, m := range members {
			if m.ID != t.ID {
				c.add(parent, m, "", RoleSibling, 1, fmt.Sprintf("member of the same type `%s`", c.name(ps)), nil)
			}
		}
	}
	if isType(t) {
		members, err := c.members(t)
		if err != nil {
			return err
		}
		for _, m := range members {
			c.add(t.ID, m, "", RoleMember, 1, fmt.Sprintf("member of `%s`", c.name(t)), nil)
		}
	}
	return nil
}

// members returns a type's members: contains edges, else the symbols of its
// file whose id extends the type's.
func (c *collector) members(typ graph.Symbol) ([]graph.Symbol, error) {
	var out []graph.Symbol
	edges, err := c.g.Outgoing(typ.ID, c.filter(graph.EdgeContains))
	if err != nil {
		return nil, fmt.Errorf("reading members of %s: %w", typ.ID, err)
	}
	for _, e := range edges {
		if len(out) >= maxSiblings {
			break
		}
		if s, ok := c.sym(e.To); ok && usable(s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 && typ.Def.Path != "" {
		syms, err := c.g.DocumentSymbols(typ.Def.Path)
		if err != nil {
			return nil, fmt.Errorf("reading symbols of %s: %w", typ.Def.Path, err)
		}
		for _, s := range syms {
			if s.ID != typ.ID && parentID(s.ID) == typ.ID && usable(s) && s.Def.Path == typ.Def.Path {
				out = append(out, s)
			}
		}
	}
	if len(out) > maxSiblings {
		out = out[:maxSiblings]
	}
	return out, nil
}

// secondHop adds the callers of the direct callers (and the tests among
// them) and the callees of the direct callees, for in-scope candidates only.
func (c *collector) secondHop() error {
	var callers, callees []*Candidate
	for _, k := range c.order {
		cand := c.cands[k]
		if cand.Distance != 1 || cand.Symbol.ID == "" || !c.inScope(cand) {
			continue
		}
		switch cand.Role {
		case RoleCaller:
			callers = append(callers, cand)
		case RoleCallee:
			callees = append(callees, cand)
		}
	}
	t := c.target
	for i, cl := range callers {
		if i >= maxSecondHop {
			break
		}
		refs, err := c.g.References(cl.Symbol.ID, maxPerExpansion)
		if err != nil {
			return fmt.Errorf("reading references of %s: %w", cl.Symbol.ID, err)
		}
		for _, o := range refs {
			if o.Roles&graph.RoleDefinition != 0 || o.Enclosing == cl.Symbol.ID {
				continue
			}
			site := &graph.Location{Path: o.Path, Range: o.Range}
			test := o.Roles&graph.RoleTest != 0 || c.isTestDoc(o.Path)
			if o.Enclosing == "" {
				if test {
					key := fmt.Sprintf("site:%s:%d", o.Path, o.Range.Start.Line+1)
					c.add(cl.Key, graph.Symbol{}, key, RoleTest, 2, fmt.Sprintf("test code %s `%s`, which %s `%s`, at %s", verb(cl.Symbol), c.name(cl.Symbol), verb(t), c.name(t), at(*site)), site)
				}
				continue
			}
			s, ok := c.sym(o.Enclosing)
			if !ok || !usable(s) || s.ID == t.ID {
				continue
			}
			if test {
				c.add(cl.Key, s, "", RoleTest, 2, fmt.Sprintf("test of `%s`, which %s `%s`: %s it at %s", c.name(cl.Symbol), verb(t), c.name(t), verb(cl.Symbol), at(*site)), site)
			} else {
				c.add(cl.Key, s, "", RoleCaller, 2, fmt.Sprintf("%s `%s` at %s, which %s `%s`", verb(cl.Symbol), c.name(cl.Symbol), at(*site), verb(t), c.name(t)), site)
			}
		}
	}
	for i, ce := range callees {
		if i >= maxSecondHop {
			break
		}
		// A call through an interface reaches its implementations.
		impls, err := c.g.Incoming(ce.Symbol.ID, c.filter(graph.EdgeImplements))
		if err != nil {
			return fmt.Errorf("reading implementations of %s: %w", ce.Symbol.ID, err)
		}
		for _, e := range impls {
			if s, ok := c.sym(e.From); ok && usable(s) && s.ID != t.ID {
				c.add(ce.Key, s, "", RoleImplementation, 2, fmt.Sprintf("implements `%s`, which `%s` calls", c.name(ce.Symbol), c.name(t)), nil)
			}
		}
		out, err := c.g.Outgoing(ce.Symbol.ID, c.filter(graph.EdgeCalls, graph.EdgeReferences))
		if err != nil {
			return fmt.Errorf("reading outgoing edges of %s: %w", ce.Symbol.ID, err)
		}
		n := 0
		for _, e := range out {
			if n >= maxPerExpansion {
				break
			}
			s, ok := c.sym(e.To)
			if !ok || !usable(s) || s.ID == t.ID || !isCallable(s) {
				continue
			}
			c.add(ce.Key, s, "", RoleCallee, 2, fmt.Sprintf("called by `%s`, which `%s` calls", c.name(ce.Symbol), c.name(t)), nil)
			n++
		}
	}
	return nil
}

// tests adds the tests that reach the target through up to maxTestDepth
// callers: test functions, or top-level code of test documents (a test
// callback in a module body).
func (c *collector) tests() error {
	t := c.target
	visits, err := c.callersUpTo(maxTestDepth, maxTestVisits)
	if err != nil {
		return fmt.Errorf("walking callers: %w", err)
	}
	for _, v := range visits {
		if v.Depth < 1 || !c.isTestDoc(v.Via.Path) {
			continue
		}
		via, ok := c.sym(v.Via.To)
		if !ok || (via.ID != t.ID && !usable(via)) {
			continue // reached through a module's imports, not a call chain
		}
		chain := ""
		if via.ID != t.ID {
			chain = fmt.Sprintf(" through `%s`", c.name(via))
		}
		s, ok := c.sym(v.Symbol)
		if ok && usable(s) {
			c.add(via.ID, s, "", RoleTest, v.Depth, fmt.Sprintf("test of `%s`%s", c.name(t), chain), nil)
			continue
		}
		// A test body with no named definition: find the site.
		refs, err := c.g.References(via.ID, maxPerExpansion)
		if err != nil {
			return fmt.Errorf("reading references of %s: %w", via.ID, err)
		}
		for _, o := range refs {
			if o.Path != v.Via.Path || o.Roles&(graph.RoleDefinition|graph.RoleImport) != 0 || o.Enclosing != v.Symbol || c.importLine(o.Path, o.Range.Start.Line) {
				continue
			}
			site := &graph.Location{Path: o.Path, Range: o.Range}
			key := fmt.Sprintf("site:%s:%d", o.Path, o.Range.Start.Line+1)
			c.add(via.ID, graph.Symbol{}, key, RoleTest, v.Depth, fmt.Sprintf("test code at %s exercises `%s`%s", at(*site), c.name(t), chain), site)
		}
	}
	return nil
}

// callersUpTo walks the callers of the target breadth-first, as
// graph.Reader.Traverse upstream over calls and references does (the same
// visits in the same order, at most limit), reading each symbol's callers
// through the cache: the callers a walk meets are those of the targets
// near it, read again by their packs.
func (c *collector) callersUpTo(maxDepth, limit int) ([]graph.Visit, error) {
	f := c.filter(graph.EdgeCalls, graph.EdgeReferences)
	seen := map[string]bool{c.target.ID: true}
	frontier := []string{c.target.ID}
	var visits []graph.Visit
	for depth := 1; len(frontier) > 0 && depth <= maxDepth; depth++ {
		var next []string
		for _, sym := range frontier {
			if err := c.ctx.Err(); err != nil {
				return nil, err
			}
			in, err := c.g.Incoming(sym, f)
			if err != nil {
				return nil, err
			}
			for _, e := range in {
				if seen[e.From] {
					continue
				}
				if len(visits) >= limit {
					return visits, nil
				}
				seen[e.From] = true
				visits = append(visits, graph.Visit{Symbol: e.From, Depth: depth, Via: e})
				next = append(next, e.From)
			}
		}
		frontier = next
	}
	return visits, nil
}

// namesakes adds symbols that share a name with the target or one of its
// direct callees but have no graph relation to the target: a text search
// would confuse them, so they are shown as such.
func (c *collector) namesakes() error {
	type root struct {
		name string
		of   graph.Symbol
	}
	short := func(s graph.Symbol) string {
		if s.DisplayName != "" {
			return s.DisplayName
		}
		return scope.ShortName(s.ID)
	}
	roots := []root{{short(c.target), c.target}}
	for _, k := range c.order {
		cand := c.cands[k]
		if len(roots) >= maxNamesakeRoot {
			break
		}
		if cand.Distance == 1 && cand.Role == RoleCallee && cand.Symbol.DisplayName != "" {
			roots = append(roots, root{cand.Symbol.DisplayName, cand.Symbol})
		}
	}
	seen := map[string]bool{}
	for _, rt := range roots {
		if rt.name == "" || seen[rt.name] {
			continue
		}
		seen[rt.name] = true
		syms, err := c.g.FindSymbols(rt.name, false, maxNamesakes+8)
		if err != nil {
			return fmt.Errorf("finding symbols named %q: %w", rt.name, err)
		}
		n := 0
		for _, s := range syms {
			if n >= maxNamesakes {
				break
			}
			if _, known := c.cands[s.ID]; known || !usable(s) || isCallable(s) != isCallable(rt.of) {
				continue
			}
			reason := fmt.Sprintf("same name as `%s` (%s); no reference connects them", c.name(rt.of), at(rt.of.Def))
			c.add("", s, "", RoleNamesake, 1, reason, nil)
			n++
		}
	}
	return nil
}

// linkCandidates adds the graph edges among candidates to the centrality
// subgraph.
func (c *collector) linkCandidates() error {
	// Only the edges into candidates count: the graph tells them apart
	// without naming the other targets (most of them, on a cold store).
	var syms []string
	for _, k := range c.order {
		if c.cands[k].Symbol.ID == k {
			syms = append(syms, k)
		}
	}
	// The set is read when an edge read needs it: a pack asked again
	// finds its candidates' edges in the cache, under the set's digest.
	var set *graph.SymbolSet
	readSet := func() (*graph.SymbolSet, error) {
		if set == nil {
			s, err := c.r.SymbolSet(syms)
			if err != nil {
				return nil, fmt.Errorf("reading the candidates' ids: %w", err)
			}
			set = s
		}
		return set, nil
	}
	setKey := ""
	if c.g.cache != nil {
		setKey = setDigest(syms)
	} else if _, err := readSet(); err != nil {
		return err
	}
	n := 0
	for _, k := range c.order {
		if n >= maxLinked {
			break
		}
		cand := c.cands[k]
		// Call-chain candidates tie the neighbourhood together; the edges
		// of types and their members (many contains and field edges) cost
		// more to read than the rest of the ranking on large graphs, and
		// their ties are already linked when they are collected.
		switch cand.Role {
		case RoleNamesake, RoleType, RoleMember, RoleSibling, RoleUses:
			continue
		}
		if cand.Symbol.ID == "" || !c.inScope(cand) {
			continue
		}
		n++
		f := c.filter()
		f.Limit = maxLinkEdges
		tos, err := c.g.TargetsIn(cand.Symbol.ID, f, setKey, readSet)
		if err != nil {
			return fmt.Errorf("reading edges of %s: %w", cand.Symbol.ID, err)
		}
		for _, to := range tos {
			if _, ok := c.cands[to]; ok {
				c.link(k, to)
			}
		}
	}
	return nil
}

// pagerank returns personalized PageRank seeded at the target over the
// candidate subgraph. Mass flows out of candidates only; a node linked but
// never collected (a test's intermediate caller) keeps what reaches it.
func (c *collector) pagerank() map[string]float64 {
	// Dense indices: the walk runs over slices, not maps.
	index := map[string]int{}
	var keys []string
	node := func(k string) int {
		i, ok := index[k]
		if !ok {
			i = len(keys)
			index[k] = i
			keys = append(keys, k)
		}
		return i
	}
	node(c.target.ID)
	for _, k := range c.order {
		node(k)
	}
	collected := len(keys)
	nbs := make([][]int, collected)
	for i := range collected {
		for _, v := range slices.Sorted(maps.Keys(c.adj[keys[i]])) {
			nbs[i] = append(nbs[i], node(v))
		}
	}
	p, next := make([]float64, len(keys)), make([]float64, len(keys))
	p[0] = 1 // the target
	for it := 0; it < pprIterations; it++ {
		clear(next)
		next[0] = pprRestart
		for u := range collected {
			pu := p[u]
			if pu == 0 {
				continue
			}
			nb := nbs[u]
			if len(nb) == 0 {
				next[0] += (1 - pprRestart) * pu
				continue
			}
			share := (1 - pprRestart) * pu / float64(len(nb))
			for _, v := range nb {
				next[v] += share
			}
		}
		p, next = next, p
	}
	out := make(map[string]float64, len(keys))
	for i, k := range keys {
		if p[i] != 0 {
			out[k] = p[i]
		}
	}
	return out
}

func (c *collector) result() *Result {
	ppr := c.pagerank()
	maxP := 0.0
	for k, v := range ppr {
		if k != c.target.ID && v > maxP {
			maxP = v
		}
	}
	res := &Result{Target: c.target}
	for _, k := range c.order {
		cand := c.cands[k]
		cand.Centrality = ppr[k]
		cand.Score = baseScore(cand.Role, cand.Distance) * c.w.roleFactor(cand.Role) * c.weight(k)
		if maxP > 0 && k != c.target.ID {
			cand.Score += c.w.Centrality * ppr[k] / maxP
		}
		if k != c.target.ID {
			cand.Score += c.w.CoChange*c.coupling[cand.Location().Path] + c.w.CoChangeFunc*c.funcCoupling[k]
			if !c.o.without("locality") {
				cand.Score += c.locality(cand)
			}
		}
		cand.Score = math.Round(cand.Score*1e6) / 1e6
		if c.inScope(cand) {
			res.Items = append(res.Items, *cand)
		} else {
			res.OutOfScope = append(res.OutOfScope, *cand)
		}
	}
	Sort(res.Items)
	Sort(res.OutOfScope)
	return res
}

// Sort orders candidates: score descending, then path, position, key.
// The candidates are sorted by index and moved once: a Candidate is large.
func Sort(cs []Candidate) {
	idx := make([]int, len(cs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := &cs[idx[i]], &cs[idx[j]]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		la, lb := a.Location(), b.Location()
		if la.Path != lb.Path {
			return la.Path < lb.Path
		}
		if la.Range.Start != lb.Range.Start {
			return la.Range.Start.Before(lb.Range.Start)
		}
		return a.Key < b.Key
	})
	sorted := make([]Candidate, len(cs))
	for i, k := range idx {
		sorted[i] = cs[k]
	}
	copy(cs, sorted)
}
