package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/workspace"
)

// ContextItem is one piece of a context pack; its snippet is in the text.
type ContextItem struct {
	// Role is why it is in the pack: definition, caller, callee, type,
	// test, namesake, …
	Role     string  `json:"role"`
	Name     string  `json:"name"`
	Kind     string  `json:"kind,omitempty"`
	Location string  `json:"location"`
	Reason   string  `json:"reason"`
	Score    float64 `json:"score"`
	// Snippet is the snippet's kind (body, signature, site), "" when none.
	Snippet string `json:"snippet,omitempty"`
	Tokens  int    `json:"tokens"`
	Note    string `json:"note,omitempty"`
	text    string
	lang    string
	start   int
}

// ContextOut is the context tool's answer.
type ContextOut struct {
	Target Symbol `json:"target"`
	Scope  string `json:"scope"`
	// Packages are the packages the pack was built within (the first
	// ones; PackageCount counts them).
	Packages     []string      `json:"packages"`
	PackageCount int           `json:"packageCount"`
	Budget       int           `json:"budget"`
	Tokens       int           `json:"tokens"`
	Items        []ContextItem `json:"items"`
	// LeftOut counts the candidates left out for the budget; the first are
	// named in LeftOutNames.
	LeftOut      int      `json:"leftOut"`
	LeftOutNames []string `json:"leftOutNames"`
	// OutOfScope says which packages outside the scope had candidates.
	OutOfScope []string  `json:"outOfScope"`
	Freshness  Freshness `json:"freshness"`
	Omitted    []string  `json:"omitted,omitempty"`
	Narrow     string    `json:"narrow,omitempty"`
	cut        int
}

func (s *server) context(ctx context.Context, in ContextIn) (shaped, error) {
	root, err := s.root(in.Root)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Target) == "" {
		return nil, invalidParams("context: target is empty: give a symbol name, FILE:LINE:COL or a symbol string")
	}
	budget := in.Budget
	if budget == 0 {
		budget = 8000
	}
	// The snippets share the cap with the rest of the answer.
	var omitted []string
	if room := s.o.MaxTokens * 7 / 10; budget > room {
		omitted = append(omitted, fmt.Sprintf("budget %d lowered to %d for the answer's size cap of %d tokens", budget, room, s.o.MaxTokens))
		budget = room
	}
	var a contextpack.Answer
	if err := s.ask.Ask(ctx, root, workspace.CommandContext, contextpack.Request{Symbol: in.Target, Budget: budget, Scope: in.Scope, Format: string(contextpack.FormatMarkdown)}, &a); err != nil {
		if isTargetError(err) {
			return nil, s.targetError(ctx, root, in.Target, err)
		}
		return nil, &toolError{err.Error()}
	}
	if a.Pack == nil {
		return nil, &toolError{"the session gave no context pack"}
	}
	p := a.Pack
	out := &ContextOut{
		Target: Symbol{Name: p.Target.Name, Kind: p.Target.Kind, Package: p.Target.Package, Location: p.Target.Location(), Symbol: p.Target.Symbol},
		Scope:  p.Scope.Spec, Packages: p.Scope.Packages, PackageCount: len(p.Scope.Packages), Budget: p.Budget, Tokens: p.Tokens,
		Items: []ContextItem{}, LeftOut: p.Omitted.BudgetCount, LeftOutNames: []string{}, OutOfScope: []string{}, Omitted: omitted,
	}
	if out.Packages == nil {
		out.Packages = []string{}
	}
	if len(out.Packages) > 10 {
		out.Packages = out.Packages[:10]
	}
	for _, it := range p.Items() {
		ci := ContextItem{Role: it.Role, Name: it.Name, Kind: it.Kind, Location: it.Location(), Reason: it.Reason, Score: it.Score, Tokens: contextpack.Tokens(it.Text), Note: it.Note}
		if it.Text != "" {
			ci.Snippet, ci.text, ci.lang, ci.start = it.Show, it.Text, contextpack.Language(it.Path), it.Start
		}
		out.Items = append(out.Items, ci)
	}
	for i, d := range p.Omitted.Budget {
		if i == 10 {
			break
		}
		out.LeftOutNames = append(out.LeftOutNames, fmt.Sprintf("%s %s (%s)", d.Role, d.Name, d.At))
	}
	for _, o := range p.Omitted.OutOfScope {
		out.OutOfScope = append(out.OutOfScope, o.Message)
	}
	if p.Freshness != nil {
		out.Freshness = freshnessOf(*p.Freshness)
	}
	if len(omitted) > 0 {
		out.Narrow = contextNarrow
	}
	return out, nil
}

