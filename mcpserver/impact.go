package mcpserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lspgraph/lspgraph/impact"
)

// Symbol names a symbol in an answer.
type Symbol struct {
	Name    string `json:"name"`
	Kind    string `json:"kind,omitempty"`
	Package string `json:"package,omitempty"`
	// Location is the definition, PATH:LINE:COL (1-based); it is also a
	// target for impact and context.
	Location string `json:"location,omitempty"`
	// Symbol is the symbol string (an exact target).
	Symbol string `json:"symbol,omitempty"`
}

// Dependent is one declaration an impact reached.
type Dependent struct {
	Name     string `json:"name"`
	Kind     string `json:"kind,omitempty"`
	Package  string `json:"package,omitempty"`
	Location string `json:"location,omitempty"`
	// Edge is the relation that brought it in (calls, references,
	// implements, type-of) and Confidence that edge's.
	Edge       string  `json:"edge"`
	Confidence float64 `json:"confidence"`
	Sites      int     `json:"sites"`
	Test       bool    `json:"test,omitempty"`
	// Verification is verified, graph-only, live-only or unverified (d=1
	// against a live language server); empty when none ran.
	Verification string `json:"verification,omitempty"`
}

// Depth is the dependents at one distance from the target.
type Depth struct {
	Depth int    `json:"depth"`
	Label string `json:"label"`
	// Count is how many dependents the depth has; Dependents lists them,
	// or their first ones when the answer was cut.
	Count      int         `json:"count"`
	Dependents []Dependent `json:"dependents"`
}

// Group is dependents reached another way than by depth.
type Group struct {
	// Kind is dispatch, satisfaction or implementation; Name says what
	// that means.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Breaks is set for a group whose entries stop compiling when the
	// target's signature changes (satisfaction); a group without it keeps
	// compiling.
	Breaks bool `json:"breaks"`
	// Unknown says why the group could not be computed; Dependents then
	// lists what was found by name, a lower bound.
	Unknown    string      `json:"unknown,omitempty"`
	Count      int         `json:"count"`
	Dependents []Dependent `json:"dependents"`
}

// Package counts the dependents of one package.
type Package struct {
	Package    string `json:"package"`
	Dependents int    `json:"dependents"`
	MinDepth   int    `json:"minDepth"`
}

// Blast is a blast radius: risk, dependents by depth, groups, tests and
// packages.
type Blast struct {
	Direction string `json:"direction"`
	Risk      string `json:"risk"`
	// RiskAtLeast is set when Risk is a lower bound (the graph cannot
	// vouch for completeness).
	RiskAtLeast bool    `json:"riskAtLeast,omitempty"`
	RiskRule    string  `json:"riskRule"`
	Depths      []Depth `json:"depths"`
	Groups      []Group `json:"groups"`
	// Tests counts the dependents in test files.
	Tests    int       `json:"tests"`
	Packages []Package `json:"packages"`
	// PackageCount counts the packages reached.
	PackageCount int    `json:"packageCount"`
	Verification string `json:"verification,omitempty"`
	Partial      bool   `json:"partial"`
	// PartialReasons says why the answer may be incomplete.
	PartialReasons []string `json:"partialReasons,omitempty"`
}

// ImpactOut is the impact tool's answer.
type ImpactOut struct {
	Target Symbol `json:"target"`
	Blast
	Freshness Freshness `json:"freshness"`
	// Omitted says what was left out to stay within the size cap, and
	// Narrow how to ask a narrower question.
	Omitted []string `json:"omitted,omitempty"`
	Narrow  string   `json:"narrow,omitempty"`
	steps   int
}

func loc(l *impact.Loc) string {
	if l == nil {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Col)
}

func dependentOf(d impact.Dependent) Dependent {
	name := d.Name
	if d.TopLevel && name == "" {
		name = "(top level)"
	}
	return Dependent{Name: name, Kind: d.Kind, Package: d.Package, Location: loc(d.Location),
		Edge: d.Via.Kind, Confidence: d.Via.Confidence, Sites: d.Sites, Test: d.Test, Verification: d.Verification}
}

func dependentsOf(ds []impact.Dependent) []Dependent {
	out := make([]Dependent, 0, len(ds))
	for _, d := range ds {
		out = append(out, dependentOf(d))
	}
	return out
}

