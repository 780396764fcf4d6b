package ingest

import (
	"context"
	"reflect"
	"slices"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// batch collects the new facts of one exchange per document and merges
// them into what the graph serves.
type batch struct {
	l    *Live
	r    *graph.Reader
	ctx  context.Context
	enc  textpos.Encoding
	docs map[string]*docFacts
	// stamps describe the files read from disk; unsure is set when a
	// document's text could not be read or stamped, or its facts not
	// loaded, so the exchange's outcome must not be remembered. written
	// counts the documents committed.
	stamps  []fileStamp
	unsure  bool
	written int
}

// docFacts is one document touched by an exchange.
type docFacts struct {
	path   string
	text   []byte
	m      *textpos.Mapper
	served []graph.Symbol // what the graph serves for the document now
	syms   []graph.Symbol
	occs   []graph.Occurrence
	edges  []graph.Edge
}

// doc returns the document of a URI, loading its text and known symbols;
// false outside the workspace or when its text cannot be read.
func (b *batch) doc(uri string) (*docFacts, bool) {
	path, ok := b.l.path(uri)
	if !ok {
		return nil, false
	}
	if d, ok := b.docs[path]; ok {
		return d, true
	}
	text, st, err := b.l.text(path)
	if err != nil {
		b.unsure = true
		b.l.log.Debug("document text unavailable; its facts are skipped", "path", path, "err", err)
		return nil, false
	}
	switch {
	case st.fi != nil:
		b.stamps = append(b.stamps, st)
	case st.abs != "":
		b.unsure = true // read from disk but not stamped
	}
	served, err := b.r.DocumentSymbols(b.ctx, path)
	if err != nil {
		b.unsure = true
		b.l.log.Debug("reading a document's symbols", "path", path, "err", err)
	}
	d := &docFacts{path: path, text: text, m: textpos.NewMapper(text), served: served}
	b.docs[path] = d
	return d, true
}

// convert maps a server range to a graph range in d's text.
func (b *batch) convert(d *docFacts, r lspwire.Range) (textpos.Range, bool) {
	g, err := r.TextRange(d.m, b.enc)
	return g, err == nil
}

// locate returns the document of a URI and r as a graph range in it;
// false outside the workspace or when r does not fit the document's text.
func (b *batch) locate(uri string, r lspwire.Range) (*docFacts, textpos.Range, bool) {
	d, ok := b.doc(uri)
	if !ok {
		return nil, textpos.Range{}, false
	}
	rng, ok := b.convert(d, r)
	return d, rng, ok
}

// defID returns the id of the symbol defined at rng in d: a known symbol
// whose Def is there, else a location id.
func (d *docFacts) defID(rng textpos.Range) string {
	for _, list := range [][]graph.Symbol{d.served, d.syms} {
		for _, s := range list {
			if s.Def.Path == d.path && s.Def.Range == rng {
				return s.ID
			}
		}
	}
	return lang.LSPSymbolID(d.path, rng.Start)
}

// symbol returns a known symbol of d by id.
func (d *docFacts) symbol(id string) (graph.Symbol, bool) {
	for _, list := range [][]graph.Symbol{d.syms, d.served} {
		for _, s := range list {
			if s.ID == id {
				return s, true
			}
		}
	}
	return graph.Symbol{}, false
}

// enclosing returns the innermost symbol of d whose extent contains rng,
// other than the one defined at rng.
func (d *docFacts) enclosing(rng textpos.Range) string {
	best := ""
	var bestExt textpos.Range
	for _, list := range [][]graph.Symbol{d.served, d.syms} {
		for _, s := range list {
			ext := s.DefExtent
			if ext == (textpos.Range{}) || s.Def.Range == rng || !ext.ContainsRange(rng) {
				continue
			}
			if best == "" || bestExt.ContainsRange(ext) {
				best, bestExt = s.ID, ext
			}
		}
	}
	return best
}

// define records a symbol defined at rng (a definition occurrence and the
// symbol itself) and returns its id.
func (d *docFacts) define(rng, extent textpos.Range, name, kind string) string {
	id := d.defID(rng)
	if name == "" {
		name = rangeText(d.m, rng)
	}
	d.syms = append(d.syms, graph.Symbol{
		ID: id, DisplayName: name, Kind: kind, Language: lang.Of(d.path),
		Def: graph.Location{Path: d.path, Range: rng}, DefExtent: extent,
	})
	d.occs = append(d.occs, graph.Occurrence{Range: rng, Symbol: id, Roles: graph.RoleDefinition, Enclosing: d.enclosing(rng)})
	return id
}

// edge records an edge justified by d.
func (d *docFacts) edge(from, to string, kind graph.EdgeKind, reason string, count int) {
	if from == "" || to == "" || from == to {
		return
	}
	d.edges = append(d.edges, graph.Edge{From: from, To: to, Kind: kind, Confidence: 1, Source: graph.SourceLSP, Reason: reason, Count: max(count, 1)})
}

// commit merges each touched document's new facts into what the graph
// serves for it and writes the union to the live layer.
func (b *batch) commit() error {
	paths := make([]string, 0, len(b.docs))
	for p, d := range b.docs {
		if len(d.syms)+len(d.occs)+len(d.edges) > 0 {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		f, changed, err := b.merged(b.docs[p])
		if err != nil {
			return err
		}
		if !changed {
			// The answer repeats what the live layer holds: rewriting the
			// document would only pile up deleted records that every later
			// read has to step over.
			continue
		}
		if err := b.l.store.PutDocument(b.ctx, graph.Live, f); err != nil {
			return errorf("writing live document %q: %w", p, err)
		}
		b.l.documents.Add(1)
		b.written++
	}
	return nil
}

// merged returns the document's served facts with d's new facts added,
// and whether that differs from the live document the graph holds (false
// when the live layer already has every fact d brings, from the same text).
func (b *batch) merged(d *docFacts) (graph.DocumentFacts, bool, error) {
	var f graph.DocumentFacts
	doc, ok, err := b.r.Document(b.ctx, d.path)
	if err != nil {
		return f, false, errorf("reading document %q: %w", d.path, err)
	}
	if !ok {
		doc = graph.Document{Path: d.path, Language: lang.Of(d.path)}
	}
	hash := lang.HashContent(d.text)
	changed := !ok || doc.Layer != graph.Live || doc.Source != graph.SourceLSP || doc.Digest != "" || doc.ContentHash != hash
	doc.Layer = 0
	doc.Source = graph.SourceLSP
	doc.Digest = ""
	doc.ContentHash = hash
	f.Document = doc

	occs, err := b.r.Occurrences(b.ctx, d.path)
	if err != nil {
		return f, false, errorf("reading occurrences of %q: %w", d.path, err)
	}
	// Symbols: the served ones, with new ones filling gaps.
	f.Symbols = slices.Clone(d.served)
	for _, s := range d.syms {
		i := slices.IndexFunc(f.Symbols, func(x graph.Symbol) bool { return x.ID == s.ID })
		if i < 0 {
			f.Symbols = append(f.Symbols, s)
			changed = true
			continue
		}
		x := &f.Symbols[i]
		before := *x
		x.DisplayName = cmpOr(x.DisplayName, s.DisplayName)
		x.Kind = cmpOr(x.Kind, s.Kind)
		x.Language = cmpOr(x.Language, s.Language)
		if x.Def.Path == "" {
			x.Def = s.Def
		}
		if x.DefExtent == (textpos.Range{}) {
			x.DefExtent = s.DefExtent
		}
		changed = changed || !reflect.DeepEqual(before, *x)
	}
	// Occurrences: once per range and symbol (the graph merges roles).
	f.Occurrences = occs
	type occKey struct {
		r   textpos.Range
		sym string
	}
	seen := map[occKey]int{}
	for i, o := range f.Occurrences {
		seen[occKey{o.Range, o.Symbol}] = i
	}
	for _, o := range d.occs {
		if i, ok := seen[occKey{o.Range, o.Symbol}]; ok {
			x := &f.Occurrences[i]
			if x.Roles|o.Roles != x.Roles || (x.Enclosing == "" && o.Enclosing != "") {
				changed = true
			}
			x.Roles |= o.Roles
			if x.Enclosing == "" {
				x.Enclosing = o.Enclosing
			}
			continue
		}
		seen[occKey{o.Range, o.Symbol}] = len(f.Occurrences)
		f.Occurrences = append(f.Occurrences, o)
		changed = true
	}
	// Edges: what the document justifies now, read through the symbols it
	// defines or encloses, then the new ones, once per key.
	from := map[string]bool{}
	for _, s := range f.Symbols {
		from[s.ID] = true
	}
	for _, o := range f.Occurrences {
		if o.Enclosing != "" {
			from[o.Enclosing] = true
		}
	}
	for _, e := range d.edges {
		from[e.From] = true
	}
	type edgeKey struct {
		from, to string
		kind     graph.EdgeKind
	}
	at := map[edgeKey]int{}
	for _, id := range sortedKeys(from) {
		out, err := b.r.Outgoing(b.ctx, id, graph.EdgeFilter{})
		if err != nil {
			return f, false, errorf("reading edges of %q: %w", id, err)
		}
		for _, e := range out {
			if e.Path != d.path {
				continue
			}
			e.Path, e.Layer = "", 0
			at[edgeKey{e.From, e.To, e.Kind}] = len(f.Edges)
			f.Edges = append(f.Edges, e)
		}
	}
	for _, e := range d.edges {
		k := edgeKey{e.From, e.To, e.Kind}
		if i, ok := at[k]; ok {
			x := &f.Edges[i]
			before := *x
			x.Count = max(x.Count, e.Count)
			if e.Confidence >= x.Confidence {
				x.Confidence, x.Source, x.Reason = e.Confidence, e.Source, e.Reason
			}
			changed = changed || *x != before
			continue
		}
		at[k] = len(f.Edges)
		f.Edges = append(f.Edges, e)
		changed = true
	}
	return f, changed, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
