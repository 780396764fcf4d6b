package contextpack

import (
	"context"
	"errors"
	"fmt"
	"math"
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

// Options configure Build.
type Options struct {
	Budget int        // tokens of the rendered answer; 0 means DefaultBudget
	Format Format     // what the budget is counted on; "" means FormatJSON
	Scope  scope.Spec // the zero value means the closure
	Source Source
	// MinConfidence drops edges below it.
	MinConfidence float64
	// Freshness is attached to the pack as given (freshness.Compute); it
	// counts against the budget.
	Freshness *freshness.Block
	// History, when set, adds the files and functions that changed
	// together with the target's in the repository's history.
	History ranking.History
	// Without turns ranking signals off (ranking.Options.Without), to
	// measure what each adds.
	Without []string
	// Weights replace the ranking's defaults when set (an evaluation
	// fitting them).
	Weights *ranking.Weights
	// Reads, when set, keeps the ranking's graph reads across packs on the
	// same store version (ranking.Cache).
	Reads *ranking.Cache
}

// Item is one piece of evidence. Its path is its File's.
type Item struct {
	Role string `json:"role"`
	Name string `json:"name"`
	Kind string `json:"kind,omitempty"`
	Line int    `json:"line"` // 1-based
	// SiteLine is the 1-based line where the relation shows (a call
	// site), when it is not the definition's.
	SiteLine int     `json:"site,omitempty"`
	Reason   string  `json:"reason"`
	Score    float64 `json:"score"`
	// Show is how much of the source is shown: body, excerpt, doc,
	// signature, site, line; empty for the location alone (no text).
	Show  string `json:"show,omitempty"`
	Start int    `json:"start,omitempty"` // 1-based line of Text's first line
	Text  string `json:"text,omitempty"`
	// Note says why the text is less than the whole definition, or absent.
	Note string `json:"note,omitempty"`
	// Path is the item's document (its File's path; not encoded).
	Path string `json:"-"`
}

// Location is the item's place, PATH:LINE.
func (it *Item) Location() string { return fmt.Sprintf("%s:%d", it.Path, it.Line) }

// File groups the items of one document, so that its path is written once.
type File struct {
	Path string `json:"path"`
	// Package is the document's package when it is not the target's.
	Package string `json:"package,omitempty"`
	Items   []Item `json:"items"`
}

// Dropped is an item left out for the budget.
type Dropped struct {
	Role  string  `json:"role"`
	Name  string  `json:"name"`
	At    string  `json:"at"` // PATH:LINE
	Score float64 `json:"score"`
}

// OutOfScope counts the candidates of one package outside the scope.
type OutOfScope struct {
	Package  string   `json:"package"`
	Count    int      `json:"count"`
	Examples []string `json:"examples"` // "namesake `quote` (packages/user/src/index.ts:8)"
	Message  string   `json:"message"`
}

// Omissions is what the pack does not show, never silently.
type Omissions struct {
	// BudgetCount counts the candidates left out for the budget; Budget
	// names the best of them while the budget has room.
	BudgetCount int       `json:"budgetCount"`
	Budget      []Dropped `json:"budget,omitempty"`
	// Downgraded counts the items shown with less text than their source
	// offers.
	Downgraded int `json:"downgraded"`
	// OutOfScopeCount counts the candidates outside the scope; OutOfScope
	// describes their packages while the budget has room.
	OutOfScopeCount int          `json:"outOfScopeCount"`
	OutOfScope      []OutOfScope `json:"outOfScope,omitempty"`
	// Cut says what of the manifest itself was shortened for the budget.
	Cut []string `json:"cut,omitempty"`
}

// Target describes the symbol the pack is about.
type Target struct {
	Symbol  string `json:"symbol"`
	Name    string `json:"name"`
	Kind    string `json:"kind,omitempty"`
	Package string `json:"package,omitempty"`
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
}

// Location is the target's place, PATH:LINE:COL.
func (t Target) Location() string { return fmt.Sprintf("%s:%d:%d", t.Path, t.Line, t.Col) }

// ScopeInfo tells which packages the pack was built within.
type ScopeInfo struct {
	Spec     string   `json:"spec"`
	Packages []string `json:"packages"`
}

// Pack is a context pack, fitted to its budget in its format.
type Pack struct {
	Target Target    `json:"target"`
	Scope  ScopeInfo `json:"scope"`
	Format Format    `json:"format"`
	Budget int       `json:"budget"`
	// Tokens is the estimate ([Tokens]) of the whole rendered answer in
	// Format, this field included; never above Budget.
	Tokens    int              `json:"tokens"`
	Files     []File           `json:"files"`
	Omitted   Omissions        `json:"omitted"`
	Freshness *freshness.Block `json:"freshness,omitempty"`
}

// Items returns the items of every file in order, each with its Path.
func (p *Pack) Items() []Item {
	var out []Item
	for _, f := range p.Files {
		for _, it := range f.Items {
			it.Path = f.Path
			out = append(out, it)
		}
	}
	return out
}

// ErrBudget marks a budget too small for the smallest answer.
var ErrBudget = errors.New("contextpack: budget too small")

// Build ranks target's neighbourhood within the scope and fits it into the
// budget, counted on the answer rendered in o.Format.
func Build(ctx context.Context, r *graph.Reader, a *scope.Analysis, target graph.Symbol, o Options) (*Pack, error) {
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	format := o.Format
	if format == "" {
		format = FormatJSON
	}
	if !format.valid() {
		return nil, fmt.Errorf("contextpack: unknown format %q (json, json-pretty, markdown, text)", format)
	}
	if !o.Scope.Repo && !o.Scope.Closure && len(o.Scope.Packages) == 0 {
		o.Scope.Closure = true // the zero Spec means the default, the closure
	}
	src := o.Source.open()
	defer src.Close()
	target = named(target, src)
	start := a.PackageOfDocument(target.Def.Path)
	cl, err := a.For(ctx, start, o.Scope)
	if err != nil {
		return nil, fmt.Errorf("contextpack: %w", err)
	}
	res, err := ranking.Rank(ctx, r, target, ranking.Options{Analysis: a, Scope: cl, MinConfidence: o.MinConfidence, History: o.History, Without: o.Without, Weights: o.Weights, Cache: o.Reads})
	if err != nil {
		return nil, fmt.Errorf("contextpack: %w", err)
	}
	l := target.Def.Range.Start
	p := &Pack{
		Target: Target{Symbol: target.ID, Name: displayName(target), Kind: target.Kind, Package: start,
			Path: target.Def.Path, Line: int(l.Line) + 1, Col: int(l.Col) + 1},
		Scope:     ScopeInfo{Spec: specString(o.Scope), Packages: cl.Names()},
		Format:    format,
		Budget:    budget,
		Files:     []File{},
		Freshness: shortFreshness(o.Freshness),
	}
	texts := map[string]textResult{}
	// Candidates far down the ranking cannot fit the budget: they are
	// counted as dropped without reading their source.
	n := min(len(res.Items), maxConsidered(budget))
	paths := make([]string, 0, n)
	for i := range res.Items[:n] {
		paths = append(paths, res.Items[i].Location().Path)
	}
	src.statAll(paths)
	cands := make([]*entry, 0, n)
	for i := range res.Items[:n] {
		cands = append(cands, newEntry(&res.Items[i], src, texts, start))
	}
	var costs *textCosts
	if o.Source.Cache != nil {
		costs = &o.Source.Cache.costs
	}
	if err := fit(p, cands, len(res.Items)-n, outOfScope(res.OutOfScope), len(res.OutOfScope), costs); err != nil {
		return nil, err
	}
	return p, nil
}

// named gives a document-local symbol ("local 4 src/a.ts", which indexers
// leave unnamed) the name its definition spells in the source.
func named(s graph.Symbol, src *docReader) graph.Symbol {
	if s.DisplayName != "" || !strings.HasPrefix(s.ID, "local ") || s.Def.Path == "" {
		return s
	}
	r := s.Def.Range
	if r.Start.Line != r.End.Line || r.End.Col <= r.Start.Col {
		return s
	}
	text, err := src.Read(s.Def.Path)
	if err != nil {
		return s
	}
	ls := lines(text)
	if int(r.Start.Line) >= len(ls) || int(r.End.Col) > len(ls[r.Start.Line]) {
		return s
	}
	if n := ls[r.Start.Line][r.Start.Col:r.End.Col]; n != "" {
		s.DisplayName = n
	}
	return s
}

// shortFreshness copies a freshness block with its commits cut to 12 hex
// digits (git's short form): a full hash costs some 30 tokens.
func shortFreshness(f *freshness.Block) *freshness.Block {
	if f == nil {
		return nil
	}
	c := *f
	for _, h := range []*string{&c.BaseCommit, &c.Head} {
		if len(*h) > 12 {
			*h = (*h)[:12]
		}
	}
	return &c
}

// maxConsidered bounds the candidates priced for a budget: some 2.5 times
// the items a pack shows (about one per 150 tokens at 8000), so that
// pricing (the most of a pack's cost after ranking) stays bounded; the
// history evaluation loses no recall to it (0.412 against 0.413 pricing
// one per 40 tokens).
func maxConsidered(budget int) int { return max(60, budget/60) }

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
	lines []string // split once per document
	err   error
}

