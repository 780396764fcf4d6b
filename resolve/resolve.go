package resolve

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// ErrUnknown is wrapped by every "no such symbol" error.
var ErrUnknown = errors.New("resolve: unknown symbol")

// unknownError explains why a spec matched nothing; errors.Is(err, ErrUnknown).
type unknownError struct{ msg string }

func (e *unknownError) Error() string { return e.msg }
func (e *unknownError) Unwrap() error { return ErrUnknown }

// AmbiguousError reports a spec that names several symbols.
type AmbiguousError struct {
	Spec       string
	Candidates []graph.Symbol
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q is ambiguous: %d symbols match; name one by its qualified name, FILE:LINE:COL or symbol string:", e.Spec, len(e.Candidates))
	for _, c := range e.Candidates {
		fmt.Fprintf(&b, "\n  %s %s", c.Kind, Describe(c))
	}
	return b.String()
}

// Describe renders a symbol as "Display (pkg) at path:line:col" for messages.
func Describe(s graph.Symbol) string {
	var b strings.Builder
	b.WriteString(displayQualified(s))
	if s.Package != "" {
		fmt.Fprintf(&b, " (%s)", s.Package)
	}
	switch {
	case s.Def.Path != "":
		fmt.Fprintf(&b, " at %s:%s", s.Def.Path, s.Def.Range.Start)
	case s.External:
		b.WriteString(" (external)")
	}
	fmt.Fprintf(&b, " [%s]", s.ID)
	return b.String()
}

// displayQualified returns "Catalog.Save" for a method, the display name
// otherwise.
func displayQualified(s graph.Symbol) string {
	if _, _, local, ok := parseSyntaxSymbol(s.ID); ok {
		return local
	}
	_, descs, ok := parseSCIPSymbol(s.ID)
	if !ok || len(descs) == 0 {
		if s.DisplayName != "" {
			return s.DisplayName
		}
		return s.ID
	}
	var parts []string
	for _, d := range descs {
		if d.suffix == '/' {
			continue
		}
		parts = append(parts, d.name)
	}
	if len(parts) == 0 {
		return descs[len(descs)-1].name
	}
	return strings.Join(parts, ".")
}

// DisplayQualified is the short qualified name of a symbol ("Catalog.Save",
// "Order.linePrice"): its non-namespace descriptors joined by dots.
func DisplayQualified(s graph.Symbol) string { return displayQualified(s) }

// Resolve resolves spec against the graph. The workspace root used for
// absolute FILE:LINE:COL paths is the one recorded in the base (else live)
// manifest; use [ResolveIn] when the caller knows the root.
func Resolve(ctx context.Context, r *graph.Reader, spec string) (graph.Symbol, error) {
	root := ""
	for _, l := range []graph.Layer{graph.Base, graph.Live} {
		m, ok, err := r.Manifest(l)
		if err != nil {
			return graph.Symbol{}, fmt.Errorf("resolve: reading %s manifest: %w", l, err)
		}
		if ok && m.Root != "" {
			root = m.Root
			break
		}
	}
	return ResolveIn(ctx, r, root, spec)
}