func blastOf(a *impact.Answer) Blast {
	b := Blast{Direction: a.Direction, Risk: a.Risk.Level, RiskAtLeast: a.Risk.AtLeast, RiskRule: a.Risk.Rule, Depths: []Depth{}, Groups: []Group{},
		Tests: len(a.Tests), Packages: []Package{}, PackageCount: len(a.Packages),
		Partial: a.Partial, PartialReasons: a.PartialReasons}
	for _, g := range a.Depths {
		b.Depths = append(b.Depths, Depth{Depth: g.Depth, Label: g.Label, Count: len(g.Dependents), Dependents: dependentsOf(g.Dependents)})
	}
	for _, g := range []struct {
		kind, name string
		breaks     bool
		ds         []impact.Dependent
	}{
		{impact.GroupDispatch, "calls through an interface method the target implements (keep compiling, may change behaviour)", false, a.Dispatch},
		{impact.GroupSatisfaction, "the target's type converted to an interface that declares the target method (break when it stops implementing it)", true, a.Satisfaction},
		{impact.GroupImplementation, "implementations of the target", false, a.Implementations},
	} {
		unknown := a.GroupUnknown(g.kind)
		if len(g.ds) > 0 || unknown != "" {
			b.Groups = append(b.Groups, Group{Kind: g.kind, Name: g.name, Breaks: g.breaks, Unknown: unknown,
				Count: len(g.ds), Dependents: dependentsOf(g.ds)})
		}
	}
	for _, p := range a.Packages {
		b.Packages = append(b.Packages, Package{Package: p.Package, Dependents: p.Dependents, MinDepth: p.MinDepth})
	}
	if v := a.Verification; v != nil {
		switch {
		case v.TimedOut:
			b.Verification = "the live server did not answer in time: d=1 is unverified"
		case v.Error != "":
			b.Verification = "verification failed: " + v.Error
		case v.Ran:
			b.Verification = fmt.Sprintf("d=1 checked against the live server: %d verified, %d graph-only, %d live-only", v.Verified, v.GraphOnly, v.LiveOnly)
		}
	}
	return b
}

func refOf(r impact.Ref) Symbol {
	return Symbol{Name: r.Name, Kind: r.Kind, Package: r.Package, Location: loc(r.Location), Symbol: r.Symbol}
}

func impactOut(a *impact.Answer) *ImpactOut {
	out := &ImpactOut{Blast: blastOf(a), Freshness: freshnessOf(a.Freshness)}
	out.PartialReasons = besides(out.PartialReasons, out.Freshness.Reasons)
	if a.Target != nil {
		out.Target = refOf(*a.Target)
	}
	return out
}

const impactNarrow = "To narrow: lower depth (depth=1 is what will break), raise min_confidence (0.9 keeps precise edges), set include_tests=false, or name a more specific target (FILE:LINE:COL of the definition)."

// trim leaves out, in order: the lists of the deepest depths (down to
// d=2), the groups' lists, the package list, the tail of d=1, and the
// freshness lists; counts stay.
func (b *Blast) trim() (string, bool) {
	for i := len(b.Depths) - 1; i >= 1; i-- {
		if g := &b.Depths[i]; len(g.Dependents) > 0 {
			g.Dependents = []Dependent{}
			return fmt.Sprintf("the list of d=%d (%s; counted, not listed)", g.Depth, plural(g.Count, "dependent")), true
		}
	}
	for i := range b.Groups {
		if g := &b.Groups[i]; len(g.Dependents) > 0 {
			g.Dependents = []Dependent{}
			return fmt.Sprintf("the list of %s (%d)", g.Kind, g.Count), true
		}
	}
	if n := len(b.Packages); n > 5 {
		b.Packages = b.Packages[:5]
		return fmt.Sprintf("%d of %d packages", b.PackageCount-5, b.PackageCount), true
	}
	if len(b.Depths) > 0 {
		if g := &b.Depths[0]; len(g.Dependents) > 0 {
			keep := len(g.Dependents) / 2
			g.Dependents = g.Dependents[:keep]
			return fmt.Sprintf("d=1 beyond its first %d of %d", keep, g.Count), true
		}
	}
	if len(b.Packages) > 0 {
		b.Packages = []Package{}
		return "the package list", true
	}
	return "", false
}

// note replaces an earlier note of the same list (d=1 is halved again and
// again).
func note(omitted []string, n string) []string {
	if strings.HasPrefix(n, "d=1 beyond") && len(omitted) > 0 && strings.HasPrefix(omitted[len(omitted)-1], "d=1 beyond") {
		omitted[len(omitted)-1] = n
		return omitted
	}
	return append(omitted, n)
}

