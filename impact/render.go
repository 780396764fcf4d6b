package impact

// This file renders answers for people: a text tree and a markdown table.
// JSON is the Answer itself.

import (
	"github.com/lspgraph/lspgraph/internal/gitcmd"

	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// --- text -----------------------------------------------------------------

// WriteText prints an answer as an indented tree, its groups, packages,
// verification and what made it partial.
func WriteText(w io.Writer, a *Answer) error {
	var b strings.Builder
	targets := a.Targets
	if a.Target != nil {
		targets = []Ref{*a.Target}
	}
	verb := "impact of"
	if a.Direction == "downstream" {
		verb = "dependencies of"
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "%s %s\n", verb, refLine(t))
	}
	if a.Risk.Level != "" {
		fmt.Fprintf(&b, "risk: %s\n  %s\n", RiskLevel(a.Risk), a.Risk.Rule)
	}
	b.WriteString(freshnessLine(a) + "\n")
	var counts []string
	for _, g := range a.Depths {
		counts = append(counts, fmt.Sprintf("d=%d %s: %d", g.Depth, g.Label, len(g.Dependents)))
	}
	b.WriteString(strings.Join(counts, " · ") + "\n\n")

	// The tree: each dependent under the node that brought it in.
	children := map[string][]Dependent{}
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			parent := d.Via.To
			if a.Direction == "downstream" {
				parent = d.Via.From
			}
			if g.Depth == 1 {
				parent = "\x00target:" + parent
			}
			children[parent] = append(children[parent], d)
		}
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "%s\n", t.Name)
		writeTree(&b, children, children["\x00target:"+t.Symbol], "")
	}
	writeGroup(&b, "dispatch — calls through an interface method the target implements (keep compiling, may change behaviour)", a.Dispatch, a.GroupUnknown(GroupDispatch))
	writeGroup(&b, "satisfaction — the target's type converted to an interface that declares the target method (will break)", a.Satisfaction, a.GroupUnknown(GroupSatisfaction))
	writeGroup(&b, "implementations", a.Implementations, a.GroupUnknown(GroupImplementation))
	if len(a.Implements) > 0 {
		fmt.Fprintf(&b, "\nimplements (%d)\n", len(a.Implements))
		for _, r := range a.Implements {
			fmt.Fprintf(&b, "  %s\n", refLine(r))
		}
	}
	writeGroup(&b, "tests", a.Tests, "")
	fmt.Fprintf(&b, "\npackages (%d)\n", len(a.Packages))
	for _, p := range a.Packages {
		note := ""
		if p.Target {
			note = " (target)"
		}
		fmt.Fprintf(&b, "  %s%s: %d dependents, %d tests, nearest d=%d\n", p.Package, note, p.Dependents, p.Tests, p.MinDepth)
	}
	if len(a.CrossPackage) > 0 {
		fmt.Fprintf(&b, "\ncross-package edges (%d)\n", len(a.CrossPackage))
		for _, c := range a.CrossPackage {
			fmt.Fprintf(&b, "  d=%d %s (%s) -%s-> %s (%s)\n", c.Depth, c.FromName, c.FromPackage, c.Kind, c.ToName, c.ToPackage)
		}
	}
	if v := a.Verification; v != nil {
		fmt.Fprintf(&b, "\nverification: ran=%v", v.Ran)
		if v.Ran && v.Error == "" {
			fmt.Fprintf(&b, ", %d live sites: %d verified, %d graph-only, %d live-only", v.LiveSites, v.Verified, v.GraphOnly, v.LiveOnly)
		}
		if v.Error != "" {
			fmt.Fprintf(&b, " (%s)", v.Error)
		}
		b.WriteString("\n")
	}
	if a.Skipped != nil {
		fmt.Fprintf(&b, "\ntruncated: stopped after %d dependents: %d listed dependents not expanded, %d dependents found and not listed\n",
			a.Query.MaxDependents, a.Skipped.Unexpanded, a.Skipped.Unlisted)
	} else if a.Truncated {
		b.WriteString("\ntruncated: --limit cut at least one depth short\n")
	}
	if a.Partial {
		b.WriteString("\npartial: the answer may be incomplete:\n")
		for _, r := range a.PartialReasons {
			fmt.Fprintf(&b, "  - %s\n", r)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RiskLevel prints a level, "at least" when it is a lower bound.
func RiskLevel(r Risk) string {
	if r.AtLeast {
		return "at least " + r.Level
	}
	return r.Level
}

func writeTree(b *strings.Builder, children map[string][]Dependent, ds []Dependent, indent string) {
	for i, d := range ds {
		branch, next := "├─ ", "│  "
		if i == len(ds)-1 {
			branch, next = "└─ ", "   "
		}
		fmt.Fprintf(b, "%s%s[d=%d] %s\n", indent, branch, d.Depth, DependentLine(d))
		if d.Symbol != "" {
			writeTree(b, children, children[d.Symbol], indent+next)
		}
	}
}

// writeGroup prints a group's entries, or UNKNOWN with the reason
// when the group could not be computed.
func writeGroup(b *strings.Builder, title string, ds []Dependent, unknown string) {
	if unknown != "" {
		fmt.Fprintf(b, "\n%s: UNKNOWN\n  %s\n", title, unknown)
		if len(ds) == 0 {
			return
		}
		fmt.Fprintf(b, "  found by name (%d):\n", len(ds))
	} else if len(ds) == 0 {
		return
	} else {
		fmt.Fprintf(b, "\n%s (%d)\n", title, len(ds))
	}
	for _, d := range ds {
		prefix := ""
		if d.Group == "" {
			prefix = fmt.Sprintf("[d=%d] ", d.Depth)
		}
		fmt.Fprintf(b, "  %s%s\n", prefix, DependentLine(d))
	}
}

func refLine(r Ref) string {
	s := r.Name
	if r.Kind != "" {
		s += " (" + r.Kind + ")"
	}
	if r.Package != "" {
		s += " in " + r.Package
	}
	if r.Location != nil {
		s += " at " + locString(*r.Location)
	} else if r.External {
		s += " (external)"
	}
	return s
}

// DependentLine is a dependent's one-line description: name, kind,
// location, how it is reached and its sites.
func DependentLine(d Dependent) string {
	var parts []string
	parts = append(parts, d.Name)
	if d.Kind != "" {
		parts = append(parts, d.Kind)
	}
	if d.Location != nil {
		parts = append(parts, locString(*d.Location))
	}
	via := fmt.Sprintf("%s · %s %.2f · %d site", d.Via.Kind, OrDash(d.Via.Source), d.Via.Confidence, d.Sites)
	if d.Sites != 1 {
		via += "s"
	}
	if len(d.SiteLocations) > 0 && d.SiteLocations[0].Path != "" {
		// A site in another file than the declaration (a build-tag twin
		// sharing its identity, a top-level use) is printed with its file.
		home := ""
		if d.Location != nil {
			home = d.Location.Path
		}
		var ls []string
		for _, l := range d.SiteLocations {
			if l.Path != home {
				ls = append(ls, fmt.Sprintf("%s:%d", l.Path, l.Line))
			} else {
				ls = append(ls, strconv.Itoa(l.Line))
			}
		}
		via += " (line " + strings.Join(ls, ", ") + ")"
	}
	parts = append(parts, "["+via+"]")
	if d.Test {
		parts = append(parts, "test")
	}
	if d.Verification != "" {
		parts = append(parts, d.Verification)
	}
	if d.Group != "" && d.Via.Reason != "" {
		parts = append(parts, "— "+d.Via.Reason)
	}
	return strings.Join(parts, "  ")
}

// OrDash returns s, or "-" when s is empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func locString(l Loc) string { return fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Col) }

func freshnessLine(a *Answer) string {
	f := a.Freshness
	base := ShortRev(f.BaseCommit)
	if f.BaseTool != "" {
		base += " (" + f.BaseTool + ")"
	}
	return fmt.Sprintf("freshness: base %s · head %s · %d changed · %d live · partial: %v",
		base, ShortRev(f.Head), len(f.Changed), len(f.Live), a.Partial)
}

// ShortRev abbreviates a commit to 12 characters, "unknown" when empty.
func ShortRev(c string) string { return cmp.Or(gitcmd.ShortCommit(c), "unknown") }

// --- markdown ---------------------------------------------------------------

// WriteMarkdown prints an answer as a compact markdown table.
func WriteMarkdown(w io.Writer, a *Answer) error {
	var b strings.Builder
	targets := a.Targets
	if a.Target != nil {
		targets = []Ref{*a.Target}
	}
	names := make([]string, 0, len(targets))
	for _, t := range targets {
		names = append(names, "`"+mdCell(t.Name)+"`")
	}
	if len(names) > 8 {
		names = append(names[:8], fmt.Sprintf("and %d more", len(names)-8))
	}
	level := RiskLevel(a.Risk)
	if level == "" {
		level = "n/a"
	}
	fmt.Fprintf(&b, "### Impact of %s: **%s**\n\n", strings.Join(names, ", "), level)
	if a.Risk.Rule != "" {
		fmt.Fprintf(&b, "%s\n\n", mdCell(a.Risk.Rule))
	}
	rows := 0
	b.WriteString("| depth | symbol | kind | location | via | sites | check |\n|---|---|---|---|---|---|---|\n")
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			mdRow(&b, fmt.Sprintf("d=%d %s", g.Depth, g.Label), d)
			rows++
		}
	}
	for _, grp := range []struct {
		name string
		ds   []Dependent
	}{{GroupDispatch, a.Dispatch}, {GroupSatisfaction, a.Satisfaction}, {GroupImplementation, a.Implementations}} {
		if u := a.GroupUnknown(grp.name); u != "" {
			fmt.Fprintf(&b, "| %s | UNKNOWN: %s | | | | | |\n", grp.name, mdCell(u))
			rows++
		}
		for _, d := range grp.ds {
			mdRow(&b, grp.name, d)
			rows++
		}
	}
	if rows == 0 {
		b.WriteString("| – | no dependents found | | | | | |\n")
	}
	if len(a.Tests) > 0 {
		var ts []string
		for _, t := range a.Tests {
			ts = append(ts, "`"+mdCell(t.Name)+"`")
		}
		fmt.Fprintf(&b, "\n**Tests to run (%d):** %s\n", len(a.Tests), strings.Join(ts, ", "))
	}
	if len(a.Packages) > 0 {
		var ps []string
		for _, p := range a.Packages {
			ps = append(ps, fmt.Sprintf("`%s` (%d)", mdCell(p.Package), p.Dependents))
		}
		fmt.Fprintf(&b, "\n**Packages:** %s\n", strings.Join(ps, ", "))
	}
	if len(a.CrossPackage) > 0 {
		fmt.Fprintf(&b, "\n**Cross-package edges:** %d\n", len(a.CrossPackage))
	}
	if a.Partial {
		b.WriteString("\n> [!WARNING]\n> Partial answer:\n")
		for _, r := range a.PartialReasons {
			fmt.Fprintf(&b, "> - %s\n", mdCell(r))
		}
	}
	fmt.Fprintf(&b, "\n<sub>%s</sub>\n", mdCell(freshnessLine(a)))
	_, err := io.WriteString(w, b.String())
	return err
}

