package impact

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/lspgraph/lspgraph/graph"
)

// Compute returns the blast radius of target.
func Compute(ctx context.Context, r *graph.Reader, target graph.Symbol, o Options) (*Answer, error) {
	a, err := computeMany(ctx, r, []graph.Symbol{target}, o, nil)
	if err != nil {
		return nil, err
	}
	t := a.Targets[0]
	a.Target, a.Targets = &t, nil
	return a, nil
}

// computeMany walks from several targets at once: a dependent's depth is
// its distance from the nearest target.
func computeMany(ctx context.Context, r *graph.Reader, targets []graph.Symbol, o Options, aliases map[string][]string) (*Answer, error) {
	a, w, err := walkOnly(ctx, r, targets, o, aliases)
	if err != nil {
		return nil, err
	}
	if w.o.Verify != nil && w.o.Direction == graph.Upstream && len(targets) == 1 {
		if err := w.verify(ctx, a, targets[0]); err != nil {
			return nil, err
		}
	}
	return a, w.finish(ctx, a, targets)
}

// walkOnly walks from the targets and adds the groups, without summaries.
func walkOnly(ctx context.Context, r *graph.Reader, targets []graph.Symbol, o Options, aliases map[string][]string) (*Answer, *walker, error) {
	if o.MaxDepth <= 0 {
		o.MaxDepth = 3
	}
	if o.Kinds == nil {
		o.Kinds = DefaultKinds()
	}
	w, err := newWalker(r, o)
	if err != nil {
		return nil, nil, err
	}
	w.aliases = aliases
	a := &Answer{
		Direction: "upstream",
		Query: Query{MaxDepth: o.MaxDepth, MinConfidence: o.MinConfidence, IncludeTests: o.IncludeTests,
			LimitPerDepth: o.LimitPerDepth, MaxDependents: o.MaxDependents},
		Tests: []Dependent{}, Packages: []PackageImpact{}, CrossPackage: []CrossEdge{},
	}
	if o.Direction == graph.Downstream {
		a.Direction = "downstream"
	}
	for _, k := range o.Kinds {
		a.Query.Kinds = append(a.Query.Kinds, string(k))
	}
	visited := map[string]bool{}
	var frontier []string
	for _, t := range targets {
		w.syms[t.ID] = symEntry{t, true}
		ref, err := w.refOf(ctx, t)
		if err != nil {
			return nil, nil, err
		}
		a.Targets = append(a.Targets, ref)
		if !visited[t.ID] {
			visited[t.ID] = true
			frontier = append(frontier, t.ID)
		}
		for _, al := range aliases[t.ID] {
			visited[al] = true
		}
	}
	if err := w.walk(ctx, a, frontier, visited); err != nil {
		return nil, nil, err
	}
	w.canonicalize(a)
	if o.Direction == graph.Upstream {
		for _, t := range targets {
			if err := w.groups(ctx, a, t, visited); err != nil {
				return nil, nil, err
			}
		}
	}
	return a, w, nil
}

// finish adds the summaries (tests, packages, cross-package edges), the
// freshness block, the partial flag and the risk to a walked answer.
func (w *walker) finish(ctx context.Context, a *Answer, targets []graph.Symbol) error {
	a.Tests, a.Packages, a.CrossPackage = []Dependent{}, []PackageImpact{}, []CrossEdge{}
	if err := w.summarize(ctx, a, targets); err != nil {
		return err
	}
	return w.assess(ctx, a, targets)
}

// mergeKey identifies a declaration across identities: its name and the
// line of its definition (a SCIP and a syntax identity of one function
// share both), else its key.
func mergeKey(d Dependent) string {
	if d.Location != nil && !d.TopLevel {
		return fmt.Sprintf("%s\x00%s:%d", d.Name, d.Location.Path, d.Location.Line)
	}
	return depKey(d)
}

