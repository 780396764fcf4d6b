package textpos

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unicode/utf8"
)

func TestFromColumnUTF16(t *testing.T) {
	// "a😀b" : 😀 is 4 UTF-8 bytes, 2 UTF-16 units, 1 code point.
	text := []byte("x := \"a😀b\"\r\nsecond\n")
	m := NewMapper(text)
	tests := []struct {
		col  uint32
		enc  Encoding
		want uint32
	}{
		{7, UTF16, 7},   // 😀 start
		{9, UTF16, 11},  // b after the pair
		{8, UTF16, 7},   // inside the pair rounds down
		{8, UTF32, 11},  // b
		{11, UTF8, 11},  // identity
		{11, UTF16, 13}, // end of line (before \r)
	}
	for _, tc := range tests {
		got, err := m.FromColumn(0, tc.col, tc.enc)
		if err != nil {
			t.Fatalf("FromColumn(0,%d,%s): %v", tc.col, tc.enc, err)
		}
		if got.Col != tc.want {
			t.Errorf("FromColumn(0,%d,%s) = %d, want %d", tc.col, tc.enc, got.Col, tc.want)
		}
	}
	if _, err := m.FromColumn(0, 12, UTF16); err == nil {
		t.Errorf("column past end of CRLF line: want error")
	}
	if got, _ := m.Line(0); string(got) != "x := \"a😀b\"" {
		t.Errorf("Line(0) = %q, CR must not be part of the line", got)
	}
	if _, err := m.FromColumn(5, 0, UTF16); err == nil {
		t.Errorf("line out of range: want error")
	}
}

func TestToColumn(t *testing.T) {
	m := NewMapper([]byte("é𝄞z"))
	// é: 2 bytes, 1 unit. 𝄞: 4 bytes, 2 units. z at byte 6.
	for _, tc := range []struct {
		col  uint32
		enc  Encoding
		want uint32
	}{{6, UTF16, 3}, {6, UTF32, 2}, {6, UTF8, 6}, {2, UTF16, 1}} {
		got, err := m.ToColumn(Position{0, tc.col}, tc.enc)
		if err != nil || got != tc.want {
			t.Errorf("ToColumn(%d,%s) = %d, %v; want %d", tc.col, tc.enc, got, err, tc.want)
		}
	}
}

func TestOffsetRoundTrip(t *testing.T) {
	text := []byte("a\r\nbc\n\ndef")
	m := NewMapper(text)
	for off := 0; off <= len(text); off++ {
		p, err := m.PositionAt(off)
		if err != nil {
			t.Fatal(err)
		}
		if text := text; off < len(text) && text[off] == '\n' && off > 0 && text[off-1] == '\r' {
			continue // inside a CRLF terminator: no column addresses it
		}
		back, err := m.Offset(p)
		if err != nil || back != off {
			t.Errorf("offset %d -> %v -> %d, %v", off, p, back, err)
		}
	}
}

func TestRange(t *testing.T) {
	r := Range{Position{1, 2}, Position{1, 5}}
	if !r.Contains(Position{1, 2}) || r.Contains(Position{1, 5}) || r.Contains(Position{0, 3}) {
		t.Errorf("Contains is wrong for %v", r)
	}
	if !(Range{Position{0, 0}, Position{3, 0}}).ContainsRange(r) {
		t.Errorf("ContainsRange")
	}
	if got := r.String(); got != "2:3-2:6" {
		t.Errorf("String = %q", got)
	}
}

