package scip

import (
	"cmp"
	"slices"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/freelist"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/terms"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/scip-code/scip/bindings/go/scip"
)

// Edge reasons: the rule that made each SCIP edge.
const (
	ReasonReference      = "scip:reference-in-body"
	ReasonCall           = "scip:call-by-descriptor"
	ReasonImport         = "scip:import-role"
	ReasonImplementation = "scip:relationship-implementation"
	ReasonTypeDefinition = "scip:relationship-type-definition"
	ReasonRelReference   = "scip:relationship-reference"
	ReasonContains       = "scip:descriptor-parent"
)

// ExternalPath is the pseudo document that holds the index's
// external_symbols section. It cannot collide with a workspace file: a
// document path never starts with "<".
const ExternalPath = "<external>"

// Converter turns SCIP documents into graph facts. The zero value is not
// usable; set Tool to the dump's tool name (it decides the position
// encoding when a document does not declare one).
type Converter struct {
	Tool string
	// Extra holds occurrences another producer adds to the document being
	// converted (conversion sites); see [Options.Conversions].
	Extra []ExtraOccurrence

	// shapes caches what symbol strings say by themselves (describe
	// without a SymbolInformation), by symbol, each for the language it
	// was described in (see shape): the documents of a dump mention the
	// same symbols over and over.
	shapes map[string]shape
	// parsed is the symbol describe parses into, reused.
	parsed scip.Symbol
	// kinds caches kindName: the enum's name comes from its descriptor.
	kinds map[scip.SymbolInformation_Kind]string
	// terms remembers the words of identifiers from document to document.
	terms *terms.Memo
	// scratch holds what converting a document builds and drops, kept for
	// the next: a dump's documents made a converter allocate some five
	// times their size.
	scratch convertScratch
	// reuseFacts says that the caller is done with a document's facts
	// when it converts the next one, whose facts may then reuse their
	// slices.
	reuseFacts bool
}

// convertScratch is what Convert keeps from one document to the next.
type convertScratch struct {
	occs      []occ
	cands     []candidate
	table     symbolTable
	infoOrder []int32
	defOrder  []int32
	edges     edgeSet
	enclosing enclosingScratch
	// The facts' slices, when the caller lets them be reused.
	symbols     []graph.Symbol
	occurrences []graph.Occurrence
}

// defInfo is a definition's name and extent.
type defInfo struct {
	name, extent textpos.Range
}

// shape is what a symbol string says by itself in the documents of one
// language. The cache is keyed by the string alone (its language most
// often the same for all of a dump's documents): a key of both strings
// cost a hash of the pair at every look-up.
type shape struct {
	lang string
	desc symbolDescription
}

// maxShapes bounds the converter's cache; it is emptied when full. 4K
// symbols hold what a dump's documents mention over and over (their
// language's and their module's common symbols) in about 2.5 MB; at 64K
// the cache of a large dump took some 30 MB more than a small one's, at
// 16K up to 10 MB (full more of the time the longer a dump), with no
// measurable gain in speed either time.
const maxShapes = 1 << 12

// describe is [describe] through the converter's cache: the symbol
// string's description, with the SymbolInformation's fields over it.
func (c *Converter) describe(sym string, info *scip.SymbolInformation, lang string) symbolDescription {
	sh, ok := c.shapes[sym]
	d := sh.desc
	if !ok || sh.lang != lang {
		d = describeInto(sym, nil, lang, &c.parsed)
		if c.shapes == nil || len(c.shapes) >= maxShapes {
			// Made at its full size: grown from empty, the cache rehashed
			// its entries some five times over each time it refilled.
			c.shapes = make(map[string]shape, maxShapes)
		}
		c.shapes[sym] = shape{lang, d}
	}
	if info != nil {
		if name := strings.ReplaceAll(info.DisplayName, "\x00", ""); name != "" {
			d.DisplayName = name
		}
		if kind := c.kindName(info.Kind); kind != "" {
			d.Kind = kind
		}
		d.Signature, d.Doc = signatureAndDoc(info)
	}
	return d
}

