package ingest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// The few LSP shapes the adapter reads, decoded from raw JSON.

type lspPosition struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

type lspRange struct {
	Start lspPosition `json:"start"`
	End   lspPosition `json:"end"`
}

type lspLocation struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

// locationOrLink decodes a Location or a LocationLink.
type locationOrLink struct {
	URI                  string    `json:"uri"`
	Range                *lspRange `json:"range"`
	TargetURI            string    `json:"targetUri"`
	TargetSelectionRange *lspRange `json:"targetSelectionRange"`
	OriginSelectionRange *lspRange `json:"originSelectionRange"`
}

type textDocumentPosition struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Position lspPosition `json:"position"`
}

type documentSymbol struct {
	Name           string           `json:"name"`
	Kind           int              `json:"kind"`
	Range          *lspRange        `json:"range"`
	SelectionRange *lspRange        `json:"selectionRange"`
	Children       []documentSymbol `json:"children"`
	Location       *struct {
		URI   string    `json:"uri"`
		Range *lspRange `json:"range"`
	} `json:"location"`
}

type callHierarchyItem struct {
	Name           string   `json:"name"`
	Kind           int      `json:"kind"`
	URI            string   `json:"uri"`
	Range          lspRange `json:"range"`
	SelectionRange lspRange `json:"selectionRange"`
}

type hierarchyCall struct {
	From       *callHierarchyItem `json:"from"`
	To         *callHierarchyItem `json:"to"`
	FromRanges []lspRange         `json:"fromRanges"`
}

// decodeLocations accepts Location, Location[], LocationLink[] and null.
func decodeLocations(raw json.RawMessage) ([]locationOrLink, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	if s[0] == '{' {
		var one locationOrLink
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		return []locationOrLink{one}, nil
	}
	var many []locationOrLink
	err := json.Unmarshal(raw, &many)
	return many, err
}

// target returns the location a Location or LocationLink points at (the
// name, for a link), and the origin range when the server gave one.
func (l locationOrLink) target() (uri string, r lspRange, origin *lspRange, ok bool) {
	switch {
	case l.TargetURI != "" && l.TargetSelectionRange != nil:
		return l.TargetURI, *l.TargetSelectionRange, l.OriginSelectionRange, true
	case l.URI != "" && l.Range != nil:
		return l.URI, *l.Range, nil, true
	}
	return "", lspRange{}, nil, false
}

// symbolKinds maps LSP SymbolKind numbers to the graph's kind names.
var symbolKinds = [...]string{
	1: "file", 2: "module", 3: "namespace", 4: "package", 5: "class", 6: "method",
	7: "property", 8: "field", 9: "constructor", 10: "enum", 11: "interface",
	12: "function", 13: "variable", 14: "constant", 15: "string", 16: "number",
	17: "boolean", 18: "array", 19: "object", 20: "key", 21: "null",
	22: "enum-member", 23: "struct", 24: "event", 25: "operator", 26: "type-parameter",
}

func kindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return ""
}

// uriPath returns the absolute path of a file URI.
func uriPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}

// language returns the graph's language name of a path, by extension.
func language(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".go":
		return "go"
	case ".ts", ".mts", ".cts", ".tsx":
		return "typescript"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript"
	case ".py", ".pyi":
		return "python"
	}
	return ""
}

// symbolID makes the id of a symbol known only by its definition location.
func symbolID(path string, start textpos.Position) string {
	return "lsp " + path + ":" + start.String()
}

// wordAt returns the identifier around p in m's text, or false when p is
// not on an identifier.
func wordAt(m *textpos.Mapper, p textpos.Position) (textpos.Range, bool) {
	line, ok := m.Line(p.Line)
	if !ok || int(p.Col) > len(line) {
		return textpos.Range{}, false
	}
	isWord := func(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	start, end := int(p.Col), int(p.Col)
	for start > 0 {
		r, size := utf8.DecodeLastRune(line[:start])
		if !isWord(r) {
			break
		}
		start -= size
	}
	for end < len(line) {
		r, size := utf8.DecodeRune(line[end:])
		if !isWord(r) {
			break
		}
		end += size
	}
	if start == end {
		return textpos.Range{}, false
	}
	return textpos.Range{
		Start: textpos.Position{Line: p.Line, Col: uint32(start)},
		End:   textpos.Position{Line: p.Line, Col: uint32(end)},
	}, true
}

// rangeText returns the text of a one-line range.
func rangeText(m *textpos.Mapper, r textpos.Range) string {
	if r.Start.Line != r.End.Line {
		return ""
	}
	line, ok := m.Line(r.Start.Line)
	if !ok || int(r.End.Col) > len(line) || r.Start.Col > r.End.Col {
		return ""
	}
	return string(line[r.Start.Col:r.End.Col])
}

func errorf(format string, args ...any) error { return fmt.Errorf("ingest: "+format, args...) }

// indexWord returns the index of name in s where it stands as a whole
// identifier, or -1.
func indexWord(s, name string) int {
	isWord := func(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i := 0; i+len(name) <= len(s); {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return -1
		}
		at := i + j
		before, _ := utf8.DecodeLastRuneInString(s[:at])
		after, _ := utf8.DecodeRuneInString(s[at+len(name):])
		if (at == 0 || !isWord(before)) && (at+len(name) == len(s) || !isWord(after)) {
			return at
		}
		i = at + 1
	}
	return -1
}