// merge adds b's dependents to a: one entry per declaration, at the
// smaller depth (a's entry when equal).
func merge(a, b *Answer) {
	seen := map[string]int{}
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			seen[mergeKey(d)] = g.Depth
		}
	}
	for gi, g := range b.Depths {
		if gi >= len(a.Depths) {
			break
		}
		for _, d := range g.Dependents {
			k := mergeKey(d)
			if depth, ok := seen[k]; ok && depth <= g.Depth {
				continue
			} else if ok {
				// Found nearer through b: move it.
				for ai := range a.Depths {
					a.Depths[ai].Dependents = slices.DeleteFunc(a.Depths[ai].Dependents, func(x Dependent) bool { return mergeKey(x) == k })
				}
			}
			seen[k] = g.Depth
			a.Depths[gi].Dependents = append(a.Depths[gi].Dependents, d)
		}
		a.Depths[gi].Truncated = a.Depths[gi].Truncated || g.Truncated
		sortDependents(a.Depths[gi].Dependents)
	}
	mergeGroup := func(x, y []Dependent) []Dependent {
		have := map[string]bool{}
		for _, d := range x {
			have[mergeKey(d)] = true
		}
		for _, d := range y {
			if k := mergeKey(d); !have[k] && seen[k] == 0 {
				have[k] = true
				x = append(x, d)
			}
		}
		sortDependents(x)
		return x
	}
	a.Dispatch = mergeGroup(a.Dispatch, b.Dispatch)
	a.Satisfaction = mergeGroup(a.Satisfaction, b.Satisfaction)
	a.Implementations = mergeGroup(a.Implementations, b.Implementations)
	for _, r := range b.Implements {
		if !slices.ContainsFunc(a.Implements, func(x Ref) bool { return x.Symbol == r.Symbol }) {
			a.Implements = append(a.Implements, r)
		}
	}
	a.Targets = append(a.Targets, b.Targets...)
	a.Truncated = a.Truncated || b.Truncated
	if b.Skipped != nil {
		if a.Skipped == nil {
			a.Skipped = &Skipped{}
		}
		a.Skipped.Unexpanded += b.Skipped.Unexpanded
		a.Skipped.Unlisted += b.Skipped.Unlisted
	}
}

// walk fills a.Depths breadth-first from frontier. With MaxDependents set
// it stops beyond depth 1 once that many dependents are listed: the
// frontier nodes left are not expanded and the candidates left are not
// listed, and a.Skipped counts both. Depth 1, what will break, is always
// complete.
func (w *walker) walk(ctx context.Context, a *Answer, frontier []string, visited map[string]bool) error {
	listed := 0
	depth := 1
	full := func() bool { return depth > 1 && w.o.MaxDependents > 0 && listed >= w.o.MaxDependents }
	unlisted := map[string]bool{}
	unexpanded := 0
	stoppedAt := 0 // the first depth the bound left something out of
	for ; depth <= w.o.MaxDepth; depth++ {
		g := DepthGroup{Depth: depth, Label: DepthLabel(depth), Dependents: []Dependent{}}
		if w.o.Direction == graph.Downstream {
			g.Label = fmt.Sprintf("depends on (distance %d)", depth)
		}
		next := map[string]bool{}
		for fi, id := range frontier {
			if err := ctx.Err(); err != nil {
				return err
			}
			if full() {
				unexpanded += len(frontier) - fi
				stoppedAt = cmp.Or(stoppedAt, depth)
				break
			}
			var cands []*cand
			var err error
			if w.o.Direction == graph.Downstream {
				cands, err = w.dependencies(ctx, id)
			} else {
				cands, err = w.dependents(ctx, id)
			}
			if err != nil {
				return err
			}
			for _, c := range cands {
				if visited[c.key()] {
					continue
				}
				if full() {
					unlisted[c.key()] = true
					stoppedAt = cmp.Or(stoppedAt, depth)
					continue
				}
				d, err := w.dependent(ctx, c, depth)
				if err != nil {
					return err
				}
				if d.Test && !w.o.IncludeTests {
					continue
				}
				visited[c.key()] = true
				for _, al := range w.aliases[c.key()] {
					visited[al] = true
				}
				if depth == 1 {
					w.d1Sites[c.key()] = c.sites
				}
				g.Dependents = append(g.Dependents, d)
				listed++
				if !c.topLevel {
					next[c.id] = true
				}
			}
		}
		sortDependents(g.Dependents)
		if w.o.LimitPerDepth > 0 && len(g.Dependents) > w.o.LimitPerDepth {
			for _, d := range g.Dependents[w.o.LimitPerDepth:] {
				delete(next, d.Symbol)
			}
			g.Dependents = g.Dependents[:w.o.LimitPerDepth]
			g.Truncated, a.Truncated = true, true
		}
		a.Depths = append(a.Depths, g)
		frontier = sortedSet(next)
	}
	if unexpanded > 0 || len(unlisted) > 0 {
		a.Truncated = true
		a.Skipped = &Skipped{Unexpanded: unexpanded, Unlisted: len(unlisted)}
		for i := range a.Depths {
			if a.Depths[i].Depth >= stoppedAt {
				a.Depths[i].Truncated = true
			}
		}
	}
	return nil
}

