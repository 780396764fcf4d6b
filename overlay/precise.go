package overlay

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/syntax"
)

// Over a precise base (a SCIP import or a language-server crawl) the
// unchanged documents reference the base's identities, so a re-extracted
// document must speak them too, or every path through it is cut:
//
//   - its definitions take the identity of the base symbol the same
//     document defined before, matched by container-qualified display name
//     and kind, else by display name and the nearest definition position;
//     a definition without a match is new and keeps its syntax identity;
//   - its references resolve, by the syntax rules, against the graph's
//     symbols presented under their syntax-equivalent identity (a Go SCIP
//     symbol `pkg`/T#M(). is "syntax go pkg T.M"), and are then written
//     with the precise identity; the edge keeps the syntax confidence and
//     its reason gains "→scip" (or "→lsp").

// preciseSource returns the source name of a base built by a precise
// producer ("scip" or "lsp"), or "" for a syntax base.
func preciseSource(base graph.Manifest) string {
	switch {
	case base.Tool == "" || base.Tool == syntax.Tool:
		return ""
	case strings.HasPrefix(base.Tool, "scip"):
		return graph.SourceSCIP
	}
	return graph.SourceLSP
}

// isSyntaxID reports whether id is a syntax identity.
func isSyntaxID(id string) bool { return strings.HasPrefix(id, "syntax ") }

// isLocal reports whether s is a document-local symbol (never referenced
// from another document, never matched).
func isLocal(s graph.Symbol) bool {
	return s.Kind == "local" || strings.HasPrefix(s.ID, "local ")
}

// syntaxQualified returns the container-qualified name a syntax identity
// carries ("Catalog.Save" in "syntax go example.com/goapp/service
// Catalog.Save"; "" for a package).
func syntaxQualified(id string) string {
	f := strings.SplitN(id, " ", 4)
	if len(f) < 4 {
		return ""
	}
	return f[3]
}