// ResolveIn is [Resolve] with an explicit absolute workspace root (may be ""
// when only relative paths are expected).
//
// Forms, tried in order:
//   - a symbol id present in the graph, or any string shaped like a SCIP
//     symbol ("scip-go gomod example.com/app v1 `example.com/app/store`/Store#Put().");
//   - FILE:LINE:COL or FILE:LINE, 1-based, the column counted in UTF-8 bytes;
//     FILE relative to the root or absolute inside it;
//   - a display name, optionally qualified by containers and package:
//     "Save", "Catalog.Save", "service.Catalog.Save".
func ResolveIn(ctx context.Context, r *graph.Reader, root, spec string) (graph.Symbol, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return graph.Symbol{}, &unknownError{msg: "resolve: empty target; give a symbol name, FILE:LINE:COL or a symbol string"}
	}
	if sym, ok, err := bySymbolID(ctx, r, spec); err != nil || ok {
		return sym, err
	}
	if looksLikeSCIPSymbol(spec) {
		if msg, err := otherVersion(ctx, r, spec); err != nil || msg != "" {
			if err != nil {
				return graph.Symbol{}, err
			}
			return graph.Symbol{}, &unknownError{msg: fmt.Sprintf("no symbol %q in the graph (%s): %s", spec, baseInfo(r), msg)}
		}
		return graph.Symbol{}, &unknownError{msg: fmt.Sprintf("no symbol %q in the graph (%s); re-import the index or check the symbol string", spec, baseInfo(r))}
	}
	if p, line, col, ok := splitPosition(spec); ok {
		rel, err := RelPath(root, p)
		if err != nil {
			return graph.Symbol{}, err
		}
		if col == 0 {
			return atLine(ctx, r, rel, line-1)
		}
		return AtPosition(ctx, r, rel, textpos.Position{Line: line - 1, Col: col - 1})
	}
	return byName(ctx, r, spec)
}

// bySymbolID looks spec up as an id: a symbol record, or a symbol known only
// from its occurrences (an external symbol).
func bySymbolID(ctx context.Context, r *graph.Reader, id string) (graph.Symbol, bool, error) {
	sym, ok, err := r.Symbol(ctx, id)
	if err != nil {
		return graph.Symbol{}, false, fmt.Errorf("resolve: looking up %q: %w", id, err)
	}
	if ok {
		return sym, true, nil
	}
	if !strings.Contains(id, " ") {
		return graph.Symbol{}, false, nil
	}
	occs, err := r.References(ctx, id, 1)
	if err != nil {
		return graph.Symbol{}, false, fmt.Errorf("resolve: looking up references of %q: %w", id, err)
	}
	if len(occs) == 0 {
		return graph.Symbol{}, false, nil
	}
	return externalSymbol(id), true, nil
}

// externalSymbol makes a Symbol for an id that has occurrences but no record.
func externalSymbol(id string) graph.Symbol {
	s := graph.Symbol{ID: id, External: true}
	if _, _, local, ok := parseSyntaxSymbol(id); ok {
		s.DisplayName = local[strings.LastIndexByte(local, '.')+1:]
	} else if _, descs, ok := parseSCIPSymbol(id); ok && len(descs) > 0 {
		s.DisplayName = descs[len(descs)-1].name
	}
	return s
}

// splitPosition parses "path:line:col" or "path:line" (1-based). col is 0
// when absent.
func splitPosition(spec string) (p string, line, col uint32, ok bool) {
	if strings.Contains(spec, " ") {
		return "", 0, 0, false
	}
	i := strings.LastIndexByte(spec, ':')
	if i <= 0 {
		return "", 0, 0, false
	}
	last, err := strconv.ParseUint(spec[i+1:], 10, 32)
	if err != nil || last == 0 {
		return "", 0, 0, false
	}
	head := spec[:i]
	if j := strings.LastIndexByte(head, ':'); j > 0 {
		if l, err := strconv.ParseUint(head[j+1:], 10, 32); err == nil && l > 0 {
			return head[:j], uint32(l), uint32(last), true
		}
	}
	return head, uint32(last), 0, true
}

// RelPath maps a user's path to a graph path: relative to root with forward
// slashes. Absolute paths must lie inside root; relative ones may not escape it.
func RelPath(root, p string) (string, error) {
	if filepath.IsAbs(p) {
		if root == "" {
			return "", fmt.Errorf("resolve: absolute path %s given but the workspace root is unknown; pass a path relative to the root", p)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return "", fmt.Errorf("resolve: path %s is not inside the workspace root %s: %w", p, root, err)
		}
		p = rel
	}
	rel := path.Clean(filepath.ToSlash(p))
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return "", fmt.Errorf("resolve: path %s escapes the workspace root %s", p, root)
	}
	return rel, nil
}