// form is one way to show an item, from richest to poorest.
type form struct {
	show  string
	start int
	text  string
	note  string
}

// entry is a ranked candidate with its forms.
type entry struct {
	item    Item
	pkg     string // package, when not the target's
	forms   []form // richest first; the last is the location
	capped  bool   // the body form is an excerpt cut to the cap
	bodyLen int    // lines of the whole body, for the excerpt's note
}

// newEntry converts a candidate and lists its forms: body, doc,
// signature, location (or site lines for a place with no definition).
func newEntry(c *ranking.Candidate, src *docReader, texts map[string]textResult, targetPkg string) *entry {
	loc := c.Location()
	it := Item{
		Role: string(c.Role), Name: c.Name(), Kind: c.Symbol.Kind,
		Line:   int(loc.Range.Start.Line) + 1,
		Reason: c.Reason, Score: math.Round(c.Score*100) / 100, Path: loc.Path,
	}
	if c.Site != nil && c.Site.Path == loc.Path && c.Site.Range.Start.Line != loc.Range.Start.Line {
		it.SiteLine = int(c.Site.Range.Start.Line) + 1
	}
	e := &entry{item: it}
	if c.Package != targetPkg {
		e.pkg = c.Package
	}
	locForm := form{show: SnippetLocation}
	if loc.Path == "" {
		locForm.note = "no location in the workspace"
		e.forms = []form{locForm}
		return e
	}
	tr, ok := texts[loc.Path]
	if !ok {
		ls, err := src.readLines(loc.Path)
		tr = textResult{lines: ls, err: err}
		texts[loc.Path] = tr
	}
	if tr.err != nil {
		locForm.note = "source absent: snippet unavailable"
		if errors.Is(tr.err, ErrEscapes) {
			locForm.note = "snippet withheld: path escapes the workspace"
		}
		e.forms = []form{locForm}
		return e
	}
	var cs cuts
	if c.Symbol.Def.Path != "" {
		cs = cutDefinition(tr.lines, loc.Path, c.Symbol.Def, c.Symbol.DefExtent, c.Site)
	} else {
		cs = cutSite(tr.lines, loc)
	}
	for _, s := range []*Snippet{cs.body, cs.doc, cs.signature} {
		if s != nil {
			e.forms = append(e.forms, form{show: s.Kind, start: s.StartLine, text: s.Text})
		}
	}
	e.forms = append(e.forms, locForm)
	return e
}

