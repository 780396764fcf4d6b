package search

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Reasons renders why a hit ranked: the words matched with their fields,
// then each signal's rank.
func (h *Hit) Reasons() string {
	var parts []string
	for _, m := range h.Matches {
		var fs []string
		for f, n := range m.Fields {
			fs = append(fs, fmt.Sprintf("%s×%d", f, n))
		}
		slices.Sort(fs)
		parts = append(parts, m.Word+" ("+strings.Join(fs, " ")+")")
	}
	var sig []string
	for _, s := range h.Signals {
		sig = append(sig, fmt.Sprintf("%s %g #%d", s.Name, s.Value, s.Rank))
	}
	out := "matched " + strings.Join(parts, ", ")
	if len(sig) > 0 {
		out += "; " + strings.Join(sig, ", ")
	}
	var defs []string
	for _, s := range h.Symbols {
		defs = append(defs, fmt.Sprintf("%s %s:%d", s.Name, s.Kind, s.Line))
	}
	if len(defs) > 0 {
		out += "; defines " + strings.Join(defs, ", ")
	}
	if len(h.Neighbours) > 0 {
		out += "; linked by references to " + strings.Join(h.Neighbours, ", ")
	}
	return out
}

// WriteText writes a result for a terminal: one line per hit and its
// reasons below.
func WriteText(w io.Writer, res *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d hits for %q (words: %s; %d documents, scope %s)\n", len(res.Hits), res.Query,
		strings.Join(res.Words, " "), res.Documents, res.Scope)
	for i, h := range res.Hits {
		test := ""
		if h.Test {
			test = " [test]"
		}
		fmt.Fprintf(&b, "%2d. %s%s  score %g (%s)\n    %s\n", i+1, h.Path, test, h.Score, h.Layer, h.Reasons())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes a result as a compact markdown list.
func WriteMarkdown(w io.Writer, res *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Search: %s\n\n", res.Query)
	fmt.Fprintf(&b, "Words: %s · %d documents · scope %s\n\n", strings.Join(res.Words, " "), res.Documents, res.Scope)
	if len(res.Hits) == 0 {
		b.WriteString("No document holds these words.\n")
	}
	for i, h := range res.Hits {
		test := ""
		if h.Test {
			test = " (test)"
		}
		fmt.Fprintf(&b, "%d. `%s`%s — %s\n", i+1, h.Path, test, h.Reasons())
	}
	_, err := io.WriteString(w, b.String())
	return err
}