// AtPosition resolves the symbol at a graph position (0-based line, UTF-8
// byte column) of the document at path (relative to the workspace root).
// Among the occurrences containing pos, the innermost wins, a definition
// before a reference; when no occurrence contains pos, the innermost
// definition whose extent contains it.
func AtPosition(ctx context.Context, r *graph.Reader, p string, pos textpos.Position) (graph.Symbol, error) {
	if _, ok, err := r.Document(ctx, p); err != nil {
		return graph.Symbol{}, fmt.Errorf("resolve: reading document %s: %w", p, err)
	} else if !ok {
		return graph.Symbol{}, &unknownError{msg: fmt.Sprintf("no document %s in the graph (%s); check the path (relative to the workspace root) or re-index", p, baseInfo(r))}
	}
	occs, err := r.SymbolsAt(ctx, p, pos)
	if err != nil {
		return graph.Symbol{}, fmt.Errorf("resolve: reading symbols at %s:%s: %w", p, pos, err)
	}
	if occ, ok := pickOccurrence(occs); ok {
		sym, found, err := bySymbolID(ctx, r, occ.Symbol)
		if err != nil {
			return graph.Symbol{}, err
		}
		if !found {
			sym = externalSymbol(occ.Symbol)
		}
		return sym, nil
	}
	syms, err := r.DocumentSymbols(ctx, p)
	if err != nil {
		return graph.Symbol{}, fmt.Errorf("resolve: reading symbols of %s: %w", p, err)
	}
	if s, ok := innermostExtent(syms, func(rg textpos.Range) bool { return rg.Contains(pos) }); ok {
		return s, nil
	}
	return graph.Symbol{}, &unknownError{msg: fmt.Sprintf("no symbol at %s:%s in the graph (%s); point at a name", p, pos, baseInfo(r))}
}

// atLine resolves FILE:LINE: the first definition whose name lies on the
// line, else the innermost definition whose extent contains the line.
func atLine(ctx context.Context, r *graph.Reader, p string, line uint32) (graph.Symbol, error) {
	syms, err := r.DocumentSymbols(ctx, p)
	if err != nil {
		return graph.Symbol{}, fmt.Errorf("resolve: reading symbols of %s: %w", p, err)
	}
	var onLine []graph.Symbol
	for _, s := range syms {
		if s.Def.Path == p && s.Def.Range.Start.Line == line && !isLocal(s) {
			onLine = append(onLine, s)
		}
	}
	sort.SliceStable(onLine, func(i, j int) bool { return onLine[i].Def.Range.Start.Before(onLine[j].Def.Range.Start) })
	if len(onLine) > 0 {
		return onLine[0], nil
	}
	if s, ok := innermostExtent(syms, func(rg textpos.Range) bool {
		return rg.Start.Line <= line && line <= rg.End.Line
	}); ok {
		return s, nil
	}
	return AtPosition(ctx, r, p, textpos.Position{Line: line})
}

// innermostExtent returns the non-local symbol with the smallest DefExtent
// satisfying in.
func innermostExtent(syms []graph.Symbol, in func(textpos.Range) bool) (graph.Symbol, bool) {
	var best graph.Symbol
	found := false
	for _, s := range syms {
		if s.DefExtent == (textpos.Range{}) || isLocal(s) || s.Kind == "parameter" || !in(s.DefExtent) {
			continue
		}
		if !found || smaller(s.DefExtent, best.DefExtent) {
			best, found = s, true
		}
	}
	return best, found
}

// smaller reports whether range a spans less text than b (by lines, then
// columns): the inner of two extents, even when a producer's extents
// overlap imperfectly.
func smaller(a, b textpos.Range) bool {
	al, bl := a.End.Line-a.Start.Line, b.End.Line-b.Start.Line
	if al != bl {
		return al < bl
	}
	return int64(a.End.Col)-int64(a.Start.Col) < int64(b.End.Col)-int64(b.Start.Col)
}