func (o *ImpactOut) trim() bool {
	if n, ok := o.Blast.trim(); ok {
		o.Omitted, o.Narrow = note(o.Omitted, n), impactNarrow
		return true
	}
	if o.Freshness.shrink() {
		o.Omitted = append(o.Omitted, "freshness lists cut to their counts")
		return true
	}
	if o.Target.Symbol != "" {
		o.Target.Symbol = ""
		return true
	}
	return false
}

func (o *ImpactOut) markdown() string {
	var b strings.Builder
	verb := "Impact of"
	if o.Direction == "downstream" {
		verb = "Dependencies of"
	}
	fmt.Fprintf(&b, "## %s `%s`", verb, o.Target.Name)
	writeSymbolTail(&b, o.Target)
	b.WriteString("\n")
	o.Blast.markdown(&b)
	writeOmitted(&b, o.Omitted, o.Narrow)
	b.WriteString(o.Freshness.markdown())
	return b.String()
}

func writeSymbolTail(b *strings.Builder, s Symbol) {
	if tail := joinNonEmpty(", ", s.Kind, s.Package); tail != "" {
		fmt.Fprintf(b, " (%s)", tail)
	}
	if s.Location != "" {
		fmt.Fprintf(b, " at %s", s.Location)
	}
}

func (x *Blast) markdown(b *strings.Builder) {
	if x.Risk != "" {
		level := x.Risk
		if x.RiskAtLeast {
			level = "at least " + level
		}
		fmt.Fprintf(b, "Risk **%s**: %s\n", level, x.RiskRule)
	}
	var counts []string
	for _, g := range x.Depths {
		counts = append(counts, fmt.Sprintf("d=%d %s: %d", g.Depth, g.Label, g.Count))
	}
	counts = append(counts, fmt.Sprintf("tests: %d", x.Tests), fmt.Sprintf("packages: %d", x.PackageCount))
	b.WriteString(strings.Join(counts, " · ") + "\n")
	if x.Verification != "" {
		b.WriteString(x.Verification + "\n")
	}
	if x.Partial {
		b.WriteString("**Partial answer**")
		if len(x.PartialReasons) > 0 {
			fmt.Fprintf(b, ": %s", strings.Join(x.PartialReasons, "; "))
		} else {
			b.WriteString(" (see freshness)")
		}
		b.WriteString("\n")
	}
	for _, g := range x.Depths {
		if len(g.Dependents) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n### d=%d %s (%d)\n", g.Depth, g.Label, g.Count)
		writeDependents(b, g.Dependents, g.Count)
	}
	for _, g := range x.Groups {
		if g.Unknown != "" {
			fmt.Fprintf(b, "\n### %s: UNKNOWN\n%s: %s\n", g.Kind, g.Name, g.Unknown)
			writeDependents(b, g.Dependents, g.Count)
			continue
		}
		fmt.Fprintf(b, "\n### %s (%d)\n%s\n", g.Kind, g.Count, g.Name)
		writeDependents(b, g.Dependents, g.Count)
	}
	if len(x.Packages) > 0 {
		var ps []string
		for _, p := range x.Packages {
			ps = append(ps, fmt.Sprintf("%s (%d)", p.Package, p.Dependents))
		}
		if x.PackageCount > len(x.Packages) {
			ps = append(ps, "…")
		}
		fmt.Fprintf(b, "\nPackages: %s\n", strings.Join(ps, ", "))
	}
}

func writeDependents(b *strings.Builder, ds []Dependent, count int) {
	for _, d := range ds {
		fmt.Fprintf(b, "- `%s`", d.Name)
		if d.Kind != "" {
			fmt.Fprintf(b, " %s", d.Kind)
		}
		if d.Location != "" {
			fmt.Fprintf(b, " %s", d.Location)
		}
		fmt.Fprintf(b, " — %s %.2f", d.Edge, d.Confidence)
		if d.Sites > 1 {
			fmt.Fprintf(b, ", %d sites", d.Sites)
		}
		if d.Test {
			b.WriteString(", test")
		}
		if d.Verification != "" {
			fmt.Fprintf(b, " [%s]", d.Verification)
		}
		b.WriteString("\n")
	}
	if count > len(ds) {
		fmt.Fprintf(b, "- … %d more (left out for the size cap)\n", count-len(ds))
	}
}

// besides returns the reasons not already in the freshness block.
func besides(reasons, fresh []string) []string {
	var out []string
	for _, r := range reasons {
		if !slices.Contains(fresh, r) {
			out = append(out, r)
		}
	}
	return out
}
