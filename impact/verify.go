package impact

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// verify cross-checks the d=1 set with the live server and marks each
// dependent; sites only the server reports join d=1 as live-only and are
// listed in a.LiveOnly.
func (w *walker) verify(ctx context.Context, a *Answer, t graph.Symbol) error {
	info := &VerificationInfo{}
	a.Verification = info
	if t.Def.Path == "" {
		info.Error = "the target has no definition in the workspace to ask the language server about"
		return nil
	}
	timeout := w.o.VerifyTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	vctx, cancel := context.WithTimeout(ctx, timeout)
	locs, err := w.o.Verify(vctx, t.Def)
	timedOut := vctx.Err() != nil && ctx.Err() == nil
	cancel()
	info.Ran = true
	if err != nil || timedOut {
		if err := ctx.Err(); err != nil {
			return err
		}
		info.TimedOut = timedOut || errors.Is(err, context.DeadlineExceeded)
		if info.TimedOut {
			info.Error = fmt.Sprintf("the language server did not answer within %s", timeout)
		} else {
			info.Error = err.Error()
		}
		for i := range a.Depths[0].Dependents {
			a.Depths[0].Dependents[i].Verification = Unverified
		}
		return nil
	}
	info.LiveSites = len(locs)

	d1 := a.Depths[0].Dependents
	index := map[string]int{} // dependent key → index in d1
	for i, d := range d1 {
		index[depKey(d)] = i
	}
	dispatch := map[string]int{}
	for i, d := range a.Dispatch {
		dispatch[depKey(d)] = i
	}
	ifaces := map[string]bool{}
	for _, r := range a.Implements {
		ifaces[r.Symbol] = true
	}
	// Sites the graph knows, by position, to their dependent's key.
	known := map[siteKey]string{}
	for k, sites := range w.d1Sites {
		for _, s := range sites {
			known[keyOf(s)] = k
		}
	}
	verified := map[string]bool{}
	liveOnly := map[string]*Dependent{}
	sort.Slice(locs, func(i, j int) bool {
		if locs[i].Path != locs[j].Path {
			return locs[i].Path < locs[j].Path
		}
		return locs[i].Range.Start.Before(locs[j].Range.Start)
	})
	for _, l := range locs {
		if l.Path == t.Def.Path && l.Range.Start == t.Def.Range.Start {
			continue // the declaration itself
		}
		if k, ok := known[keyOf(l)]; ok {
			verified[k] = true
			continue
		}
		occ, found, err := w.occurrenceAt(ctx, l, t.ID, ifaces)
		if err != nil {
			return err
		}
		var enclosing string
		switch {
		case found && occ.Roles&graph.RoleDefinition != 0:
			continue
		case found && occ.Symbol != t.ID:
			// A call through an interface method the target implements
			// (the graph puts it in dispatch), or a use the graph
			// attributes to another symbol: not a missing fact.
			if i, ok := dispatch[keyFor(occ.Enclosing, l.Path)]; ok && ifaces[occ.Symbol] {
				a.Dispatch[i].Verification = Verified
			}
			continue
		case found:
			// The graph has this very site as an occurrence of the
			// target: it verifies the dependent the walker made of it;
			// when the walker made none (an import, a use in a test
			// left out, a use below the confidence floor) the site is
			// known all the same, not missing.
			top, err := w.isTopLevel(ctx, occ.Enclosing)
			if err != nil {
				return err
			}
			k := occ.Enclosing
			if top {
				k = keyFor("", l.Path)
			}
			if _, ok := index[k]; ok {
				verified[k] = true
			}
			continue
		default:
			if enclosing, err = w.enclosingAt(ctx, l); err != nil {
				return err
			}
		}
		if enclosing == "" {
			// At top level: an import line is no dependent (its
			// document's uses are, each on its own), as in the walk.
			imp, err := w.isImportLine(ctx, graph.Occurrence{Symbol: t.ID, Path: l.Path, Range: l.Range})
			if err != nil {
				return err
			}
			if imp {
				continue
			}
		}
		k := keyFor(enclosing, l.Path)
		if _, ok := index[k]; ok {
			verified[k] = true
			continue
		}
		a.LiveOnly = append(a.LiveOnly, LiveSite{Location: l, Symbol: t.ID, Enclosing: enclosing})
		if d := liveOnly[k]; d != nil {
			d.Sites++
			if len(d.SiteLocations) < maxSiteLocations {
				d.SiteLocations = append(d.SiteLocations, locOf(l))
			}
			continue
		}
		c := &cand{id: enclosing, path: l.Path, topLevel: enclosing == "", count: 1, sites: []graph.Location{l},
			via: graph.Edge{From: enclosing, To: t.ID, Kind: graph.EdgeReferences, Confidence: 1.0,
				Source: graph.SourceLSP, Reason: "lsp:references (reported by the language server, absent from the graph)", Layer: graph.Live}}
		d, err := w.dependent(ctx, c, 1)
		if err != nil {
			return err
		}
		d.Verification = LiveOnly
		liveOnly[k] = &d
	}
	for i := range d1 {
		if verified[depKey(d1[i])] {
			d1[i].Verification = Verified
			info.Verified++
		} else {
			d1[i].Verification = GraphOnly
			info.GraphOnly++
		}
	}
	for _, k := range sortedKeys(liveOnly) {
		d := *liveOnly[k]
		if d.Test && !w.o.IncludeTests {
			continue
		}
		d1 = append(d1, d)
		info.LiveOnly++
	}
	sortDependents(d1)
	a.Depths[0].Dependents = d1
	return nil
}