// scipDescriptors splits the descriptors of a SCIP symbol string into the
// names of its non-namespace descriptors ("Catalog", "Save" for
// `pkg`/Catalog#Save().). ok is false for a local or malformed symbol.
func scipDescriptors(sym string) (names []string, ok bool) {
	// scheme, manager, package name, version, then descriptors; a double
	// space is an escaped space inside a field.
	i, fields := 0, 0
	for ; i < len(sym) && fields < 4; i++ {
		if sym[i] != ' ' {
			continue
		}
		if i+1 < len(sym) && sym[i+1] == ' ' {
			i++
			continue
		}
		fields++
	}
	if fields < 4 {
		return nil, false
	}
	s := sym[i:]
	for len(s) > 0 {
		switch s[0] {
		case '[', '(': // type parameter, parameter
			end := byte(']')
			if s[0] == '(' {
				end = ')'
			}
			j := strings.IndexByte(s, end)
			if j < 0 {
				return nil, false
			}
			s = s[j+1:]
			continue
		}
		var name string
		if s[0] == '`' {
			var b strings.Builder
			j := 1
			for ; j < len(s); j++ {
				if s[j] == '`' {
					if j+1 < len(s) && s[j+1] == '`' {
						b.WriteByte('`')
						j++
						continue
					}
					break
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, false
			}
			name, s = b.String(), s[j+1:]
		} else {
			j := 0
			for j < len(s) && strings.IndexByte("/#.:!([", s[j]) < 0 {
				j++
			}
			name, s = s[:j], s[j:]
		}
		if len(s) == 0 {
			return nil, false
		}
		switch s[0] {
		case '/': // namespace: part of the package
			s = s[1:]
			continue
		case '#', '.', ':', '!':
			s = s[1:]
		case '(': // method: (disambiguator).
			j := strings.IndexByte(s, ')')
			if j < 0 || j+1 >= len(s) || s[j+1] != '.' {
				return nil, false
			}
			s = s[j+2:]
		default:
			return nil, false
		}
		names = append(names, name)
	}
	return names, true
}

// receiverName splits a Go method name in the language server's receiver
// form ("(*Catalog).Save", "(List[T]).Len") into its type and method names.
func receiverName(display string) (typ, name string, ok bool) {
	if !strings.HasPrefix(display, "(") {
		return "", "", false
	}
	recv, name, ok := strings.Cut(display[1:], ").")
	if !ok || name == "" {
		return "", "", false
	}
	recv = strings.TrimPrefix(recv, "*")
	if i := strings.IndexByte(recv, '['); i >= 0 {
		recv = recv[:i]
	}
	return recv, name, recv != ""
}

// plainName returns a symbol's display name without a receiver.
func plainName(display string) string {
	if _, name, ok := receiverName(display); ok {
		return name
	}
	return display
}

// preciseQualified returns the container-qualified display name of a base
// symbol of a precise layer: from the descriptors of a SCIP symbol, else
// from the innermost type-like symbol of the same document whose extent
// contains its definition.
func preciseQualified(s graph.Symbol, docSyms []graph.Symbol) string {
	if names, ok := scipDescriptors(s.ID); ok {
		return strings.Join(names, ".")
	}
	if s.Kind == "package" || s.Kind == "module" {
		return ""
	}
	if typ, name, ok := receiverName(s.DisplayName); ok {
		return typ + "." + name
	}
	var best *graph.Symbol
	for i := range docSyms {
		c := &docSyms[i]
		if c.ID == s.ID || !typeLike(c.Kind) || !hasExtent(*c) || !c.DefExtent.ContainsRange(s.Def.Range) {
			continue
		}
		if best == nil || best.DefExtent.ContainsRange(c.DefExtent) {
			best = c
		}
	}
	if best != nil {
		return best.DisplayName + "." + s.DisplayName
	}
	return s.DisplayName
}

func typeLike(kind string) bool {
	switch kind {
	case "struct", "interface", "type", "class", "enum":
		return true
	}
	return false
}

// hasExtent reports whether a symbol's definition extent is known.
func hasExtent(s graph.Symbol) bool { return s.DefExtent.End.Line != 0 || s.DefExtent.End.Col != 0 }

// defMap matches the definitions of a re-extracted document (syntax
// identities) with the symbols its base version defined (precise
// identities) and returns syntax id → base id for those that match.
func defMap(syms []graph.Symbol, base []graph.Symbol) map[string]string {
	type key struct{ qualified, kind string }
	byKey := map[key][]int{}
	byName := map[string][]int{}
	var cands []graph.Symbol
	for _, b := range base {
		if isLocal(b) || b.External || isSyntaxID(b.ID) {
			continue
		}
		i := len(cands)
		cands = append(cands, b)
		k := key{preciseQualified(b, base), b.Kind}
		byKey[k] = append(byKey[k], i)
		byName[plainName(b.DisplayName)] = append(byName[plainName(b.DisplayName)], i)
	}
	if len(cands) == 0 {
		return nil
	}
	used := make([]bool, len(cands))
	out := map[string]string{}
	nearest := func(s graph.Symbol, idx []int) int {
		best, bestD := -1, uint64(0)
		for _, i := range idx {
			if used[i] {
				continue
			}
			d := distance(s.Def.Range.Start.Line, cands[i].Def.Range.Start.Line)<<32 | distance(s.Def.Range.Start.Col, cands[i].Def.Range.Start.Col)
			if best < 0 || d < bestD {
				best, bestD = i, d
			}
		}
		return best
	}
	var rest []graph.Symbol
	for _, s := range syms {
		if !isSyntaxID(s.ID) {
			continue
		}
		if i := nearest(s, byKey[key{syntaxQualified(s.ID), s.Kind}]); i >= 0 {
			used[i] = true
			out[s.ID] = cands[i].ID
			continue
		}
		rest = append(rest, s)
	}
	for _, s := range rest {
		if i := nearest(s, byName[s.DisplayName]); i >= 0 {
			used[i] = true
			out[s.ID] = cands[i].ID
		}
	}
	return out
}

func distance(a, b uint32) uint64 {
	if a > b {
		return uint64(a - b)
	}
	return uint64(b - a)
}

// mapSymbols returns syms with their identities mapped through m.
func mapSymbols(syms []graph.Symbol, m map[string]string) []graph.Symbol {
	if len(m) == 0 {
		return syms
	}
	out := make([]graph.Symbol, len(syms))
	for i, s := range syms {
		if id, ok := m[s.ID]; ok {
			s.ID = id
		}
		out[i] = s
	}
	return out
}

// syntaxEquivalent returns the syntax identity that syntax extraction gives
// the definition a precise symbol names, when it can be derived (Go SCIP
// symbols).
func syntaxEquivalent(s graph.Symbol) (string, bool) {
	if s.Language != "go" || s.Package == "" || isSyntaxID(s.ID) || isLocal(s) {
		return "", false
	}
	names, ok := scipDescriptors(s.ID)
	if !ok {
		// A language server's symbol: a method in receiver form, or a
		// package-level declaration (a member without its container
		// cannot be named).
		if typ, name, ok := receiverName(s.DisplayName); ok {
			return "syntax go " + s.Package + " " + typ + "." + name, true
		}
		switch s.Kind {
		case "method", "field", "constructor", "local", "parameter", "package", "module", "":
			return "", false
		}
		return "syntax go " + s.Package + " " + s.DisplayName, true
	}
	if len(names) == 0 {
		return "syntax go " + s.Package, true
	}
	return "syntax go " + s.Package + " " + strings.Join(names, "."), true
}

// aliasLookup is a syntax.Lookup over a graph snapshot that presents
// precise symbols under their syntax-equivalent identity, so that the
// syntax rules (receiver, declared and imported types) apply to them, and
// remembers the alias to write the precise identity back.
type aliasLookup struct {
	find finder
	// receivers: the graph names Go methods in receiver form
	// ("(*Catalog).Save", a language server's documentSymbol), so that a
	// lookup of "Save" must also find those.
	receivers bool

	mu      sync.Mutex
	alias   map[string]string         // syntax-equivalent id → precise id
	methods map[string][]graph.Symbol // receiver-form methods by method name; nil until loaded
}

func newAliasLookup(find finder, source string) *aliasLookup {
	return &aliasLookup{find: find, receivers: source == graph.SourceLSP, alias: map[string]string{}}
}

// receiverMethods returns the receiver-form methods named name, loading
// them (every display name starting with "(") on first use.
func (l *aliasLookup) receiverMethods(ctx context.Context, name string) ([]graph.Symbol, error) {
	l.mu.Lock()
	loaded := l.methods != nil
	l.mu.Unlock()
	if !loaded {
		syms, err := l.find(ctx, nameQuery{name: "(", prefix: true})
		if err != nil {
			return nil, fmt.Errorf("overlay: listing methods in the graph: %w", err)
		}
		m := map[string][]graph.Symbol{}
		for _, s := range syms {
			if _, n, ok := receiverName(s.DisplayName); ok {
				m[n] = append(m[n], s)
			}
		}
		l.mu.Lock()
		l.methods = m
		l.mu.Unlock()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.methods[name], nil
}

// Named returns the graph's symbols named name, precise ones under their
// syntax-equivalent identity. A precise symbol is preferred over a syntax
// one of the same identity.
func (l *aliasLookup) Named(ctx context.Context, name string) ([]graph.Symbol, error) {
	syms, err := l.find.Named(ctx, name)
	if err != nil {
		return nil, err
	}
	syms = slices.Clone(syms) // the finder's own
	if l.receivers {
		methods, err := l.receiverMethods(ctx, name)
		if err != nil {
			return nil, err
		}
		syms = append(syms, methods...)
	}
	// Precise symbols first, in a stable order, so that the first precise
	// symbol of an identity owns the alias.
	sort.SliceStable(syms, func(i, j int) bool { return !isSyntaxID(syms[i].ID) && isSyntaxID(syms[j].ID) })
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]graph.Symbol, 0, len(syms))
	for _, s := range syms {
		// External symbols (references to dependencies) are not
		// resolution targets; they must not take an alias from a
		// workspace definition.
		if alias, ok := syntaxEquivalent(s); ok && !s.External {
			if prev, taken := l.alias[alias]; !taken || prev == s.ID {
				l.alias[alias] = s.ID
				s.ID = alias
			}
		}
		s.DisplayName = plainName(s.DisplayName)
		out = append(out, s)
	}
	return out, nil
}