// outOfScope groups out-of-scope candidates by package.
func outOfScope(cs []ranking.Candidate) []OutOfScope {
	type group struct {
		o     OutOfScope
		roles map[string]int
	}
	by := map[string]*group{}
	var order []string
	for i := range cs {
		c := &cs[i]
		pkg := c.Package
		g := by[pkg]
		if g == nil {
			g = &group{o: OutOfScope{Package: pkg}, roles: map[string]int{}}
			by[pkg] = g
			order = append(order, pkg)
		}
		g.o.Count++
		g.roles[string(c.Role)]++
		if len(g.o.Examples) < 3 {
			l := c.Location()
			g.o.Examples = append(g.o.Examples, fmt.Sprintf("%s `%s` (%s:%d)", c.Role, c.Name(), l.Path, l.Range.Start.Line+1))
		}
	}
	out := make([]OutOfScope, 0, len(order))
	for _, pkg := range order {
		g := by[pkg]
		var roles []string
		for _, r := range sortedKeys(g.roles) {
			roles = append(roles, fmt.Sprintf("%d %s", g.roles[r], r))
		}
		g.o.Message = fmt.Sprintf("this may involve `%s`, outside the current scope (%s)", pkg, strings.Join(roles, ", "))
		out = append(out, g.o)
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