// canonicalize names each node by one identity when aliases gave it two:
// the via edges of dependents point at the identity the node is listed
// under (a target's first identity, a dependent's own), and only the
// first identity of each target stays in a.Targets.
func (w *walker) canonicalize(a *Answer) {
	if len(w.aliases) == 0 {
		return
	}
	canon := map[string]string{}
	var targets []Ref
	for _, t := range a.Targets {
		if _, ok := canon[t.Symbol]; ok {
			continue
		}
		targets = append(targets, t)
		for _, al := range w.aliases[t.Symbol] {
			canon[al] = t.Symbol
		}
	}
	a.Targets = targets
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			for _, al := range w.aliases[d.Symbol] {
				if _, ok := canon[al]; !ok {
					canon[al] = d.Symbol
				}
			}
		}
	}
	for gi := range a.Depths {
		ds := a.Depths[gi].Dependents
		for i := range ds {
			if c, ok := canon[ds[i].Via.To]; ok {
				ds[i].Via.To = c
			}
		}
	}
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// summarize fills tests, packages and cross-package edges.
func (w *walker) summarize(ctx context.Context, a *Answer, targets []graph.Symbol) error {
	pkgs := map[string]*PackageImpact{}
	pkgOf := map[string]string{} // symbol id → package, for cross edges
	for _, t := range a.Targets {
		pkgOf[t.Symbol] = t.Package
		if t.Package != "" {
			pkgs[t.Package] = &PackageImpact{Package: t.Package, MinDepth: 0, Target: true}
		}
	}
	counted := map[string]bool{} // a declaration both deeper and in a group counts once
	add := func(d Dependent, depth int) {
		if k := mergeKey(d); counted[k] {
			if p := pkgs[d.Package]; p != nil {
				p.MinDepth = min(p.MinDepth, depth)
			}
			return
		} else {
			counted[k] = true
		}
		if d.Test {
			a.Tests = append(a.Tests, d)
		}
		if d.Package == "" {
			return
		}
		p := pkgs[d.Package]
		if p == nil {
			p = &PackageImpact{Package: d.Package, MinDepth: depth}
			pkgs[d.Package] = p
		}
		p.Dependents++
		p.MinDepth = min(p.MinDepth, depth)
		if d.Test {
			p.Tests++
		}
	}
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			add(d, g.Depth)
			if d.Symbol != "" {
				pkgOf[d.Symbol] = d.Package
			}
		}
	}
	for _, grp := range [][]Dependent{a.Dispatch, a.Satisfaction} {
		for _, d := range grp {
			add(d, 1)
		}
	}
	// Cross-package edges of the walk: the via edge of each dependent.
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			other := d.Via.To
			if w.o.Direction == graph.Downstream {
				other = d.Via.From
			}
			op, ok := pkgOf[other]
			if !ok {
				s, _, err := w.symbol(ctx, other)
				if err != nil {
					return err
				}
				op = s.Package
				pkgOf[other] = op
			}
			if d.Package == "" || op == "" || d.Package == op {
				continue
			}
			ce := CrossEdge{Kind: d.Via.Kind, Depth: g.Depth}
			name, err := w.nameOf(ctx, other)
			if err != nil {
				return err
			}
			if w.o.Direction == graph.Downstream {
				ce.From, ce.FromName, ce.FromPackage = other, name, op
				ce.To, ce.ToName, ce.ToPackage = d.Symbol, d.Name, d.Package
			} else {
				ce.From, ce.FromName, ce.FromPackage = d.Symbol, d.Name, d.Package
				ce.To, ce.ToName, ce.ToPackage = other, name, op
			}
			a.CrossPackage = append(a.CrossPackage, ce)
		}
	}
	for _, k := range sortedKeys(pkgs) {
		a.Packages = append(a.Packages, *pkgs[k])
	}
	sortDependents(a.Tests)
	return nil
}

func (w *walker) nameOf(ctx context.Context, id string) (string, error) {
	r, err := w.ref(ctx, id)
	if err != nil {
		return "", err
	}
	return r.Name, nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