// kindName is [kindName] through the converter's cache.
func (c *Converter) kindName(k scip.SymbolInformation_Kind) string {
	name, ok := c.kinds[k]
	if !ok {
		if c.kinds == nil {
			c.kinds = make(map[scip.SymbolInformation_Kind]string)
		}
		name = kindName(k)
		if len(c.kinds) < 256 { // a dump may give any number
			c.kinds[k] = name
		}
	}
	return name
}

// DocStats counts what converting one document produced.
type DocStats struct {
	Occurrences        int // occurrences written
	InvalidOccurrences int // occurrences dropped: malformed range or empty symbol
	Symbols            int
	Edges              int
	Unverified         bool // positions kept as given (text missing or not matching)
	Encoding           textpos.Encoding
	// Package is the SCIP package of the document's first global
	// definition ("scheme manager name", see packageIdentity) and
	// Version the version its symbol names it at; both empty for a
	// document that defines no global symbol.
	Package, Version string
}

// Encoding returns the column encoding of a document: its declared
// position_encoding, else what the tool is known to emit (scip-go: UTF-8;
// scip-typescript, scip-python and unknown tools: UTF-16, the LSP default
// and what JavaScript-based indexers count).
func (c *Converter) Encoding(d *scip.Document) textpos.Encoding {
	switch d.PositionEncoding {
	case scip.PositionEncoding_UTF8CodeUnitOffsetFromLineStart:
		return textpos.UTF8
	case scip.PositionEncoding_UTF16CodeUnitOffsetFromLineStart:
		return textpos.UTF16
	case scip.PositionEncoding_UTF32CodeUnitOffsetFromLineStart:
		return textpos.UTF32
	}
	if c.Tool == "scip-go" {
		return textpos.UTF8
	}
	return textpos.UTF16
}

// occ is an occurrence being converted.
type occ struct {
	rng       textpos.Range
	sym       int32 // its symbol's number in the document's symbolTable
	roles     graph.Role
	enclosing int32 // the enclosing definition's symbol number, or noSymbol
}

// noSymbol is the number of no symbol.
const noSymbol = -1

// candidate is a definition that may enclose other occurrences.
type candidate struct {
	sym      string        // the SCIP symbol
	num      int32         // its number in the document's symbolTable
	name     textpos.Range // the definition's name
	extent   textpos.Range
	explicit bool // extent from enclosing_range
	whole    bool // spans the document
}

// symbolTable numbers the distinct symbols a document mentions, in order
// of first mention, and holds what converting it learns about each: one
// look-up of a symbol string per mention, where a map per fact (locals,
// informations, definitions, extents, described, edges) looked up each
// string again.
type symbolTable struct {
	nums freelist.ScratchMap[string, int32]
	syms []docSymbol
	path string
}

// docSymbol is one symbol of the document being converted.
type docSymbol struct {
	raw       string // the SCIP symbol string
	id        string // its graph id: raw, or for a local raw made unique to the document
	info      *scip.SymbolInformation
	def       defInfo // the first definition's, when hasDef
	extent    textpos.Range
	hasDef    bool
	hasExtent bool // extent is the first candidate's
	described bool // in the facts' symbols already
	// ownChecked: the symbol was found to be of the document's own
	// package, so that it needs no stub.
	ownChecked bool
}

// reset empties t for the document at path.
func (t *symbolTable) reset(path string) {
	t.nums.Reset()
	clear(t.syms) // the informations are the document's
	t.syms, t.path = t.syms[:0], path
}

// num returns raw's number, numbering it at its first mention.
func (t *symbolTable) num(raw string) int32 {
	if n, ok := t.nums.M[raw]; ok {
		return n
	}
	n := int32(len(t.syms))
	id := raw
	if scip.IsLocalSymbol(raw) {
		id = localID(raw, t.path)
	}
	t.nums.M[raw] = n
	t.syms = append(t.syms, docSymbol{raw: raw, id: id})
	return n
}

