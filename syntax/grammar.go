package syntax

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/lspgraph/lspgraph/internal/lang"
)

// grammarFor returns the bundled grammar that parses a path's file type
// (its LSP languageId, see [lang.LanguageID]), or "".
func grammarFor(p string) string {
	switch id := lang.LanguageID(p); id {
	case "go", "typescript", "python", "java", "rust": // typescript: declaration files (.d.ts) included
		return id
	case "typescriptreact":
		return "tsx"
	case "javascript", "javascriptreact":
		return "javascript"
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

// newGrammar loads grammar name for documents of the graph language language.
func newGrammar(name, language string) *grammar {
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
	g := &grammar{name: name, lang: language, ts: l}
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
