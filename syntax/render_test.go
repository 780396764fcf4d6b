package syntax

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/lspgraph/lspgraph/graph"
)

// renderFacts prints a document's facts as its annotated source, in the
// style of SCIP snapshot tests: every source line is indented by two
// columns, and under it each occurrence that starts on it gets a comment
// line with ^ markers under its range, its roles, its symbol and its
// enclosing definition. Under a definition follow the symbol's kind and
// documentation and the edges the document records from or to it.
func renderFacts(src []byte, df graph.DocumentFacts) string {
	comment := "//"
	if df.Document.Language == "python" {
		comment = "# "
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s document %s language=%s package=%s flags=%s\n", comment, df.Document.Path,
		df.Document.Language, df.Document.Package, docFlags(df.Document.Flags))
	syms := map[string]graph.Symbol{}
	for _, s := range df.Symbols {
		syms[s.ID] = s
		if s.Def.Range == (graph.Location{}).Range && (s.Kind == "module") {
			fmt.Fprintf(&b, "%s module %s (kind %s, display %s)\n", comment, s.ID, s.Kind, s.DisplayName)
			for _, e := range df.Edges {
				if e.From == s.ID {
					fmt.Fprintf(&b, "%s   %s\n", comment, renderEdge(e, true))
				}
			}
		}
	}
	byLine := map[uint32][]graph.Occurrence{}
	for _, o := range df.Occurrences {
		if o.Range == (graph.Location{}).Range {
			continue
		}
		byLine[o.Range.Start.Line] = append(byLine[o.Range.Start.Line], o)
	}
	lines := strings.Split(string(src), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		if line == "" {
			b.WriteString("\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
		occs := byLine[uint32(i)]
		sort.SliceStable(occs, func(a, c int) bool {
			if occs[a].Range.Start.Col != occs[c].Range.Start.Col {
				return occs[a].Range.Start.Col < occs[c].Range.Start.Col
			}
			return occs[a].Symbol < occs[c].Symbol
		})
		for _, o := range occs {
			start := int(o.Range.Start.Col)
			end := len(line)
			if o.Range.End.Line == o.Range.Start.Line {
				end = min(int(o.Range.End.Col), len(line))
			}
			start = min(start, len(line))
			width := max(utf8.RuneCountInString(line[start:end]), 1)
			indent := comment + padding(line[:start])
			fmt.Fprintf(&b, "%s%s %s %s", indent, strings.Repeat("^", width), roleNames(o.Roles), o.Symbol)
			if o.Enclosing != "" {
				fmt.Fprintf(&b, " in %s", o.Enclosing)
			}
			b.WriteString("\n")
			if o.Roles&graph.RoleDefinition == 0 {
				continue
			}
			sub := comment + padding(line[:start]) + strings.Repeat(" ", width+1)
			if s, ok := syms[o.Symbol]; ok {
				fmt.Fprintf(&b, "%skind %s, display %s, extent %s\n", sub, s.Kind, s.DisplayName, s.DefExtent)
				if s.Doc != "" {
					fmt.Fprintf(&b, "%sdoc %q\n", sub, s.Doc)
				}
			}
			for _, e := range df.Edges {
				if e.From == o.Symbol {
					fmt.Fprintf(&b, "%s%s\n", sub, renderEdge(e, true))
				}
				if e.To == o.Symbol && e.Kind == graph.EdgeContains {
					fmt.Fprintf(&b, "%s%s\n", sub, renderEdge(e, false))
				}
			}
		}
	}
	return b.String()
}

// padding returns whitespace as wide as prefix on screen: its tabs are
// kept, every other character becomes a space.
func padding(prefix string) string {
	var b strings.Builder
	for _, r := range prefix {
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func renderEdge(e graph.Edge, out bool) string {
	arrow, other := "->", e.To
	if !out {
		arrow, other = "<-", e.From
	}
	s := fmt.Sprintf("%s %s %s %.2f %s", e.Kind, arrow, other, e.Confidence, e.Reason)
	if e.Count > 1 {
		s += fmt.Sprintf(" x%d", e.Count)
	}
	return s
}

func roleNames(r graph.Role) string {
	var names []string
	for _, x := range []struct {
		r graph.Role
		n string
	}{
		{graph.RoleDefinition, "definition"}, {graph.RoleImport, "import"}, {graph.RoleCall, "call"},
		{graph.RoleReference, "reference"}, {graph.RoleTest, "test"},
	} {
		if r&x.r != 0 {
			names = append(names, x.n)
		}
	}
	if r&graph.RoleCall != 0 {
		// "call" implies a reference; print it once.
		names = removeString(names, "reference")
	}
	return strings.Join(names, ",")
}

func removeString(xs []string, s string) []string {
	out := xs[:0]
	for _, x := range xs {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func docFlags(f graph.DocumentFlags) string {
	var names []string
	if f&graph.DocTest != 0 {
		names = append(names, "test")
	}
	if f&graph.DocGenerated != 0 {
		names = append(names, "generated")
	}
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ",")
}
