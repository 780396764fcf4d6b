package ingest

import (
	"encoding/json"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// add converts one exchange into new facts in b.
func (b *batch) add(method string, params, result json.RawMessage) error {
	switch method {
	case "textDocument/definition", "textDocument/declaration", "textDocument/typeDefinition":
		return b.definition(method, params, result)
	case "textDocument/implementation":
		return b.implementation(params, result)
	case "textDocument/references":
		return b.references(params, result)
	case "textDocument/documentSymbol":
		return b.documentSymbol(params, result)
	case "textDocument/prepareCallHierarchy":
		var items []lspwire.CallHierarchyItem
		if err := unmarshal(result, &items); err != nil {
			return errorf("%s result: %w", method, err)
		}
		for _, it := range items {
			b.item(it)
		}
		return nil
	case "callHierarchy/incomingCalls", "callHierarchy/outgoingCalls":
		return b.calls(method, params, result)
	case "workspace/symbol":
		return b.workspaceSymbol(result)
	}
	return nil
}

func unmarshal(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// position returns the requested document and the graph position in it.
func (b *batch) position(params json.RawMessage) (*docFacts, textpos.Position, bool, error) {
	var p lspwire.TextDocumentPosition
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, textpos.Position{}, false, errorf("params: %w", err)
	}
	d, ok := b.doc(p.TextDocument.URI)
	if !ok {
		return nil, textpos.Position{}, false, nil
	}
	pos, err := d.m.FromColumn(p.Position.Line, p.Position.Character, b.enc)
	if err != nil {
		return nil, textpos.Position{}, false, errorf("position in %s: %w", d.path, err)
	}
	return d, pos, true, nil
}

// subject returns the symbol at pos in d as the graph knows it: the
// innermost occurrence there, or a definition recorded by this batch.
func (b *batch) subject(d *docFacts, pos textpos.Position) string {
	occs, err := b.r.SymbolsAt(b.ctx, d.path, pos)
	if err == nil && len(occs) > 0 {
		return occs[0].Symbol
	}
	return ""
}

// definition: the target's definition, and a reference at the origin.
func (b *batch) definition(method string, params, result json.RawMessage) error {
	src, pos, ok, err := b.position(params)
	if err != nil || !ok {
		return err
	}
	locs, err := lspwire.DecodeLocations(result)
	if err != nil {
		return errorf("%s result: %w", method, err)
	}
	for _, l := range locs {
		uri, r, origin, ok := l.Target()
		if !ok {
			continue
		}
		tgt, rng, ok := b.locate(uri, r)
		if !ok {
			continue
		}
		id := tgt.define(rng, textpos.Range{}, "", "")
		if method == "textDocument/typeDefinition" {
			continue
		}
		var from textpos.Range
		if origin != nil {
			if from, ok = b.convert(src, *origin); !ok {
				continue
			}
		} else if from, ok = wordAt(src.m, pos); !ok {
			continue
		}
		if src.path == tgt.path && from == rng {
			continue // asked at the definition itself
		}
		enc := src.enclosing(from)
		src.occs = append(src.occs, graph.Occurrence{Range: from, Symbol: id, Roles: graph.RoleReference, Enclosing: enc})
		src.edge(enc, id, graph.EdgeReferences, "lsp:definition", 1)
	}
	return nil
}

// implementation: implements edges between the symbol at the position and
// each result; the interface side is the implemented one.
func (b *batch) implementation(params, result json.RawMessage) error {
	src, pos, ok, err := b.position(params)
	if err != nil || !ok {
		return err
	}
	subject := b.subject(src, pos)
	if subject == "" {
		return nil // the identity rule needs the subject's definition
	}
	subjectIsInterface := b.interfaceish(subject)
	locs, err := lspwire.DecodeLocations(result)
	if err != nil {
		return errorf("implementation result: %w", err)
	}
	for _, l := range locs {
		uri, r, _, ok := l.Target()
		if !ok {
			continue
		}
		tgt, rng, ok := b.locate(uri, r)
		if !ok {
			continue
		}
		id := tgt.define(rng, textpos.Range{}, "", "")
		if subjectIsInterface || !b.interfaceish(id) {
			tgt.edge(id, subject, graph.EdgeImplements, "lsp:implementation", 1)
		} else {
			src.edge(subject, id, graph.EdgeImplements, "lsp:implementation", 1)
		}
	}
	return nil
}

// interfaceish reports whether a symbol is an interface or lies in one (an
// interface method).
func (b *batch) interfaceish(id string) bool {
	s, ok, err := b.r.Symbol(b.ctx, id)
	if err != nil || !ok {
		return false
	}
	if s.Kind == "interface" {
		return true
	}
	if s.Def.Path == "" {
		return false
	}
	d, ok := b.docs[s.Def.Path]
	if !ok {
		return false
	}
	enc, ok := d.symbol(d.enclosing(s.Def.Range))
	return ok && enc.Kind == "interface"
}

// references: an occurrence per location, references edges from each
// enclosing symbol.
func (b *batch) references(params, result json.RawMessage) error {
	src, pos, ok, err := b.position(params)
	if err != nil || !ok {
		return err
	}
	var locs []lspwire.Location
	if err := unmarshal(result, &locs); err != nil {
		return errorf("references result: %w", err)
	}
	subject := b.subject(src, pos)
	var def textpos.Range
	if subject == "" {
		// Unknown to the graph: usable only when the answer includes the
		// declaration and the question was asked at it.
		word, ok := wordAt(src.m, pos)
		if !ok {
			return nil
		}
		for _, l := range locs {
			if d, rng, ok := b.locate(l.URI, l.Range); ok && d == src && rng == word {
				subject, def = src.define(word, textpos.Range{}, "", ""), word
			}
		}
		if subject == "" {
			return nil
		}
	}
	type site struct {
		d   *docFacts
		enc string
	}
	counts := map[site]int{}
	var order []site
	for _, l := range locs {
		d, rng, ok := b.locate(l.URI, l.Range)
		if !ok {
			continue
		}
		if d == src && rng == def {
			continue
		}
		if s, ok := d.symbol(subject); ok && s.Def.Path == d.path && s.Def.Range == rng {
			continue // the declaration itself
		}
		enc := d.enclosing(rng)
		d.occs = append(d.occs, graph.Occurrence{Range: rng, Symbol: subject, Roles: graph.RoleReference, Enclosing: enc})
		if enc != "" {
			k := site{d, enc}
			if counts[k] == 0 {
				order = append(order, k)
			}
			counts[k]++
		}
	}
	for _, k := range order {
		k.d.edge(k.enc, subject, graph.EdgeReferences, "lsp:references", counts[k])
	}
	return nil
}

// documentSymbol: symbols with names and extents, contains edges.
func (b *batch) documentSymbol(params, result json.RawMessage) error {
	var p lspwire.TextDocumentPosition
	if err := json.Unmarshal(params, &p); err != nil {
		return errorf("documentSymbol params: %w", err)
	}
	d, ok := b.doc(p.TextDocument.URI)
	if !ok {
		return nil
	}
	var syms []lspwire.DocumentSymbol
	if err := unmarshal(result, &syms); err != nil {
		return errorf("documentSymbol result: %w", err)
	}
	// Parents are defined before their children, so each child's
	// definition finds its parent's extent as its enclosing definition.
	var walk func(list []lspwire.DocumentSymbol, parent string)
	walk = func(list []lspwire.DocumentSymbol, parent string) {
		for _, s := range list {
			var sel, ext textpos.Range
			var ok1, ok2 bool
			switch {
			case s.SelectionRange != nil && s.Range != nil:
				sel, ok1 = b.convert(d, *s.SelectionRange)
				ext, ok2 = b.convert(d, *s.Range)
			case s.Location != nil && s.Location.Range != nil:
				// SymbolInformation: the range is the extent; the name is
				// the first whole-word occurrence of the name inside it.
				ext, ok2 = b.convert(d, *s.Location.Range)
				sel, ok1 = nameIn(d.m, ext, s.Name)
			}
			if !ok1 || !ok2 {
				continue
			}
			id := d.define(sel, ext, s.Name, lspwire.KindName(s.Kind))
			d.edge(parent, id, graph.EdgeContains, "lsp:documentSymbol", 1)
			walk(s.Children, id)
		}
	}
	walk(syms, "")
	return nil
}

// nameIn finds name on the first line of ext.
func nameIn(m *textpos.Mapper, ext textpos.Range, name string) (textpos.Range, bool) {
	line, ok := m.Line(ext.Start.Line)
	if !ok || name == "" || int(ext.Start.Col) > len(line) {
		return textpos.Range{}, false
	}
	// Servers qualify names ("(*Catalog).Save", "Catalog.Save"); the name
	// in the text is the last component.
	if j := strings.LastIndexByte(name, '.'); j >= 0 && j+1 < len(name) {
		if i := indexWord(string(line[ext.Start.Col:]), name); i < 0 {
			name = name[j+1:]
		}
	}
	i := indexWord(string(line[ext.Start.Col:]), name)
	if i < 0 {
		return textpos.Range{}, false
	}
	start := ext.Start.Col + uint32(i)
	return textpos.Range{Start: textpos.Position{Line: ext.Start.Line, Col: start}, End: textpos.Position{Line: ext.Start.Line, Col: start + uint32(len(name))}}, true
}

// item records a call hierarchy item as a symbol and returns its id.
func (b *batch) item(it lspwire.CallHierarchyItem) (*docFacts, string, bool) {
	d, ok := b.doc(it.URI)
	if !ok {
		return nil, "", false
	}
	sel, ok1 := b.convert(d, it.SelectionRange)
	ext, ok2 := b.convert(d, it.Range)
	if !ok1 || !ok2 {
		return nil, "", false
	}
	return d, d.define(sel, ext, it.Name, lspwire.KindName(it.Kind)), true
}

// calls: calls edges and call occurrences at the call sites, which lie in
// the caller's document.
func (b *batch) calls(method string, params, result json.RawMessage) error {
	var p struct {
		Item lspwire.CallHierarchyItem `json:"item"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return errorf("%s params: %w", method, err)
	}
	var calls []lspwire.CallHierarchyCall
	if err := unmarshal(result, &calls); err != nil {
		return errorf("%s result: %w", method, err)
	}
	itemDoc, itemID, ok := b.item(p.Item)
	if !ok {
		return nil
	}
	for _, c := range calls {
		var callerDoc *docFacts
		var caller, callee string
		if method == "callHierarchy/incomingCalls" {
			if callerDoc, caller, ok = b.item(c.From); !ok {
				continue
			}
			callee = itemID
		} else {
			if _, callee, ok = b.item(c.To); !ok {
				continue
			}
			callerDoc, caller = itemDoc, itemID
		}
		n := 0
		for _, r := range c.FromRanges {
			rng, ok := b.convert(callerDoc, r)
			if !ok {
				continue
			}
			callerDoc.occs = append(callerDoc.occs, graph.Occurrence{Range: rng, Symbol: callee, Roles: graph.RoleReference | graph.RoleCall, Enclosing: caller})
			n++
		}
		callerDoc.edge(caller, callee, graph.EdgeCalls, "lsp:"+method, n)
	}
	return nil
}

// workspaceSymbol records symbols whose location is exactly their name.
func (b *batch) workspaceSymbol(result json.RawMessage) error {
	var syms []lspwire.DocumentSymbol
	if err := unmarshal(result, &syms); err != nil {
		return errorf("workspace/symbol result: %w", err)
	}
	for _, s := range syms {
		if s.Location == nil || s.Location.Range == nil {
			continue
		}
		d, rng, ok := b.locate(s.Location.URI, *s.Location.Range)
		if !ok || rangeText(d.m, rng) != s.Name {
			continue
		}
		d.define(rng, textpos.Range{}, s.Name, lspwire.KindName(s.Kind))
	}
	return nil
}
