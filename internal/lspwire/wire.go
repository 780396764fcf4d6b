package lspwire

import (
	"encoding/json"
	"strings"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Position is an LSP position: a 0-based line and a column in the
// negotiated position encoding.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is an LSP range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// TextRange converts r to a graph range against m's text, reading columns
// in enc.
func (r Range) TextRange(m *textpos.Mapper, enc textpos.Encoding) (textpos.Range, error) {
	return m.FromRange(r.Start.Line, r.Start.Character, r.End.Line, r.End.Character, enc)
}

// Location is an LSP Location.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// LocationOrLink decodes a Location or a LocationLink.
type LocationOrLink struct {
	URI                  string `json:"uri"`
	Range                *Range `json:"range"`
	TargetURI            string `json:"targetUri"`
	TargetSelectionRange *Range `json:"targetSelectionRange"`
	OriginSelectionRange *Range `json:"originSelectionRange"`
}

// DecodeLocations accepts Location, Location[], LocationLink[] and null.
func DecodeLocations(raw json.RawMessage) ([]LocationOrLink, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	if s[0] == '{' {
		var one LocationOrLink
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		return []LocationOrLink{one}, nil
	}
	var many []LocationOrLink
	err := json.Unmarshal(raw, &many)
	return many, err
}

// Target returns the location a Location or LocationLink points at (the
// name, for a link), and the origin range when the server gave one.
func (l LocationOrLink) Target() (uri string, r Range, origin *Range, ok bool) {
	switch {
	case l.TargetURI != "" && l.TargetSelectionRange != nil:
		return l.TargetURI, *l.TargetSelectionRange, l.OriginSelectionRange, true
	case l.URI != "" && l.Range != nil:
		return l.URI, *l.Range, nil, true
	}
	return "", Range{}, nil, false
}

// TextDocumentPosition is the params of a request at a position.
type TextDocumentPosition struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Position Position `json:"position"`
}

// DocumentSymbol is either a DocumentSymbol (Range and SelectionRange,
// Children) or a SymbolInformation (Location): servers answer one or the
// other. workspace/symbol answers may leave out the location's range.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail"`
	Kind           int              `json:"kind"`
	Range          *Range           `json:"range"`
	SelectionRange *Range           `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children"`
	Location       *struct {
		URI   string `json:"uri"`
		Range *Range `json:"range"`
	} `json:"location"`
}

// CallHierarchyItem is an LSP CallHierarchyItem. Data is kept so the item
// can be sent back to the server unchanged.
type CallHierarchyItem struct {
	Name           string          `json:"name"`
	Kind           int             `json:"kind"`
	URI            string          `json:"uri"`
	Range          Range           `json:"range"`
	SelectionRange Range           `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// CallHierarchyCall is an incoming call (From) or an outgoing call (To);
// the item the answer leaves out stays zero, with an empty URI.
type CallHierarchyCall struct {
	From       CallHierarchyItem `json:"from"`
	To         CallHierarchyItem `json:"to"`
	FromRanges []Range           `json:"fromRanges"`
}