// Convert turns one document into facts. relPath is the document's
// validated path; text is its content when known (nil otherwise), needed
// only for documents whose columns are not UTF-8.
func (c *Converter) Convert(d *scip.Document, relPath string, text []byte) (graph.DocumentFacts, DocStats) {
	var st DocStats
	language := documentLanguage(d.Language, relPath)
	enc := c.Encoding(d)
	st.Encoding = enc
	conv := newRangeConverter(enc, text)

	isTest := lang.IsTestPath(relPath, language)
	docRoles := graph.Role(0)
	if isTest {
		docRoles = graph.RoleTest
	}
	sc := &c.scratch
	tab := &sc.table
	tab.reset(relPath)

	// Occurrences and the candidates for enclosing definitions.
	occs := slices.Grow(sc.occs[:0], len(d.Occurrences))
	cands := sc.cands[:0]
	defer func() { sc.occs, sc.cands = occs[:0], cands[:0] }()
	var docEnd textpos.Position
	for _, o := range d.Occurrences {
		r, ok := conv.convert(o.SourceRange())
		if !ok || !validSymbol(o.Symbol) {
			st.InvalidOccurrences++
			continue
		}
		if docEnd.Before(r.End) {
			docEnd = r.End
		}
		roles := mapRoles(o.SymbolRoles) | docRoles
		n := tab.num(o.Symbol)
		occs = append(occs, occ{rng: r, sym: n, roles: roles, enclosing: noSymbol})
		if roles&graph.RoleDefinition == 0 || !symbolSuffix(o.Symbol).encloses() {
			continue
		}
		cd := candidate{sym: o.Symbol, num: n, name: r, extent: r}
		if er, ok := conv.convert(o.EnclosingSourceRange()); ok && er.ContainsRange(r) {
			cd.extent, cd.explicit = er, true
		}
		cands = append(cands, cd)
	}
	if conv.failed && enc != textpos.UTF8 {
		// The text does not match the dump: keep every range as given
		// rather than mixing converted and unconverted columns.
		return c.Convert(d, relPath, nil)
	}
	st.Unverified = conv.unverified
	computeExtents(cands, docEnd)
	assignEnclosing(occs, cands, &sc.enclosing)

	// Symbol information, merged when the document repeats a symbol.
	infoOrder := sc.infoOrder[:0]
	defer func() { sc.infoOrder = infoOrder[:0] }()
	var repeated map[int32][]*scip.SymbolInformation // every entry of a symbol given more than once
	for _, si := range d.Symbols {
		if si == nil || !validSymbol(si.Symbol) {
			continue
		}
		n := tab.num(si.Symbol)
		if first := tab.syms[n].info; first != nil {
			if repeated == nil {
				repeated = make(map[int32][]*scip.SymbolInformation)
			}
			if repeated[n] == nil {
				repeated[n] = []*scip.SymbolInformation{first}
			}
			repeated[n] = append(repeated[n], si)
			continue
		}
		tab.syms[n].info = si
		infoOrder = append(infoOrder, n)
	}
	for n, all := range repeated {
		tab.syms[n].info = mergeInfos(all)
	}

	// Definitions: the first definition occurrence of each symbol.
	defOrder := sc.defOrder[:0]
	defer func() { sc.defOrder = defOrder[:0] }()
	for _, cd := range cands {
		if s := &tab.syms[cd.num]; !s.hasExtent {
			s.extent, s.hasExtent = cd.extent, true
		}
	}
	for _, o := range occs {
		if o.roles&graph.RoleDefinition == 0 {
			continue
		}
		if s := &tab.syms[o.sym]; !s.hasDef {
			s.def, s.hasDef = defInfo{name: o.rng, extent: s.extent}, true
			defOrder = append(defOrder, o.sym)
		}
	}

	// The document's own SCIP package and graph package.
	ownPkg, docPkg := "", ""
	for _, n := range defOrder {
		sym := tab.syms[n].raw
		if scip.IsLocalSymbol(sym) {
			continue
		}
		if ownPkg == "" {
			ownPkg, st.Version = packageOf(sym)
			st.Package = ownPkg
		}
		if docPkg == "" || symbolSuffix(sym) == sufNamespace {
			docPkg = c.describe(sym, nil, language).Package
			if symbolSuffix(sym) == sufNamespace {
				break
			}
		}
	}

	facts := graph.DocumentFacts{
		Document: graph.Document{
			Path:     relPath,
			Language: language,
			Package:  docPkg,
			Source:   graph.SourceSCIP,
		},
	}
	if text != nil {
		facts.Document.ContentHash = lang.HashContent(text)
	}
	if st.Unverified {
		facts.Document.Flags |= graph.DocPositionsUnverified
	}
	if isTest {
		facts.Document.Flags |= graph.DocTest
	}

	// Symbols: described or defined here, then stubs for symbols of other
	// SCIP packages that are only referenced.
	// A document has about one edge for every two occurrences (0.43 in
	// the pebble corpus): room for that many spares most regrowth.
	edges := &sc.edges
	edges.reset(tab, len(occs)/2, c.reuseFacts)
	if c.reuseFacts {
		facts.Symbols = sc.symbols[:0]
		facts.Occurrences = sc.occurrences[:0]
		defer func() { sc.symbols, sc.occurrences = facts.Symbols[:0], facts.Occurrences[:0] }()
	}
	addSymbol := func(n int32, info *scip.SymbolInformation) {
		if tab.syms[n].described {
			return
		}
		tab.syms[n].described = true
		sym := tab.syms[n].raw
		desc := c.describe(sym, info, language)
		s := graph.Symbol{
			ID:          tab.syms[n].id,
			DisplayName: desc.DisplayName,
			Kind:        desc.Kind,
			Language:    language,
			Package:     desc.Package,
			Signature:   desc.Signature,
			Doc:         desc.Doc,
		}
		if def := tab.syms[n].def; tab.syms[n].hasDef {
			s.Def = graph.Location{Path: relPath, Range: def.name}
			s.DefExtent = def.extent
			if desc.Parent != "" && (desc.ParentSuffix == scip.Descriptor_Namespace || desc.ParentSuffix == scip.Descriptor_Type) &&
				desc.Suffix != scip.Descriptor_Parameter && desc.Suffix != scip.Descriptor_TypeParameter {
				edges.add(tab.num(desc.Parent), graph.EdgeContains, n, ReasonContains, true)
			}
		} else {
			s.External = ownPkg == "" || packageIdentity(sym) != ownPkg
		}
		if info != nil {
			for _, rel := range info.Relationships {
				if rel == nil || !validSymbol(rel.Symbol) {
					continue
				}
				to := tab.num(rel.Symbol)
				if rel.IsImplementation {
					edges.add(n, graph.EdgeImplements, to, ReasonImplementation, true)
				}
				if rel.IsTypeDefinition {
					edges.add(n, graph.EdgeTypeDef, to, ReasonTypeDefinition, true)
				}
				if rel.IsReference {
					edges.add(n, graph.EdgeReferences, to, ReasonRelReference, true)
				}
			}
		}
		facts.Symbols = append(facts.Symbols, s)
	}
	for _, n := range infoOrder {
		addSymbol(n, tab.syms[n].info)
	}
	for _, n := range defOrder {
		addSymbol(n, nil)
	}

	c.addExtra(&facts, cands, relPath, tab, docRoles)

	// Occurrences and reference edges.
	facts.Occurrences = slices.Grow(facts.Occurrences, len(occs))
	for _, o := range occs {
		s := &tab.syms[o.sym]
		enclosing := ""
		if o.enclosing != noSymbol {
			enclosing = tab.syms[o.enclosing].raw
		}
		facts.Occurrences = append(facts.Occurrences, graph.Occurrence{
			Path:      relPath,
			Range:     o.rng,
			Symbol:    s.id,
			Roles:     o.roles,
			Enclosing: enclosing,
		})
		if o.roles&graph.RoleDefinition != 0 {
			continue
		}
		raw := s.raw
		if !s.described && !s.ownChecked && !scip.IsLocalSymbol(raw) {
			if ownPkg == "" || packageIdentity(raw) != ownPkg {
				s.described = true
				desc := c.describe(raw, nil, language)
				facts.Symbols = append(facts.Symbols, graph.Symbol{
					ID:          raw,
					DisplayName: desc.DisplayName,
					Kind:        desc.Kind,
					Language:    language,
					Package:     desc.Package,
					External:    true,
				})
			} else {
				s.ownChecked = true
			}
		}
		if o.enclosing == noSymbol || scip.IsLocalSymbol(raw) || o.enclosing == o.sym || isMember(raw, enclosing) {
			continue
		}
		edges.add(o.enclosing, graph.EdgeReferences, o.sym, ReasonReference, false)
		if symbolSuffix(raw) == sufMethod && !isModuleLevel(enclosing) {
			edges.add(o.enclosing, graph.EdgeCalls, o.sym, ReasonCall, false)
		}
		if o.roles&graph.RoleImport != 0 {
			edges.add(o.enclosing, graph.EdgeImports, o.sym, ReasonImport, false)
		}
	}
	facts.Edges = edges.list()
	st.Occurrences = len(facts.Occurrences)
	st.Symbols = len(facts.Symbols)
	st.Edges = len(facts.Edges)
	if c.terms == nil {
		c.terms = terms.NewMemo()
	}
	facts.Terms = c.terms.Document(facts.Document, facts.Symbols, text)
	return facts, st
}

