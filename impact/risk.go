package impact

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/internal/lang"
)

// Risk thresholds. "Breaking" counts the d=1 dependents plus the
// satisfaction sites (both stop compiling); "packages" counts the packages
// other than the targets' own reached at any depth or group.
//
//	UNKNOWN   nothing breaking found, and the graph cannot vouch that nothing
//	          exists (see assess)
//	LOW       nothing breaks
//	MEDIUM    breaking <= 5 and packages <= 1
//	HIGH      breaking <= 20 and packages <= 4
//	CRITICAL  anything more
//
// Something that breaks is never LOW. When something breaks and no test
// reaches the target (at any depth or group), the level is raised by one:
// nothing will catch what the change does. When the graph cannot vouch
// for completeness (a syntax-only or partial layer, changed documents, a
// group it could not compute), the level is a lower bound: "at least R".
const (
	mediumBreaking = 5
	mediumPackages = 1
	highBreaking   = 20
	highPackages   = 4
)

var levels = []string{RiskLow, RiskMedium, RiskHigh, RiskCritical}

// assess sets the risk, the freshness block and the partial flag.
func (w *walker) assess(ctx context.Context, a *Answer, targets []graph.Symbol) error {
	if w.o.Freshness != nil {
		a.Freshness = *w.o.Freshness
	} else {
		m, ok, err := w.r.Manifest(graph.Base)
		if err != nil {
			return fmt.Errorf("impact: reading the base manifest: %w", err)
		}
		if ok {
			a.Freshness.BaseCommit, a.Freshness.BaseTool = m.Commit, m.Tool
			a.Freshness.BaseToolVersion, a.Freshness.BaseState = m.ToolVersion, string(m.State)
		}
		a.Freshness.Partial = true
		a.Freshness.Reasons = append(a.Freshness.Reasons, "freshness not computed: documents changed since the base commit were not listed")
	}
	if a.Freshness.Changed == nil {
		a.Freshness.Changed = []string{}
	}
	if a.Freshness.Live == nil {
		a.Freshness.Live = []string{}
	}
	if a.Freshness.Dirty == nil {
		a.Freshness.Dirty = []string{}
	}
	reasons, err := w.completeness(ctx, a, targets)
	if err != nil {
		return err
	}
	a.PartialReasons = reasons
	a.Partial = len(reasons) > 0
	if w.o.Direction == graph.Downstream {
		a.Risk = Risk{Level: "", Rule: "risk applies to upstream impact only"}
		return nil
	}
	a.Risk = w.risk(a, reasons)
	return nil
}

// risk applies the thresholds.
func (w *walker) risk(a *Answer, unknown []string) Risk {
	r := Risk{}
	other := map[string]bool{}
	own := map[string]bool{}
	for _, t := range a.Targets {
		own[t.Package] = true
	}
	onlyTests := true
	counted := map[string]bool{}
	count := func(d Dependent, breaking bool) {
		if k := mergeKey(d); !counted[k] {
			counted[k] = true
			r.Total++
		}
		if breaking {
			r.Breaking++
			if !d.Test {
				onlyTests = false
			}
		}
		if d.Test {
			r.Tests++
		}
		if d.Package != "" && !own[d.Package] {
			other[d.Package] = true
		}
	}
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			count(d, g.Depth == 1)
		}
	}
	for _, d := range a.Satisfaction {
		count(d, true)
	}
	for _, d := range a.Dispatch {
		count(d, false)
	}
	r.Packages = len(other)
	for _, u := range a.UnknownGroups {
		if u.Group == GroupSatisfaction {
			unknown = append(unknown, "the satisfaction group is UNKNOWN: "+u.Reason)
		}
	}
	facts := fmt.Sprintf("%d breaking (d=1 + satisfaction), %d in other packages, %d tests, %d in all", r.Breaking, r.Packages, r.Tests, r.Total)
	if r.Breaking == 0 && len(unknown) > 0 {
		// "at least LOW" would read as "nothing breaks".
		r.Level = RiskUnknown
		r.Rule = "UNKNOWN: nothing breaking found, but the graph cannot vouch for completeness: " + strings.Join(unknown, "; ")
		return r
	}
	level := 0
	switch {
	case r.Breaking == 0:
		r.Rule = "LOW: nothing breaks (" + facts + ")"
	case r.Breaking <= mediumBreaking && r.Packages <= mediumPackages:
		level = 1
		r.Rule = fmt.Sprintf("MEDIUM: 1 <= breaking <= %d and other packages <= %d (%s)", mediumBreaking, mediumPackages, facts)
	case r.Breaking <= highBreaking && r.Packages <= highPackages:
		level = 2
		r.Rule = fmt.Sprintf("HIGH: breaking <= %d and other packages <= %d (%s)", highBreaking, highPackages, facts)
	default:
		level = 3
		r.Rule = fmt.Sprintf("CRITICAL: breaking > %d or other packages > %d (%s)", highBreaking, highPackages, facts)
	}
	if r.Breaking > 0 && r.Tests == 0 && level < len(levels)-1 {
		level++
		r.Rule = fmt.Sprintf("%s, raised to %s: no test reaches the target", r.Rule, levels[level])
	}
	if r.Breaking > 0 && onlyTests {
		r.Rule += "; only tests break"
	}
	r.Level = levels[level]
	if len(unknown) > 0 {
		r.AtLeast = true
		r.Rule = "at least " + r.Rule + "; a lower bound: " + strings.Join(unknown, "; ")
	}
	return r
}

