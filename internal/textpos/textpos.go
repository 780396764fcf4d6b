package textpos

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Position is a 0-based line and a 0-based UTF-8 byte column within that line.
type Position struct {
	Line uint32
	Col  uint32
}

// Range is a half-open span [Start, End) of a document.
type Range struct {
	Start, End Position
}

// Encoding names how columns are counted.
type Encoding uint8

const (
	// UTF16 counts UTF-16 code units: the LSP default and what the
	// JavaScript-based SCIP indexers emit.
	UTF16 Encoding = iota
	// UTF8 counts bytes: the graph's own encoding, and scip-go's.
	UTF8
	// UTF32 counts Unicode code points.
	UTF32
)

// ParseEncoding maps an LSP positionEncoding kind ("utf-8", "utf-16",
// "utf-32") to an Encoding. The empty string means the LSP default, UTF-16.
func ParseEncoding(s string) (Encoding, error) {
	switch s {
	case "", "utf-16":
		return UTF16, nil
	case "utf-8":
		return UTF8, nil
	case "utf-32":
		return UTF32, nil
	}
	return UTF16, fmt.Errorf("textpos: unknown position encoding %q", s)
}

// String returns the LSP name of the encoding.
func (e Encoding) String() string {
	switch e {
	case UTF8:
		return "utf-8"
	case UTF32:
		return "utf-32"
	default:
		return "utf-16"
	}
}

// Before reports whether p comes strictly before q.
func (p Position) Before(q Position) bool {
	return p.Line < q.Line || (p.Line == q.Line && p.Col < q.Col)
}

// String renders p 1-based, as editors show it: "LINE:COL".
func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Line+1, p.Col+1) }

// Contains reports whether p lies inside r (start inclusive, end exclusive).
// An empty range contains its start position.
func (r Range) Contains(p Position) bool {
	if r.Start == r.End {
		return p == r.Start
	}
	return !p.Before(r.Start) && p.Before(r.End)
}

// ContainsRange reports whether inner lies entirely within r.
func (r Range) ContainsRange(inner Range) bool {
	return !inner.Start.Before(r.Start) && !r.End.Before(inner.End)
}

// String renders r 1-based: "L:C-L:C".
func (r Range) String() string { return r.Start.String() + "-" + r.End.String() }

// Mapper converts positions for one document's text. The zero value is not
// usable; call NewMapper. Lines end at "\n"; a "\r" before it belongs to the
// line terminator and is never counted as a column a position can point past.
type Mapper struct {
	text []byte
	// lineStart[i] is the byte offset at which line i starts.
	lineStart []int
}

