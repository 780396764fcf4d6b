package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/resolve"
)

// CommandSymbols finds symbols by name or prefix.
const CommandSymbols = "lspgraph.symbols"

// SymbolsRequest is lspgraph.symbols's argument.
type SymbolsRequest struct {
	// Query is a name or a prefix of one ("Save", "Cat"), optionally
	// qualified by containers ("Catalog.Save", "Catalog.S").
	Query string `json:"query"`
	// Kind keeps only symbols of this kind (function, method, type, …).
	Kind string `json:"kind,omitempty"`
	// Limit is the most candidates returned (default 20, at most 200).
	Limit int `json:"limit,omitempty"`
}

// SymbolHit is one candidate of lspgraph.symbols.
type SymbolHit struct {
	// Name is the short qualified name ("Catalog.Save").
	Name    string `json:"name"`
	Kind    string `json:"kind,omitempty"`
	Package string `json:"package,omitempty"`
	// Location is the definition as PATH:LINE:COL (1-based, root-relative).
	Location string `json:"location,omitempty"`
	External bool   `json:"external,omitempty"`
	// Target is the exact string to pass as a target to impact or context:
	// the qualified name when it names this symbol alone, else the symbol
	// string.
	Target string `json:"target"`
}

// SymbolsAnswer is lspgraph.symbols's answer.
type SymbolsAnswer struct {
	Query   string      `json:"query"`
	Symbols []SymbolHit `json:"symbols"`
	// Truncated is set when more symbols match than Limit.
	Truncated bool            `json:"truncated"`
	Freshness freshness.Block `json:"freshness"`
}

const (
	defaultSymbolsLimit = 20
	maxSymbolsLimit     = 200
)

// symbolsCommand answers lspgraph.symbols: the symbols whose display name
// starts with the query's last segment, whose qualified name ends with the
// query's qualified form, of the kind asked for; exact names first.
func (s *Session) symbolsCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, `{"query": NAME}`)
	if err != nil {
		return nil, err
	}
	var q SymbolsRequest
	if json.Unmarshal(arg, &q.Query) != nil {
		if err := json.Unmarshal(arg, &q); err != nil {
			return nil, fmt.Errorf("argument %.200s is not a name or {\"query\": NAME, \"kind\": KIND, \"limit\": N}", arg)
		}
	}
	q.Query = strings.TrimSpace(q.Query)
	if q.Query == "" {
		return nil, fmt.Errorf("query is empty: give a name or the start of one")
	}
	if q.Limit < 0 {
		return nil, fmt.Errorf("limit must not be negative")
	}
	if q.Limit == 0 {
		q.Limit = defaultSymbolsLimit
	}
	q.Limit = min(q.Limit, maxSymbolsLimit)
	w := s.sync(ctx)
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ans, err := findSymbols(ctx, r, s.root, q)
	if err != nil {
		return nil, err
	}
	fb, err := s.freshness(ctx, r, w)
	if err != nil {
		return nil, err
	}
	ans.Freshness = fb
	return ans, nil
}

// findSymbols looks the request up in r.
func findSymbols(ctx context.Context, r *graph.Reader, root string, q SymbolsRequest) (*SymbolsAnswer, error) {
	last := q.Query
	if i := strings.LastIndex(last, "."); i >= 0 {
		last = last[i+1:]
	}
	// Read more than asked: the kind and the qualifier filter, and
	// exact names sort first.
	scan := q.Limit*4 + 50
	syms, err := r.FindSymbols(ctx, last, true, scan)
	if err != nil {
		return nil, err
	}
	var exact, rest []SymbolHit
	for _, sym := range syms {
		if q.Kind != "" && !strings.EqualFold(sym.Kind, q.Kind) {
			continue
		}
		qual := resolve.DisplayQualified(sym)
		if last != q.Query && !strings.Contains(qual, strings.TrimSuffix(q.Query, last)+last) {
			continue
		}
		h := SymbolHit{Name: qual, Kind: sym.Kind, Package: sym.Package, External: sym.External, Target: sym.ID}
		if sym.Def.Path != "" {
			h.Location = fmt.Sprintf("%s:%d:%d", sym.Def.Path, sym.Def.Range.Start.Line+1, sym.Def.Range.Start.Col+1)
		}
		if got, err := resolve.ResolveIn(ctx, r, root, qual); err == nil && got.ID == sym.ID {
			h.Target = qual
		}
		if qual == q.Query || sym.DisplayName == q.Query {
			exact = append(exact, h)
		} else {
			rest = append(rest, h)
		}
	}
	all := append(exact, rest...)
	ans := &SymbolsAnswer{Query: q.Query, Symbols: []SymbolHit{}}
	if len(all) > q.Limit {
		all, ans.Truncated = all[:q.Limit], true
	} else if len(syms) == scan {
		ans.Truncated = true
	}
	ans.Symbols = append(ans.Symbols, all...)
	return ans, nil
}
