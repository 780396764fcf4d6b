package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/workspace"
)

// impactFlags are the flags `impact` and `changes` share.
type impactFlags struct {
	store, root   string
	direction     string
	depth         int
	minConfidence float64
	kinds         string
	noTests       bool
	limit         int
	maxDependents int
	json          bool
	format        string
}

func (f *impactFlags) register(fs interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
	Float64Var(*float64, string, float64, string)
	BoolVar(*bool, string, bool, string)
}, direction bool) {
	fs.StringVar(&f.store, "store", "", "graph store `DIR` (default: the user cache directory for the root)")
	fs.StringVar(&f.root, "root", "", "workspace root `DIR` (default: the git top level of the current directory, else the current directory)")
	if direction {
		fs.StringVar(&f.direction, "direction", "up", "up: who depends on the target; down: what it depends on")
	}
	fs.IntVar(&f.depth, "depth", 3, "maximum depth `N`")
	fs.Float64Var(&f.minConfidence, "min-confidence", 0.7, "ignore edges below confidence `X` (syntax edges: 0.02-0.99 by rule, see syntax/CALIBRATION.md)")
	fs.StringVar(&f.kinds, "kinds", "references,calls,implements,type-of", "edge kinds to follow, comma-separated")
	fs.BoolVar(&f.noTests, "no-tests", false, "leave out dependents in test files")
	fs.IntVar(&f.limit, "limit", 0, "at most `N` dependents per depth (0: no limit)")
	fs.IntVar(&f.maxDependents, "max-dependents", impact.DefaultMaxDependents, "stop the walk after `N` dependents, reporting what it skipped (0: no bound)")
	fs.BoolVar(&f.json, "json", false, "print JSON")
	fs.StringVar(&f.format, "format", "text", "output format: text or markdown")
}

// request turns the flags into an impact request for target; the error is
// a usage error.
func (f *impactFlags) request(target string) (workspace.ImpactRequest, error) {
	if f.format != "text" && f.format != "markdown" {
		return workspace.ImpactRequest{}, fmt.Errorf("%w: --format must be text or markdown, not %q", errUsage, f.format)
	}
	if f.depth < 1 {
		return workspace.ImpactRequest{}, fmt.Errorf("%w: --depth must be at least 1", errUsage)
	}
	mc, md := f.minConfidence, f.maxDependents
	q := workspace.ImpactRequest{
		Target: target, Direction: f.direction, Depth: f.depth, MinConfidence: &mc,
		Kinds: strings.Split(f.kinds, ","), NoTests: f.noTests, Limit: f.limit, MaxDependents: &md,
	}
	if _, err := q.Options(); err != nil {
		return q, fmt.Errorf("%w: %v", errUsage, err)
	}
	return q, nil
}

// parseInterspersed parses flags that may follow positional arguments.
func parseInterspersed(fs interface {
	Parse([]string) error
	Args() []string
}, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func runImpact(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "impact", "impact [--store DIR] [--root DIR] [--direction up|down] [--depth N] [--min-confidence X] [--kinds a,b] [--no-tests] [--limit N] [--json] [--format text|markdown] TARGET\n\n"+
		"TARGET is a symbol name (Save, Catalog.Save, service.Catalog.Save), FILE:LINE:COL (1-based, column in bytes)\nor a SCIP symbol string.")
	var f impactFlags
	f.register(fs, true)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want exactly one TARGET, got %d", errUsage, len(pos))
	}
	root, err := workspaceRoot(ctx, f.root)
	if err != nil {
		return err
	}
	q, err := f.request(absTarget(pos[0]))
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := askSession(ctx, "cli", root, f.store, workspace.CommandImpact, q, &raw, true); err != nil {
		return err
	}
	if f.json {
		return writeRawJSON(e.stdout, raw) // as the session wrote it
	}
	var a impact.Answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("decoding the answer: %w", err)
	}
	return writeImpactAnswer(e.stdout, &a, false, f.format)
}

// writeImpactAnswer prints an answer as JSON, text or markdown.
func writeImpactAnswer(w io.Writer, a *impact.Answer, asJSON bool, format string) error {
	if asJSON {
		return writeJSON(w, a)
	}
	if format == "markdown" {
		return writeImpactMarkdown(w, a)
	}
	return writeImpactText(w, a)
}

