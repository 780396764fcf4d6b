package contexteval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/graph"
)

// bodyOf is a definition's text (from its extent).
func bodyOf(root string, s graph.Symbol, texts map[string][]string) string {
	ls, ok := texts[s.Def.Path]
	if !ok {
		b, err := os.ReadFile(filepath.Join(root, s.Def.Path))
		if err == nil {
			ls = strings.Split(string(b), "\n")
		}
		texts[s.Def.Path] = ls
	}
	from, to := int(s.DefExtent.Start.Line), int(s.DefExtent.End.Line)
	if s.DefExtent.Start == s.DefExtent.End {
		from, to = int(s.Def.Range.Start.Line), int(s.Def.Range.Start.Line)
	}
	if from >= len(ls) {
		return ""
	}
	return strings.Join(ls[from:min(to+1, len(ls))], "\n") + "\n"
}

// fillBaseline takes symbols in order, each as "PATH:LINE NAME" and its
// body, while they fit the budget.
func fillBaseline(root string, syms []graph.Symbol, budget int) []Changed {
	texts := map[string][]string{}
	used := 0
	var out []Changed
	for _, s := range syms {
		c := contextpack.Tokens(fmt.Sprintf("%s:%d %s\n", s.Def.Path, s.Def.Range.Start.Line+1, itemName(s)) + bodyOf(root, s, texts))
		if used+c > budget {
			continue
		}
		used += c
		out = append(out, Changed{s.Def.Path, itemName(s)})
	}
	return out
}

// neighboursBaseline: the target, then its callers and callees by the
// graph's edges, in path and line order.
func neighboursBaseline(ctx context.Context, g *Graph, target graph.Symbol, budget int) ([]Changed, error) {
	r := g.Reader
	f := graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeCalls, graph.EdgeReferences}}
	in, err := r.Incoming(ctx, target.ID, f)
	if err != nil {
		return nil, err
	}
	out, err := r.Outgoing(ctx, target.ID, f)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{target.ID: true}
	var syms []graph.Symbol
	for _, e := range append(in, out...) {
		id := e.From
		if id == target.ID {
			id = e.To
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		s, ok, err := r.Symbol(ctx, id)
		if err != nil || !ok || s.External || s.Def.Path == "" {
			continue
		}
		syms = append(syms, s)
	}
	sort.SliceStable(syms, func(i, j int) bool {
		if syms[i].Def.Path != syms[j].Def.Path {
			return syms[i].Def.Path < syms[j].Def.Path
		}
		return syms[i].Def.Range.Start.Line < syms[j].Def.Range.Start.Line
	})
	return fillBaseline(g.Root, append([]graph.Symbol{target}, syms...), budget), nil
}

// ownFileBaseline: the target's file's functions, methods and types,
// nearest the target first.
func ownFileBaseline(ctx context.Context, g *Graph, target graph.Symbol, budget int) ([]Changed, error) {
	all, err := g.Reader.DocumentSymbols(ctx, target.Def.Path)
	if err != nil {
		return nil, err
	}
	var syms []graph.Symbol
	for _, s := range all {
		if s.Def.Path == target.Def.Path && s.ID != target.ID && !strings.HasPrefix(s.ID, "local ") {
			switch s.Kind {
			case "function", "method", "type", "struct", "interface", "class":
				syms = append(syms, s)
			}
		}
	}
	line := target.Def.Range.Start.Line
	dist := func(s graph.Symbol) uint32 {
		if l := s.Def.Range.Start.Line; l > line {
			return l - line
		}
		return line - s.Def.Range.Start.Line
	}
	sort.SliceStable(syms, func(i, j int) bool { return dist(syms[i]) < dist(syms[j]) })
	return fillBaseline(g.Root, append([]graph.Symbol{target}, syms...), budget), nil
}