// ExternalFacts turns the index's external_symbols section into the facts
// of the pseudo document [ExternalPath]. Locals (scip-python lists some)
// are dropped: they belong to no document.
func (c *Converter) ExternalFacts(infos []*scip.SymbolInformation) graph.DocumentFacts {
	facts := graph.DocumentFacts{Document: graph.Document{Path: ExternalPath, Source: graph.SourceSCIP}}
	tab := new(symbolTable)
	tab.reset(ExternalPath)
	edges := new(edgeSet)
	edges.reset(tab, 0, false)
	seen := make(map[string]int)
	// In an order of their content, as mergeInfos: a symbol's repeated
	// entries are merged into the first.
	infos = slices.Clone(infos)
	slices.SortStableFunc(infos, func(a, b *scip.SymbolInformation) int {
		return cmp.Or(strings.Compare(a.GetSymbol(), b.GetSymbol()), compareInfos(a, b))
	})
	for _, si := range infos {
		if si == nil || !validSymbol(si.Symbol) || scip.IsLocalSymbol(si.Symbol) {
			continue
		}
		if i, ok := seen[si.Symbol]; ok {
			// Merge a repeated entry into the first one.
			merged := describe(si.Symbol, si, "")
			s := &facts.Symbols[i]
			s.Signature = cmp.Or(s.Signature, merged.Signature)
			s.Doc = cmp.Or(s.Doc, merged.Doc)
		} else {
			desc := describe(si.Symbol, si, "")
			seen[si.Symbol] = len(facts.Symbols)
			facts.Symbols = append(facts.Symbols, graph.Symbol{
				ID:          si.Symbol,
				DisplayName: desc.DisplayName,
				Kind:        desc.Kind,
				Package:     desc.Package,
				Signature:   desc.Signature,
				Doc:         desc.Doc,
				External:    true,
			})
		}
		for _, rel := range si.Relationships {
			if rel == nil || !validSymbol(rel.Symbol) || scip.IsLocalSymbol(rel.Symbol) {
				continue
			}
			if rel.IsImplementation {
				edges.add(tab.num(si.Symbol), graph.EdgeImplements, tab.num(rel.Symbol), ReasonImplementation, true)
			}
			if rel.IsTypeDefinition {
				edges.add(tab.num(si.Symbol), graph.EdgeTypeDef, tab.num(rel.Symbol), ReasonTypeDefinition, true)
			}
			if rel.IsReference {
				edges.add(tab.num(si.Symbol), graph.EdgeReferences, tab.num(rel.Symbol), ReasonRelReference, true)
			}
		}
	}
	facts.Edges = edges.list()
	return facts
}

