package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/resolve"
)

// changes answers lspgraph.changes: the overlay is synced with the work
// tree and the buffers, then the git diff since the base (with each dirty
// buffer's lines in place of its file's) is mapped to symbols.
func (st *proxyState) changes(ctx context.Context, args []json.RawMessage) (*impact.Answer, error) {
	g, err := st.ready()
	if err != nil {
		return nil, err
	}
	var req struct {
		Base string `json:"base"`
	}
	switch {
	case len(args) > 1:
		return nil, fmt.Errorf("want at most one argument {\"base\": REV}, got %d", len(args))
	case len(args) == 1 && string(args[0]) != "null":
		if err := json.Unmarshal(args[0], &req); err != nil {
			return nil, fmt.Errorf("argument %s is not {\"base\": REV}: %w", args[0], err)
		}
	}
	// The buffers first: every edit they show has been handed to the
	// overlay, so the sync below extracts them (or newer edits).
	dirty := g.buffers.dirtyTexts()
	var notes []string
	if g.ov == nil {
		notes = append(notes, "the overlay is not running: symbols added in changed files and unsaved buffers are unknown")
	} else if _, err := g.ov.Sync(ctx); err != nil {
		notes = append(notes, fmt.Sprintf("the live layer could not be brought up to date (%v): symbols added in changed files are unknown", err))
	}
	r, err := g.store.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading the graph store %s: %w", g.store.Dir(), err)
	}
	defer r.Close()
	m, haveBase, err := r.Manifest(graph.Base)
	if err != nil {
		return nil, fmt.Errorf("reading the base manifest: %w", err)
	}
	base := req.Base
	if base == "" {
		base = "HEAD"
		if haveBase && m.Commit != "" {
			base = m.Commit
		}
	} else if haveBase && m.Commit != "" && !sameRev(ctx, g.root, base, m.Commit) {
		notes = append(notes, fmt.Sprintf("base %s is not the commit the base index was built from (%s): old line numbers are matched against that index", base, impactShortRev(m.Commit)))
	}
	files, err := gitChanges(ctx, g.root, base, false)
	if err != nil {
		return nil, err
	}
	if files, err = g.withBuffers(ctx, base, files, dirty); err != nil {
		return nil, err
	}
	fb, err := g.freshness(ctx, r)
	if err != nil {
		return nil, err
	}
	o := impact.DefaultOptions()
	o.Freshness = &fb
	// One reader for both sides: the live layer answers for the changed
	// documents as they are now; their base facts are hidden by it, so
	// what they defined at base is read from the base layer below.
	a, err := impact.Changes(ctx, impact.ChangeInput{Files: files, Old: r, New: r}, o)
	if err != nil {
		return nil, err
	}
	if err := g.baseSide(ctx, r, files, a); err != nil {
		return nil, err
	}
	if len(notes) > 0 {
		a.Partial = true
		a.PartialReasons = append(a.PartialReasons, notes...)
	}
	return a, nil
}

// withBuffers puts each dirty buffer's changed lines in place of its
// file's: the buffer is compared with the file's text at base (which is
// the file on disk when only the buffer changed), so that the lines match
// the facts the overlay extracted from the buffer.
func (g graphSession) withBuffers(ctx context.Context, base string, files []impact.FileChange, dirty []openBuffer) ([]impact.FileChange, error) {
	out := slices.Clone(files)
	for _, b := range dirty {
		i := slices.IndexFunc(out, func(f impact.FileChange) bool {
			return f.Path == b.path || f.Status == "D" && f.OldPath == b.path
		})
		fc := impact.FileChange{Status: "M", Path: b.path, OldPath: b.path}
		if i >= 0 {
			switch prev := out[i]; prev.Status {
			case "A":
				fc.Status, fc.OldPath = "A", ""
			case "R":
				fc.Status, fc.OldPath = "R", prev.OldPath
			}
		}
		var old []byte
		if fc.OldPath != "" {
			t, err := gitOutput(ctx, g.root, "show", base+":./"+fc.OldPath)
			if err != nil {
				fc.Status, fc.OldPath = "A", "" // not in the base commit
			} else {
				old = t
			}
		}
		fc.Added, fc.Removed = changedLines(old, b.text)
		if fc.Status == "A" {
			fc.Removed = nil
			if n := len(splitLines(b.text)); n > 0 {
				fc.Added = []impact.LineRange{{Start: 1, End: n}}
			} else {
				fc.Added = nil
			}
		}
		unchanged := fc.Status == "M" && len(fc.Added) == 0 && len(fc.Removed) == 0
		switch {
		case i >= 0 && unchanged:
			out = slices.Delete(out, i, i+1) // the buffer undoes the file's changes
		case i >= 0:
			out[i] = fc
		case !unchanged:
			out = append(out, fc)
		}
	}
	return out, nil
}

