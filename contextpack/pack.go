package contextpack

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/ranking"
	"github.com/lspgraph/lspgraph/resolve"
	"github.com/lspgraph/lspgraph/scope"
)

// DefaultBudget is the token budget when none is given.
const DefaultBudget = 4000

// ItemOverhead is the token estimate of an item's framing (its heading,
// role, score, fences), added to ceil(bytes/4) of its text.
const ItemOverhead = 10

// maxListedDrops bounds the dropped items the manifest names one by one;
// the rest are counted.
const maxListedDrops = 50

// Options configure Build.
type Options struct {
	Budget int        // tokens; 0 means DefaultBudget
	Scope  scope.Spec // the zero value means the closure
	Source Source
	// MinConfidence drops edges below it.
	MinConfidence float64
	// Freshness is attached to the pack as given (freshness.Compute).
	Freshness *freshness.Block
}

// Location is a place in a document: 1-based line and column (UTF-8 bytes)
// for people, and the 0-based graph range.
type Location struct {
	Path  string `json:"path"`
	Line  int    `json:"line"`
	Col   int    `json:"col"`
	Range Range  `json:"range"`
}

// Range is a 0-based, half-open graph range (UTF-8 byte columns).
type Range struct {
	StartLine uint32 `json:"startLine"`
	StartCol  uint32 `json:"startCol"`
	EndLine   uint32 `json:"endLine"`
	EndCol    uint32 `json:"endCol"`
}

func location(l graph.Location) Location {
	return Location{
		Path: l.Path, Line: int(l.Range.Start.Line) + 1, Col: int(l.Range.Start.Col) + 1,
		Range: Range{l.Range.Start.Line, l.Range.Start.Col, l.Range.End.Line, l.Range.End.Col},
	}
}

func (l Location) String() string { return fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Col) }

// Item is one piece of evidence.
type Item struct {
	Role     string    `json:"role"`
	Name     string    `json:"name"`
	Symbol   string    `json:"symbol,omitempty"`
	Kind     string    `json:"kind,omitempty"`
	Package  string    `json:"package,omitempty"`
	Location Location  `json:"location"`
	Site     *Location `json:"site,omitempty"`
	Reason   string    `json:"reason"`
	Score    float64   `json:"score"`
	Snippet  *Snippet  `json:"snippet,omitempty"`
	// Note says why the snippet is smaller than the whole definition, or
	// absent: downgraded for the budget, source absent, path escapes.
	Note   string `json:"note,omitempty"`
	Tokens int    `json:"tokens"`
}

// Dropped is an item left out for the budget.
type Dropped struct {
	Role     string   `json:"role"`
	Name     string   `json:"name"`
	Symbol   string   `json:"symbol,omitempty"`
	Location Location `json:"location"`
	Score    float64  `json:"score"`
}

// OutOfScope counts the candidates of one package outside the scope.
type OutOfScope struct {
	Package  string         `json:"package"`
	Count    int            `json:"count"`
	Roles    map[string]int `json:"roles"`
	Examples []string       `json:"examples"` // "namesake `quote` (packages/user/src/index.ts:8)"
	Message  string         `json:"message"`
}

// Omissions is what the pack does not show, never silently.
type Omissions struct {
	// Budget lists the items dropped because they did not fit, best first
	// (at most maxListedDrops; BudgetCount counts them all).
	Budget      []Dropped `json:"budget"`
	BudgetCount int       `json:"budgetCount"`
	// Downgraded counts the items shown with less snippet than their
	// source offers.
	Downgraded int          `json:"downgraded"`
	OutOfScope []OutOfScope `json:"outOfScope"`
}

// Target describes the symbol the pack is about.
type Target struct {
	Symbol   string   `json:"symbol"`
	Name     string   `json:"name"`
	Kind     string   `json:"kind,omitempty"`
	Package  string   `json:"package,omitempty"`
	Location Location `json:"location"`
}

// ScopeInfo tells which packages the pack was built within.
type ScopeInfo struct {
	Spec     string   `json:"spec"`
	Start    string   `json:"start"`
	Packages []string `json:"packages"`
}

// Pack is a context pack.
type Pack struct {
	Target    Target           `json:"target"`
	Scope     ScopeInfo        `json:"scope"`
	Budget    int              `json:"budget"`
	Tokens    int              `json:"tokens"`
	Items     []Item           `json:"items"`
	Omitted   Omissions        `json:"omitted"`
	Freshness *freshness.Block `json:"freshness,omitempty"`
}

// Tokens estimates the tokens of a text: ceil(bytes/4).
func Tokens(s string) int { return (len(s) + 3) / 4 }

func (it *Item) cost() int {
	n := len(it.Location.Path) + len(it.Name) + len(it.Reason) + len(it.Note)
	if it.Snippet != nil {
		n += len(it.Snippet.Text)
	}
	return ItemOverhead + (n+3)/4
}