// pickOccurrence chooses among occurrences containing a position: the
// innermost range, then definitions before other roles, then by symbol id.
func pickOccurrence(occs []graph.Occurrence) (graph.Occurrence, bool) {
	if len(occs) == 0 {
		return graph.Occurrence{}, false
	}
	best := occs[0]
	for _, o := range occs[1:] {
		if better(o, best) {
			best = o
		}
	}
	return best, true
}

func better(a, b graph.Occurrence) bool {
	if a.Range != b.Range {
		if b.Range.ContainsRange(a.Range) {
			return true
		}
		if a.Range.ContainsRange(b.Range) {
			return false
		}
	}
	ad, bd := a.Roles&graph.RoleDefinition != 0, b.Roles&graph.RoleDefinition != 0
	if ad != bd {
		return ad
	}
	return a.Range == b.Range && a.Symbol < b.Symbol
}

func isLocal(s graph.Symbol) bool {
	return s.Kind == "local" || strings.HasPrefix(s.ID, "local ")
}

// byName resolves a display name, optionally qualified.
func byName(ctx context.Context, r *graph.Reader, spec string) (graph.Symbol, error) {
	last := spec
	if i := strings.LastIndexAny(spec, "."); i >= 0 && i+1 < len(spec) {
		last = spec[i+1:]
	}
	// A Go-style "(*T).M" or "T.M()" is accepted too.
	last = strings.TrimSuffix(last, "()")
	qual := strings.NewReplacer("(*", "", ")", "", "()", "", "#", ".").Replace(strings.TrimSuffix(spec, "()"))
	syms, err := r.FindSymbols(ctx, last, false, 0)
	if err != nil {
		return graph.Symbol{}, fmt.Errorf("resolve: finding symbols named %q: %w", last, err)
	}
	var cands []graph.Symbol
	for _, s := range syms {
		if isLocal(s) {
			continue
		}
		if qual != last && !matchesQualified(qual, symbolLike{id: s.ID, name: s.DisplayName, pkg: s.Package}) {
			continue
		}
		cands = append(cands, s)
	}
	// A language server's document symbols name Go methods "(*T).M" or
	// "(T).M" (gopls): a graph crawled with `index --lsp` answers
	// "T.M" and "(*T).M" by those names.
	for _, name := range goMethodNames(spec) {
		more, err := r.FindSymbols(ctx, name, false, 0)
		if err != nil {
			return graph.Symbol{}, fmt.Errorf("resolve: finding symbols named %q: %w", name, err)
		}
		cands = append(cands, more...)
	}
	cands = dedupe(cands)
	// A workspace definition wins over an external symbol of the same name.
	if defined := filter(cands, func(s graph.Symbol) bool { return !s.External }); len(defined) > 0 {
		cands = defined
	}
	// Parameters and fields lose against declarations of the same name.
	if decls := filter(cands, func(s graph.Symbol) bool { return s.Kind != "parameter" && s.Kind != "type-parameter" }); len(decls) > 0 {
		cands = decls
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		return graph.Symbol{}, &unknownError{msg: unknownNameMessage(ctx, r, spec, last)}
	}
	sortSymbols(cands)
	return graph.Symbol{}, &AmbiguousError{Spec: spec, Candidates: cands}
}

func filter(in []graph.Symbol, keep func(graph.Symbol) bool) []graph.Symbol {
	var out []graph.Symbol
	for _, s := range in {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func dedupe(in []graph.Symbol) []graph.Symbol {
	seen := make(map[string]bool, len(in))
	var out []graph.Symbol
	for _, s := range in {
		if seen[s.ID] {
			continue
		}
		seen[s.ID] = true
		out = append(out, s)
	}
	return out
}

func sortSymbols(s []graph.Symbol) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].Def.Path != s[j].Def.Path {
			return s[i].Def.Path < s[j].Def.Path
		}
		if s[i].Def.Range.Start != s[j].Def.Range.Start {
			return s[i].Def.Range.Start.Before(s[j].Def.Range.Start)
		}
		return s[i].ID < s[j].ID
	})
}

