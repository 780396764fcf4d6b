package search

import (
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
)

// Text is BM25F's parameters: the weight of each field in a word's
// count and b, how much a long document's counts are damped (0 none, 1
// in proportion to its length).
type Text struct {
	Weights Weights `json:"weights"`
	B       float64 `json:"b"`
}

// HandText is the field weighting set by hand before any was fitted:
// names and paths over the words of code.
var HandText = Text{Weights: FieldWeights, B: 0.75}

// MildText weighs names and paths twice the other words.
var MildText = Text{Weights: Weights{graph.TermName: 2, graph.TermPath: 2, graph.TermDoc: 1, graph.TermString: 1, graph.TermCode: 1}, B: 0.75}

// FlatText counts every word alike: plain BM25 over whole files.
var FlatText = Text{Weights: FlatWeights, B: 0.75}

// LanguageText is BM25F's parameters per graph language (internal/lang),
// chosen by a document's extension. Each is the setting of
// searcheval.TextGrid whose BM25F alone ranked best the older half of 150
// commits of one repository's history (Go: pebble, TypeScript:
// vuejs/core, Python: flask; search/testdata/README.md); a language
// without a row is weighted as HandText.
//
//	language    name path doc string code   b
//	go             2    2   1      1    1   0.75
//	typescript     4    3 1.5    1.5    1   0.75
//	python         2    2   1      1    1   0.75
var LanguageText = map[string]Text{
	"go":         MildText,
	"typescript": HandText,
	"python":     MildText,
}

// TextFor returns BM25F's parameters for the document at p: its
// language's row of LanguageText, or HandText.
func TextFor(p string) Text {
	if t, ok := LanguageText[lang.Of(p)]; ok {
		return t
	}
	return HandText
}
