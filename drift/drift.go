// Package drift audits the graph against a live language server: it
// samples defined symbols, compares the graph's reference sites with the
// server's textDocument/references, and reports precision and recall per
// source, the worst symbols and the freshness of each layer.
package drift

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
)

// DefaultSample is the number of symbols audited when Options.Sample is 0.
const DefaultSample = 50

// DefaultMaxDrift is the drift over which an audit fails.
const DefaultMaxDrift = 0.1

// DefaultWorst is the number of worst symbols a report lists.
const DefaultWorst = 10

// Options says what to audit.
type Options struct {
	// Root is the workspace root (absolute).
	Root string
	// Sample is the number of symbols to compare (DefaultSample when 0).
	Sample int
	// Seed makes the sample: the same seed on the same graph samples the
	// same symbols.
	Seed uint64
	// BaseOnly audits the base layer alone (the reader's BaseView).
	BaseOnly bool
	// Worst is the number of worst symbols listed (DefaultWorst when 0).
	Worst int
	// Callers, when set, also compares each sampled function's and
	// method's callers with the server's call hierarchy.
	Callers Callers
}

// Callers returns the definitions of the callers of the function or
// method defined at def, as the server's callHierarchy/incomingCalls
// reports them (each caller's name position), root-relative. ok is false
// when the server has no call hierarchy item there (no support, or not a
// callable it knows).
type Callers func(ctx context.Context, def graph.Location) (callers []graph.Location, ok bool, err error)

// CallerStat pools the caller comparisons of a stratum or of a report:
// callers are compared by their definition (path:line).
type CallerStat struct {
	// Symbols counts the symbols whose callers were compared (the server
	// had a call hierarchy item for them).
	Symbols   int     `json:"symbols"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Matched   int     `json:"matched"`
	Graph     int     `json:"graphCallers"`
	Server    int     `json:"serverCallers"`
}

// add pools one symbol's caller comparison.
func (c *CallerStat) add(s *SymbolCallers) {
	c.Symbols++
	c.Matched += s.Matched
	c.Graph += s.Graph
	c.Server += s.Server
	c.Precision, c.Recall = ratio(c.Matched, c.Graph), ratio(c.Matched, c.Server)
}

// SymbolCallers is one symbol's callers in the graph (incoming calls
// edges) compared with the server's incoming calls, by the callers'
// definitions (path:line).
type SymbolCallers struct {
	Graph     int      `json:"graphCallers"`
	Server    int      `json:"serverCallers"`
	Matched   int      `json:"matched"`
	Precision float64  `json:"precision"`
	Recall    float64  `json:"recall"`
	Missing   []string `json:"missing,omitempty"`
	Extra     []string `json:"extra,omitempty"`
}

// Report is the result of an audit.
type Report struct {
	Root  string `json:"root"`
	Layer string `json:"layer"` // "base" or "all"
	Seed  uint64 `json:"seed"`
	// Candidates is the number of symbols the sample was drawn from.
	Candidates int `json:"candidates"`
	// Compared is the number of symbols compared with the server.
	Compared int `json:"compared"`
	// Failed counts the symbols the server could not answer for.
	Failed int `json:"failed,omitempty"`
	// Precision and Recall pool the sites of every compared symbol.
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	// Drift is 1 − the recall-weighted F1 (see [Drift]) of the reference
	// sites; callers do not count in it.
	Drift float64 `json:"drift"`
	// Callers pools the caller comparisons (nil when not asked).
	Callers *CallerStat  `json:"callers,omitempty"`
	Sources []SourceStat `json:"sources"`
	Worst   []SymbolStat `json:"worst"`
	Layers  []LayerState `json:"layers"`
	Errors  []string     `json:"errors,omitempty"`
}

// Result is an audit as `lspgraph verify --json` prints it and the
// lspgraph.verify command answers: the report, the server it was compared
// with, the limit, and whether drift is over it.
type Result struct {
	*Report
	Server   string  `json:"server"`
	MaxDrift float64 `json:"maxDrift"`
	Over     bool    `json:"over"`
}

// NewResult judges rep against maxDrift.
func NewResult(rep *Report, server string, maxDrift float64) Result {
	return Result{Report: rep, Server: server, MaxDrift: maxDrift, Over: rep.Drift > maxDrift}
}

// SourceStat is the agreement of the symbols of one stratum: a layer and
// the source of the documents that define them.
type SourceStat struct {
	Layer     string  `json:"layer"`
	Source    string  `json:"source"`
	Symbols   int     `json:"symbols"`
	Candidate int     `json:"candidates"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Matched   int     `json:"matched"`
	Graph     int     `json:"graphSites"`
	Server    int     `json:"serverSites"`
	// Callers pools the stratum's caller comparisons (nil when none ran).
	Callers *CallerStat `json:"callers,omitempty"`
}

