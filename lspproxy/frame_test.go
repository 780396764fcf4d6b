package lspproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestFrameReader(t *testing.T) {
	for _, tc := range []struct {
		in      string
		bodies  []string
		framing bool // ends with an unrecoverable header error
		err     string
	}{
		{in: "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]", bodies: []string{"{}", "[1]"}},
		{in: "content-length:2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}", bodies: []string{"{}"}},
		{in: "Content-Length: 2\n\n{}", bodies: []string{"{}"}},
		{in: "Content-Length: 000000002\r\n\r\n{}Content-Length:  +3 \r\n\r\n[1]", bodies: []string{"{}", "[1]"}},
		{in: "Content-Length: 2x\r\n\r\n{}", framing: true, err: "bad Content-Length"},
		{in: "Content-Length: 1073741825\r\n\r\n", framing: true, err: "bad Content-Length"},
		{in: "Content-Type: x\r\n\r\n{}", framing: true, err: "missing Content-Length"},
		{in: "Content-Length: -1\r\n\r\n", framing: true, err: "bad Content-Length"},
		{in: "Content-Length: 99999999999\r\n\r\n", framing: true, err: "bad Content-Length"},
		{in: "garbage\r\n\r\n", framing: true, err: "no colon"},
		{in: "Content-Length: 5\r\n\r\n{}", err: "unexpected EOF"},
		{in: "Content-Length: 5\r\n", err: "EOF"},
		{in: strings.Repeat("x", 70<<10), framing: true, err: "longer than"},
	} {
		fr := newFrameReader(strings.NewReader(tc.in))
		var got []string
		var err error
		for {
			var b []byte
			if b, err = fr.Read(); err != nil {
				break
			}
			got = append(got, string(b))
		}
		if strings.Join(got, "|") != strings.Join(tc.bodies, "|") {
			t.Errorf("%.40q: bodies %q, want %q", tc.in, got, tc.bodies)
		}
		if tc.err == "" {
			if err != io.EOF {
				t.Errorf("%.40q: end = %v, want io.EOF", tc.in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || errors.Is(err, errFraming) != tc.framing {
			t.Errorf("%.40q: err = %v, want %q (framing %v)", tc.in, err, tc.err, tc.framing)
		}
	}
}

// FuzzPlainContentLength: the header line's fast path reads what the
// general one does.
func FuzzPlainContentLength(f *testing.F) {
	for _, s := range []string{"Content-Length: 123", "Content-Length: 999999999", "Content-Length: 0", "Content-Length: ", "Content-Length: 1a", "content-length: 1", "Content-Length:  1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		n, ok := plainContentLength(line)
		if !ok {
			return
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		want, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if !found || !bytes.EqualFold(bytes.TrimSpace(name), headerContentLength) || err != nil || want != int64(n) {
			t.Errorf("plainContentLength(%q) = %d; as a header line: %q, %d, %v", line, n, name, want, err)
		}
	})
}

// TestFrameReaderBorrowed: a borrowed frame's wire is the canonical header
// and the body, contiguous, whatever headers came in; a buffer grown by a
// large frame serves the next ones and is let go after it.
func TestFrameReaderBorrowed(t *testing.T) {
	big := strings.Repeat("x", keepBuffer+10)
	bodies := []string{"{}", big, "[1,2]", "", `{"a":"` + strings.Repeat("é", 100) + `"}`}
	var in strings.Builder
	for i, b := range bodies {
		if i == 1 {
			fmt.Fprintf(&in, "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:  %d \r\n\r\n%s", len(b), b)
			continue
		}
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	fr := newFrameReader(strings.NewReader(in.String()))
	for i, want := range bodies {
		f, err := fr.next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if string(f.body) != want {
			t.Errorf("frame %d: body %.40q, want %.40q", i, f.body, want)
		}
		if w := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(want), want); string(f.wire) != w {
			t.Errorf("frame %d: wire %.60q, want %.60q", i, f.wire, w)
		}
		if i != 1 && cap(fr.buf) > keepBuffer {
			t.Errorf("frame %d: the reader keeps a %d-byte buffer", i, cap(fr.buf))
		}
	}
	if _, err := fr.next(); err != io.EOF {
		t.Errorf("after the frames: %v, want io.EOF", err)
	}
}

// FuzzFrame: the reader never panics, and what the writer frames reads back
// unchanged.
func FuzzFrame(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"), []byte(`{"id":1}`))
	f.Add([]byte("Content-Length: 1\r\n\r\n"), []byte(""))
	f.Add([]byte("a:b\r\nContent-Length: 0\r\n\r\n"), []byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, raw, body []byte) {
		fr := newFrameReader(bytes.NewReader(raw))
		for {
			f, err := fr.next()
			if err != nil {
				break
			}
			if w := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(f.body), f.body); string(f.wire) != w {
				t.Fatalf("wire %q, want %q", f.wire, w)
			}
		}
		var buf bytes.Buffer
		fw := frameWriter{w: &buf}
		if err := fw.Write(body); err != nil {
			t.Fatal(err)
		}
		if err := fw.Write(body); err != nil {
			t.Fatal(err)
		}
		fr = newFrameReader(&buf)
		for range 2 {
			got, err := fr.Read()
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("read back %q, %v; wrote %q", got, err, body)
			}
		}
		if _, err := fr.Read(); err != io.EOF {
			t.Fatalf("after two frames: %v, want io.EOF", err)
		}
	})
}