// workspaceRoot returns the --root flag made absolute, else the git top
// level of the current directory, else the current directory.
func workspaceRoot(ctx context.Context, flagRoot string) (string, error) {
	if flagRoot != "" {
		abs, err := filepath.Abs(flagRoot)
		if err != nil {
			return "", fmt.Errorf("resolving --root %s: %w", flagRoot, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%w: --root %s is not a directory", errUsage, flagRoot)
		}
		return abs, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("reading the current directory: %w", err)
	}
	return gitTopLevel(cwd), nil
}

// --- text -----------------------------------------------------------------

func writeImpactText(w io.Writer, a *impact.Answer) error {
	var b strings.Builder
	targets := a.Targets
	if a.Target != nil {
		targets = []impact.Ref{*a.Target}
	}
	verb := "impact of"
	if a.Direction == "downstream" {
		verb = "dependencies of"
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "%s %s\n", verb, impactRefLine(t))
	}
	if a.Risk.Level != "" {
		fmt.Fprintf(&b, "risk: %s\n  %s\n", riskLevel(a.Risk), a.Risk.Rule)
	}
	b.WriteString(impactFreshnessLine(a) + "\n")
	var counts []string
	for _, g := range a.Depths {
		counts = append(counts, fmt.Sprintf("d=%d %s: %d", g.Depth, g.Label, len(g.Dependents)))
	}
	b.WriteString(strings.Join(counts, " · ") + "\n\n")

	// The tree: each dependent under the node that brought it in.
	children := map[string][]impact.Dependent{}
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
		writeImpactTree(&b, children, children["\x00target:"+t.Symbol], "")
	}
	writeImpactGroup(&b, "dispatch — calls through an interface method the target implements (keep compiling, may change behaviour)", a.Dispatch, a.GroupUnknown(impact.GroupDispatch))
	writeImpactGroup(&b, "satisfaction — the target's type converted to an interface that declares the target method (will break)", a.Satisfaction, a.GroupUnknown(impact.GroupSatisfaction))
	writeImpactGroup(&b, "implementations", a.Implementations, a.GroupUnknown(impact.GroupImplementation))
	if len(a.Implements) > 0 {
		fmt.Fprintf(&b, "\nimplements (%d)\n", len(a.Implements))
		for _, r := range a.Implements {
			fmt.Fprintf(&b, "  %s\n", impactRefLine(r))
		}
	}
	writeImpactGroup(&b, "tests", a.Tests, "")
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

// riskLevel prints a level, "at least" when it is a lower bound.
func riskLevel(r impact.Risk) string {
	if r.AtLeast {
		return "at least " + r.Level
	}
	return r.Level
}

func writeImpactTree(b *strings.Builder, children map[string][]impact.Dependent, ds []impact.Dependent, indent string) {
	for i, d := range ds {
		branch, next := "├─ ", "│  "
		if i == len(ds)-1 {
			branch, next = "└─ ", "   "
		}
		fmt.Fprintf(b, "%s%s[d=%d] %s\n", indent, branch, d.Depth, impactDepLine(d))
		if d.Symbol != "" {
			writeImpactTree(b, children, children[d.Symbol], indent+next)
		}
	}
}

// writeImpactGroup prints a group's entries, or UNKNOWN with the reason
// when the group could not be computed.
func writeImpactGroup(b *strings.Builder, title string, ds []impact.Dependent, unknown string) {
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
		fmt.Fprintf(b, "  %s%s\n", prefix, impactDepLine(d))
	}
}

func impactRefLine(r impact.Ref) string {
	s := r.Name
	if r.Kind != "" {
		s += " (" + r.Kind + ")"
	}
	if r.Package != "" {
		s += " in " + r.Package
	}
	if r.Location != nil {
		s += " at " + impactLoc(*r.Location)
	} else if r.External {
		s += " (external)"
	}
	return s
}

func impactDepLine(d impact.Dependent) string {
	var parts []string
	parts = append(parts, d.Name)
	if d.Kind != "" {
		parts = append(parts, d.Kind)
	}
	if d.Location != nil {
		parts = append(parts, impactLoc(*d.Location))
	}
	via := fmt.Sprintf("%s · %s %.2f · %d site", d.Via.Kind, orDash(d.Via.Source), d.Via.Confidence, d.Sites)
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func impactLoc(l impact.Loc) string { return fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Col) }