// mergeInfos merges a document's SymbolInformation entries for one
// symbol, in an order of their content rather than the dump's (scip-go
// writes them in Go's map order, so that the same source gave another
// order at every run): what a document converts to does not depend on the
// order of its symbol informations, which its digest leaves out (see
// docDigester).
func mergeInfos(all []*scip.SymbolInformation) *scip.SymbolInformation {
	slices.SortStableFunc(all, compareInfos)
	m := all[0]
	for _, si := range all[1:] {
		m = mergeInfo(m, si)
	}
	return m
}

// compareInfos orders entries for one symbol by what mergeInfo takes of
// them.
func compareInfos(a, b *scip.SymbolInformation) int {
	return cmp.Or(
		slices.Compare(a.GetDocumentation(), b.GetDocumentation()),
		cmp.Compare(a.GetKind(), b.GetKind()),
		strings.Compare(a.GetDisplayName(), b.GetDisplayName()),
		strings.Compare(a.GetSignatureDocumentation().GetText(), b.GetSignatureDocumentation().GetText()),
		strings.Compare(a.GetSignatureDocumentation().GetLanguage(), b.GetSignatureDocumentation().GetLanguage()),
		strings.Compare(a.GetEnclosingSymbol(), b.GetEnclosingSymbol()),
	)
}