const contextNarrow = "To narrow: lower budget, keep scope=closure, or ask for a more specific target."

func (o *ContextOut) trim() bool {
	o.Narrow = contextNarrow

	if len(o.LeftOutNames) > 0 || len(o.OutOfScope) > 0 {
		o.LeftOutNames, o.OutOfScope = []string{}, []string{}
		o.Omitted = append(o.Omitted, "the names of the candidates left out for the budget and out of scope")
		return true
	}
	if n := len(o.Items); n > 1 {
		o.cut++
		o.Items = o.Items[:n-1]
		o.Omitted = noteCount(o.Omitted, "the lowest-ranked items: ", o.cut)
		return true
	}
	if len(o.Items) == 1 && o.Items[0].text != "" {
		o.Items[0].text, o.Items[0].Note = "", "snippet left out for the size cap"
		o.Omitted = append(o.Omitted, "the target's snippet")
		return true
	}
	if o.Freshness.shrink() {
		o.Omitted = append(o.Omitted, "freshness lists cut to their counts")
		return true
	}
	return false
}

// noteCount keeps one note "PREFIX N" up to date.
func noteCount(omitted []string, prefix string, n int) []string {
	msg := prefix + fmt.Sprint(n)
	for i, m := range omitted {
		if strings.HasPrefix(m, prefix) {
			omitted[i] = msg
			return omitted
		}
	}
	return append(omitted, msg)
}

func (o *ContextOut) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Context for `%s`", o.Target.Name)
	writeSymbolTail(&b, o.Target)
	fmt.Fprintf(&b, "\nscope %s (%s), %d of %d tokens, %s", o.Scope, plural(o.PackageCount, "package"), o.Tokens, o.Budget, plural(len(o.Items), "item"))
	if o.LeftOut > 0 {
		fmt.Fprintf(&b, "; %d more left out for the budget", o.LeftOut)
		if len(o.LeftOutNames) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(o.LeftOutNames, ", "))
		}
	}
	b.WriteString("\n")
	for _, m := range o.OutOfScope {
		fmt.Fprintf(&b, "- out of scope: %s\n", m)
	}
	for _, it := range o.Items {
		fmt.Fprintf(&b, "\n### %s `%s` %s — %s\n", it.Role, it.Name, it.Location, it.Reason)
		if it.Note != "" {
			fmt.Fprintf(&b, "(%s)\n", it.Note)
		}
		if it.text != "" {
			fence := "```"
			for strings.Contains(it.text, fence) {
				fence += "`"
			}
			fmt.Fprintf(&b, "%s%s\n%s", fence, it.lang, it.text)
			if !strings.HasSuffix(it.text, "\n") {
				b.WriteString("\n")
			}
			b.WriteString(fence + "\n")
		}
	}
	writeOmitted(&b, o.Omitted, o.Narrow)
	b.WriteString(o.Freshness.markdown())
	return b.String()
}

// --- changes --------------------------------------------------------------