type siteKey struct {
	path string
	pos  textpos.Position
}

func keyOf(l graph.Location) siteKey { return siteKey{l.Path, l.Range.Start} }

func keyFor(enclosing, p string) string {
	if enclosing == "" {
		return "top:" + p
	}
	return enclosing
}

func depKey(d Dependent) string {
	if d.TopLevel {
		p := ""
		if d.Location != nil {
			p = d.Location.Path
		}
		return "top:" + p
	}
	return d.Symbol
}

// occurrenceAt finds the graph's occurrence at a reported location: of the
// target, else of one of the interface methods it implements.
func (w *walker) occurrenceAt(ctx context.Context, l graph.Location, target string, ifaces map[string]bool) (graph.Occurrence, bool, error) {
	occs, err := w.r.SymbolsAt(ctx, l.Path, l.Range.Start)
	if err != nil {
		return graph.Occurrence{}, false, fmt.Errorf("impact: reading symbols at %s:%s: %w", l.Path, l.Range.Start, err)
	}
	for _, o := range occs {
		if o.Symbol == target {
			return o, true, nil
		}
	}
	for _, o := range occs {
		if ifaces[o.Symbol] {
			return o, true, nil
		}
	}
	// The graph names another symbol at exactly this place (a concrete
	// method the server counts as a reference of the interface method):
	// the graph has the fact, under another identity.
	for _, o := range occs {
		if o.Range.Start == l.Range.Start && !strings.HasPrefix(o.Symbol, "local ") {
			return o, true, nil
		}
	}
	return graph.Occurrence{}, false, nil
}

// enclosingAt returns the innermost declaration whose extent contains l,
// from the graph's document symbols, or "".
func (w *walker) enclosingAt(ctx context.Context, l graph.Location) (string, error) {
	syms, err := w.r.DocumentSymbols(ctx, l.Path)
	if err != nil {
		return "", fmt.Errorf("impact: reading symbols of %s: %w", l.Path, err)
	}
	var best graph.Symbol
	found := false
	for _, s := range syms {
		if s.DefExtent == (textpos.Range{}) || s.Kind == "local" || s.Kind == "parameter" || isContainerKind(s.Kind) ||
			strings.HasPrefix(s.ID, "local ") || !s.DefExtent.Contains(l.Range.Start) {
			continue
		}
		if !found || smaller(s.DefExtent, best.DefExtent) {
			best, found = s, true
		}
	}
	if !found {
		return "", nil
	}
	return best.ID, nil
}

// smaller reports whether range a spans less text than b (by lines, then
// columns): among the extents containing a position, the smaller one is
// the inner one even when producers' extents overlap imperfectly.
func smaller(a, b textpos.Range) bool {
	al, bl := a.End.Line-a.Start.Line, b.End.Line-b.Start.Line
	if al != bl {
		return al < bl
	}
	return int64(a.End.Col)-int64(a.Start.Col) < int64(b.End.Col)-int64(b.Start.Col)
}
