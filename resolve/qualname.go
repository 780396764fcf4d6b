package resolve

import (
	"strings"
)

// descriptor is one step of a SCIP symbol's descriptor chain.
type descriptor struct {
	name   string
	suffix byte // '/', '#', '.', ':', '!', '(' (method), '[' (type parameter), ')' (parameter)
}

// parseSCIPSymbol splits a SCIP symbol string into its scheme and descriptor
// chain. ok is false for local symbols and strings that are not SCIP
// symbols.
func parseSCIPSymbol(s string) (scheme string, descs []descriptor, ok bool) {
	if strings.HasPrefix(s, "local ") {
		return "", nil, false
	}
	// Four space-separated header fields (scheme, manager, package, version);
	// a literal space inside one is written as two spaces.
	rest := s
	var fields []string
	for len(fields) < 4 {
		var field string
		if field, rest, ok = cutSCIPField(rest); !ok {
			return "", nil, false
		}
		fields = append(fields, strings.ReplaceAll(field, "  ", " "))
	}
	descs, ok = parseDescriptors(rest)
	return fields[0], descs, ok
}

// parseDescriptors parses the descriptor part of a SCIP symbol.
func parseDescriptors(s string) ([]descriptor, bool) {
	var out []descriptor
	for len(s) > 0 {
		switch s[0] {
		case '(':
			// Parameter: (name)
			end := strings.IndexByte(s, ')')
			if end < 0 {
				return nil, false
			}
			out = append(out, descriptor{name: s[1:end], suffix: ')'})
			s = s[end+1:]
			continue
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, false
			}
			out = append(out, descriptor{name: s[1:end], suffix: '['})
			s = s[end+1:]
			continue
		}
		name, rest, ok := parseName(s)
		if !ok || rest == "" {
			return nil, false
		}
		switch rest[0] {
		case '/', '#', '.', ':', '!':
			out = append(out, descriptor{name: name, suffix: rest[0]})
			s = rest[1:]
		case '(':
			// Method: name(disambiguator).
			end := strings.IndexByte(rest, ')')
			if end < 0 || end+1 >= len(rest) || rest[end+1] != '.' {
				return nil, false
			}
			out = append(out, descriptor{name: name, suffix: '('})
			s = rest[end+2:]
		default:
			return nil, false
		}
	}
	return out, true
}

// parseName reads a simple or backtick-escaped name.
func parseName(s string) (name, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	if s[0] == '`' {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '`' {
				if i+1 < len(s) && s[i+1] == '`' {
					b.WriteByte('`')
					i++
					continue
				}
				return b.String(), s[i+1:], true
			}
			b.WriteByte(s[i])
		}
		return "", "", false
	}
	i := 0
	for i < len(s) && isIdentChar(s[i]) {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	return s[:i], s[i:], true
}

func isIdentChar(c byte) bool {
	return c == '_' || c == '+' || c == '-' || c == '$' ||
		('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		c >= 0x80
}

// qualifiedNames returns the dotted names a user may write for a symbol,
// longest first, e.g. "example.com/goapp/service.Catalog.Save" for scip-go's
// Catalog#Save(). Namespace descriptors keep their own text; source-file
// namespaces (TypeScript's src/`index.ts`/) also appear without extension.
func qualifiedNames(sym symbolLike) []string {
	if pkg, module, local, ok := parseSyntaxSymbol(sym.id); ok {
		// "syntax go example.com/goapp/service Catalog.Save" and
		// "syntax typescript @shop/order @shop/order/src/index:Order.linePrice".
		names := []string{pkg + "." + local}
		if module != "" {
			names = []string{module + "." + local, pkg + "." + local}
		}
		return names
	}
	_, descs, ok := parseSCIPSymbol(sym.id)
	var parts []string
	if ok {
		for _, d := range descs {
			parts = append(parts, d.name)
		}
	}
	if len(parts) == 0 {
		// Not a SCIP symbol (syntax layer, locals): package + display name.
		if sym.pkg != "" {
			parts = append(parts, sym.pkg)
		}
		parts = append(parts, sym.name)
	}
	full := strings.Join(parts, ".")
	names := []string{full}
	// TypeScript and Python file namespaces: "src.index.ts.Order" → also
	// "src.index.Order".
	var stripped []string
	changed := false
	for _, p := range parts {
		for _, ext := range []string{".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".py", ".d.ts"} {
			if strings.HasSuffix(p, ext) && len(p) > len(ext) {
				p = strings.TrimSuffix(p, ext)
				changed = true
				break
			}
		}
		stripped = append(stripped, p)
	}
	if changed {
		names = append(names, strings.Join(stripped, "."))
	}
	if sym.pkg != "" && ok {
		names = append(names, sym.pkg+"."+lastParts(parts, descs))
	}
	return names
}

// lastParts joins the non-namespace descriptors (types, terms, methods).
func lastParts(parts []string, descs []descriptor) string {
	var out []string
	for i, d := range descs {
		if d.suffix == '/' {
			continue
		}
		out = append(out, parts[i])
	}
	return strings.Join(out, ".")
}

// symbolLike is the part of a graph.Symbol qualifiedNames needs.
type symbolLike struct {
	id, name, pkg string
}

// matchesQualified reports whether the user's dotted spec names sym: spec
// must be a suffix of one of sym's qualified names, starting at a segment
// boundary ('.' or '/').
func matchesQualified(spec string, sym symbolLike) bool {
	for _, q := range qualifiedNames(sym) {
		if q == spec {
			return true
		}
		if strings.HasSuffix(q, spec) {
			c := q[len(q)-len(spec)-1]
			if c == '.' || c == '/' {
				return true
			}
		}
	}
	return false
}

// parseSyntaxSymbol splits a syntax-layer identity "syntax LANGUAGE PACKAGE
// DESCRIPTOR" where DESCRIPTOR is "Name", "Type.Member", "MODULE:Name" or
// "MODULE:Class.member". local is the part after the module.
func parseSyntaxSymbol(s string) (pkg, module, local string, ok bool) {
	rest, found := strings.CutPrefix(s, "syntax ")
	if !found {
		return "", "", "", false
	}
	f := strings.SplitN(rest, " ", 3)
	if len(f) != 3 || f[2] == "" {
		return "", "", "", false
	}
	pkg, desc := f[1], f[2]
	if i := strings.LastIndexByte(desc, ':'); i >= 0 {
		return pkg, desc[:i], desc[i+1:], true
	}
	return pkg, "", desc, true
}

// looksLikeSCIPSymbol reports whether s has the shape of a SCIP symbol
// string with a known scheme.
func looksLikeSCIPSymbol(s string) bool {
	if strings.HasPrefix(s, "local ") {
		return true
	}
	if _, _, _, ok := parseSyntaxSymbol(s); ok {
		return true
	}
	scheme, _, ok := parseSCIPSymbol(s)
	if !ok {
		return false
	}
	switch {
	case strings.HasPrefix(scheme, "scip-"), strings.HasPrefix(scheme, "lsif-"),
		scheme == "lsp", scheme == "syntax", scheme == "lspgraph":
		return true
	}
	return false
}
