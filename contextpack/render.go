package contextpack

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
)

// Format is a rendering of a pack; the budget is counted on it.
type Format string

// The formats.
const (
	FormatJSON       Format = "json"        // compact JSON, the pack's own fields
	FormatJSONPretty Format = "json-pretty" // the same JSON, indented for people
	FormatMarkdown   Format = "markdown"    // evidence sections with fenced code, for a prompt
	FormatText       Format = "text"        // plain text with the code, for a terminal
)

func (f Format) valid() bool {
	switch f {
	case FormatJSON, FormatJSONPretty, FormatMarkdown, FormatText:
		return true
	}
	return false
}

// ParseFormat checks a format name ("" is FormatJSON).
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return FormatJSON, nil
	}
	f := Format(s)
	if !f.valid() {
		return "", fmt.Errorf("unknown format %q: json, json-pretty, markdown or text", s)
	}
	return f, nil
}

// Render returns the pack in its format: the answer its Tokens counts.
func (p *Pack) Render() string {
	switch p.Format {
	case FormatMarkdown:
		return p.Markdown()
	case FormatText:
		return p.Text()
	case FormatJSONPretty:
		b, _ := json.MarshalIndent(p, "", "  ")
		return string(b) + "\n"
	}
	b, _ := json.Marshal(p)
	return string(b) + "\n"
}

// parts renders the pieces a format concatenates, so that fitting can
// price them one by one.
type parts interface {
	// frame is everything but the files and the manifest's lists.
	frame(p *Pack) string
	fileHead(f *File) string
	item(it *Item, lang string) string
	dropped(d *Dropped) string
	outOfScope(o *OutOfScope) string
}

func partsOf(f Format) parts {
	switch f {
	case FormatMarkdown:
		return markdownParts{}
	case FormatText:
		return textParts{}
	case FormatJSONPretty:
		return jsonParts{indent: true}
	}
	return jsonParts{}
}

// --- JSON -------------------------------------------------------------------

type jsonParts struct{ indent bool }

// enc prices a value at its depth in the whole: prefix is the indent of
// its first line in the pretty form.
func (j jsonParts) enc(v any, prefix string) string {
	if j.indent {
		// The whole breaks lines and indents where its parts close: price
		// one such break per part.
		b, _ := json.MarshalIndent(v, prefix, "  ")
		return prefix + string(b) + ",\n" + prefix + "]\n"
	}
	b, _ := json.Marshal(v)
	return string(b) + ","
}

func (j jsonParts) frame(p *Pack) string {
	q := *p
	q.Files = []File{}
	q.Omitted.Budget, q.Omitted.OutOfScope = nil, nil
	if j.indent {
		b, _ := json.MarshalIndent(&q, "", "  ")
		return string(b) + "\n"
	}
	return j.enc(&q, "") + "\n"
}
func (j jsonParts) fileHead(f *File) string {
	return j.enc(&File{Path: f.Path, Package: f.Package, Items: []Item{}}, "    ")
}
func (j jsonParts) item(it *Item, _ string) string { return j.enc(it, "        ") }
func (j jsonParts) dropped(d *Dropped) string {
	return j.enc(d, "      ") + j.enc(map[string][]int{"budget": {}}, "    ")
}
func (j jsonParts) outOfScope(o *OutOfScope) string {
	return j.enc(o, "      ") + j.enc(map[string][]int{"outOfScope": {}}, "    ")
}

// --- markdown ---------------------------------------------------------------

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

type markdownParts struct{}

func (markdownParts) frame(p *Pack) string {
	var b strings.Builder
	markdownHead(&b, p)
	markdownTail(&b, p, true)
	return b.String()
}

func markdownHead(b *strings.Builder, p *Pack) {
	t := p.Target
	fmt.Fprintf(b, "# Context for `%s`", t.Name)
	if t.Kind != "" || t.Package != "" {
		fmt.Fprintf(b, " (%s)", strings.Trim(strings.Join([]string{t.Kind, t.Package}, ", "), ", "))
	}
	b.WriteString("\n\n")
	if t.Path != "" {
		fmt.Fprintf(b, "Defined at %s. ", t.Location())
	}
	fmt.Fprintf(b, "Scope: %s (%s). %d of %d tokens.\n", p.Scope.Spec, strings.Join(quoteAll(p.Scope.Packages), ", "), p.Tokens, p.Budget)
}