// NewMapper indexes text's line starts. text is retained, not copied.
func NewMapper(text []byte) *Mapper {
	starts := make([]int, 1, bytes.Count(text, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &Mapper{text: text, lineStart: starts}
}

// Lines returns the number of lines (a final line without "\n" counts).
func (m *Mapper) Lines() int { return len(m.lineStart) }

// line returns the content of line n without its terminator ("\n" or "\r\n").
func (m *Mapper) line(n uint32) ([]byte, bool) {
	if int(n) >= len(m.lineStart) {
		return nil, false
	}
	start := m.lineStart[n]
	end := len(m.text)
	if int(n)+1 < len(m.lineStart) {
		end = m.lineStart[n+1] - 1 // drop '\n'
		if end > start && m.text[end-1] == '\r' {
			end--
		}
	}
	return m.text[start:end], true
}

// Line returns the text of line n without its terminator.
func (m *Mapper) Line(n uint32) ([]byte, bool) { return m.line(n) }

// Offset returns the byte offset of a graph position.
func (m *Mapper) Offset(p Position) (int, error) {
	l, ok := m.line(p.Line)
	if !ok {
		return 0, fmt.Errorf("textpos: line %d out of range (document has %d lines)", p.Line+1, len(m.lineStart))
	}
	if int(p.Col) > len(l) {
		return 0, fmt.Errorf("textpos: column %d past end of line %d (%d bytes)", p.Col+1, p.Line+1, len(l))
	}
	return m.lineStart[p.Line] + int(p.Col), nil
}

// PositionAt returns the graph position of a byte offset.
func (m *Mapper) PositionAt(offset int) (Position, error) {
	if offset < 0 || offset > len(m.text) {
		return Position{}, fmt.Errorf("textpos: offset %d out of range [0, %d]", offset, len(m.text))
	}
	// Binary search for the last line start <= offset.
	lo, hi := 0, len(m.lineStart)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if m.lineStart[mid] <= offset {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return Position{Line: uint32(lo), Col: uint32(offset - m.lineStart[lo])}, nil
}

// FromColumn converts a column counted in enc on line `line` to a graph
// position. A column past the end of the line is an error; a column that
// falls inside a character (the second half of a surrogate pair) is rounded
// down to that character's start.
func (m *Mapper) FromColumn(line, col uint32, enc Encoding) (Position, error) {
	l, ok := m.line(line)
	if !ok {
		return Position{}, fmt.Errorf("textpos: line %d out of range (document has %d lines)", line+1, len(m.lineStart))
	}
	c, err := byteColumn(l, line, col, enc)
	return Position{Line: line, Col: c}, err
}

// byteColumn converts a column counted in enc on line (whose content, without
// its terminator, is l) to a byte column, as FromColumn documents.
func byteColumn(l []byte, line, col uint32, enc Encoding) (uint32, error) {
	if enc == UTF8 {
		if int(col) > len(l) {
			return 0, fmt.Errorf("textpos: column %d past end of line %d", col+1, line+1)
		}
		return col, nil
	}
	var units uint32
	for i := 0; i < len(l); {
		if units >= col {
			return uint32(i), nil
		}
		r, size := utf8.DecodeRune(l[i:])
		w := uint32(1)
		if enc == UTF16 && r >= 0x10000 {
			w = 2
		}
		if units+w > col { // inside a surrogate pair
			return uint32(i), nil
		}
		units += w
		i += size
	}
	if units >= col {
		return uint32(len(l)), nil
	}
	return 0, fmt.Errorf("textpos: column %d past end of line %d (%d %s units)", col+1, line+1, units, enc)
}

// RangeOffsets returns the byte offsets in text of a range whose columns
// are counted in enc, as a Mapper's FromRange and Offset do, without a
// line index: it scans text for line ends only as far as the range's end,
// so a lookup costs what lies before the range, not the whole text. It is
// for text that changes between lookups (an editor's buffer, one change
// after another), where a Mapper would be built anew for each.
func RangeOffsets(text []byte, startLine, startCol, endLine, endCol uint32, enc Encoding) (from, to int, err error) {
	if endLine < startLine {
		return 0, 0, fmt.Errorf("textpos: range ends on line %d before it starts on line %d", endLine+1, startLine+1)
	}
	var ls lineScan
	ls.text = text
	if from, err = ls.offset(startLine, startCol, enc); err != nil {
		return 0, 0, err
	}
	if to, err = ls.offset(endLine, endCol, enc); err != nil {
		return 0, 0, err
	}
	if from > to {
		return 0, 0, fmt.Errorf("textpos: range %d:%d-%d:%d ends before it starts", startLine+1, startCol+1, endLine+1, endCol+1)
	}
	return from, to, nil
}

// lineScan finds lines by scanning forward from the last one found.
type lineScan struct {
	text  []byte
	line  uint32 // the line starting at start
	start int
}

// offset returns the byte offset of a column counted in enc on a line at
// or after the last one found.
func (ls *lineScan) offset(line, col uint32, enc Encoding) (int, error) {
	// Whole blocks without the line's start are skipped by counting
	// their line ends, which costs far less than finding each.
	const block = 4 << 10
	for ls.line < line && ls.start+block <= len(ls.text) {
		n := bytes.Count(ls.text[ls.start:ls.start+block], []byte{'\n'})
		if ls.line+uint32(n) >= line {
			break
		}
		ls.line += uint32(n)
		ls.start += block
	}
	for ls.line < line {
		i := bytes.IndexByte(ls.text[ls.start:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("textpos: line %d out of range (document has %d lines)", line+1, ls.line+1)
		}
		ls.start += i + 1
		ls.line++
	}
	l := ls.text[ls.start:]
	if i := bytes.IndexByte(l, '\n'); i >= 0 {
		l = l[:i]
		if len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
	}
	c, err := byteColumn(l, line, col, enc)
	return ls.start + int(c), err
}

// ToColumn converts a graph position to a column counted in enc.
func (m *Mapper) ToColumn(p Position, enc Encoding) (uint32, error) {
	l, ok := m.line(p.Line)
	if !ok {
		return 0, fmt.Errorf("textpos: line %d out of range (document has %d lines)", p.Line+1, len(m.lineStart))
	}
	if int(p.Col) > len(l) {
		return 0, fmt.Errorf("textpos: column %d past end of line %d", p.Col+1, p.Line+1)
	}
	if enc == UTF8 {
		return p.Col, nil
	}
	var units uint32
	for i := 0; i < int(p.Col); {
		r, size := utf8.DecodeRune(l[i:])
		if enc == UTF16 && r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	return units, nil
}

// FromRange converts a range whose columns are counted in enc.
func (m *Mapper) FromRange(startLine, startCol, endLine, endCol uint32, enc Encoding) (Range, error) {
	s, err := m.FromColumn(startLine, startCol, enc)
	if err != nil {
		return Range{}, err
	}
	e, err := m.FromColumn(endLine, endCol, enc)
	if err != nil {
		return Range{}, err
	}
	return Range{Start: s, End: e}, nil
}

// ToRange converts a graph range to columns counted in enc.
func (m *Mapper) ToRange(r Range, enc Encoding) (startCol, endCol uint32, err error) {
	if startCol, err = m.ToColumn(r.Start, enc); err != nil {
		return 0, 0, err
	}
	if endCol, err = m.ToColumn(r.End, enc); err != nil {
		return 0, 0, err
	}
	return startCol, endCol, nil
}