// lookup returns the precise identity presented under id.
func (l *aliasLookup) lookup(id string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.alias[id]
	return p, ok
}

// toPrecise rewrites the identities of a resolved document: its own
// definitions through defs, the symbols it resolved against through the
// aliases. An edge that now ends at a precise identity keeps its syntax
// confidence and its reason gains "→source".
//
// An edge the base version of the same document justified too (same
// caller, target and kind once mapped) is confirmed: it takes the base's
// confidence when that is higher, and its reason says so. This keeps, for
// example, a call through a variable whose type syntax cannot infer (a
// unique-global-name guess below the impact threshold) as strong as the
// base's when the caller and its callee are unchanged.
func toPrecise(df *graph.DocumentFacts, defs map[string]string, aliases *aliasLookup, source string, baseEdges []graph.Edge) {
	type edgeKey struct {
		from, to string
		kind     graph.EdgeKind
	}
	confirmed := map[edgeKey]float64{}
	for _, e := range baseEdges {
		k := edgeKey{e.From, e.To, e.Kind}
		confirmed[k] = max(confirmed[k], e.Confidence)
	}
	mapID := func(id string) (string, bool) {
		if id == "" {
			return id, false
		}
		if p, ok := defs[id]; ok {
			return p, true
		}
		if aliases != nil {
			if p, ok := aliases.lookup(id); ok {
				return p, true
			}
		}
		return id, false
	}
	for i := range df.Symbols {
		if p, ok := defs[df.Symbols[i].ID]; ok {
			df.Symbols[i].ID = p
		}
	}
	for i := range df.Occurrences {
		o := &df.Occurrences[i]
		o.Symbol, _ = mapID(o.Symbol)
		o.Enclosing, _ = mapID(o.Enclosing)
	}
	for i := range df.Edges {
		e := &df.Edges[i]
		var fromOK, toOK bool
		e.From, fromOK = mapID(e.From)
		e.To, toOK = mapID(e.To)
		if e.Source != graph.SourceSyntax || !(fromOK || toOK) {
			continue
		}
		e.Reason += "→" + source
		if c, ok := confirmed[edgeKey{e.From, e.To, e.Kind}]; ok && c > e.Confidence {
			e.Confidence = c
			e.Reason += " (confirmed by the base)"
		}
	}
}

