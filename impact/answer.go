package impact

import (
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
)

// Verification marks of a d=1 dependent.
const (
	Verified   = "verified"   // the graph and the live server both report it
	GraphOnly  = "graph-only" // the graph reports it, the live server did not
	LiveOnly   = "live-only"  // the live server reports it, the graph lacked it
	Unverified = "unverified" // verification ran but gave no answer (timeout, error)
)

// Risk levels.
const (
	RiskLow      = "LOW"
	RiskMedium   = "MEDIUM"
	RiskHigh     = "HIGH"
	RiskCritical = "CRITICAL"
	RiskUnknown  = "UNKNOWN"
)

// DepthLabel names a depth of an upstream answer: d=1 will break, d=2
// likely affected, d=3 and beyond may need testing.
func DepthLabel(d int) string {
	switch d {
	case 1:
		return "will break"
	case 2:
		return "likely affected"
	}
	return "may need testing"
}

// Answer is the blast radius of one or more targets.
type Answer struct {
	Target  *Ref  `json:"target,omitempty"`  // the one target of [Compute]
	Targets []Ref `json:"targets,omitempty"` // several targets ([Changes])
	// Direction is "upstream" (who depends on the target) or "downstream"
	// (what the target depends on).
	Direction string `json:"direction"`
	Query     Query  `json:"query"`
	// Depths holds one group per depth 1..MaxDepth, empty groups included.
	Depths []DepthGroup `json:"depths"`
	// Implementations lists what implements the target (an interface or an
	// interface method). Changing the target's signature breaks them where
	// they are used as the interface.
	Implementations []Dependent `json:"implementations,omitempty"`
	// Implements lists the interfaces (or interface methods) the target
	// implements.
	Implements []Ref `json:"implements,omitempty"`
	// Dispatch lists the declarations that call an interface method the
	// target implements: they keep compiling but may change behaviour.
	Dispatch []Dependent `json:"dispatch,omitempty"`
	// Satisfaction lists the places where the target's type is used as an
	// interface it implements: they break when the target stops
	// implementing it.
	Satisfaction []Dependent `json:"satisfaction,omitempty"`
	// UnknownGroups lists the groups that could not be computed, with the
	// reason: their empty lists mean "not known", never "nothing breaks".
	UnknownGroups []UnknownGroup `json:"unknownGroups,omitempty"`
	// Tests are the dependents (any depth or group) in test documents.
	Tests        []Dependent       `json:"tests"`
	Packages     []PackageImpact   `json:"packages"`
	CrossPackage []CrossEdge       `json:"crossPackage"`
	Risk         Risk              `json:"risk"`
	Verification *VerificationInfo `json:"verification,omitempty"`
	// LiveOnly lists the sites the live server reported that the graph
	// lacked, for the caller to add to the live layer.
	LiveOnly  []LiveSite      `json:"liveOnly,omitempty"`
	Freshness freshness.Block `json:"freshness"`
	// Partial is set when the answer may be incomplete: see PartialReasons.
	Partial        bool     `json:"partial"`
	PartialReasons []string `json:"partialReasons,omitempty"`
	// Truncated is set when LimitPerDepth cut a depth short or the walk
	// stopped at MaxDependents (then Skipped says what it left out).
	Truncated bool `json:"truncated"`
	// Skipped counts what a walk stopped at MaxDependents left out; nil
	// when it did not stop.
	Skipped *Skipped `json:"skipped,omitempty"`
	// Changes lists the symbols a diff touched ([Changes] only).
	Changes []ChangedSymbol `json:"changes,omitempty"`
	// Files lists the changed files and lines ([Changes] only).
	Files []FileChange `json:"files,omitempty"`
}

// UnknownGroup is a group the graph could not compute.
type UnknownGroup struct {
	Group  string `json:"group"`
	Reason string `json:"reason"`
}

// GroupUnknown returns why the named group could not be computed, or "".
func (a *Answer) GroupUnknown(group string) string {
	var reasons []string
	for _, u := range a.UnknownGroups {
		if u.Group == group {
			reasons = append(reasons, u.Reason)
		}
	}
	return strings.Join(reasons, "; ")
}

// Query echoes the options an answer was computed with.
type Query struct {
	MaxDepth      int      `json:"maxDepth"`
	MinConfidence float64  `json:"minConfidence"`
	Kinds         []string `json:"kinds"`
	IncludeTests  bool     `json:"includeTests"`
	LimitPerDepth int      `json:"limitPerDepth,omitempty"`
	MaxDependents int      `json:"maxDependents,omitempty"`
}

// Skipped counts what the walk left out when it stopped at MaxDependents.
type Skipped struct {
	// Unexpanded counts the targets and dependents whose own dependents
	// were not read (each may hide any number of further dependents).
	Unexpanded int `json:"unexpanded"`
	// Unlisted counts the distinct dependents found but not listed.
	Unlisted int `json:"unlisted"`
}

