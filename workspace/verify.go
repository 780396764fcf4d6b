package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/lspgraph/lspgraph/drift"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
)

// liveVerifier returns an [impact.Verifier] that asks the language server
// behind req for the references of the symbol defined at a graph location:
// textDocument/references (declaration excluded) united with
// callHierarchy/incomingCalls where the server supports it (with
// TypeScript project references, incoming calls stop at package
// boundaries while references cross them; other servers find calls that
// references miss). Positions are converted between the graph's UTF-8
// columns and the session's encoding enc with the text the server has:
// the editor's unsaved buffer where buffer (given a root-relative path
// with forward slashes) has one, else the file under root (never through
// a symlink leaving it); locations outside root are dropped. buffer may be
// nil (no editor).
func liveVerifier(req lspproxy.Requester, root string, enc textpos.Encoding, buffer func(rel string) ([]byte, bool)) impact.Verifier {
	return ServerReferences(req, root, enc, buffer, true)
}

// ServerReferences returns an [impact.Verifier] that asks the language
// server behind req for textDocument/references (declaration excluded) of
// the symbol defined at a graph location, united with
// callHierarchy/incomingCalls when calls is set, converting positions as
// liveVerifier says. The locations are root-relative and deduplicated.
func ServerReferences(req lspproxy.Requester, root string, enc textpos.Encoding, buffer func(rel string) ([]byte, bool), calls bool) impact.Verifier {
	return func(ctx context.Context, def graph.Location) ([]graph.Location, error) {
		mapper := textsOf(root, buffer)
		m, err := mapper(def.Path)
		if err != nil {
			return nil, fmt.Errorf("verifying: %w", err)
		}
		col, err := m.ToColumn(def.Range.Start, enc)
		if err != nil {
			return nil, fmt.Errorf("verifying: position %s:%s: %w", def.Path, def.Range.Start, err)
		}
		doc := map[string]string{"uri": lspwire.FileURI(filepath.Join(root, filepath.FromSlash(def.Path)))}
		pos := lspwire.Position{Line: def.Range.Start.Line, Character: col}
		raw, err := req.Request(ctx, "textDocument/references", map[string]any{
			"textDocument": doc, "position": pos, "context": map[string]bool{"includeDeclaration": false},
		})
		if err != nil {
			return nil, fmt.Errorf("textDocument/references: %w", err)
		}
		var locs []lspwire.Location
		if err := json.Unmarshal(raw, &locs); err != nil && string(raw) != "null" {
			return nil, fmt.Errorf("textDocument/references: decoding %.200s: %w", raw, err)
		}
		if calls {
			locs = append(locs, incomingCalls(ctx, req, doc, pos)...)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var out []graph.Location
		seen := map[string]bool{}
		for _, l := range locs {
			rel, ok := lspwire.WorkspacePath(l.URI, root)
			if !ok {
				continue // outside the workspace (the standard library, dependencies)
			}
			m, err := mapper(rel)
			if err != nil {
				continue
			}
			rg, err := l.Range.TextRange(m, enc)
			if err != nil {
				continue
			}
			gl := graph.Location{Path: rel, Range: rg}
			k := gl.Path + ":" + rg.Start.String()
			if !seen[k] {
				seen[k] = true
				out = append(out, gl)
			}
		}
		return out, nil
	}
}

// ServerCallers returns a [drift.Callers] that asks the language server
// behind req for the callers of the function or method defined at a graph
// location: textDocument/prepareCallHierarchy, then
// callHierarchy/incomingCalls of each item, each caller named by the start
// of its selection range (its name); callers that are a file or module
// (top-level code) are left out, as the graph records none. Positions are converted as
// liveVerifier says; callers outside root are dropped. ok is false when
// the server answers no item (or does not support call hierarchy).
func ServerCallers(req lspproxy.Requester, root string, enc textpos.Encoding, buffer func(rel string) ([]byte, bool)) drift.Callers {
	return func(ctx context.Context, def graph.Location) ([]graph.Location, bool, error) {
		texts := textsOf(root, buffer)
		m, err := texts(def.Path)
		if err != nil {
			return nil, false, fmt.Errorf("verifying: %w", err)
		}
		col, err := m.ToColumn(def.Range.Start, enc)
		if err != nil {
			return nil, false, fmt.Errorf("verifying: position %s:%s: %w", def.Path, def.Range.Start, err)
		}
		doc := map[string]string{"uri": lspwire.FileURI(filepath.Join(root, filepath.FromSlash(def.Path)))}
		raw, err := req.Request(ctx, "textDocument/prepareCallHierarchy", map[string]any{
			"textDocument": doc, "position": lspwire.Position{Line: def.Range.Start.Line, Character: col}})
		var rerr *lspproxy.ResponseError
		switch {
		case errors.As(err, &rerr):
			return nil, false, nil // no call hierarchy here (or at all)
		case err != nil:
			return nil, false, fmt.Errorf("textDocument/prepareCallHierarchy: %w", err)
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
			return nil, false, nil
		}
		var out []graph.Location
		for _, item := range items {
			raw, err := req.Request(ctx, "callHierarchy/incomingCalls", map[string]json.RawMessage{"item": item})
			if err != nil {
				return nil, false, fmt.Errorf("callHierarchy/incomingCalls: %w", err)
			}
			var calls []lspwire.CallHierarchyCall
			// pyright answers no callers with an empty result.
			if err := json.Unmarshal(raw, &calls); err != nil && len(raw) > 0 && string(raw) != "null" {
				return nil, false, fmt.Errorf("callHierarchy/incomingCalls: decoding %.200s: %w", raw, err)
			}
			for _, c := range calls {
				if c.From.Kind == symbolKindFile || c.From.Kind == symbolKindModule {
					// Code at the top of a file (tsserver names the
					// file, pyright the module): the graph records no
					// caller for it.
					continue
				}
				rel, ok := lspwire.WorkspacePath(c.From.URI, root)
				if !ok {
					continue
				}
				m, err := texts(rel)
				if err != nil {
					continue
				}
				rg, err := c.From.SelectionRange.TextRange(m, enc)
				if err != nil {
					continue
				}
				out = append(out, graph.Location{Path: rel, Range: rg})
			}
		}
		return out, true, nil
	}
}

// The LSP SymbolKinds of a caller that is a whole file or module.
const (
	symbolKindFile   = 1
	symbolKindModule = 2
)

// textsOf returns a reader of the texts positions are converted against:
// the editor's unsaved buffer where buffer has one, else the file under
// root; each read once.
func textsOf(root string, buffer func(rel string) ([]byte, bool)) func(rel string) (*textpos.Mapper, error) {
	texts := map[string]*textpos.Mapper{}
	return func(rel string) (*textpos.Mapper, error) {
		if m, ok := texts[rel]; ok {
			return m, nil
		}
		var b []byte
		inBuffer := false
		if buffer != nil {
			b, inBuffer = buffer(rel)
		}
		if !inBuffer {
			var err error
			if b, err = readInRoot(root, rel); err != nil {
				return nil, err
			}
		}
		m := textpos.NewMapper(b)
		texts[rel] = m
		return m, nil
	}
}

// incomingCalls returns the call sites callHierarchy/incomingCalls reports
// for the item at pos, or nothing when the server does not support it.
func incomingCalls(ctx context.Context, req lspproxy.Requester, doc map[string]string, pos lspwire.Position) []lspwire.Location {
	raw, err := req.Request(ctx, "textDocument/prepareCallHierarchy", map[string]any{"textDocument": doc, "position": pos})
	if err != nil {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []lspwire.Location
	for _, item := range items {
		raw, err := req.Request(ctx, "callHierarchy/incomingCalls", map[string]json.RawMessage{"item": item})
		if err != nil {
			continue
		}
		var calls []lspwire.CallHierarchyCall
		if json.Unmarshal(raw, &calls) != nil {
			continue
		}
		for _, c := range calls {
			for _, r := range c.FromRanges {
				out = append(out, lspwire.Location{URI: c.From.URI, Range: r})
			}
		}
	}
	return out
}

// CommandVerify audits the graph against the live server (drift).
const CommandVerify = "lspgraph.verify"

// VerifyRequest is lspgraph.verify's argument, with the options of
// `lspgraph verify`; every field may be left out.
type VerifyRequest struct {
	// Sample is the number of symbols compared (drift.DefaultSample).
	Sample int `json:"sample,omitempty"`
	// Seed makes the sample.
	Seed uint64 `json:"seed,omitempty"`
	// MaxDrift is the limit the answer is judged against
	// (drift.DefaultMaxDrift).
	MaxDrift *float64 `json:"maxDrift,omitempty"`
	// Layer is "base" (the base layer alone) or "all" (default).
	Layer string `json:"layer,omitempty"`
	// Callers compares callers through the call hierarchy too (default
	// true).
	Callers *bool `json:"callers,omitempty"`
}

// Options checks the request and returns the audit's options (without
// Callers, which need a server) and the drift limit; the error says which
// field is wrong.
func (q VerifyRequest) Options(root string) (drift.Options, float64, error) {
	o := drift.Options{Root: root, Sample: q.Sample, Seed: q.Seed}
	if q.Sample < 0 {
		return o, 0, fmt.Errorf("sample must be positive")
	}
	maxDrift := drift.DefaultMaxDrift
	if q.MaxDrift != nil {
		maxDrift = *q.MaxDrift
	}
	if maxDrift < 0 || maxDrift > 1 {
		return o, 0, fmt.Errorf("max-drift must be within 0-1")
	}
	switch q.Layer {
	case "", "all":
	case "base":
		o.BaseOnly = true
	default:
		return o, 0, fmt.Errorf("layer must be base or all, not %q", q.Layer)
	}
	return o, maxDrift, nil
}

// WithCallers reports whether callers are compared.
func (q VerifyRequest) WithCallers() bool { return q.Callers == nil || *q.Callers }

// verifyCommand answers lspgraph.verify: the drift audit of `lspgraph
// verify --json`, against the live language server the editor already
// has warm (the requesting editor's, else the session's), with positions
// read against the unsaved buffers the server sees.
func (s *Session) verifyCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, `{"sample": N, "seed": S, "maxDrift": X, "layer": "base"|"all", "callers": BOOL}`)
	if err != nil {
		return nil, err
	}
	var q VerifyRequest
	if string(arg) != "null" {
		if err := json.Unmarshal(arg, &q); err != nil {
			return nil, fmt.Errorf("argument %.200s is not {sample, seed, maxDrift, layer, callers}: %w", arg, err)
		}
	}
	o, maxDrift, err := q.Options(s.root)
	if err != nil {
		return nil, err
	}
	srv, enc, name := c.Server, c.Encoding, ""
	ls := s.liveServer()
	if ls != nil {
		if n, ok := ls.(interface{ Name() string }); ok {
			name = n.Name()
		}
	}
	switch {
	case srv == nil && ls == nil:
		return nil, errors.New("no live language server to verify against: lspgraph.verify runs inside a proxy; on the command line run lspgraph verify -- SERVER")
	case ls != nil && !ls.Ready():
		return nil, errors.New("the language server is not ready (still initializing, or still loading its project); ask again once it has loaded")
	case srv == nil:
		srv, enc = ls, ls.Encoding()
	}
	s.sync(ctx)
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if q.WithCallers() {
		o.Callers = ServerCallers(srv, s.root, enc, s.buffers.get)
	}
	rep, err := drift.Audit(ctx, r, ServerReferences(srv, s.root, enc, s.buffers.get, false), o)
	if err != nil {
		return nil, err
	}
	return drift.NewResult(rep, name, maxDrift), nil
}