// SymbolStat is the comparison of one symbol's reference sites (file:line).
type SymbolStat struct {
	Symbol    string   `json:"symbol"`
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	Def       string   `json:"def"` // path:line
	Layer     string   `json:"layer"`
	Source    string   `json:"source"`
	Graph     int      `json:"graphSites"`
	Server    int      `json:"serverSites"`
	Matched   int      `json:"matched"`
	Precision float64  `json:"precision"`
	Recall    float64  `json:"recall"`
	F1        float64  `json:"f1"`
	Missing   []string `json:"missing,omitempty"` // the server's sites the graph lacks
	Extra     []string `json:"extra,omitempty"`   // the graph's sites the server does not report
	// ViaRelated counts the matched sites the graph records under a
	// related symbol (see related): an interface method the method
	// implements, the class of a constructor, the constructor of a class.
	ViaRelated int `json:"viaRelated,omitempty"`
	// Callers compares the symbol's callers (nil when not compared).
	Callers *SymbolCallers `json:"callers,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// LayerState is a layer's freshness.
type LayerState struct {
	Layer     string   `json:"layer"`
	Commit    string   `json:"commit,omitempty"`
	Head      string   `json:"head,omitempty"`
	Tool      string   `json:"tool,omitempty"`
	State     string   `json:"state,omitempty"`
	Documents int      `json:"documents"`
	Changed   int      `json:"changed"` // documents changed since the base commit (base layer)
	Stale     bool     `json:"stale"`   // the base commit is not HEAD or documents changed since
	Dirty     int      `json:"dirty,omitempty"`
	Partial   bool     `json:"partial,omitempty"`
	Reasons   []string `json:"reasons,omitempty"`
}

// kinds are the symbol kinds audited: functions, methods and types.
var kinds = map[string]bool{
	"function": true, "method": true, "type": true, "struct": true, "interface": true, "class": true,
}

// callable are the kinds whose callers are compared.
var callable = map[string]bool{"function": true, "method": true}

// candidate is a symbol that may be sampled.
type candidate struct {
	sym    graph.Symbol
	layer  string
	source string
}

// Audit compares a sample of the symbols r defines inside the root with
// what refs (the server's references of a definition) answers.
func Audit(ctx context.Context, r *graph.Reader, refs impact.Verifier, o Options) (*Report, error) {
	if o.Sample <= 0 {
		o.Sample = DefaultSample
	}
	if o.Worst <= 0 {
		o.Worst = DefaultWorst
	}
	rep := &Report{Root: o.Root, Layer: "all", Seed: o.Seed}
	view := r
	if o.BaseOnly {
		view = r.BaseView()
		rep.Layer = "base"
	}
	if err := layers(ctx, r, o, rep); err != nil {
		return nil, err
	}
	strata, err := candidates(ctx, view)
	if err != nil {
		return nil, err
	}
	sample := draw(strata, o.Sample, o.Seed)
	stats := map[string]*SourceStat{}
	var keys []string
	for _, k := range sortedKeys(strata) {
		c := strata[k][0]
		stats[k] = &SourceStat{Layer: c.layer, Source: c.source, Candidate: len(strata[k])}
		keys = append(keys, k)
		rep.Candidates += len(strata[k])
	}
	var compared []SymbolStat
	var tp, ng, ns int
	for _, c := range sample {
		st := compare(ctx, view, refs, c)
		if st.Error == "" && o.Callers != nil && callable[c.sym.Kind] {
			// A failed caller comparison leaves the references compared.
			var cerr string
			if st.Callers, cerr = compareCallers(ctx, view, o.Callers, c.sym); cerr != "" {
				rep.Errors = append(rep.Errors, st.Symbol+": callers: "+cerr)
			}
		}
		if st.Error != "" {
			rep.Failed++
			rep.Errors = append(rep.Errors, st.Symbol+": "+st.Error)
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := stats[c.layer+"/"+c.source]
		s.Symbols++
		s.Matched += st.Matched
		s.Graph += st.Graph
		s.Server += st.Server
		tp, ng, ns = tp+st.Matched, ng+st.Graph, ns+st.Server
		if st.Callers != nil {
			if s.Callers == nil {
				s.Callers = &CallerStat{}
			}
			if rep.Callers == nil {
				rep.Callers = &CallerStat{}
			}
			s.Callers.add(st.Callers)
			rep.Callers.add(st.Callers)
		}
		compared = append(compared, st)
	}
	for _, k := range keys {
		s := stats[k]
		s.Precision, s.Recall = ratio(s.Matched, s.Graph), ratio(s.Matched, s.Server)
		rep.Sources = append(rep.Sources, *s)
	}
	rep.Compared = len(compared)
	rep.Precision, rep.Recall = ratio(tp, ng), ratio(tp, ns)
	rep.Drift = Drift(compared)
	worst := slices.Clone(compared)
	slices.SortStableFunc(worst, func(a, b SymbolStat) int {
		return cmp.Or(cmp.Compare(a.F1, b.F1), cmp.Compare(len(b.Missing)+len(b.Extra), len(a.Missing)+len(a.Extra)), strings.Compare(a.Symbol, b.Symbol))
	})
	for _, s := range worst {
		if (s.F1 >= 1 && !s.Callers.differ()) || len(rep.Worst) == o.Worst {
			continue
		}
		rep.Worst = append(rep.Worst, s)
	}
	return rep, nil
}

// Drift is 1 − the recall-weighted F1 of the compared symbols: the mean of
// their F1 scores, each weighted by the number of sites the server reports
// for it (at least 1), so that a symbol with many true references weighs
// more and a symbol with none still counts. 0 when nothing was compared.
func Drift(stats []SymbolStat) float64 {
	var sum, weight float64
	for _, s := range stats {
		w := float64(max(s.Server, 1))
		sum += w * s.F1
		weight += w
	}
	if weight == 0 {
		return 0
	}
	return 1 - sum/weight
}

// ratio is n/d, 1 when d is 0 (nothing to find, nothing wrong).
func ratio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

// f1 is the harmonic mean of precision and recall.
func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// candidates returns the functions, methods and types defined in the
// documents r reads (all inside the root: graph paths are root-relative),
// by stratum (layer/source), each sorted by id.
func candidates(ctx context.Context, r *graph.Reader) (map[string][]candidate, error) {
	out := map[string][]candidate{}
	err := r.Documents(ctx, func(d graph.Document) error {
		syms, err := r.DocumentSymbols(ctx, d.Path)
		if err != nil {
			return err
		}
		source := d.Source
		if source == "" {
			source = "unknown"
		}
		for _, s := range syms {
			if s.External || !kinds[s.Kind] || s.Def.Path != d.Path {
				continue
			}
			k := d.Layer.String() + "/" + source
			out[k] = append(out[k], candidate{sym: s, layer: d.Layer.String(), source: source})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("drift: listing symbols: %w", err)
	}
	for k, cs := range out {
		slices.SortFunc(cs, func(a, b candidate) int { return strings.Compare(a.sym.ID, b.sym.ID) })
		out[k] = slices.CompactFunc(cs, func(a, b candidate) bool { return a.sym.ID == b.sym.ID })
	}
	return out, nil
}

// draw samples n candidates: each stratum is shuffled with the seed, then
// the strata are taken from in turn (in key order) until n are drawn or
// all are, so that a small stratum is represented beside a large one.
func draw(strata map[string][]candidate, n int, seed uint64) []candidate {
	rng := rand.New(rand.NewPCG(seed, 0x6c7370677261706b))
	var lists [][]candidate
	for _, k := range sortedKeys(strata) {
		cs := slices.Clone(strata[k])
		rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
		lists = append(lists, cs)
	}
	var out []candidate
	for len(out) < n {
		took := false
		for i := range lists {
			if len(lists[i]) == 0 || len(out) == n {
				continue
			}
			out = append(out, lists[i][0])
			lists[i] = lists[i][1:]
			took = true
		}
		if !took {
			break
		}
	}
	return out
}

// compare compares one symbol's reference sites in the graph with the
// server's.
func compare(ctx context.Context, r *graph.Reader, refs impact.Verifier, c candidate) SymbolStat {
	s := c.sym
	st := SymbolStat{Symbol: s.ID, Name: s.DisplayName, Kind: s.Kind, Layer: c.layer, Source: c.source,
		Def: site(s.Def.Path, s.Def.Range.Start.Line)}
	occs, err := r.References(ctx, s.ID, 0)
	if err != nil {
		st.Error = err.Error()
		return st
	}
	g := map[string]bool{}
	for _, o := range occs {
		if o.Roles&(graph.RoleDefinition|graph.RoleForwardDefinition) != 0 {
			continue
		}
		g[site(o.Path, o.Range.Start.Line)] = true
	}
	via, hierarchy, err := related(ctx, r, s)
	if err != nil {
		st.Error = err.Error()
		return st
	}
	locs, err := refs(ctx, s.Def)
	if err != nil {
		st.Error = err.Error()
		return st
	}
	sv := map[string]bool{}
	for _, l := range locs {
		sv[site(l.Path, l.Range.Start.Line)] = true
	}
	delete(sv, st.Def) // the definition's own line is not a reference site
	delete(g, st.Def)
	for k := range hierarchy {
		delete(sv, k)
		delete(g, k)
	}
	for k := range via {
		if sv[k] && !g[k] {
			g[k] = true
			st.ViaRelated++
		}
	}
	for k := range sv {
		if g[k] {
			st.Matched++
		} else {
			st.Missing = append(st.Missing, k)
		}
	}
	for k := range g {
		if !sv[k] {
			st.Extra = append(st.Extra, k)
		}
	}
	slices.Sort(st.Missing)
	slices.Sort(st.Extra)
	st.Graph, st.Server = len(g), len(sv)
	st.Precision, st.Recall = ratio(st.Matched, st.Graph), ratio(st.Matched, st.Server)
	st.F1 = f1(st.Precision, st.Recall)
	return st
}

// related returns what the servers disagree on by design around a symbol:
//
//   - via: sites of related symbols that count as the symbol's where the
//     server reports them, and are not extra where it does not. A method
//     gets the calls through the interface methods it implements (gopls
//     reports them as its references, tsserver does not). A class gets
//     its constructors' sites and a constructor its class's: SCIP indexers
//     record `new C()` as a reference of C's constructor, tsserver as one
//     of C, and at a constructor it reports the class's references (an
//     export line among them).
//   - hierarchy: the definition lines of the methods linked to a method
//     by implements (the interface methods it implements, the other
//     implementations of those, its own implementations), which tsserver
//     lists among a method's references. They are no reference sites.
func related(ctx context.Context, r *graph.Reader, s graph.Symbol) (via, hierarchy map[string]bool, err error) {
	via, hierarchy = map[string]bool{}, map[string]bool{}
	addRefs := func(id string) error {
		occs, err := r.References(ctx, id, 0)
		if err != nil {
			return err
		}
		for _, o := range occs {
			if o.Roles&(graph.RoleDefinition|graph.RoleForwardDefinition) == 0 {
				via[site(o.Path, o.Range.Start.Line)] = true
			}
		}
		return nil
	}
	addDef := func(id string) error {
		if id == s.ID {
			return nil
		}
		d, ok, err := r.Symbol(ctx, id)
		if err != nil || !ok || d.Def.Path == "" {
			return err
		}
		hierarchy[site(d.Def.Path, d.Def.Range.Start.Line)] = true
		return nil
	}
	implements := graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeImplements}}
	switch {
	case s.DisplayName == constructorName:
		if i := strings.LastIndexByte(s.ID, '#'); i > 0 {
			if err := addRefs(s.ID[:i+1]); err != nil {
				return nil, nil, err
			}
		}
	case s.Kind == "method":
		up, err := r.Outgoing(ctx, s.ID, implements)
		if err != nil {
			return nil, nil, err
		}
		down, err := r.Incoming(ctx, s.ID, implements)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range up {
			if err := addRefs(e.To); err != nil {
				return nil, nil, err
			}
			if err := addDef(e.To); err != nil {
				return nil, nil, err
			}
			siblings, err := r.Incoming(ctx, e.To, implements)
			if err != nil {
				return nil, nil, err
			}
			for _, sib := range siblings {
				if err := addDef(sib.From); err != nil {
					return nil, nil, err
				}
			}
		}
		for _, e := range down {
			if err := addDef(e.From); err != nil {
				return nil, nil, err
			}
		}
	case kinds[s.Kind]:
		syms, err := r.DocumentSymbols(ctx, s.Def.Path)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range syms {
			if m.DisplayName == constructorName && strings.HasPrefix(m.ID, s.ID) {
				if err := addRefs(m.ID); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return via, hierarchy, nil
}

// constructorName is the display name SCIP indexers give a constructor.
const constructorName = "<constructor>"

// compareCallers compares the callers of a function or method in the
// graph (the symbols with a calls edge to it, and, for a method, those
// with a calls or references edge to the interface methods it implements,
// where the server reports them too)
// with the server's incoming calls; nil when the server has no call
// hierarchy item for it.
func compareCallers(ctx context.Context, r *graph.Reader, callers Callers, s graph.Symbol) (*SymbolCallers, string) {
	locs, ok, err := callers(ctx, s.Def)
	if err != nil {
		return nil, "incoming calls: " + err.Error()
	}
	if !ok {
		return nil, ""
	}
	sv := map[string]bool{}
	for _, l := range locs {
		sv[site(l.Path, l.Range.Start.Line)] = true
	}
	graphCallers := func(id string, kinds ...graph.EdgeKind) (map[string]bool, error) {
		es, err := r.Incoming(ctx, id, graph.EdgeFilter{Kinds: kinds})
		if err != nil {
			return nil, err
		}
		out := map[string]bool{}
		for _, e := range es {
			from, found, err := r.Symbol(ctx, e.From)
			if err != nil {
				return nil, err
			}
			if found && from.Def.Path != "" {
				out[site(from.Def.Path, from.Def.Range.Start.Line)] = true
			}
		}
		return out, nil
	}
	g, err := graphCallers(s.ID, graph.EdgeCalls)
	if err != nil {
		return nil, err.Error()
	}
	if s.Kind == "method" {
		es, err := r.Outgoing(ctx, s.ID, graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeImplements}})
		if err != nil {
			return nil, err.Error()
		}
		for _, e := range es {
			// SCIP names an interface method as a term, not a method,
			// so its uses are references edges; impact counts them as
			// calls through the interface too.
			via, err := graphCallers(e.To, graph.EdgeCalls, graph.EdgeReferences)
			if err != nil {
				return nil, err.Error()
			}
			for k := range via {
				if sv[k] {
					g[k] = true
				}
			}
		}
	}
	c := &SymbolCallers{}
	for k := range sv {
		if g[k] {
			c.Matched++
		} else {
			c.Missing = append(c.Missing, k)
		}
	}
	for k := range g {
		if !sv[k] {
			c.Extra = append(c.Extra, k)
		}
	}
	slices.Sort(c.Missing)
	slices.Sort(c.Extra)
	c.Graph, c.Server = len(g), len(sv)
	c.Precision, c.Recall = ratio(c.Matched, c.Graph), ratio(c.Matched, c.Server)
	return c, ""
}

// differ reports whether the callers compared disagree (false when not
// compared).
func (c *SymbolCallers) differ() bool { return c != nil && (len(c.Missing) > 0 || len(c.Extra) > 0) }

// site names a line of a document, 1-based: path:line.
func site(path string, line0 uint32) string { return fmt.Sprintf("%s:%d", path, line0+1) }

// layers records the freshness of the base layer and of the live layer.
func layers(ctx context.Context, r *graph.Reader, o Options, rep *Report) error {
	b, err := freshness.ComputeWith(ctx, r, o.Root, nil)
	if err != nil {
		return fmt.Errorf("drift: %w", err)
	}
	base := LayerState{Layer: "base", Commit: b.BaseCommit, Head: b.Head, Tool: b.BaseTool, State: b.BaseState,
		Changed: len(b.Changed), Partial: b.Partial, Reasons: b.Reasons}
	if m, ok, err := r.Manifest(graph.Base); err != nil {
		return fmt.Errorf("drift: %w", err)
	} else if ok {
		base.Documents = m.Documents
	}
	base.Stale = base.Head != "" && (base.Commit != base.Head || base.Changed > 0)
	rep.Layers = append(rep.Layers, base)
	if !o.BaseOnly {
		rep.Layers = append(rep.Layers, LayerState{Layer: "live", Head: b.Head, Documents: len(b.Live), Dirty: len(b.Dirty)})
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