// unknownNameMessage explains an unmatched name and suggests near names.
func unknownNameMessage(ctx context.Context, r *graph.Reader, spec, last string) string {
	msg := fmt.Sprintf("no symbol named %q in the graph (%s)", spec, baseInfo(r))
	var hints []string
	if near, err := r.FindSymbols(ctx, last, true, 6); err == nil {
		for _, s := range dedupe(near) {
			if isLocal(s) {
				continue
			}
			hints = append(hints, displayQualified(s))
		}
	}
	if len(hints) > 0 {
		sort.Strings(hints)
		hints = uniqStrings(hints)
		return msg + "; did you mean " + strings.Join(hints, ", ") + "?"
	}
	return msg + "; try a qualified name (Type.Method), FILE:LINE:COL or a symbol string, or re-index if the code is new"
}

func uniqStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// otherVersion explains why a SCIP symbol string is not in the graph when
// it names one of the base index's own packages (Manifest.Packages) at
// another version than the index does: every symbol string carries its
// package's version, and an index built at another commit names another
// (scip-go's default version is the commit). It names the same symbol at
// the index's version when the graph has that one. "" when the package is
// not one of the index's or the version is the index's.
func otherVersion(ctx context.Context, r *graph.Reader, spec string) (string, error) {
	m, ok, err := r.Manifest(graph.Base)
	if err != nil || !ok {
		return "", nil
	}
	for pkg, v := range m.Packages {
		rest, ok := strings.CutPrefix(spec, pkg+" ")
		if !ok || strings.HasPrefix(rest, " ") { // a longer name with an escaped space
			continue
		}
		given, descriptors, ok := cutSCIPField(rest)
		if !ok || given == v {
			continue
		}
		msg := fmt.Sprintf("the index names %s at version %s, not %s", pkg, v, given)
		same := pkg + " " + v + " " + descriptors
		if _, found, err := bySymbolID(ctx, r, same); err != nil {
			return "", err
		} else if found {
			return msg + fmt.Sprintf("; the same symbol there is %q", same), nil
		}
		return msg + "; re-import the index at the commit the symbol comes from, or check the symbol string", nil
	}
	return "", nil
}

// cutSCIPField splits s at the space that ends its first field of a SCIP
// symbol header, where a space inside a field is written as two.
func cutSCIPField(s string) (field, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			continue
		}
		if i+1 < len(s) && s[i+1] == ' ' {
			i++
			continue
		}
		return s[:i], s[i+1:], true
	}
	return "", "", false
}

// baseInfo names the base layer for messages: "base: 1a2b3c4, scip-go".
func baseInfo(r *graph.Reader) string {
	m, ok, err := r.Manifest(graph.Base)
	if err != nil || !ok {
		return "no base index; run lspgraph scip import or lspgraph index"
	}
	commit := m.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if commit == "" {
		commit = "unknown commit"
	}
	tool := m.Tool
	if tool == "" {
		tool = "unknown tool"
	}
	return "base: " + commit + ", " + tool
}

// goMethodRE matches "T.M", "(*T).M", "(T).M", "pkg.T.M" and "M()"-style
// suffixes: the receiver type and the method.
var goMethodRE = regexp.MustCompile(`(?:^|\.)\(?\*?([A-Za-z_][A-Za-z0-9_]*)\)?\.([A-Za-z_][A-Za-z0-9_]*)(?:\(\))?$`)

// goMethodNames returns the names gopls gives the Go method spec names:
// "(*T).M" and "(T).M"; nothing when spec names no method.
func goMethodNames(spec string) []string {
	m := goMethodRE.FindStringSubmatch(spec)
	if m == nil {
		return nil
	}
	return []string{"(*" + m[1] + ")." + m[2], "(" + m[1] + ")." + m[2]}
}
