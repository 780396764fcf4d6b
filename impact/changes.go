package impact

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/resolve"
)

// Change kinds of a symbol touched by a diff.
const (
	ChangeAdded    = "added"
	ChangeModified = "modified"
	ChangeDeleted  = "deleted"
	ChangeMoved    = "moved" // its definition moved to another document
)

// ChangedSymbol is a symbol whose definition a diff touches.
type ChangedSymbol struct {
	Ref
	Change string `json:"change"`
	// OldLocation is where the definition was in the base (deleted, moved
	// and modified symbols).
	OldLocation *Loc `json:"oldLocation,omitempty"`
	// OldSymbol is the base identity when the current one differs (the
	// base came from SCIP, the changed document from the syntax overlay).
	OldSymbol string `json:"oldSymbol,omitempty"`
}

// ChangeInput is what [Changes] works from.
type ChangeInput struct {
	// Files are the changed files with their changed line ranges (from
	// [ParseUnifiedDiff], or built by an editor for unsaved buffers).
	Files []FileChange
	// Old reads the graph as of the base: the changed documents' facts
	// describe their old content. New reads it after the live layer was
	// brought up to date with the changes. They may be the same reader;
	// then new content is known only for documents the live layer owns,
	// and old content only for documents it does not.
	Old, New *graph.Reader
}

// Changes maps changed line ranges to the symbols whose definitions
// (DefExtent, else the name range) overlap them: added, modified, moved
// and deleted symbols, and returns their combined upstream impact.
// Deleted symbols are found in the old facts and reported with the
// dependents the graph still records for them.
func Changes(ctx context.Context, in ChangeInput, o Options) (*Answer, error) {
	if in.New == nil {
		in.New = in.Old
	}
	if in.Old == nil {
		in.Old = in.New
	}
	if in.New == nil {
		return nil, fmt.Errorf("impact: Changes needs a graph reader")
	}
	o.Direction = graph.Upstream
	c := &changeSet{in: in, deleted: map[string]bool{}}
	if err := c.collect(ctx); err != nil {
		return nil, err
	}
	changed, targets, err := c.classify(ctx)
	if err != nil {
		return nil, err
	}
	aliases, err := c.aliases(ctx)
	if err != nil {
		return nil, err
	}
	// The current facts answer for the changed documents. The old facts
	// answer for the unchanged ones: deleted symbols keep the dependents
	// the base recorded (a syntax overlay re-resolves them against the
	// current files), and edges justified by a changed document of a
	// precise base (implementations, hence dispatch) are hidden from the
	// current facts.
	var current, old []graph.Symbol
	for _, t := range targets {
		if !c.deleted[t.ID] || in.Old == in.New {
			current = append(current, t)
		}
		if in.Old != in.New {
			if s, ok, err := in.Old.Symbol(ctx, t.ID); err != nil {
				return nil, fmt.Errorf("impact: reading symbol %q: %w", t.ID, err)
			} else if ok && !s.External && s.Def.Path != "" {
				old = append(old, s)
			}
		}
	}
	o.Verify = nil
	a, w, err := walkOnly(ctx, in.New, current, o, aliases)
	if err != nil {
		return nil, err
	}
	if len(old) > 0 {
		b, _, err := walkOnly(ctx, in.Old, old, o, nil)
		if err != nil {
			return nil, err
		}
		keepUnchangedSites(b, in.Files)
		merge(a, b)
		for _, t := range old {
			if _, ok := w.syms[t.ID]; !ok {
				w.syms[t.ID] = symEntry{t, true}
			}
		}
	}
	dropIn(a, gonePaths(in.Files))
	if err := w.finish(ctx, a, targets); err != nil {
		return nil, err
	}
	a.Targets = dedupeRefs(a.Targets)
	a.Changes = changed
	a.Files = in.Files
	if a.Changes == nil {
		a.Changes = []ChangedSymbol{}
	}
	if len(targets) == 0 {
		// Nothing to walk from: the only doubt is whether the diff was
		// mapped completely.
		a.PartialReasons, a.Partial = nil, a.Freshness.Partial
		if a.Freshness.Partial {
			a.PartialReasons = append(a.PartialReasons, a.Freshness.Reasons...)
		}
		a.Risk = Risk{Level: RiskLow, Rule: "LOW: the changes touch no symbol definition"}
		if len(c.notes) > 0 {
			a.Risk = Risk{Level: RiskUnknown, Rule: "UNKNOWN: no changed symbol found, but: " + strings.Join(c.notes, "; ")}
		}
	}
	if len(c.notes) > 0 {
		a.PartialReasons = append(a.PartialReasons, c.notes...)
		a.Partial = true
	}
	return a, nil
}