// Build ranks target's neighbourhood within the scope and fits it into the
// budget.
func Build(ctx context.Context, r *graph.Reader, a *scope.Analysis, target graph.Symbol, o Options) (*Pack, error) {
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	if !o.Scope.Repo && !o.Scope.Closure && len(o.Scope.Packages) == 0 {
		o.Scope.Closure = true // the zero Spec means the default, the closure
	}
	start := a.PackageOfDocument(target.Def.Path)
	cl, err := a.For(ctx, start, o.Scope)
	if err != nil {
		return nil, fmt.Errorf("contextpack: %w", err)
	}
	res, err := ranking.Rank(ctx, r, target, ranking.Options{Analysis: a, Scope: cl, MinConfidence: o.MinConfidence})
	if err != nil {
		return nil, fmt.Errorf("contextpack: %w", err)
	}
	p := &Pack{
		Target: Target{Symbol: target.ID, Name: displayName(target), Kind: target.Kind, Package: start, Location: location(target.Def)},
		Scope:  ScopeInfo{Spec: specString(o.Scope), Start: start, Packages: cl.Names()},
		Budget: budget,
		Items:  []Item{},
		Omitted: Omissions{
			Budget:     []Dropped{},
			OutOfScope: outOfScope(res.OutOfScope),
		},
		Freshness: o.Freshness,
	}
	texts := map[string]textResult{}
	defDropped := false
	for i := range res.Items {
		c := &res.Items[i]
		it, forms := item(c, o.Source, texts)
		placed := false
		if defDropped {
			forms = nil
		}
		for fi, f := range forms {
			it.Snippet = f.snippet
			it.Note = f.note
			if fi > 0 && f.snippet != forms[0].snippet {
				it.Note = joinNotes(f.note, downgradeNote(forms[0].snippet, f.snippet))
			}
			cost := it.cost()
			if p.Tokens+cost <= budget {
				it.Tokens = cost
				p.Tokens += cost
				p.Items = append(p.Items, it)
				if fi > 0 {
					p.Omitted.Downgraded++
				}
				placed = true
				break
			}
		}
		if !placed && i == 0 {
			// Without its definition no neighbour makes sense: drop them all.
			defDropped = true
		}
		if !placed {
			p.Omitted.BudgetCount++
			if len(p.Omitted.Budget) < maxListedDrops {
				p.Omitted.Budget = append(p.Omitted.Budget, Dropped{Role: it.Role, Name: it.Name, Symbol: it.Symbol, Location: it.Location, Score: it.Score})
			}
		}
	}
	return p, nil
}

func specString(s scope.Spec) string {
	if !s.Repo && !s.Closure && len(s.Packages) == 0 {
		return "closure"
	}
	return s.String()
}

func displayName(s graph.Symbol) string {
	if q := resolve.DisplayQualified(s); q != "" && q != s.ID {
		return q
	}
	if s.DisplayName != "" {
		return s.DisplayName
	}
	return scope.ShortName(s.ID)
}

type textResult struct {
	text []byte
	err  error
}

// form is one way to show an item, from richest to poorest.
type form struct {
	snippet *Snippet
	note    string
}

// item converts a candidate and lists its forms: body, signature, location.
func item(c *ranking.Candidate, src Source, texts map[string]textResult) (Item, []form) {
	loc := c.Location()
	it := Item{
		Role: string(c.Role), Name: c.Name(), Symbol: c.Symbol.ID, Kind: c.Symbol.Kind,
		Package: c.Package, Location: location(loc), Reason: c.Reason, Score: c.Score,
	}
	if c.Site != nil {
		l := location(*c.Site)
		it.Site = &l
	}
	if loc.Path == "" {
		return it, []form{{note: "no location in the workspace"}}
	}
	tr, ok := texts[loc.Path]
	if !ok {
		b, err := src.Read(loc.Path)
		tr = textResult{b, err}
		texts[loc.Path] = tr
	}
	if tr.err != nil {
		note := "source absent: snippet unavailable"
		if errors.Is(tr.err, ErrEscapes) {
			note = "snippet withheld: path escapes the workspace"
		}
		return it, []form{{note: note}}
	}
	var cs cuts
	if c.Symbol.Def.Path != "" {
		cs = cutDefinition(tr.text, loc.Path, c.Symbol.Def, c.Symbol.DefExtent, c.Site)
	} else {
		cs = cutSite(tr.text, loc)
	}
	var forms []form
	if cs.body != nil {
		forms = append(forms, form{snippet: cs.body})
	}
	if cs.signature != nil {
		forms = append(forms, form{snippet: cs.signature})
	}
	forms = append(forms, form{})
	return it, forms
}

func downgradeNote(from, to *Snippet) string {
	if from == nil {
		return ""
	}
	got := "location"
	if to != nil {
		got = to.Kind
	}
	return fmt.Sprintf("%s cut to %s for the budget", from.Kind, got)
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// outOfScope groups out-of-scope candidates by package.
func outOfScope(cs []ranking.Candidate) []OutOfScope {
	by := map[string]*OutOfScope{}
	var order []string
	for i := range cs {
		c := &cs[i]
		pkg := c.Package
		o := by[pkg]
		if o == nil {
			o = &OutOfScope{Package: pkg, Roles: map[string]int{}}
			by[pkg] = o
			order = append(order, pkg)
		}
		o.Count++
		o.Roles[string(c.Role)]++
		if len(o.Examples) < 3 {
			l := c.Location()
			o.Examples = append(o.Examples, fmt.Sprintf("%s `%s` (%s:%d)", c.Role, c.Name(), l.Path, l.Range.Start.Line+1))
		}
	}
	out := make([]OutOfScope, 0, len(order))
	for _, pkg := range order {
		o := by[pkg]
		var roles []string
		for _, r := range sortedKeys(o.Roles) {
			roles = append(roles, fmt.Sprintf("%d %s", o.Roles[r], r))
		}
		o.Message = fmt.Sprintf("this may involve `%s`, outside the current scope (%s)", pkg, strings.Join(roles, ", "))
		out = append(out, *o)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Package < out[j].Package
	})
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
