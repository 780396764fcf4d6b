package contextpack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/ranking"
	"github.com/lspgraph/lspgraph/resolve"
	"github.com/lspgraph/lspgraph/scope"
)

// Request is the JSON argument of the `lspgraph.context` command: a symbol
// (any form resolve accepts: symbol string, qualified name, FILE:LINE:COL)
// or an LSP text document and position.
type Request struct {
	Symbol       string `json:"symbol,omitempty"`
	TextDocument *struct {
		URI string `json:"uri"`
	} `json:"textDocument,omitempty"`
	Position *struct {
		Line      uint32 `json:"line"`
		Character uint32 `json:"character"`
	} `json:"position,omitempty"`
	Budget int `json:"budget,omitempty"`
	// HistoryRev bounds the history read for evolutionary coupling to the
	// commits reachable from it ("" is HEAD, "none" reads none).
	HistoryRev string `json:"historyRev,omitempty"`
	Scope      string `json:"scope,omitempty"`
	// Format is what the budget is counted on: json (the default),
	// json-pretty, markdown or text. The answer carries the rendering in
	// Rendered.
	Format string `json:"format,omitempty"`
}

// Env is what the command needs from its host (the proxy or the CLI).
type Env struct {
	Reader *graph.Reader
	Root   string // absolute workspace root
	// Overlay supplies unsaved buffers by root-relative path (may be nil).
	Overlay func(path string) ([]byte, bool)
	// Texts, when set, keeps the work tree's documents across requests.
	Texts *TextCache
	// Reads, when set, keeps the ranking's graph reads across requests on
	// the same store version.
	Reads *ranking.Cache
	// Encoding counts the LSP position's columns (the negotiated
	// positionEncoding; UTF-16 by default).
	Encoding textpos.Encoding
	// Analysis may be a cached scope analysis of Reader; nil: computed.
	Analysis *scope.Analysis
	// NoFreshness leaves the freshness block out (benchmarks).
	NoFreshness bool
	// Freshness, when set, is the block to attach (computed by the host);
	// otherwise it is computed here unless NoFreshness.
	Freshness *freshness.Block
	// History, when set, gives the evolutionary coupling of the history
	// reachable from a revision ("" is HEAD), for the ranking.
	History func(ctx context.Context, rev string) (ranking.History, error)
}

// Answer is the command's result: the pack, and its rendering in the
// requested format (what the budget was counted on).
type Answer struct {
	*Pack
	Rendered string `json:"rendered,omitempty"`
}

// Handle answers `lspgraph.context` with JSON arguments (an object, or an
// array whose first element is the object, as executeCommand passes them).
func Handle(ctx context.Context, env Env, args json.RawMessage) (*Answer, error) {
	var req Request
	raw := args
	var list []json.RawMessage
	if json.Unmarshal(args, &list) == nil {
		if len(list) == 0 {
			return nil, fmt.Errorf("contextpack: lspgraph.context needs an argument {symbol | textDocument+position, budget, scope}")
		}
		raw = list[0]
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("contextpack: decoding lspgraph.context arguments: %w", err)
	}
	src := Source{Root: env.Root, Overlay: env.Overlay, Cache: env.Texts}
	target, err := req.target(ctx, env, src)
	if err != nil {
		return nil, err
	}
	a := env.Analysis
	if a == nil {
		ws, err := scope.Discover(env.Root)
		if err != nil {
			return nil, fmt.Errorf("contextpack: %w", err)
		}
		if a, err = scope.Analyze(ctx, ws, env.Reader); err != nil {
			return nil, fmt.Errorf("contextpack: %w", err)
		}
	}
	format, err := ParseFormat(req.Format)
	if err != nil {
		return nil, fmt.Errorf("contextpack: %w", err)
	}
	o := Options{Budget: req.Budget, Format: format, Scope: scope.ParseSpec(req.Scope), Source: src, Freshness: env.Freshness, Reads: env.Reads}
	if env.History != nil && req.HistoryRev != "none" {
		h, err := env.History(ctx, req.HistoryRev)
		if err != nil {
			return nil, fmt.Errorf("contextpack: reading history: %w", err)
		}
		o.History = h
	}
	if o.Freshness == nil && !env.NoFreshness {
		fb, err := freshness.Compute(ctx, env.Reader, env.Root)
		if err != nil {
			return nil, fmt.Errorf("contextpack: %w", err)
		}
		o.Freshness = &fb
	}
	p, err := Build(ctx, env.Reader, a, target, o)
	if err != nil {
		return nil, err
	}
	return &Answer{Pack: p, Rendered: p.Render()}, nil
}

func (req *Request) target(ctx context.Context, env Env, src Source) (graph.Symbol, error) {
	if req.Symbol != "" {
		return resolve.ResolveIn(ctx, env.Reader, env.Root, req.Symbol)
	}
	if req.TextDocument == nil || req.Position == nil {
		return graph.Symbol{}, fmt.Errorf("contextpack: lspgraph.context needs either symbol or textDocument and position")
	}
	p, err := uriPath(req.TextDocument.URI)
	if err != nil {
		return graph.Symbol{}, err
	}
	rel, err := resolve.RelPath(env.Root, p)
	if err != nil {
		return graph.Symbol{}, err
	}
	pos := textpos.Position{Line: req.Position.Line, Col: req.Position.Character}
	if env.Encoding != textpos.UTF8 {
		text, err := src.Read(rel)
		if err != nil {
			return graph.Symbol{}, fmt.Errorf("contextpack: converting the position in %s: %w", rel, err)
		}
		if pos, err = textpos.NewMapper(text).FromColumn(pos.Line, pos.Col, env.Encoding); err != nil {
			return graph.Symbol{}, fmt.Errorf("contextpack: converting the position in %s: %w", rel, err)
		}
	}
	return resolve.AtPosition(ctx, env.Reader, rel, pos)
}

// uriPath turns a file:// URI into a local path.
func uriPath(uri string) (string, error) {
	if !strings.HasPrefix(uri, "file://") {
		return "", fmt.Errorf("contextpack: %q is not a file:// URI", uri)
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("contextpack: parsing URI %q: %w", uri, err)
	}
	return filepath.FromSlash(u.Path), nil
}