// preciseMap holds, during one sync, the definition maps of re-extracted
// documents over a precise base (source "" for a syntax base: nothing is
// mapped).
type preciseMap struct {
	source string
	defs   map[string]map[string]string // by path
	names  map[string]string            // base id → its base display name
	// origin maps a renamed document to its path at the base commit,
	// whose symbols it inherits.
	origin map[string]string
}

// baseNames gives the mapped definitions of df their base display names
// ("(*Catalog).Save" from a language server), so that a symbol keeps its
// name along with its identity.
func (pm *preciseMap) baseNames(df *graph.DocumentFacts) {
	for i := range df.Symbols {
		if n, ok := pm.names[df.Symbols[i].ID]; ok && n != "" {
			df.Symbols[i].DisplayName = n
		}
	}
}

// baseEdges returns the edges the base version of a document justifies.
func (pm *preciseMap) baseEdges(ctx context.Context, r *graph.Reader, p string) ([]graph.Edge, error) {
	if o, ok := pm.origin[p]; ok {
		p = o
	}
	edges, err := r.BaseDocumentEdges(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("overlay: reading the base edges of %s: %w", p, err)
	}
	return edges, nil
}

// defMap returns the definition map of an extracted document, reading the
// base version's symbols once per sync.
func (pm *preciseMap) defMap(ctx context.Context, r *graph.Reader, f *syntax.FileFacts) (map[string]string, error) {
	if pm.source == "" {
		return nil, nil
	}
	p := f.Document.Path
	if m, ok := pm.defs[p]; ok {
		return m, nil
	}
	from := p
	if o, ok := pm.origin[p]; ok {
		from = o
	}
	base, err := r.BaseDocumentSymbols(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("overlay: reading the base symbols of %s: %w", from, err)
	}
	m := defMap(f.Symbols, base)
	pm.defs[p] = m
	if len(m) > 0 {
		if pm.names == nil {
			pm.names = map[string]string{}
		}
		for _, b := range base {
			pm.names[b.ID] = b.DisplayName
		}
	}
	return m, nil
}