// Ref identifies a symbol in an answer.
type Ref struct {
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Kind     string `json:"kind,omitempty"`
	Package  string `json:"package,omitempty"`
	Location *Loc   `json:"location,omitempty"`
	External bool   `json:"external,omitempty"`
}

// Loc is a location with 1-based line and column (UTF-8 bytes), as editors
// and compilers print them.
type Loc struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	EndLine int    `json:"endLine,omitempty"`
	EndCol  int    `json:"endCol,omitempty"`
}

// DepthGroup is the dependents at one depth.
type DepthGroup struct {
	Depth      int         `json:"depth"`
	Label      string      `json:"label"`
	Dependents []Dependent `json:"dependents"`
	Truncated  bool        `json:"truncated,omitempty"`
}

// Dependent is one declaration reached by the walk.
type Dependent struct {
	Ref
	// Depth is the distance from the target in the depth groups (1 will
	// break, 2 likely affected, 3 and beyond may need testing); 0, and
	// left out of the JSON, for the entries of the other groups, whose
	// Group says what they are.
	Depth int `json:"depth,omitempty"`
	// Breaks is set for the entries that stop compiling when the target's
	// signature changes: the d=1 dependents and the satisfaction group.
	Breaks bool `json:"breaks,omitempty"`
	// Via is the edge that brought the dependent in.
	Via Via `json:"via"`
	// Sites is the number of places the dependent uses what it depends on.
	Sites int `json:"sites"`
	// SiteLocations lists up to maxSiteLocations of those places.
	SiteLocations []Loc `json:"siteLocations,omitempty"`
	Test          bool  `json:"test,omitempty"`
	// Verification is one of Verified, GraphOnly, LiveOnly, Unverified;
	// empty when no verification ran.
	Verification string `json:"verification,omitempty"`
	// TopLevel is set when the use is outside any declaration (a
	// package-level initializer, a module body): Symbol is then empty.
	TopLevel bool `json:"topLevel,omitempty"`
	// Group is "dispatch", "satisfaction" or "implementation" for entries
	// of those groups, empty for depth groups.
	Group string `json:"group,omitempty"`
}

// Via is the edge that brought a dependent in.
type Via struct {
	Kind       string  `json:"kind"`
	From       string  `json:"from"`
	To         string  `json:"to"`
	Source     string  `json:"source"`
	Commit     string  `json:"commit,omitempty"`
	Layer      string  `json:"layer,omitempty"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason"`
}

// PackageImpact counts the dependents of one package.
type PackageImpact struct {
	Package    string `json:"package"`
	Dependents int    `json:"dependents"`
	// MinDepth is the smallest depth at which the package is reached (0
	// for the target's own package).
	MinDepth int  `json:"minDepth"`
	Target   bool `json:"target,omitempty"`
	Tests    int  `json:"tests,omitempty"`
}

// CrossEdge is an edge of the walk whose ends lie in different packages.
type CrossEdge struct {
	From        string `json:"from"`
	FromName    string `json:"fromName"`
	FromPackage string `json:"fromPackage"`
	To          string `json:"to"`
	ToName      string `json:"toName"`
	ToPackage   string `json:"toPackage"`
	Kind        string `json:"kind"`
	Depth       int    `json:"depth"`
}

// Risk is the level and the rule that produced it.
type Risk struct {
	Level string `json:"level"`
	// AtLeast is set when Level is a lower bound: the graph cannot vouch
	// for completeness (syntax-only or partial facts, changed documents, a
	// group it could not compute).
	AtLeast bool   `json:"atLeast,omitempty"`
	Rule    string `json:"rule"`
	// Breaking is the number of d=1 and satisfaction dependents.
	Breaking int `json:"breaking"`
	// Packages is the number of packages other than the target's reached.
	Packages int `json:"packages"`
	Tests    int `json:"tests"`
	Total    int `json:"total"`
}

// VerificationInfo says how the d=1 set was checked against a live server.
type VerificationInfo struct {
	Ran      bool   `json:"ran"`
	TimedOut bool   `json:"timedOut,omitempty"`
	Error    string `json:"error,omitempty"`
	// LiveSites is the number of locations the server reported.
	LiveSites int `json:"liveSites"`
	Verified  int `json:"verified"`
	GraphOnly int `json:"graphOnly"`
	LiveOnly  int `json:"liveOnly"`
}

// LiveSite is a reference the live server reported and the graph lacked.
type LiveSite struct {
	// Location is the reference's range.
	Location graph.Location `json:"location"`
	// Symbol is the target it refers to.
	Symbol string `json:"symbol"`
	// Enclosing is the declaration containing it, "" at top level.
	Enclosing string `json:"enclosing,omitempty"`
}
