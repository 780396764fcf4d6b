package ranking

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
)

// weight is the factor on a candidate's role score (1 unless set).
func (c *collector) weight(key string) float64 {
	if w, ok := c.weights[key]; ok {
		return w
	}
	return 1
}

// locality is the score a candidate earns by sitting near the target: in
// the same file (more the nearer), of the same type, in the same
// directory, in the same package.
func (c *collector) locality(cand *Candidate) float64 {
	t := c.target
	l := cand.Location()
	if l.Path == "" || t.Def.Path == "" {
		return 0
	}
	score := 0.0
	switch {
	case l.Path == t.Def.Path:
		d := float64(absDiff(l.Range.Start.Line, t.Def.Range.Start.Line))
		score += c.w.SameFile / (1 + d/sameFileLines)
	case path.Dir(l.Path) == path.Dir(t.Def.Path):
		score += c.w.SameDir
	case cand.Package != "" && cand.Package == c.packageOf(t.Def.Path):
		score += c.w.SamePackage
	}
	if p := parentID(t.ID); p != "" && cand.Symbol.ID != "" && parentID(cand.Symbol.ID) == p {
		score += c.w.SameType
	}
	return score
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// fileNeighbours adds the definitions of the target's file, nearest first:
// functions, methods, types and constants (not fields), so that the helper
// a few lines above the target is read with it.
func (c *collector) fileNeighbours() error {
	t := c.target
	if t.Def.Path == "" {
		return nil
	}
	syms, err := c.g.DocumentSymbols(t.Def.Path)
	if err != nil {
		return fmt.Errorf("reading symbols of %s: %w", t.Def.Path, err)
	}
	line := t.Def.Range.Start.Line
	var near []graph.Symbol
	for _, s := range syms {
		if s.ID == t.ID || !usable(s) || s.Def.Path != t.Def.Path || s.Kind == "field" || s.Kind == "property" {
			continue
		}
		near = append(near, s)
	}
	sort.SliceStable(near, func(i, j int) bool {
		return absDiff(near[i].Def.Range.Start.Line, line) < absDiff(near[j].Def.Range.Start.Line, line)
	})
	for i, s := range near {
		if i >= maxFileNeighbours {
			break
		}
		if _, seen := c.cands[s.ID]; seen {
			continue
		}
		d := int(s.Def.Range.Start.Line) - int(line)
		where := fmt.Sprintf("%d lines below", d)
		if d < 0 {
			where = fmt.Sprintf("%d lines above", -d)
		}
		c.add("", s, "", RoleSibling, 1, fmt.Sprintf("defined %s `%s` in the same file", where, c.name(t)), nil)
	}
	return nil
}

// calleeTests adds the tests that call the target's direct callees: they
// pin behaviour the target relies on.
func (c *collector) calleeTests() error {
	n := 0
	for _, k := range append([]string(nil), c.order...) {
		cand := c.cands[k]
		if cand.Distance != 1 || cand.Role != RoleCallee || cand.Symbol.ID == "" || !c.inScope(cand) {
			continue
		}
		if n >= maxSecondHop {
			break
		}
		n++
		refs, err := c.g.References(cand.Symbol.ID, maxPerExpansion)
		if err != nil {
			return fmt.Errorf("reading references of %s: %w", cand.Symbol.ID, err)
		}
		for _, o := range refs {
			if o.Roles&(graph.RoleDefinition|graph.RoleImport) != 0 || !(o.Roles&graph.RoleTest != 0 || c.isTestDoc(o.Path)) {
				continue
			}
			s, ok := c.sym(o.Enclosing)
			if !ok || !usable(s) || s.ID == c.target.ID {
				continue
			}
			site := &graph.Location{Path: o.Path, Range: o.Range}
			c.add(cand.Key, s, "", RoleTest, 2, fmt.Sprintf("test of `%s`, which `%s` calls: calls it at %s", c.name(cand.Symbol), c.name(c.target), at(*site)), site)
		}
	}
	return nil
}

// pairedTests adds the target file's paired test files by its language's
// convention (lang.PairedTestPaths): their tests that mention a symbol of
// the target's file, else the file's first tests, else the file itself.
func (c *collector) pairedTests() error {
	t := c.target
	if t.Def.Path == "" {
		return nil
	}
	d, ok, err := c.g.Document(t.Def.Path)
	if err != nil || !ok {
		return err
	}
	// What the target's file defines, to tell which uses in a test file
	// concern it without looking every used symbol up.
	defined := map[string]bool{}
	syms, err := c.g.DocumentSymbols(t.Def.Path)
	if err != nil {
		return fmt.Errorf("reading symbols of %s: %w", t.Def.Path, err)
	}
	for _, s := range syms {
		if s.Def.Path == t.Def.Path {
			defined[s.ID] = true
		}
	}
	for _, p := range lang.PairedTestPaths(t.Def.Path, d.Language) {
		td, ok, err := c.g.Document(p)
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		if !ok {
			continue
		}
		occs, err := c.g.Occurrences(td.Path)
		if err != nil {
			return fmt.Errorf("reading occurrences of %s: %w", td.Path, err)
		}
		added := 0
		for _, o := range occs {
			if added >= maxPairedTests {
				break
			}
			if o.Roles&(graph.RoleDefinition|graph.RoleImport) != 0 || !defined[o.Symbol] || c.importLine(o.Path, o.Range.Start.Line) {
				continue // defines, imports, or mentions nothing of the target's file
			}
			s, ok := c.sym(o.Symbol)
			if !ok {
				continue
			}
			site := &graph.Location{Path: o.Path, Range: o.Range}
			reason := fmt.Sprintf("in %s, the paired test file of %s: uses `%s` at %s", path.Base(td.Path), path.Base(t.Def.Path), c.name(s), at(*site))
			if e, ok := c.sym(o.Enclosing); ok && usable(e) {
				if _, seen := c.cands[e.ID]; !seen {
					c.add(t.ID, e, "", RoleTest, 2, reason, site)
				}
				added++
				continue
			}
			key := fmt.Sprintf("site:%s:%d", o.Path, o.Range.Start.Line+1)
			if _, seen := c.cands[key]; !seen {
				c.add(t.ID, graph.Symbol{}, key, RoleTest, 2, reason, site)
			}
			added++
		}
		if added == 0 {
			site := &graph.Location{Path: td.Path}
			c.add(t.ID, graph.Symbol{}, "site:"+td.Path+":1", RoleTest, 2, fmt.Sprintf("the paired test file of %s", path.Base(t.Def.Path)), site)
		}
	}
	return nil
}

// directoryNeighbours adds, for each other file in the target's directory
// (and package), its first definition: files beside the target change
// with it more often than any call edge says.
func (c *collector) directoryNeighbours() error {
	t := c.target
	if t.Def.Path == "" || c.o.Analysis == nil {
		return nil
	}
	dir := path.Dir(t.Def.Path)
	have := map[string]bool{}
	for _, cand := range c.cands {
		have[cand.Location().Path] = true
	}
	n := 0
	for _, p := range c.o.Analysis.DocumentsOf(c.packageOf(t.Def.Path)) {
		if n >= maxDirNeighbours {
			break
		}
		if have[p] || path.Dir(p) != dir {
			continue
		}
		s, ok, err := c.firstDefinition(p)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		n++
		role := RoleSibling
		if c.isTestDoc(p) {
			role = RoleTest
		}
		c.add("", s, "", role, 2, fmt.Sprintf("defined in %s, beside %s", path.Base(p), path.Base(t.Def.Path)), nil)
	}
	return nil
}

// firstDefinition returns a file's first top-level function or type:
// from the scope analysis, which recorded it, else from the file's symbols.
func (c *collector) firstDefinition(p string) (graph.Symbol, bool, error) {
	if c.o.Analysis != nil {
		return c.o.Analysis.FirstDefinition(c.ctx, p)
	}
	syms, err := c.g.DocumentSymbols(p)
	if err != nil {
		return graph.Symbol{}, false, fmt.Errorf("reading symbols of %s: %w", p, err)
	}
	var best graph.Symbol
	found := false
	for _, s := range syms {
		if !usable(s) || s.Def.Path != p || !(isCallable(s) || isType(s)) {
			continue
		}
		if !found || s.Def.Range.Start.Before(best.Def.Range.Start) {
			best, found = s, true
		}
	}
	return best, found, nil
}

// coChanged adds the files that changed together with the target's in the
// repository's history (o.History): each file's first definition, scored
// by the coupling's weight relative to the strongest; candidates already
// found in those files earn that weight as a bonus (in result).
func (c *collector) coChanged() error {
	if c.o.History == nil || c.target.Def.Path == "" {
		return nil
	}
	c.coupling = map[string]float64{}
	have := map[string]bool{}
	for _, cand := range c.cands {
		have[cand.Location().Path] = true
	}
	coupled := c.o.History.Coupled(c.target.Def.Path, maxCoChanged)
	if len(coupled) == 0 {
		return nil
	}
	// Scaled to the strongest tie: the file that most often changed with
	// the target's weighs like a direct caller, unless even that tie is
	// weak (under a quarter of the target file's commits).
	top := max(coupled[0].Weight, minTopCoupling)
	for _, cp := range coupled {
		w := cp.Weight / top
		c.coupling[cp.Path] = w
		if have[cp.Path] {
			continue
		}
		s, ok, err := c.firstDefinition(cp.Path)
		if err != nil {
			return err
		}
		reason := fmt.Sprintf("changed together with %s in %d commit(s) (weight %.2f)", path.Base(c.target.Def.Path), cp.Commits, cp.Weight)
		var cand *Candidate
		if ok {
			cand = c.add("", s, "", RoleCoChanged, 1, reason, nil)
		} else {
			if _, known, err := c.g.Document(cp.Path); err != nil || !known {
				continue
			}
			cand = c.add("", graph.Symbol{}, "site:"+cp.Path+":1", RoleCoChanged, 1, reason, &graph.Location{Path: cp.Path})
		}
		if cand.Role == RoleCoChanged {
			c.weights[cand.Key] = w
		}
	}
	return nil
}

// coChangedFuncs adds the functions that changed in the commits that
// changed the target (o.History, when it reads hunks): each found in its
// file by name, scored by its tie relative to the strongest; a candidate
// already found earns the tie as a bonus (in result).
func (c *collector) coChangedFuncs() error {
	fh, ok := c.o.History.(FuncHistory)
	t := c.target
	if !ok || t.Def.Path == "" {
		return nil
	}
	coupled, err := fh.CoupledFuncs(c.ctx, t.Def.Path, c.name(t), maxCoChangedFuncs)
	if err != nil {
		return fmt.Errorf("reading the functions changed with %s: %w", c.name(t), err)
	}
	if len(coupled) == 0 {
		return nil
	}
	c.funcCoupling = map[string]float64{}
	top := max(coupled[0].Weight, minTopCoupling)
	for _, fc := range coupled {
		s, ok, err := c.declared(fc.Path, fc.Name)
		if err != nil {
			return err
		}
		if !ok || s.ID == t.ID {
			continue
		}
		w := fc.Weight / top
		if _, seen := c.cands[s.ID]; seen {
			c.funcCoupling[s.ID] = max(c.funcCoupling[s.ID], w)
			continue
		}
		reason := fmt.Sprintf("changed together with `%s` in %d commit(s) (weight %.2f)", c.name(t), fc.Commits, fc.Weight)
		cand := c.add("", s, "", RoleCoChanged, 1, reason, nil)
		if cand.Role == RoleCoChanged {
			c.weights[cand.Key] = w
		}
	}
	return nil
}

// declared finds the function or type of a file that a history name
// ("DB.Get", or a bare "run") names.
func (c *collector) declared(p, want string) (graph.Symbol, bool, error) {
	if c.docSyms == nil {
		c.docSyms = map[string][]graph.Symbol{}
	}
	syms, ok := c.docSyms[p]
	if !ok {
		all, err := c.g.DocumentSymbols(p)
		if err != nil {
			return graph.Symbol{}, false, fmt.Errorf("reading symbols of %s: %w", p, err)
		}
		for _, s := range all {
			if s.Def.Path == p && usable(s) && (isCallable(s) || isType(s)) {
				syms = append(syms, s)
			}
		}
		c.docSyms[p] = syms
	}
	bare := !strings.Contains(want, ".")
	for _, s := range syms {
		n := c.name(s)
		if n == want || (bare && n[strings.LastIndexAny(n, ".#")+1:] == want) {
			return s, true, nil
		}
	}
	return graph.Symbol{}, false, nil
}