// changeSet accumulates the symbols touched on each side of a diff.
type changeSet struct {
	in      ChangeInput
	oldSide []touched // base facts of old paths
	newSide []touched // current facts of new paths
	notes   []string
	deleted map[string]bool // ids of deleted symbols
}

type touched struct {
	sym    graph.Symbol
	whole  bool // the whole definition lies inside the changed lines
	status string
}

// collect reads the definitions overlapping each file's changed lines.
func (c *changeSet) collect(ctx context.Context) error {
	for _, f := range c.in.Files {
		if f.Binary {
			continue
		}
		if f.OldPath != "" {
			doc, ok, err := c.in.Old.Document(ctx, f.OldPath)
			if err != nil {
				return fmt.Errorf("impact: reading document %s: %w", f.OldPath, err)
			}
			switch {
			case !ok:
				if lang.Of(f.OldPath) != "" {
					c.notef("%s is not in the graph: its old symbols are unknown", f.OldPath)
				}
			case doc.Layer == graph.Live && c.in.Old == c.in.New:
				c.notef("%s is answered from the live layer: its base symbols (deleted ones included) are hidden", f.OldPath)
			default:
				all := f.Status == "D"
				ts, err := overlapping(ctx, c.in.Old, f.OldPath, f.Removed, all)
				if err != nil {
					return err
				}
				for _, t := range ts {
					t.status = f.Status
					c.oldSide = append(c.oldSide, t)
				}
			}
		}
		if f.Path != "" {
			doc, ok, err := c.in.New.Document(ctx, f.Path)
			if err != nil {
				return fmt.Errorf("impact: reading document %s: %w", f.Path, err)
			}
			fresh := ok && (doc.Layer == graph.Live || f.Status == "A" || c.in.Old != c.in.New && doc.Layer == graph.Live)
			switch {
			case !ok:
				if lang.Of(f.Path) != "" && len(f.Added) > 0 {
					c.notef("%s is not in the graph: symbols added there are unknown (run lspgraph index or sync the overlay)", f.Path)
				}
			case !fresh:
				// The graph still holds the base content of this path: the
				// old side (mapped through the hunks) covers it.
				if f.Status == "R" && f.OldPath != "" {
					c.notef("%s (renamed from %s) has no current facts", f.Path, f.OldPath)
				}
			default:
				all := f.Status == "A" || (f.Status == "R" && doc.Layer == graph.Live && len(f.Added) == 0 && f.OldPath == "")
				ts, err := overlapping(ctx, c.in.New, f.Path, f.Added, all)
				if err != nil {
					return err
				}
				for _, t := range ts {
					t.status = f.Status
					c.newSide = append(c.newSide, t)
				}
			}
		}
	}
	return nil
}