// completeness lists why the graph may miss dependents of the targets: the
// base layer is absent, partial or syntax-only for the targets' documents;
// a target's document is answered from the live layer's syntax facts; the
// freshness block is partial; or documents changed since the base commit
// (in the targets' languages) could hold callers the base does not know.
func (w *walker) completeness(ctx context.Context, a *Answer, targets []graph.Symbol) ([]string, error) {
	var reasons []string
	addf := func(format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		for _, r := range reasons {
			if r == s {
				return
			}
		}
		reasons = append(reasons, s)
	}
	base, haveBase, err := w.r.Manifest(graph.Base)
	if err != nil {
		return nil, fmt.Errorf("impact: reading the base manifest: %w", err)
	}
	switch {
	case !haveBase:
		addf("no base index (run lspgraph scip import or lspgraph index)")
	case base.State != graph.StateComplete:
		addf("the base index from %s is %s", toolOr(base.Tool), base.State)
	}
	langs := map[string]bool{}
	for _, t := range targets {
		language := lang.Of(t.Def.Path)
		if language == "" {
			language = lang.Normalize(t.Language)
		}
		if t.Def.Path == "" {
			// An external symbol: its callers are anywhere in the workspace.
			if haveBase && isSyntaxTool(base.Tool) {
				addf("the base index is syntax-only (%s): references are name-based", toolOr(base.Tool))
			}
			if language != "" {
				langs[language] = true
			}
			continue
		}
		d, ok, err := w.document(ctx, t.Def.Path)
		if err != nil {
			return nil, err
		}
		langs[language] = true
		switch {
		case !ok:
			addf("%s is not indexed", t.Def.Path)
		case d.Digest == freshness.DigestDeleted:
			// A deleted document: its symbols' callers elsewhere are what
			// the rest of the graph records, precisely or by name.
			if haveBase && isSyntaxTool(base.Tool) {
				addf("the base index is syntax-only (%s): the callers of %s's symbols are name-based", toolOr(base.Tool), t.Def.Path)
			}
		case d.Source != graph.SourceSCIP && d.Source != graph.SourceLSP:
			where := "the base layer"
			if d.Layer == graph.Live {
				where = "the live layer (changed since the base)"
			}
			pkg := t.Package
			if pkg == "" {
				pkg = d.Package
			}
			addf("package %s is covered by syntax facts only (%s from %s): no precise index vouches for its callers", orPath(pkg, t.Def.Path), t.Def.Path, where)
		}
	}
	f := a.Freshness
	if f.Partial {
		for _, r := range f.Reasons {
			addf("%s", r)
		}
		if len(f.Reasons) == 0 {
			addf("the freshness block is partial")
		}
	}
	var changed []string
	seen := map[string]bool{}
	for _, list := range [][]string{f.Changed, f.Dirty} {
		for _, p := range list {
			if seen[p] {
				continue
			}
			seen[p] = true
			if l := lang.Of(p); l == "" || (!langs[l] && len(langs) > 0) {
				continue
			}
			d, ok, err := w.document(ctx, p)
			if err != nil {
				return nil, err
			}
			if !ok || d.Digest == freshness.DigestDeleted {
				continue // gone from the work tree: it holds no callers
			}
			changed = append(changed, p)
		}
	}
	if len(changed) > 0 {
		addf("%d document(s) changed since base commit %s could hold callers the base does not know (%s)",
			len(changed), shortCommit(f.BaseCommit), strings.Join(first(changed, 5), ", "))
	}
	return reasons, nil
}

func first(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
}

func orPath(pkg, p string) string {
	if pkg != "" {
		return pkg
	}
	return path.Dir(p)
}

func toolOr(t string) string {
	if t == "" {
		return "an unknown tool"
	}
	return t
}

func isSyntaxTool(t string) bool {
	return strings.Contains(t, "syntax")
}

func shortCommit(c string) string { return cmp.Or(gitcmd.ShortCommit(c), "(unknown)") }