// mergeInfo merges two SymbolInformation entries for the same symbol: the
// first non-empty value of each field, relationships united.
func mergeInfo(a, b *scip.SymbolInformation) *scip.SymbolInformation {
	m := &scip.SymbolInformation{
		Symbol:                 a.Symbol,
		Documentation:          a.Documentation,
		Kind:                   a.Kind,
		DisplayName:            cmp.Or(a.DisplayName, b.DisplayName),
		SignatureDocumentation: a.SignatureDocumentation,
		EnclosingSymbol:        cmp.Or(a.EnclosingSymbol, b.EnclosingSymbol),
	}
	if len(m.Documentation) == 0 {
		m.Documentation = b.Documentation
	}
	if m.Kind == scip.SymbolInformation_UnspecifiedKind {
		m.Kind = b.Kind
	}
	if m.SignatureDocumentation == nil {
		m.SignatureDocumentation = b.SignatureDocumentation
	}
	m.Relationships = append(slices.Clip(a.Relationships), b.Relationships...)
	return m
}

// mapRoles maps SCIP symbol roles to graph roles. An occurrence that is not
// a definition is a reference.
func mapRoles(r int32) graph.Role {
	var g graph.Role
	if r&int32(scip.SymbolRole_Definition) != 0 {
		g |= graph.RoleDefinition
	} else {
		g |= graph.RoleReference
	}
	if r&int32(scip.SymbolRole_Import) != 0 {
		g |= graph.RoleImport
	}
	if r&int32(scip.SymbolRole_WriteAccess) != 0 {
		g |= graph.RoleWrite
	}
	if r&int32(scip.SymbolRole_ReadAccess) != 0 {
		g |= graph.RoleRead
	}
	if r&int32(scip.SymbolRole_Generated) != 0 {
		g |= graph.RoleGenerated
	}
	if r&int32(scip.SymbolRole_Test) != 0 {
		g |= graph.RoleTest
	}
	if r&int32(scip.SymbolRole_ForwardDefinition) != 0 {
		g |= graph.RoleForwardDefinition
	}
	return g
}