func mdRow(b *strings.Builder, depth string, d Dependent) {
	loc := ""
	if d.Location != nil {
		loc = "`" + locString(*d.Location) + "`"
	}
	name := "`" + mdCell(d.Name) + "`"
	if d.Test {
		name += " (test)"
	}
	fmt.Fprintf(b, "| %s | %s | %s | %s | %s %s %.2f | %d | %s |\n", depth, name, d.Kind, loc,
		d.Via.Kind, OrDash(d.Via.Source), d.Via.Confidence, d.Sites, d.Verification)
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// --- changes ------------------------------------------------------------------

// WriteChanges prints the changed symbols of a changes answer, then their
// impact, as text or (markdown true) as markdown.
func WriteChanges(w io.Writer, a *Answer, markdown bool) error {
	var b strings.Builder
	if markdown {
		fmt.Fprintf(&b, "#### Changed symbols (%d in %d files)\n\n", len(a.Changes), len(a.Files))
		if len(a.Changes) > 0 {
			b.WriteString("| change | symbol | kind | location |\n|---|---|---|---|\n")
			for _, c := range a.Changes {
				fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", c.Change, mdCell(c.Name), c.Kind, changeLoc(c, "`"))
			}
		}
		b.WriteString("\n")
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		return WriteMarkdown(w, a)
	}
	fmt.Fprintf(&b, "changed files (%d)\n", len(a.Files))
	for _, f := range a.Files {
		p := f.Path
		if f.Status == "R" {
			p = f.OldPath + " -> " + f.Path
		} else if p == "" {
			p = f.OldPath
		}
		fmt.Fprintf(&b, "  %s %s\n", f.Status, p)
	}
	fmt.Fprintf(&b, "changed symbols (%d)\n", len(a.Changes))
	for _, c := range a.Changes {
		fmt.Fprintf(&b, "  %-8s %s (%s) %s\n", c.Change, c.Name, c.Kind, changeLoc(c, ""))
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return WriteText(w, a)
}

// changeLoc renders where a changed symbol is, and where it was.
func changeLoc(c ChangedSymbol, quote string) string {
	var parts []string
	if c.Location != nil {
		parts = append(parts, quote+locString(*c.Location)+quote)
	}
	if c.OldLocation != nil && (c.Location == nil || c.OldLocation.Path != c.Location.Path || c.Change != ChangeModified) {
		parts = append(parts, "was "+quote+locString(*c.OldLocation)+quote)
	}
	return strings.Join(parts, " ")
}