func (markdownParts) fileHead(f *File) string {
	if f.Package != "" {
		return fmt.Sprintf("\n## %s (package `%s`)\n", f.Path, f.Package)
	}
	return fmt.Sprintf("\n## %s\n", f.Path)
}

func (markdownParts) item(it *Item, lang string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### %s `%s` :%d\n\n%s. Score %.2f.", it.Role, it.Name, it.Line, upperFirst(it.Reason), it.Score)
	if it.Note != "" {
		fmt.Fprintf(&b, " (%s)", it.Note)
	}
	b.WriteString("\n")
	if it.Text != "" {
		f := fence(it.Text)
		fmt.Fprintf(&b, "\n%s%s\n%s%s\n", f, lang, it.Text, f)
	}
	return b.String()
}

func (markdownParts) dropped(d *Dropped) string {
	return fmt.Sprintf("  - %s `%s` at %s (score %.2f)\n", d.Role, d.Name, d.At, d.Score)
}

func (markdownParts) outOfScope(o *OutOfScope) string {
	return fmt.Sprintf("- %s: %s.\n", upperFirst(o.Message), strings.Join(o.Examples, ", "))
}

// markdownTail writes the manifest and the freshness block; bare leaves
// out the manifest's lists.
func markdownTail(b *strings.Builder, p *Pack, bare bool) {
	m := markdownParts{}
	b.WriteString("\n## Not shown\n\n")
	o := p.Omitted
	if o.BudgetCount == 0 && o.OutOfScopeCount == 0 && o.Downgraded == 0 {
		b.WriteString("Nothing: every candidate in scope fits the budget, and none lies outside the scope.\n")
	}
	if o.Downgraded > 0 {
		fmt.Fprintf(b, "- %d item(s) shown with less of their source to fit the budget.\n", o.Downgraded)
	}
	if o.BudgetCount > 0 {
		fmt.Fprintf(b, "- %d item(s) dropped for the budget:\n", o.BudgetCount)
		if !bare {
			for i := range o.Budget {
				b.WriteString(m.dropped(&o.Budget[i]))
			}
		}
		if n := o.BudgetCount - len(o.Budget); n > 0 || bare {
			fmt.Fprintf(b, "  - and %d more\n", n)
		}
	}
	if o.OutOfScopeCount > 0 {
		fmt.Fprintf(b, "- %d candidate(s) outside the scope.\n", o.OutOfScopeCount)
		if !bare {
			for i := range o.OutOfScope {
				b.WriteString(m.outOfScope(&o.OutOfScope[i]))
			}
		}
	}
	for _, c := range o.Cut {
		fmt.Fprintf(b, "- Cut for the budget: %s.\n", c)
	}
	if f := p.Freshness; f != nil {
		b.WriteString("\n## Freshness\n\n")
		writeFreshness(b, f)
	}
}

func writeFreshness(b *strings.Builder, f *freshness.Block) {
	fmt.Fprintf(b, "Base index from commit %s", orUnknown(f.BaseCommit))
	if f.BaseTool != "" {
		fmt.Fprintf(b, " (%s %s)", f.BaseTool, f.BaseToolVersion)
	}
	fmt.Fprintf(b, "; HEAD %s; %d document(s) changed since, %d answered from the live layer, %d unsaved.", orUnknown(f.Head), len(f.Changed), len(f.Live), len(f.Dirty))
	if f.Partial {
		b.WriteString(" The answer may be partial.")
	}
	b.WriteString("\n")
	for _, r := range f.Reasons {
		fmt.Fprintf(b, "- %s\n", r)
	}
	for _, n := range f.Notes {
		fmt.Fprintf(b, "- %s\n", n)
	}
}

