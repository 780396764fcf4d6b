package crawl

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// The few LSP shapes the crawl reads, decoded from raw JSON.

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

// documentSymbol is either a DocumentSymbol (Range and SelectionRange,
// Children) or a SymbolInformation (Location): servers answer one or the
// other.
type documentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail"`
	Kind           int              `json:"kind"`
	Range          *lspRange        `json:"range"`
	SelectionRange *lspRange        `json:"selectionRange"`
	Children       []documentSymbol `json:"children"`
	Location       *lspLocation     `json:"location"`
	ContainerName  string           `json:"containerName"`
}

type callHierarchyItem struct {
	Name           string          `json:"name"`
	Kind           int             `json:"kind"`
	URI            string          `json:"uri"`
	Range          lspRange        `json:"range"`
	SelectionRange lspRange        `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

type incomingCall struct {
	From       callHierarchyItem `json:"from"`
	FromRanges []lspRange        `json:"fromRanges"`
}

type textDocumentPosition struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Position lspPosition `json:"position"`
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
	return fmt.Sprintf("kind-%d", k)
}

// bodyKinds are the kinds whose nested symbols are locals.
func isBodyKind(k int) bool {
	switch k {
	case 6, 9, 12: // method, constructor, function
		return true
	}
	return false
}

// callableKind reports whether incoming calls are worth asking.
func callableKind(k int) bool {
	switch k {
	case 6, 9, 12:
		return true
	}
	return false
}

// fileURI returns the file URI of an absolute path.
func fileURI(abs string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return u.String()
}

// uriPath returns the absolute path of a file URI.
func uriPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}

// languageID returns the LSP languageId of a document, by extension.
func languageID(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".go":
		return "go"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".py", ".pyi":
		return "python"
	}
	return "plaintext"
}

// graphLanguage returns the graph's language name for a languageId.
func graphLanguage(id string) string {
	switch id {
	case "typescriptreact":
		return "typescript"
	case "javascriptreact":
		return "javascript"
	}
	return id
}
