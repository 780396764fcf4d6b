package lspwire

import (
	"net/url"
	"path/filepath"
	"strings"
)

// symbolKinds maps LSP SymbolKind numbers to the graph's kind names.
var symbolKinds = [...]string{
	1: "file", 2: "module", 3: "namespace", 4: "package", 5: "class", 6: "method",
	7: "property", 8: "field", 9: "constructor", 10: "enum", 11: "interface",
	12: "function", 13: "variable", 14: "constant", 15: "string", 16: "number",
	17: "boolean", 18: "array", 19: "object", 20: "key", 21: "null",
	22: "enum-member", 23: "struct", 24: "event", 25: "operator", 26: "type-parameter",
}

// KindName returns the graph's kind name of an LSP SymbolKind, or "" for a
// kind the protocol does not define.
func KindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return ""
}

// FileURI returns the file URI of an absolute path.
func FileURI(abs string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return u.String()
}

// URIPath returns the absolute path of a file URI.
func URIPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}

// WorkspacePath returns the path of a file URI relative to the first of
// roots that contains it, with forward slashes; false when it is no file
// URI or lies outside every root.
func WorkspacePath(uri string, roots ...string) (string, bool) {
	abs, ok := URIPath(uri)
	if !ok {
		return "", false
	}
	for _, root := range roots {
		rel, err := filepath.Rel(root, abs)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}