func (c *changeSet) notef(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// overlapping returns the symbols defined in path whose definition
// overlaps one of the line ranges (all of them when all is set).
func overlapping(ctx context.Context, r *graph.Reader, path string, lines []LineRange, all bool) ([]touched, error) {
	syms, err := r.DocumentSymbols(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("impact: reading the symbols of %s: %w", path, err)
	}
	var out []touched
	for _, s := range syms {
		if s.Def.Path != path || !changeable(s) {
			continue
		}
		ext := s.DefExtent
		if ext == (textpos.Range{}) {
			ext = s.Def.Range
		}
		// 1-based inclusive lines of the definition.
		first, last := int(ext.Start.Line)+1, int(ext.End.Line)+1
		if ext.End.Col == 0 && last > first {
			last-- // an extent ending at column 0 ends on the line before
		}
		if all {
			out = append(out, touched{sym: s, whole: true})
			continue
		}
		hit, whole := false, false
		for _, l := range lines {
			if l.Empty() {
				// An insertion between lines End and Start touches a
				// definition that spans the boundary.
				if first <= l.End && l.Start <= last {
					hit = true
				}
				continue
			}
			if l.Start <= last && first <= l.End {
				hit = true
				if l.Start <= first && last <= l.End {
					whole = true
				}
			}
		}
		if hit {
			out = append(out, touched{sym: s, whole: whole})
		}
	}
	return out, nil
}

// changeable reports whether a symbol is a declaration a diff can add,
// change or delete: not a local, parameter, package or module.
func changeable(s graph.Symbol) bool {
	if s.External || strings.HasPrefix(s.ID, "local ") {
		return false
	}
	switch s.Kind {
	case "local", "parameter", "type-parameter", "package", "namespace", "module", "file":
		return false
	}
	return true
}

// sameIdentity matches a symbol across layers whose identities differ (a
// SCIP base and a syntax overlay): same language and qualified display
// name, and packages that are equal or nest (scip-python names the module
// "shop.orders" where the syntax layer names the package "shop").
func sameIdentity(a, b graph.Symbol) bool {
	if !strings.EqualFold(a.Language, b.Language) || resolve.DisplayQualified(a) != resolve.DisplayQualified(b) {
		return false
	}
	return nests(a.Package, b.Package) || nests(b.Package, a.Package)
}

func nests(outer, inner string) bool {
	if outer == inner {
		return true
	}
	return strings.HasPrefix(inner, outer) && (inner[len(outer)] == '.' || inner[len(outer)] == '/')
}

// classify decides what happened to each touched symbol and returns the
// impact targets: every changed symbol, under both identities when they
// differ, so that dependents recorded against either are found.
func (c *changeSet) classify(ctx context.Context) ([]ChangedSymbol, []graph.Symbol, error) {
	var out []ChangedSymbol
	var targets []graph.Symbol
	seenTarget := map[string]bool{}
	addTarget := func(s graph.Symbol) {
		if s.ID != "" && !seenTarget[s.ID] {
			seenTarget[s.ID] = true
			targets = append(targets, s)
		}
	}
	matchedOld := map[string]bool{}
	// New side first: added, modified or moved here.
	for _, t := range c.newSide {
		s := t.sym
		old, found, err := c.findOld(ctx, s)
		if err != nil {
			return nil, nil, err
		}
		cs := ChangedSymbol{Change: ChangeAdded}
		if found {
			matchedOld[old.ID] = true
			cs.Change = ChangeModified
			if old.Def.Path != "" && old.Def.Path != s.Def.Path {
				cs.Change = ChangeMoved
			}
			if old.Def.Path != "" {
				l := locOf(old.Def)
				cs.OldLocation = &l
			}
			if old.ID != s.ID {
				cs.OldSymbol = old.ID
			}
		}
		ref, err := refFor(ctx, c.in.New, s)
		if err != nil {
			return nil, nil, err
		}
		cs.Ref = ref
		out = append(out, cs)
		addTarget(s)
		if found {
			addTarget(old)
		}
	}
	// Old side: modified in place, moved elsewhere, or deleted.
	for _, t := range c.oldSide {
		s := t.sym
		if matchedOld[s.ID] {
			continue
		}
		matchedOld[s.ID] = true
		cur, found, err := c.findNew(ctx, s)
		if err != nil {
			return nil, nil, err
		}
		l := locOf(s.Def)
		cs := ChangedSymbol{OldLocation: &l}
		switch {
		case found && cur.Def.Path != "" && cur.Def.Path != s.Def.Path:
			cs.Change = ChangeMoved
		case found:
			cs.Change = ChangeModified
		case t.status == "D" || t.whole || c.newFacts(ctx, s.Def.Path):
			cs.Change = ChangeDeleted
		default:
			cs.Change = ChangeModified
		}
		if found {
			ref, err := refFor(ctx, c.in.New, cur)
			if err != nil {
				return nil, nil, err
			}
			cs.Ref = ref
			if cur.ID != s.ID {
				cs.OldSymbol = s.ID
			}
			addTarget(cur)
		} else {
			ref, err := refFor(ctx, c.in.Old, s)
			if err != nil {
				return nil, nil, err
			}
			cs.Ref = ref
			if cs.Change == ChangeDeleted {
				cs.Location = nil
			}
		}
		out = append(out, cs)
		addTarget(s)
		if cs.Change == ChangeDeleted {
			c.deleted[s.ID] = true
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if c := compareLoc(firstLoc(a), firstLoc(b)); c != 0 {
			return c < 0
		}
		return a.Symbol < b.Symbol
	})
	return out, targets, nil
}

func firstLoc(c ChangedSymbol) *Loc {
	if c.Location != nil {
		return c.Location
	}
	return c.OldLocation
}

// newFacts reports whether the new reader holds current facts for path
// (the live layer owns it, or it is gone), so that a symbol missing there
// is really gone.
func (c *changeSet) newFacts(ctx context.Context, path string) bool {
	for _, f := range c.in.Files {
		if f.OldPath == path && (f.Status == "D" || f.Status == "R") {
			return true
		}
	}
	d, ok, err := c.in.New.Document(ctx, path)
	return err == nil && ok && d.Layer == graph.Live
}

// findOld finds s (a current symbol) in the old facts: by identity, else by
// identity key among the symbols of that name.
func (c *changeSet) findOld(ctx context.Context, s graph.Symbol) (graph.Symbol, bool, error) {
	return findSymbol(ctx, c.in.Old, s, func(o graph.Symbol) bool {
		d, ok, err := c.in.Old.Document(ctx, o.Def.Path)
		// Where Old and New are one reader, a live-owned document shows
		// the new content: what it defines is not evidence of the old.
		return err == nil && ok && (c.in.Old != c.in.New || d.Layer == graph.Base)
	})
}

// findNew finds s (a base symbol) in the current facts.
func (c *changeSet) findNew(ctx context.Context, s graph.Symbol) (graph.Symbol, bool, error) {
	return findSymbol(ctx, c.in.New, s, func(n graph.Symbol) bool {
		for _, f := range c.in.Files {
			// A definition still read from a path the diff deleted or
			// renamed away is a stale base fact, not the symbol's new home.
			if f.OldPath == n.Def.Path && (f.Status == "D" || f.Status == "R") {
				return false
			}
		}
		d, ok, err := c.in.New.Document(ctx, n.Def.Path)
		if err != nil || !ok {
			return false
		}
		// In a changed document the base still owns, the definition's
		// presence says nothing about the new content.
		if d.Layer == graph.Base && n.Def.Path == s.Def.Path && c.changedPath(n.Def.Path) {
			return false
		}
		return true
	})
}

func (c *changeSet) changedPath(p string) bool {
	for _, f := range c.in.Files {
		if f.Path == p || f.OldPath == p {
			return true
		}
	}
	return false
}

// findSymbol looks s up in r by id, else by display name and identity key;
// accept filters the candidates' definitions.
func findSymbol(ctx context.Context, r *graph.Reader, s graph.Symbol, accept func(graph.Symbol) bool) (graph.Symbol, bool, error) {
	got, ok, err := r.Symbol(ctx, s.ID)
	if err != nil {
		return graph.Symbol{}, false, fmt.Errorf("impact: reading symbol %q: %w", s.ID, err)
	}
	if ok && !got.External && got.Def.Path != "" && accept(got) {
		return got, true, nil
	}
	if s.DisplayName == "" {
		return graph.Symbol{}, false, nil
	}
	cands, err := r.FindSymbols(ctx, s.DisplayName, false, 0)
	if err != nil {
		return graph.Symbol{}, false, fmt.Errorf("impact: finding symbols named %q: %w", s.DisplayName, err)
	}
	for _, cand := range cands {
		if cand.ID == s.ID || cand.External || cand.Def.Path == "" || !sameIdentity(cand, s) {
			continue
		}
		if accept(cand) {
			return cand, true, nil
		}
	}
	return graph.Symbol{}, false, nil
}

// aliases pairs the base and current identities of the declarations of
// the changed documents: where the overlay re-extracted a document over a
// SCIP base, its definitions have syntax identities while the unchanged
// documents still reference the SCIP ones.
func (c *changeSet) aliases(ctx context.Context) (map[string][]string, error) {
	if c.in.Old == c.in.New {
		return nil, nil
	}
	var olds, news []graph.Symbol
	for _, f := range c.in.Files {
		if f.OldPath != "" {
			if d, ok, err := c.in.Old.Document(ctx, f.OldPath); err != nil {
				return nil, fmt.Errorf("impact: reading document %s: %w", f.OldPath, err)
			} else if ok && d.Layer == graph.Base {
				syms, err := c.in.Old.DocumentSymbols(ctx, f.OldPath)
				if err != nil {
					return nil, fmt.Errorf("impact: reading the symbols of %s: %w", f.OldPath, err)
				}
				olds = append(olds, syms...)
			}
		}
		if f.Path != "" {
			if d, ok, err := c.in.New.Document(ctx, f.Path); err != nil {
				return nil, fmt.Errorf("impact: reading document %s: %w", f.Path, err)
			} else if ok && d.Layer == graph.Live {
				syms, err := c.in.New.DocumentSymbols(ctx, f.Path)
				if err != nil {
					return nil, fmt.Errorf("impact: reading the symbols of %s: %w", f.Path, err)
				}
				news = append(news, syms...)
			}
		}
	}
	byName := map[string][]graph.Symbol{}
	for _, o := range olds {
		if changeable(o) {
			byName[resolve.DisplayQualified(o)] = append(byName[resolve.DisplayQualified(o)], o)
		}
	}
	out := map[string][]string{}
	for _, n := range news {
		if !changeable(n) {
			continue
		}
		for _, o := range byName[resolve.DisplayQualified(n)] {
			if o.ID != n.ID && sameIdentity(o, n) {
				out[n.ID] = append(out[n.ID], o.ID)
				out[o.ID] = append(out[o.ID], n.ID)
			}
		}
	}
	return out, nil
}

// gonePaths are the documents the diff deleted or renamed away.
func gonePaths(files []FileChange) map[string]bool {
	gone := map[string]bool{}
	for _, f := range files {
		if f.OldPath != "" && f.OldPath != f.Path && (f.Status == "D" || f.Status == "R") {
			gone[f.OldPath] = true
		}
	}
	return gone
}

// keepUnchangedSites keeps, of an answer computed from the old facts, the
// dependents in changed documents only where a use of what they depend on
// sits on a line the diff left alone: that line still says what it said,
// so the use is still there (net/http's writeNotModified deleted while its
// calls in the same file stay). Their sites and locations are moved to the
// new line numbers; a dependent whose every site changed, or that records
// no site, is dropped, since its old facts say nothing of the new content.
func keepUnchangedSites(a *Answer, files []FileChange) {
	byOld := map[string]FileChange{}
	for _, f := range files {
		if f.OldPath != "" {
			byOld[f.OldPath] = f
		}
		if f.Path != "" && f.Path != f.OldPath {
			byOld[f.Path] = FileChange{Status: "A"} // new content only: no old line survives
		}
	}
	keep := func(ds []Dependent) []Dependent {
		out := ds[:0]
		for _, d := range ds {
			if moved, ok := unchangedSites(d, byOld); ok {
				out = append(out, moved)
			}
		}
		return out
	}
	for i := range a.Depths {
		a.Depths[i].Dependents = keep(a.Depths[i].Dependents)
	}
	a.Dispatch, a.Satisfaction, a.Implementations = keep(a.Dispatch), keep(a.Satisfaction), keep(a.Implementations)
}

// unchangedSites returns d with its sites on unchanged lines of a changed
// document moved to their new line numbers, and whether any remained; a
// dependent outside the changed documents is returned as it is.
func unchangedSites(d Dependent, byOld map[string]FileChange) (Dependent, bool) {
	if d.Location == nil {
		return d, true
	}
	f, changed := byOld[d.Location.Path]
	if !changed {
		return d, true
	}
	if f.Path == "" || f.Status == "A" || f.Status == "D" {
		return d, false
	}
	var sites []Loc
	for _, l := range d.SiteLocations {
		if n, ok := f.newLine(l.Line); ok && l.Path == f.OldPath {
			l.Path = f.Path
			if l.EndLine != 0 {
				l.EndLine += n - l.Line
			}
			l.Line = n
			sites = append(sites, l)
		}
	}
	if len(sites) == 0 {
		return d, false
	}
	d.Sites -= len(d.SiteLocations) - len(sites)
	d.SiteLocations = sites
	loc := *d.Location
	loc.Path = f.Path
	if n, ok := f.newLine(loc.Line); ok {
		loc.EndLine += n - loc.Line
		loc.Line = n
	}
	d.Location = &loc
	return d, true
}

// dropIn removes the dependents located in the given documents.
func dropIn(a *Answer, paths map[string]bool) {
	if len(paths) == 0 {
		return
	}
	keep := func(ds []Dependent) []Dependent {
		return slices.DeleteFunc(ds, func(d Dependent) bool { return d.Location != nil && paths[d.Location.Path] })
	}
	for i := range a.Depths {
		a.Depths[i].Dependents = keep(a.Depths[i].Dependents)
	}
	a.Dispatch, a.Satisfaction, a.Implementations = keep(a.Dispatch), keep(a.Satisfaction), keep(a.Implementations)
}

// refFor renders a symbol with its own reader's package fallback.
func refFor(ctx context.Context, r *graph.Reader, s graph.Symbol) (Ref, error) {
	w := &walker{r: r, syms: map[string]symEntry{}, docs: map[string]docEntry{}}
	return w.refOf(ctx, s)
}

// dedupeRefs keeps one target per identity key (name, kind, package,
// location), the first seen.
func dedupeRefs(rs []Ref) []Ref {
	seen := map[string]bool{}
	var out []Ref
	for _, r := range rs {
		k := r.Name + "\x00" + r.Kind + "\x00" + r.Package
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	return out
}