// baseSide completes a changes answer computed with one reader for both
// sides. Where the live layer owns a changed document its base facts are
// hidden, so impact counts every symbol defined there as added and none as
// deleted. The base layer's symbols of the document
// (graph.Reader.BaseDocumentSymbols) settle it: a symbol the base defined
// too is modified (with its old location), and one the base defined within
// the removed lines that is gone now is deleted.
func (g graphSession) baseSide(ctx context.Context, r *graph.Reader, files []impact.FileChange, a *impact.Answer) error {
	covered := map[string]bool{}
	for _, f := range files {
		if f.Path == "" || f.OldPath == "" || f.Binary || f.Status == "A" {
			continue
		}
		d, ok, err := r.Document(ctx, f.Path)
		if err != nil {
			return fmt.Errorf("reading document %s: %w", f.Path, err)
		}
		if !ok || d.Layer != graph.Live {
			continue
		}
		base, err := r.BaseDocumentSymbols(ctx, f.OldPath)
		if err != nil {
			return fmt.Errorf("reading the base symbols of %s: %w", f.OldPath, err)
		}
		cur, err := r.DocumentSymbols(ctx, f.Path)
		if err != nil {
			return fmt.Errorf("reading the symbols of %s: %w", f.Path, err)
		}
		oldByID, oldByName := map[string]graph.Symbol{}, map[string]graph.Symbol{}
		for _, s := range base {
			if changeableSymbol(s) && s.Def.Path == f.OldPath {
				oldByID[s.ID] = s
				oldByName[resolve.DisplayQualified(s)] = s
			}
		}
		nowByID, nowByName := map[string]bool{}, map[string]bool{}
		for _, s := range cur {
			if s.Def.Path == f.Path {
				nowByID[s.ID], nowByName[resolve.DisplayQualified(s)] = true, true
			}
		}
		for i, c := range a.Changes {
			if c.Change != impact.ChangeAdded || c.Location == nil || c.Location.Path != f.Path {
				continue
			}
			o, ok := oldByID[c.Symbol]
			if !ok {
				o, ok = oldByName[c.Name]
			}
			if !ok {
				continue
			}
			l := lineLoc(f.OldPath, o)
			a.Changes[i].Change, a.Changes[i].OldLocation = impact.ChangeModified, &l
			if o.ID != c.Symbol {
				a.Changes[i].OldSymbol = o.ID
			}
		}
		for _, o := range base {
			if oldByID[o.ID].ID != o.ID || nowByID[o.ID] || nowByName[resolve.DisplayQualified(o)] || !touches(o, f.Removed) {
				continue
			}
			if moved, err := definedElsewhere(ctx, r, o, f.Path); err != nil {
				return err
			} else if moved {
				continue // reported as added where it is now
			}
			l := lineLoc(f.OldPath, o)
			a.Changes = append(a.Changes, impact.ChangedSymbol{
				Ref:         impact.Ref{Symbol: o.ID, Name: resolve.DisplayQualified(o), Kind: o.Kind, Package: o.Package},
				Change:      impact.ChangeDeleted,
				OldLocation: &l,
			})
		}
		covered[f.OldPath] = true
	}
	if len(covered) == 0 {
		return nil
	}
	slices.SortStableFunc(a.Changes, func(x, y impact.ChangedSymbol) int {
		lx, ly := x.Location, y.Location
		if lx == nil {
			lx = x.OldLocation
		}
		if ly == nil {
			ly = y.OldLocation
		}
		if c := strings.Compare(lx.Path, ly.Path); c != 0 {
			return c
		}
		return lx.Line - ly.Line
	})
	// impact's note that these documents' base symbols are hidden no
	// longer holds.
	var reasons []string
	for _, r := range a.PartialReasons {
		hidden := false
		for p := range covered {
			if strings.HasPrefix(r, p+" is answered from the live layer") {
				hidden = true
			}
		}
		if !hidden {
			reasons = append(reasons, r)
		}
	}
	a.PartialReasons = reasons
	a.Partial = len(reasons) > 0 || a.Freshness.Partial
	return nil
}

// changeableSymbol mirrors what a diff can add, change or delete: not a
// local, parameter, package or module.
func changeableSymbol(s graph.Symbol) bool {
	if s.External || strings.HasPrefix(s.ID, "local ") {
		return false
	}
	switch s.Kind {
	case "local", "parameter", "type-parameter", "package", "namespace", "module", "file":
		return false
	}
	return true
}

// touches reports whether a definition's lines overlap one of the ranges
// (an insertion point touches a definition spanning it).
func touches(s graph.Symbol, lines []impact.LineRange) bool {
	ext := s.DefExtent
	if ext.Start == ext.End {
		ext = s.Def.Range
	}
	first, last := int(ext.Start.Line)+1, int(ext.End.Line)+1
	if ext.End.Col == 0 && last > first {
		last--
	}
	for _, l := range lines {
		if l.Empty() {
			if first <= l.End && l.Start <= last {
				return true
			}
		} else if l.Start <= last && first <= l.End {
			return true
		}
	}
	return false
}

// lineLoc is a definition's location for an answer (1-based).
func lineLoc(path string, s graph.Symbol) impact.Loc {
	r := s.Def.Range
	return impact.Loc{Path: path, Line: int(r.Start.Line) + 1, Col: int(r.Start.Col) + 1, EndLine: int(r.End.Line) + 1, EndCol: int(r.End.Col) + 1}
}

// definedElsewhere reports whether a symbol of the same qualified name and
// kind is defined now outside path.
func definedElsewhere(ctx context.Context, r *graph.Reader, s graph.Symbol, path string) (bool, error) {
	cands, err := r.FindSymbols(ctx, s.DisplayName, false, 0)
	if err != nil {
		return false, fmt.Errorf("finding symbols named %q: %w", s.DisplayName, err)
	}
	for _, c := range cands {
		if c.Def.Path != "" && c.Def.Path != path && c.Kind == s.Kind && resolve.DisplayQualified(c) == resolve.DisplayQualified(s) {
			return true, nil
		}
	}
	return false, nil
}
