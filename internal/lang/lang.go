package lang

import (
	"path"
	"strings"
)

// fileTypes is the table of the file types lspgraph knows. A language
// spans several rows when editors tell its dialects apart (TSX, JSX).
var fileTypes = [...]struct {
	language   string   // the graph's language name
	languageID string   // the LSP languageId
	extensions []string // with the dot, lower case
}{
	{"go", "go", []string{".go"}},
	{"typescript", "typescript", []string{".ts", ".mts", ".cts"}}, // declaration files (.d.ts) included
	{"typescript", "typescriptreact", []string{".tsx"}},
	{"javascript", "javascript", []string{".js", ".mjs", ".cjs"}},
	{"javascript", "javascriptreact", []string{".jsx"}},
	{"python", "python", []string{".py", ".pyi"}},
	{"java", "java", []string{".java"}},
	{"rust", "rust", []string{".rs"}},
}

// row returns the index in fileTypes of a path's file type, or -1.
func row(p string) int {
	ext := strings.ToLower(path.Ext(p))
	if ext == "" {
		return -1
	}
	for i, ft := range fileTypes {
		for _, e := range ft.extensions {
			if e == ext {
				return i
			}
		}
	}
	return -1
}

// Of returns the graph's language name of a path by its extension, or ""
// for a file lspgraph does not know.
func Of(p string) string {
	if i := row(p); i >= 0 {
		return fileTypes[i].language
	}
	return ""
}

// LanguageID returns the LSP languageId of a path by its extension, or
// "plaintext" for a file lspgraph does not know.
func LanguageID(p string) string {
	if i := row(p); i >= 0 {
		return fileTypes[i].languageID
	}
	return "plaintext"
}

// Extensions returns the extensions of the given graph languages, in the
// table's order.
func Extensions(languages ...string) []string {
	var exts []string
	for _, ft := range fileTypes {
		for _, l := range languages {
			if ft.language == l {
				exts = append(exts, ft.extensions...)
				break
			}
		}
	}
	return exts
}

// Normalize returns the graph's language name for a language name or
// languageId in any case ("TypeScriptReact" → "typescript"), and the name
// in lower case for a language lspgraph does not know.
func Normalize(name string) string {
	name = strings.ToLower(name)
	for _, ft := range fileTypes {
		if name == ft.language || name == ft.languageID {
			return ft.language
		}
	}
	return name
}