// FuzzRoundTrip checks that converting any valid graph position to every
// encoding and back returns the same position.
func FuzzRoundTrip(f *testing.F) {
	f.Add("hello\nwörld 😀 x\r\nend", uint32(1), uint32(9))
	f.Add("𝄞𝄞\n", uint32(0), uint32(4))
	f.Add("", uint32(0), uint32(0))
	f.Fuzz(func(t *testing.T, s string, line, col uint32) {
		if !utf8.ValidString(s) {
			return
		}
		m := NewMapper([]byte(s))
		l, ok := m.Line(line)
		if !ok {
			return
		}
		col = col % uint32(len(l)+1)
		if !utf8.Valid(l[:col]) { // not on a character boundary
			return
		}
		p := Position{line, col}
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			c, err := m.ToColumn(p, enc)
			if err != nil {
				t.Fatalf("ToColumn(%v,%s): %v", p, enc, err)
			}
			back, err := m.FromColumn(line, c, enc)
			if err != nil {
				t.Fatalf("FromColumn(%d,%d,%s): %v", line, c, enc, err)
			}
			if back != p {
				t.Fatalf("%s round trip %v -> %d -> %v", enc, p, c, back)
			}
		}
	})
}

// FuzzRangeOffsets: RangeOffsets finds what a Mapper finds (FromRange, then
// Offset of both ends), and fails where it fails.
func FuzzRangeOffsets(f *testing.F) {
	f.Add([]byte("package a\nfunc f() {}\n"), uint32(1), uint32(5), uint32(1), uint32(6), uint8(1))
	f.Add([]byte("a\r\nb😀c\r\n"), uint32(1), uint32(1), uint32(1), uint32(3), uint8(1))
	f.Add([]byte("x😀y\nz"), uint32(0), uint32(2), uint32(1), uint32(1), uint8(0))
	f.Add([]byte("ab\ncd"), uint32(1), uint32(1), uint32(0), uint32(1), uint8(2))
	f.Add([]byte(""), uint32(0), uint32(0), uint32(0), uint32(0), uint8(2))
	f.Fuzz(func(t *testing.T, text []byte, sl, sc, el, ec uint32, e uint8) {
		enc := []Encoding{UTF8, UTF16, UTF32}[int(e)%3]
		from, to, err := RangeOffsets(text, sl, sc, el, ec, enc)
		m := NewMapper(text)
		r, werr := m.FromRange(sl, sc, el, ec, enc)
		var wfrom, wto int
		if werr == nil {
			wfrom, _ = m.Offset(r.Start)
			wto, _ = m.Offset(r.End)
			if wfrom > wto {
				werr = fmt.Errorf("ends before it starts")
			}
		}
		if (err == nil) != (werr == nil) || err == nil && (from != wfrom || to != wto) {
			t.Errorf("RangeOffsets(%q, %d:%d-%d:%d, %s) = %d, %d, %v; the Mapper: %d, %d, %v", text, sl, sc, el, ec, enc, from, to, err, wfrom, wto, werr)
		}
	})
}

// TestRangeOffsetsLongText checks RangeOffsets against a Mapper on a text
// long enough that whole blocks of lines are skipped by counting.
func TestRangeOffsetsLongText(t *testing.T) {
	var text []byte
	for i := range 3000 {
		text = append(text, bytes.Repeat([]byte("é"), i%37)...)
		if i%5 == 0 {
			text = append(text, '\r')
		}
		text = append(text, '\n')
	}
	m := NewMapper(text)
	for line := uint32(0); line < 3001; line += 7 {
		for _, col := range []uint32{0, 1, 5} {
			from, to, err := RangeOffsets(text, line/2, col, line, col, UTF16)
			r, werr := m.FromRange(line/2, col, line, col, UTF16)
			var wfrom, wto int
			if werr == nil {
				wfrom, _ = m.Offset(r.Start)
				wto, _ = m.Offset(r.End)
			}
			if (err == nil) != (werr == nil) || from != wfrom || to != wto {
				t.Fatalf("%d:%d-%d:%d: RangeOffsets %d, %d, %v; the Mapper %d, %d, %v", line/2, col, line, col, from, to, err, wfrom, wto, werr)
			}
		}
	}
}

// BenchmarkNewMapper indexes GOROOT's largest source file.
func BenchmarkNewMapper(b *testing.B) {
	text, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src/cmd/compile/internal/ssa/rewriteAMD64.go"))
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		NewMapper(text)
	}
}
