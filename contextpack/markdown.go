package contextpack

import (
	"fmt"
	"strings"
)

// fence returns a code fence longer than any backtick run in text.
func fence(text string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// Markdown renders the pack as evidence sections (path, role, symbol,
// reason, snippet in a fenced block) followed by the omission manifest and
// the freshness block, ready to paste into an assistant's prompt.
func (p *Pack) Markdown() string {
	var b strings.Builder
	t := p.Target
	fmt.Fprintf(&b, "# Context for `%s`", t.Name)
	if t.Kind != "" || t.Package != "" {
		fmt.Fprintf(&b, " (%s)", strings.Trim(strings.Join([]string{t.Kind, t.Package}, ", "), ", "))
	}
	b.WriteString("\n\n")
	if t.Location.Path != "" {
		fmt.Fprintf(&b, "Defined at %s. ", t.Location)
	}
	fmt.Fprintf(&b, "Scope: %s (%s). Budget: %d of %d tokens used.\n", p.Scope.Spec, strings.Join(quoteAll(p.Scope.Packages), ", "), p.Tokens, p.Budget)
	for i, it := range p.Items {
		fmt.Fprintf(&b, "\n## %d. %s `%s` — %s\n\n", i+1, it.Role, it.Name, it.Location)
		fmt.Fprintf(&b, "%s.", upperFirst(it.Reason))
		if it.Package != "" {
			fmt.Fprintf(&b, " Package `%s`.", it.Package)
		}
		fmt.Fprintf(&b, " Score %.3f.", it.Score)
		if it.Note != "" {
			fmt.Fprintf(&b, " (%s)", it.Note)
		}
		b.WriteString("\n")
		if s := it.Snippet; s != nil {
			f := fence(s.Text)
			fmt.Fprintf(&b, "\n%s%s\n%s%s\n", f, s.Language, s.Text, f)
		}
	}
	b.WriteString("\n## Not shown\n\n")
	o := p.Omitted
	if o.BudgetCount == 0 && len(o.OutOfScope) == 0 && o.Downgraded == 0 {
		b.WriteString("Nothing: every candidate in scope fits the budget, and none lies outside the scope.\n")
	}
	if o.Downgraded > 0 {
		fmt.Fprintf(&b, "- %d item(s) shown with less of their source to fit the budget.\n", o.Downgraded)
	}
	if o.BudgetCount > 0 {
		fmt.Fprintf(&b, "- %d item(s) dropped for the budget:\n", o.BudgetCount)
		for _, d := range o.Budget {
			fmt.Fprintf(&b, "  - %s `%s` at %s (score %.3f)\n", d.Role, d.Name, d.Location, d.Score)
		}
		if n := o.BudgetCount - len(o.Budget); n > 0 {
			fmt.Fprintf(&b, "  - and %d more\n", n)
		}
	}
	for _, s := range o.OutOfScope {
		fmt.Fprintf(&b, "- %s: %s.\n", upperFirst(s.Message), strings.Join(s.Examples, ", "))
	}
	if f := p.Freshness; f != nil {
		b.WriteString("\n## Freshness\n\n")
		fmt.Fprintf(&b, "Base index from commit %s", orUnknown(f.BaseCommit))
		if f.BaseTool != "" {
			fmt.Fprintf(&b, " (%s %s)", f.BaseTool, f.BaseToolVersion)
		}
		fmt.Fprintf(&b, "; HEAD %s; %d document(s) changed since, %d answered from the live layer, %d unsaved.", orUnknown(f.Head), len(f.Changed), len(f.Live), len(f.Dirty))
		if f.Partial {
			b.WriteString(" The answer may be partial.")
		}
		b.WriteString("\n")
		for _, r := range f.Reasons {
			fmt.Fprintf(&b, "- %s\n", r)
		}
		for _, n := range f.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + s + "`"
	}
	return out
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