// Markdown renders the pack as evidence sections, a file at a time (path,
// then each item's role, name, line, reason and fenced snippet), followed
// by the omission manifest and the freshness block, ready to paste into an
// assistant's prompt.
func (p *Pack) Markdown() string {
	var b strings.Builder
	m := markdownParts{}
	markdownHead(&b, p)
	for i := range p.Files {
		f := &p.Files[i]
		b.WriteString(m.fileHead(f))
		lang := Language(f.Path)
		for j := range f.Items {
			b.WriteString(m.item(&f.Items[j], lang))
		}
	}
	markdownTail(&b, p, false)
	return b.String()
}

// --- text -------------------------------------------------------------------

type textParts struct{}

func textHead(b *strings.Builder, p *Pack) {
	t := p.Target
	fmt.Fprintf(b, "Context for %s", t.Name)
	if t.Kind != "" {
		fmt.Fprintf(b, " (%s)", t.Kind)
	}
	fmt.Fprintf(b, " at %s\n", t.Location())
	fmt.Fprintf(b, "Scope %s: %s\n%d of %d tokens\n", p.Scope.Spec, strings.Join(p.Scope.Packages, ", "), p.Tokens, p.Budget)
}

func (textParts) frame(p *Pack) string {
	var b strings.Builder
	textHead(&b, p)
	textTail(&b, p, true)
	return b.String()
}

func (textParts) fileHead(f *File) string {
	if f.Package != "" {
		return fmt.Sprintf("\n== %s (%s)\n", f.Path, f.Package)
	}
	return fmt.Sprintf("\n== %s\n", f.Path)
}

func (textParts) item(it *Item, _ string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n-- %s %s :%d  score %.2f  [%s]\n   %s\n", it.Role, it.Name, it.Line, it.Score, cmp.Or(it.Show, "location"), it.Reason)
	if it.Note != "" {
		fmt.Fprintf(&b, "   (%s)\n", it.Note)
	}
	b.WriteString(it.Text)
	return b.String()
}

func (textParts) dropped(d *Dropped) string {
	return fmt.Sprintf("  %s %s %s  score %.2f\n", d.Role, d.Name, d.At, d.Score)
}

func (textParts) outOfScope(o *OutOfScope) string {
	return fmt.Sprintf("  %s: %s\n", o.Message, strings.Join(o.Examples, ", "))
}

func textTail(b *strings.Builder, p *Pack, bare bool) {
	t := textParts{}
	o := p.Omitted
	if o.Downgraded > 0 {
		fmt.Fprintf(b, "\nShown with less of their source: %d\n", o.Downgraded)
	}
	if o.BudgetCount > 0 {
		fmt.Fprintf(b, "\nDropped for the budget: %d\n", o.BudgetCount)
		if !bare {
			for i := range o.Budget {
				b.WriteString(t.dropped(&o.Budget[i]))
			}
		}
	}
	if o.OutOfScopeCount > 0 {
		fmt.Fprintf(b, "\nOutside the scope: %d\n", o.OutOfScopeCount)
		if !bare {
			for i := range o.OutOfScope {
				b.WriteString(t.outOfScope(&o.OutOfScope[i]))
			}
		}
	}
	for _, c := range o.Cut {
		fmt.Fprintf(b, "Cut for the budget: %s\n", c)
	}
	if f := p.Freshness; f != nil {
		fmt.Fprintf(b, "\nFreshness: base %s, HEAD %s, %d changed, %d live, %d unsaved, partial=%v\n", orUnknown(f.BaseCommit), orUnknown(f.Head), len(f.Changed), len(f.Live), len(f.Dirty), f.Partial)
		for _, r := range f.Reasons {
			fmt.Fprintf(b, "  %s\n", r)
		}
		for _, n := range f.Notes {
			fmt.Fprintf(b, "  %s\n", n)
		}
	}
}

// Text renders the pack for a terminal: a file at a time, each item's
// role, name, line, score, reason and code.
func (p *Pack) Text() string {
	var b strings.Builder
	t := textParts{}
	textHead(&b, p)
	for i := range p.Files {
		f := &p.Files[i]
		b.WriteString(t.fileHead(f))
		for j := range f.Items {
			b.WriteString(t.item(&f.Items[j], ""))
		}
	}
	textTail(&b, p, false)
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
