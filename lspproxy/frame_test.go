package lspproxy

import (
	"bytes"
	"errors"
	"io"
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

// FuzzFrame: the reader never panics, and what the writer frames reads back
// unchanged.
func FuzzFrame(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"), []byte(`{"id":1}`))
	f.Add([]byte("Content-Length: 1\r\n\r\n"), []byte(""))
	f.Add([]byte("a:b\r\nContent-Length: 0\r\n\r\n"), []byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, raw, body []byte) {
		fr := newFrameReader(bytes.NewReader(raw))
		for {
			if _, err := fr.Read(); err != nil {
				break
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