func impactFreshnessLine(a *impact.Answer) string {
	f := a.Freshness
	base := impactShortRev(f.BaseCommit)
	if f.BaseTool != "" {
		base += " (" + f.BaseTool + ")"
	}
	return fmt.Sprintf("freshness: base %s · head %s · %d changed · %d live · partial: %v",
		base, impactShortRev(f.Head), len(f.Changed), len(f.Live), a.Partial)
}

func impactShortRev(c string) string {
	switch {
	case c == "":
		return "unknown"
	case len(c) > 12:
		return c[:12]
	}
	return c
}

// --- markdown ---------------------------------------------------------------

func writeImpactMarkdown(w io.Writer, a *impact.Answer) error {
	var b strings.Builder
	targets := a.Targets
	if a.Target != nil {
		targets = []impact.Ref{*a.Target}
	}
	names := make([]string, 0, len(targets))
	for _, t := range targets {
		names = append(names, "`"+impactMD(t.Name)+"`")
	}
	if len(names) > 8 {
		names = append(names[:8], fmt.Sprintf("and %d more", len(names)-8))
	}
	level := riskLevel(a.Risk)
	if level == "" {
		level = "n/a"
	}
	fmt.Fprintf(&b, "### Impact of %s: **%s**\n\n", strings.Join(names, ", "), level)
	if a.Risk.Rule != "" {
		fmt.Fprintf(&b, "%s\n\n", impactMD(a.Risk.Rule))
	}
	rows := 0
	b.WriteString("| depth | symbol | kind | location | via | sites | check |\n|---|---|---|---|---|---|---|\n")
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			impactMDRow(&b, fmt.Sprintf("d=%d %s", g.Depth, g.Label), d)
			rows++
		}
	}
	for _, grp := range []struct {
		name string
		ds   []impact.Dependent
	}{{impact.GroupDispatch, a.Dispatch}, {impact.GroupSatisfaction, a.Satisfaction}, {impact.GroupImplementation, a.Implementations}} {
		if u := a.GroupUnknown(grp.name); u != "" {
			fmt.Fprintf(&b, "| %s | UNKNOWN: %s | | | | | |\n", grp.name, impactMD(u))
			rows++
		}
		for _, d := range grp.ds {
			impactMDRow(&b, grp.name, d)
			rows++
		}
	}
	if rows == 0 {
		b.WriteString("| – | no dependents found | | | | | |\n")
	}
	if len(a.Tests) > 0 {
		var ts []string
		for _, t := range a.Tests {
			ts = append(ts, "`"+impactMD(t.Name)+"`")
		}
		fmt.Fprintf(&b, "\n**Tests to run (%d):** %s\n", len(a.Tests), strings.Join(ts, ", "))
	}
	if len(a.Packages) > 0 {
		var ps []string
		for _, p := range a.Packages {
			ps = append(ps, fmt.Sprintf("`%s` (%d)", impactMD(p.Package), p.Dependents))
		}
		fmt.Fprintf(&b, "\n**Packages:** %s\n", strings.Join(ps, ", "))
	}
	if len(a.CrossPackage) > 0 {
		fmt.Fprintf(&b, "\n**Cross-package edges:** %d\n", len(a.CrossPackage))
	}
	if a.Partial {
		b.WriteString("\n> [!WARNING]\n> Partial answer:\n")
		for _, r := range a.PartialReasons {
			fmt.Fprintf(&b, "> - %s\n", impactMD(r))
		}
	}
	fmt.Fprintf(&b, "\n<sub>%s</sub>\n", impactMD(impactFreshnessLine(a)))
	_, err := io.WriteString(w, b.String())
	return err
}

func impactMDRow(b *strings.Builder, depth string, d impact.Dependent) {
	loc := ""
	if d.Location != nil {
		loc = "`" + impactLoc(*d.Location) + "`"
	}
	name := "`" + impactMD(d.Name) + "`"
	if d.Test {
		name += " (test)"
	}
	fmt.Fprintf(b, "| %s | %s | %s | %s | %s %s %.2f | %d | %s |\n", depth, name, d.Kind, loc,
		d.Via.Kind, orDash(d.Via.Source), d.Via.Confidence, d.Sites, d.Verification)
}

func impactMD(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
