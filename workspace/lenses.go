package workspace

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// CommandLenses computes the code lenses of one document.
const CommandLenses = "lspgraph.lenses"

// maxLensSymbols caps the symbols of one document that get a lens.
const maxLensSymbols = 200

// LensesRequest is lspgraph.lenses's argument.
type LensesRequest struct {
	URI string `json:"uri"`
}

// lensesCommand answers lspgraph.lenses: one CodeLens per function,
// method and type defined in the document, titled with its depth-1
// impact ("N callers · M tests · risk R", or "callers unknown" when the
// risk is UNKNOWN), running lspgraph.impact on the symbol. Positions are
// in the requesting editor's encoding; nothing is verified against the
// live server.
func (s *Session) lensesCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, `{"uri": URI}`)
	if err != nil {
		return nil, err
	}
	var q LensesRequest
	if json.Unmarshal(arg, &q.URI) != nil {
		if err := json.Unmarshal(arg, &q); err != nil {
			return nil, fmt.Errorf("argument %.200s is not {\"uri\": URI}", arg)
		}
	}
	abs, ok := lspwire.URIPath(q.URI)
	if !ok || abs == "" {
		return nil, fmt.Errorf("%q is not a file URI", q.URI)
	}
	rel, ok := s.buffers.relPath(abs)
	if !ok {
		return nil, fmt.Errorf("%s is outside the workspace root %s", abs, s.root)
	}
	text, err := s.readWorkspaceFile(abs)
	if err != nil {
		return nil, err
	}
	w := s.sync(ctx)
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	syms, err := r.DocumentSymbols(ctx, rel)
	if err != nil {
		return nil, err
	}
	fb, err := s.freshness(ctx, r, w)
	if err != nil {
		return nil, err
	}
	m := textpos.NewMapper(text)
	lenses := []Lens{}
	for _, sym := range syms {
		if len(lenses) >= maxLensSymbols {
			break
		}
		if !lensKind(sym.Kind) || sym.External || sym.Def.Path != rel {
			continue
		}
		start, end, err := m.ToRange(sym.Def.Range, c.Encoding)
		if err != nil {
			continue // the buffer moved past the graph's facts
		}
		// The defaults of lspgraph impact (edge kinds, the confidence
		// threshold), at depth 1.
		o := impact.DefaultOptions()
		o.MaxDepth, o.IncludeTests, o.Freshness = 1, true, &fb
		a, err := impact.Compute(ctx, r, sym, o)
		if err != nil {
			return nil, err
		}
		rng := lspwire.Range{
			Start: lspwire.Position{Line: sym.Def.Range.Start.Line, Character: start},
			End:   lspwire.Position{Line: sym.Def.Range.End.Line, Character: end},
		}
		lenses = append(lenses, Lens{
			Range: rng,
			Command: &LensCommand{
				Title:     lensTitle(a),
				Command:   CommandImpact,
				Arguments: []string{sym.ID},
			},
			Data: map[string]bool{"lspgraph": true},
		})
	}
	return lenses, nil
}

// Lens is an LSP CodeLens.
type Lens struct {
	Range   lspwire.Range   `json:"range"`
	Command *LensCommand    `json:"command,omitempty"`
	Data    map[string]bool `json:"data,omitempty"`
}

// LensCommand is an LSP Command.
type LensCommand struct {
	Title     string   `json:"title"`
	Command   string   `json:"command"`
	Arguments []string `json:"arguments,omitempty"`
}

func lensKind(kind string) bool {
	switch kind {
	case "function", "method", "type", "interface", "struct", "class":
		return true
	}
	return false
}

// lensTitle is "N callers · M tests · risk R" ("risk ≥ R" for a lower
// bound), or "callers unknown".
func lensTitle(a *impact.Answer) string {
	if a.Risk.Level == "UNKNOWN" {
		return "callers unknown"
	}
	n := 0
	if len(a.Depths) > 0 {
		n = len(a.Depths[0].Dependents)
	}
	level := a.Risk.Level
	if a.Risk.AtLeast {
		level = "≥ " + level
	}
	return fmt.Sprintf("%s · %s · risk %s", plural(n, "caller"), plural(len(a.Tests), "test"), level)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
