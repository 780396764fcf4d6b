package scip

import (
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/scip-code/scip/bindings/go/scip"
)

// rangeConverter converts SCIP ranges of one document to graph ranges.
type rangeConverter struct {
	enc    textpos.Encoding
	mapper *textpos.Mapper // nil: no text
	// unverified: columns that needed conversion were kept as given
	// because the text is missing.
	unverified bool
	// failed: the text does not match a range (line or column past the end).
	failed bool
}

func newRangeConverter(enc textpos.Encoding, text []byte) *rangeConverter {
	c := &rangeConverter{enc: enc}
	if enc != textpos.UTF8 && text != nil {
		c.mapper = textpos.NewMapper(text)
	}
	return c
}

// parseRange validates a SCIP range: non-negative, start not after end.
func parseRange(r scip.Range, present bool) (sl, sc, el, ec uint32, ok bool) {
	a, b, c, d := r.Start.Line, r.Start.Character, r.End.Line, r.End.Character
	if !present || a < 0 || b < 0 || c < 0 || d < 0 || c < a || (c == a && d < b) {
		return 0, 0, 0, 0, false
	}
	return uint32(a), uint32(b), uint32(c), uint32(d), true
}

// convert returns the graph range of a SCIP range (typed or the deprecated
// int array, as SourceRange and EnclosingSourceRange read them); ok is
// false when the range is missing or malformed.
func (c *rangeConverter) convert(r scip.Range, present bool) (textpos.Range, bool) {
	sl, sc, el, ec, ok := parseRange(r, present)
	if !ok {
		return textpos.Range{}, false
	}
	raw := textpos.Range{Start: textpos.Position{Line: sl, Col: sc}, End: textpos.Position{Line: el, Col: ec}}
	if c.enc == textpos.UTF8 {
		return raw, true
	}
	if c.mapper == nil {
		c.unverified = true
		return raw, true
	}
	if c.failed {
		return raw, true
	}
	g, err := c.mapper.FromRange(sl, sc, el, ec, c.enc)
	if err != nil {
		c.failed = true
		return raw, true
	}
	return g, true
}