// ChangedFile is one file of a diff.
type ChangedFile struct {
	Status  string `json:"status"`
	Path    string `json:"path"`
	OldPath string `json:"oldPath,omitempty"`
	// Added and Removed count the changed lines.
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// ChangedSymbol is a symbol a diff touched.
type ChangedSymbol struct {
	Name     string `json:"name"`
	Kind     string `json:"kind,omitempty"`
	Package  string `json:"package,omitempty"`
	Location string `json:"location,omitempty"`
	// Change is added, deleted, modified, …
	Change string `json:"change"`
}

// ChangesOut is the changes tool's answer.
type ChangesOut struct {
	Base  string        `json:"base"`
	Files []ChangedFile `json:"files"`
	// FileCount and ChangeCount count all files and symbols.
	FileCount   int             `json:"fileCount"`
	Changes     []ChangedSymbol `json:"changes"`
	ChangeCount int             `json:"changeCount"`
	// Impact is the combined blast radius of the changed symbols.
	Impact    Blast     `json:"impact"`
	Freshness Freshness `json:"freshness"`
	Omitted   []string  `json:"omitted,omitempty"`
	Narrow    string    `json:"narrow,omitempty"`
}

func lineCount(rs []impact.LineRange) int {
	n := 0
	for _, r := range rs {
		if !r.Empty() {
			n += r.End - r.Start + 1
		}
	}
	return n
}

func (s *server) changes(ctx context.Context, in ChangesIn) (shaped, error) {
	root, err := s.root(in.Root)
	if err != nil {
		return nil, err
	}
	var a impact.Answer
	if err := s.ask.Ask(ctx, root, workspace.CommandChanges, workspace.ChangesRequest{Base: in.Base, Staged: in.Staged}, &a); err != nil {
		return nil, &toolError{err.Error()}
	}
	out := &ChangesOut{Base: in.Base, Files: []ChangedFile{}, FileCount: len(a.Files), Changes: []ChangedSymbol{}, ChangeCount: len(a.Changes),
		Impact: blastOf(&a), Freshness: freshnessOf(a.Freshness)}
	out.Impact.PartialReasons = besides(out.Impact.PartialReasons, out.Freshness.Reasons)
	if out.Base == "" {
		out.Base = a.Freshness.BaseCommit
	}
	for _, f := range a.Files {
		out.Files = append(out.Files, ChangedFile{Status: f.Status, Path: f.Path, OldPath: f.OldPath, Added: lineCount(f.Added), Removed: lineCount(f.Removed)})
	}
	for _, c := range a.Changes {
		r := refOf(c.Ref)
		out.Changes = append(out.Changes, ChangedSymbol{Name: r.Name, Kind: r.Kind, Package: r.Package, Location: r.Location, Change: c.Change})
	}
	return out, nil
}

const changesNarrow = "To narrow: ask impact for one changed symbol, or commit part of the work and compare with a nearer base."

func (o *ChangesOut) trim() bool {
	o.Narrow = changesNarrow
	if n, ok := o.Impact.trim(); ok {
		o.Omitted = note(o.Omitted, "impact: "+n)
		return true
	}
	if n := len(o.Changes); n > 1 {
		o.Changes = o.Changes[:n/2]
		o.Omitted = noteCount(o.Omitted, "changed symbols not listed: ", o.ChangeCount-len(o.Changes))
		return true
	}
	if n := len(o.Files); n > 1 {
		o.Files = o.Files[:n/2]
		o.Omitted = noteCount(o.Omitted, "changed files not listed: ", o.FileCount-len(o.Files))
		return true
	}
	if o.Freshness.shrink() {
		o.Omitted = append(o.Omitted, "freshness lists cut to their counts")
		return true
	}
	return false
}

func (o *ChangesOut) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Changes since %s: %s, %s\n", orNone(short(o.Base)), plural(o.FileCount, "file"), plural(o.ChangeCount, "changed symbol"))
	for _, f := range o.Files {
		p := f.Path
		if f.OldPath != "" && f.OldPath != f.Path {
			p = joinNonEmpty(" → ", f.OldPath, f.Path)
		}
		fmt.Fprintf(&b, "- %s %s (+%d −%d)\n", f.Status, p, f.Added, f.Removed)
	}
	if len(o.Changes) > 0 {
		b.WriteString("\n### Changed symbols\n")
		for _, c := range o.Changes {
			fmt.Fprintf(&b, "- %s `%s`", c.Change, c.Name)
			writeSymbolTail(&b, Symbol{Kind: c.Kind, Package: c.Package, Location: c.Location})
			b.WriteString("\n")
		}
	}
	if o.ChangeCount > 0 {
		b.WriteString("\n### Combined impact\n")
		o.Impact.markdown(&b)
	}
	writeOmitted(&b, o.Omitted, o.Narrow)
	b.WriteString(o.Freshness.markdown())
	return b.String()
}
