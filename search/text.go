package search

import "github.com/lspgraph/lspgraph/internal/lang"

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

// FlatText counts every word alike: plain BM25 over whole files.
var FlatText = Text{Weights: FlatWeights, B: 0.75}

// LanguageText is BM25F's parameters per graph language (internal/lang),
// chosen by a document's extension. Each was chosen, with the signal
// weights, on the older half of 150 commits of one repository's history
// (Go: pebble, TypeScript: vuejs/core, Python: flask;
// search/testdata/README.md), from the settings searcheval.TextGrid
// lists; a language without a row is weighted as HandText.
//
//	language    name path doc string code   b
//	go             4    3 1.5    1.5    1   0.75
//	typescript     1    1   1      1    1   0.75
//	python         4    3 1.5    1.5    1   0.75
var LanguageText = map[string]Text{
	"go":         HandText,
	"typescript": FlatText,
	"python":     HandText,
}

// TextFor returns BM25F's parameters for the document at p: its
// language's row of LanguageText, or HandText.
func TextFor(p string) Text {
	if t, ok := LanguageText[lang.Of(p)]; ok {
		return t
	}
	return HandText
}
