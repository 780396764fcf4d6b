package syntax

import (
	"path"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// grammarFor maps a file extension to a bundled grammar name, or "".
func grammarFor(p string) string {
	switch path.Ext(p) {
	case ".go":
		return "go"
	case ".ts", ".mts", ".cts": // declaration files (.d.ts) included
		return "typescript"
	case ".tsx":
		return "tsx"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript"
	case ".py", ".pyi":
		return "python"
	case ".java":
		return "java"
	case ".rs":
		return "rust"
	}
	return ""
}

// languageOfGrammar maps a grammar name to the graph's language name.
func languageOfGrammar(g string) string {
	switch g {
	case "go":
		return "go"
	case "typescript", "tsx":
		return "typescript"
	case "javascript":
		return "javascript"
	case "python":
		return "python"
	case "java":
		return "java"
	case "rust":
		return "rust"
	}
	return ""
}

// grammar holds a tree-sitter language and its node type names indexed by
// symbol, so walking a tree compares strings without calling into C.
type grammar struct {
	name   string // grammar name
	lang   string // graph language
	ts     *sitter.Language
	names  []string // node type names by symbol
	fields []string // field names by field id (0: no field)
}

func newGrammar(name string) *grammar {
	var l *sitter.Language
	switch name {
	case "go":
		l = golang.GetLanguage()
	case "typescript":
		l = typescript.GetLanguage()
	case "tsx":
		l = tsx.GetLanguage()
	case "javascript":
		l = javascript.GetLanguage()
	case "python":
		l = python.GetLanguage()
	case "java":
		l = java.GetLanguage()
	case "rust":
		l = rust.GetLanguage()
	}
	g := &grammar{name: name, lang: languageOfGrammar(name), ts: l}
	n := l.SymbolCount()
	g.names = make([]string, n)
	for i := uint32(0); i < n; i++ {
		g.names[i] = l.SymbolName(sitter.Symbol(i))
	}
	g.fields = []string{""}
	for i := 1; i < 1<<16; i++ {
		name := l.FieldName(i)
		if name == "" {
			break
		}
		g.fields = append(g.fields, name)
	}
	return g
}