// computeExtents gives every candidate without an explicit extent one: a
// module-level definition (a namespace, a Python module) spans the
// document; any other runs from its name to the start of the next
// definition that is not one of its unbounded members, capped by the
// innermost explicit extent around it, or to docEnd.
func computeExtents(cands []candidate, docEnd textpos.Position) {
	if len(cands) == 0 {
		return
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		return comparePos(startOf(a), startOf(b))
	})
	whole := textpos.Range{End: docEnd}
	for i := range cands {
		cd := &cands[i]
		if cd.explicit {
			continue
		}
		if isModuleLevel(cd.sym) {
			cd.extent, cd.whole = whole, true
			continue
		}
		end := docEnd
		// The innermost explicit extent around the name caps it.
		for j := range cands {
			e := &cands[j]
			if j != i && e.explicit && e.extent.Contains(cd.name.Start) && e.extent.End.Before(end) {
				end = e.extent.End
			}
		}
		for j := i + 1; j < len(cands); j++ {
			next := &cands[j]
			s := startOf(*next)
			if !cd.name.Start.Before(s) {
				continue
			}
			if !next.explicit && isMember(next.sym, cd.sym) {
				continue // a field of this type, a member of this object
			}
			if s.Before(end) {
				end = s
			}
			break
		}
		if end.Before(cd.name.End) {
			end = cd.name.End
		}
		cd.extent = textpos.Range{Start: cd.name.Start, End: end}
	}
}

func startOf(c candidate) textpos.Position {
	if c.explicit {
		return c.extent.Start
	}
	return c.name.Start
}

func comparePos(a, b textpos.Position) int {
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	return cmp.Compare(a.Col, b.Col)
}

// enclosingScratch is what assignEnclosing keeps from one call to the
// next.
type enclosingScratch struct {
	byStart []candidate
	order   []int
	stack   []*candidate
}

// assignEnclosing sets each occurrence's enclosing definition: the
// candidate with the latest start whose extent contains the occurrence's
// start, other than the occurrence's own symbol.
func assignEnclosing(occs []occ, cands []candidate, sc *enclosingScratch) {
	if len(cands) == 0 || len(occs) == 0 {
		return
	}
	byStart := append(sc.byStart[:0], cands...)
	slices.SortStableFunc(byStart, func(a, b candidate) int {
		if c := comparePos(a.extent.Start, b.extent.Start); c != 0 {
			return c
		}
		return comparePos(b.extent.End, a.extent.End) // larger first
	})
	order := slices.Grow(sc.order[:0], len(occs))[:len(occs)]
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return comparePos(occs[a].rng.Start, occs[b].rng.Start)
	})
	stack := sc.stack[:0]
	defer func() { sc.byStart, sc.order, sc.stack = byStart[:0], order[:0], stack[:0] }()
	next := 0
	for _, oi := range order {
		o := &occs[oi]
		p := o.rng.Start
		for next < len(byStart) && !p.Before(byStart[next].extent.Start) {
			stack = append(stack, &byStart[next])
			next++
		}
		for len(stack) > 0 && !contains(stack[len(stack)-1].extent, p) {
			stack = stack[:len(stack)-1]
		}
		for k := len(stack) - 1; k >= 0; k-- {
			cd := stack[k]
			if cd.num == o.sym || !contains(cd.extent, p) {
				continue
			}
			o.enclosing = cd.num
			break
		}
	}
}

// contains reports whether p lies in r; an empty extent contains nothing.
func contains(r textpos.Range, p textpos.Position) bool {
	return !p.Before(r.Start) && p.Before(r.End)
}

// edgeSet aggregates a document's edges per (from, kind, to), the ends
// numbered in the document's symbolTable.
type edgeSet struct {
	tab   *symbolTable
	index freelist.ScratchMap[edgeKey, int32]
	edges []graph.Edge
}

// edgeKey is an edge's from and to symbols and its kind's number
// (edgeKindNumber).
type edgeKey [3]int32

