package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

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
		texts := map[string]*textpos.Mapper{}
		mapper := func(rel string) (*textpos.Mapper, error) {
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
