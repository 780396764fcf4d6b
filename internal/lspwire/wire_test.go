package lspwire

import (
	"testing"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

func TestDecodeLocations(t *testing.T) {
	r := Range{Start: Position{1, 2}, End: Position{1, 5}}
	for _, tc := range []struct{ name, raw string }{
		{"location", `{"uri":"file:///a.go","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}}}`},
		{"locations", `[{"uri":"file:///a.go","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}}}]`},
		{"links", `[{"targetUri":"file:///a.go","targetRange":{"start":{"line":0,"character":0},"end":{"line":3,"character":0}},"targetSelectionRange":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}}}]`},
	} {
		got, err := DecodeLocations([]byte(tc.raw))
		if err != nil || len(got) != 1 {
			t.Errorf("%s: %+v, %v", tc.name, got, err)
			continue
		}
		if uri, gr, _, ok := got[0].Target(); !ok || uri != "file:///a.go" || gr != r {
			t.Errorf("%s: target %q %+v %v", tc.name, uri, gr, ok)
		}
	}
	for _, raw := range []string{`null`, ``, ` null `} {
		if got, err := DecodeLocations([]byte(raw)); err != nil || len(got) != 0 {
			t.Errorf("%q: %+v, %v", raw, got, err)
		}
	}
	if _, err := DecodeLocations([]byte(`[{"uri":1}]`)); err == nil {
		t.Error("a malformed answer decodes")
	}
}

func TestTarget(t *testing.T) {
	got, err := DecodeLocations([]byte(`[
		{"targetUri":"file:///b.go","targetSelectionRange":{"start":{"line":4,"character":1},"end":{"line":4,"character":3}},"originSelectionRange":{"start":{"line":0,"character":7},"end":{"line":0,"character":9}}},
		{"uri":"file:///c.go"}]`))
	if err != nil || len(got) != 2 {
		t.Fatalf("%+v, %v", got, err)
	}
	uri, r, origin, ok := got[0].Target()
	if !ok || uri != "file:///b.go" || r.Start != (Position{4, 1}) || origin == nil || origin.Start != (Position{0, 7}) {
		t.Errorf("link: %q %+v %+v %v", uri, r, origin, ok)
	}
	if _, _, _, ok := got[1].Target(); ok {
		t.Error("a location without a range has a target")
	}
}

func TestTextRange(t *testing.T) {
	m := textpos.NewMapper([]byte("x := \"😀\" + y\n"))
	// y is at UTF-16 column 12 and UTF-8 column 14 (the emoji is two code
	// units and four bytes).
	r := Range{Start: Position{0, 12}, End: Position{0, 13}}
	got, err := r.TextRange(m, textpos.UTF16)
	if err != nil || got.Start.Col != 14 || got.End.Col != 15 {
		t.Errorf("TextRange = %+v, %v", got, err)
	}
	if _, err := (Range{Start: Position{3, 0}, End: Position{3, 1}}).TextRange(m, textpos.UTF16); err == nil {
		t.Error("a range past the end converts")
	}
}

func TestURIs(t *testing.T) {
	abs := "/tmp/a b/ü.go"
	uri := FileURI(abs)
	if uri != "file:///tmp/a%20b/%C3%BC.go" {
		t.Errorf("FileURI = %q", uri)
	}
	if p, ok := URIPath(uri); !ok || p != abs {
		t.Errorf("URIPath(%q) = %q, %v", uri, p, ok)
	}
	if _, ok := URIPath("untitled:Untitled-1"); ok {
		t.Error("a non-file URI has a path")
	}
	if p, ok := WorkspacePath(uri, "/tmp/a b"); !ok || p != "ü.go" {
		t.Errorf("WorkspacePath = %q, %v", p, ok)
	}
	if p, ok := WorkspacePath("file:///work/b/x/y.go", "/work/a", "/work/b"); !ok || p != "x/y.go" {
		t.Errorf("WorkspacePath, second root = %q, %v", p, ok)
	}
	if _, ok := WorkspacePath("file:///usr/lib/go/src/fmt/print.go", "/tmp/a b"); ok {
		t.Error("a file outside the root is inside")
	}
	if _, ok := WorkspacePath("file:///tmp/a bc/x.go", "/tmp/a b"); ok {
		t.Error("a sibling directory sharing the root's prefix is inside")
	}
	if _, ok := WorkspacePath("file:///tmp/x.go", "/tmp/a b"); ok {
		t.Error("the root's parent is inside")
	}
}

func TestNames(t *testing.T) {
	for k, want := range map[int]string{0: "", 5: "class", 12: "function", 22: "enum-member", 26: "type-parameter", 27: ""} {
		if got := KindName(k); got != want {
			t.Errorf("KindName(%d) = %q, want %q", k, got, want)
		}
	}

}