// reset empties s for the edges of the document tab numbers, with room
// for about hint; the edges listed before are kept as they are unless
// reuse lets their memory serve again.
func (s *edgeSet) reset(tab *symbolTable, hint int, reuse bool) {
	s.tab = tab
	s.index.Reset()
	if reuse {
		s.edges = s.edges[:0]
	} else {
		s.edges = make([]graph.Edge, 0, hint)
	}
}

// add records one site of an edge between the symbols numbered from and
// to; once is for facts stated once however often they are repeated
// (relationships, containment).
func (s *edgeSet) add(from int32, kind graph.EdgeKind, to int32, reason string, once bool) {
	k := edgeKey{from, to, edgeKindNumber(kind)}
	if i, ok := s.index.M[k]; ok {
		if !once {
			s.edges[i].Count++
		}
		return
	}
	s.index.M[k] = int32(len(s.edges))
	s.edges = append(s.edges, graph.Edge{
		From: s.tab.syms[from].id, To: s.tab.syms[to].id, Kind: kind,
		Confidence: 1.0, Source: graph.SourceSCIP, Reason: reason, Count: 1,
	})
}

func (s *edgeSet) list() []graph.Edge { return s.edges }

// edgeKindNumber numbers the kinds of edge a converter makes.
func edgeKindNumber(k graph.EdgeKind) int32 {
	switch k {
	case graph.EdgeReferences:
		return 0
	case graph.EdgeCalls:
		return 1
	case graph.EdgeImplements:
		return 2
	case graph.EdgeTypeDef:
		return 3
	case graph.EdgeContains:
		return 4
	case graph.EdgeImports:
		return 5
	}
	panic("scip: no number for edge kind " + string(k))
}

// documentLanguage returns the graph's name of the document's declared
// language, else the language its extension names.
func documentLanguage(declared, p string) string {
	if declared != "" {
		return lang.Normalize(declared)
	}
	return lang.Of(p)
}

// isModuleLevel reports whether sym is a namespace or a module (a Go
// package, a TypeScript file module, a Python module): references enclosed
// only by it are imports and file-level code, not calls.
func isModuleLevel(sym string) bool {
	switch symbolSuffix(sym) {
	case sufNamespace:
		return true
	case sufMeta:
		return strings.HasSuffix(sym, "/__init__:")
	}
	return false
}

// validSymbol reports whether a symbol string can be stored: not empty, no
// NUL byte (the graph's keys are NUL-separated).
func validSymbol(s string) bool {
	return s != "" && strings.IndexByte(s, 0) < 0
}

// addExtra adds the producer's extra occurrences: each is enclosed by the
// declaration the dump defines at the producer's enclosing name range, by
// position when the dump defines none there, and by nothing for a site
// the producer puts outside any declaration.
func (c *Converter) addExtra(facts *graph.DocumentFacts, cands []candidate, relPath string, tab *symbolTable, docRoles graph.Role) {
	if len(c.Extra) == 0 {
		return
	}
	byName := make(map[textpos.Range]int32, len(cands))
	for _, cd := range cands {
		if _, ok := byName[cd.name]; !ok {
			byName[cd.name] = cd.num
		}
	}
	extra := make([]occ, len(c.Extra))
	for i, e := range c.Extra {
		extra[i] = occ{rng: e.Range, sym: tab.num(e.Symbol), roles: e.Roles | docRoles, enclosing: noSymbol}
	}
	assignEnclosing(extra, cands, &c.scratch.enclosing)
	for i, e := range c.Extra {
		enclosing := extra[i].enclosing
		if e.Enclosing == (textpos.Range{}) {
			enclosing = noSymbol
		} else if n, ok := byName[e.Enclosing]; ok {
			enclosing = n
		}
		id := ""
		if enclosing != noSymbol {
			id = tab.syms[enclosing].id
		}
		facts.Occurrences = append(facts.Occurrences, graph.Occurrence{
			Path: relPath, Range: e.Range, Symbol: e.Symbol, Roles: extra[i].roles, Enclosing: id,
		})
	}
}
