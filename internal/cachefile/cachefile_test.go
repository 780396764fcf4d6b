package cachefile

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// TestRoundTrip: what a file holds reads back, and a reader reading past
// the end, or leaving bytes unread, fails with where.
func TestRoundTrip(t *testing.T) {
	b := Start("test\n", 2)
	b = AppendString(b, "héllo")
	b = binary.AppendUvarint(b, 300)
	b = binary.AppendVarint(b, -7)
	b = binary.AppendUvarint(b, 2) // a count of two strings
	b = AppendString(b, "a")
	b = AppendString(b, "")
	b = binary.AppendUvarint(b, 1) // an index into them
	file := Seal(b)

	d, err := Open(file, "test\n", 2, "test file")
	if err != nil {
		t.Fatal(err)
	}
	if s, n, v := d.Str(), d.Int(), d.Varint(); s != "héllo" || n != 300 || v != -7 {
		t.Errorf("read %q %d %d", s, n, v)
	}
	strs := make([]string, d.Count(1))
	for i := range strs {
		strs[i] = d.Str()
	}
	if i := d.Index(len(strs)); i != 1 || len(strs) != 2 || strs[0] != "a" {
		t.Errorf("strings %q, index %d", strs, i)
	}
	if err := d.End(); err != nil {
		t.Errorf("End: %v", err)
	}
	if d.Uvarint(); d.End() == nil || !strings.Contains(d.End().Error(), "test file is damaged at byte") {
		t.Errorf("reading past the end: %v", d.End())
	}

	d, _ = Open(file, "test\n", 2, "test file")
	d.Str()
	if err := d.End(); err == nil || !strings.Contains(err.Error(), "bytes after the end") {
		t.Errorf("bytes left: %v", err)
	}
}

// TestOpenRefuses: another magic, another version (ErrVersion), a file
// cut short or with a byte changed are refused with a message naming the
// file.
func TestOpenRefuses(t *testing.T) {
	file := Seal(AppendString(Start("test\n", 2), "body"))
	changed := append([]byte(nil), file...)
	changed[len(changed)/2] ^= 1
	for name, c := range map[string]struct {
		b       []byte
		version byte
		msg     string
	}{
		"another magic":   {append([]byte("tesT\n"), file[5:]...), 2, "not a test file"},
		"another version": {file, 3, "test file version 2, not 3"},
		"cut short":       {file[:len(file)-1], 2, "test file is damaged (checksum)"},
		"a byte changed":  {changed, 2, "test file is damaged (checksum)"},
		"empty":           {nil, 2, "not a test file"},
	} {
		_, err := Open(c.b, "test\n", c.version, "test file")
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", name, err, c.msg)
		}
		if errors.Is(err, ErrVersion) != (name == "another version") {
			t.Errorf("%s: errors.Is(ErrVersion) = %v", name, errors.Is(err, ErrVersion))
		}
	}
}

// TestDecoderBounds: counts, strings and indexes larger than what is left
// or than their table fail instead of allocating or panicking.
func TestDecoderBounds(t *testing.T) {
	for name, c := range map[string]struct {
		body []byte
		read func(*Decoder)
	}{
		"count":     {binary.AppendUvarint(nil, 1<<40), func(d *Decoder) { d.Count(1) }},
		"string":    {binary.AppendUvarint(nil, 9), func(d *Decoder) { d.Str() }},
		"index":     {binary.AppendUvarint(nil, 3), func(d *Decoder) { d.Index(3) }},
		"int":       {binary.AppendUvarint(nil, 1<<63), func(d *Decoder) { d.Int() }},
		"no number": {[]byte{0x80}, func(d *Decoder) { d.Uvarint() }},
	} {
		d, err := Open(Seal(append(Start("m", 1), c.body...)), "m", 1, "test file")
		if err != nil {
			t.Fatal(err)
		}
		c.read(d)
		if d.Err() == nil {
			t.Errorf("%s: no error", name)
		}
		if d.Uvarint() != 0 || d.Str() != "" {
			t.Errorf("%s: a read after the error gave something", name)
		}
	}
}
