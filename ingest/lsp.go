package ingest

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// wordAt returns the identifier around p in m's text, or false when p is
// not on an identifier.
func wordAt(m *textpos.Mapper, p textpos.Position) (textpos.Range, bool) {
	line, ok := m.Line(p.Line)
	if !ok || int(p.Col) > len(line) {
		return textpos.Range{}, false
	}
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

// isWord reports whether r may be part of an identifier.
func isWord(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func errorf(format string, args ...any) error { return fmt.Errorf("ingest: "+format, args...) }

// indexWord returns the index of name in s where it stands as a whole
// identifier, or -1.
func indexWord(s, name string) int {
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
