package syntax

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// extractFixture extracts one fixture file.
func extractFixture(t *testing.T, root, p string) *FileFacts {
	t.Helper()
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	x := NewExtractor(Options{Root: root})
	defer x.Close()
	ff, err := x.File(context.Background(), p, src)
	if err != nil {
		t.Fatal(err)
	}
	return ff
}

// TestFactCodecRoundTrip decodes what was encoded, field for field, for
// files of several languages (uses with members, imports, terms).
func TestFactCodecRoundTrip(t *testing.T) {
	for _, c := range []struct{ root, path string }{
		{"../testdata/goapp", "service/catalog.go"},
		{"../testdata/tsworkspace", "packages/order/src/index.ts"},
		{"testdata/javaapp", "src/main/java/com/acme/shop/Order.java"},
		{"testdata/pystar", "shapes/report.py"},
	} {
		ff := extractFixture(t, c.root, c.path)
		if ff.Skipped != SkipNone || len(ff.Uses) == 0 {
			t.Fatalf("%s: skipped %q, %d uses: not a useful case", c.path, ff.Skipped, len(ff.Uses))
		}
		ff.Container = map[string]string{"a": "b", "c": ""}
		got, err := decodeFileFacts(string(encodeFileFacts(nil, ff)))
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if !reflect.DeepEqual(got, ff) {
			t.Errorf("%s: decoded facts differ from the encoded ones", c.path)
		}
	}
}

// TestFactCodecCorrupt: a record cut short or with a changed byte decodes
// to an error wrapping errCorrupt or to some facts, never a panic; a cut
// record is always an error.
func TestFactCodecCorrupt(t *testing.T) {
	ff := extractFixture(t, "../testdata/goapp", "service/catalog.go")
	rec := encodeFileFacts(nil, ff)
	for n := 0; n < len(rec); n++ {
		if _, err := decodeFileFacts(string(rec[:n])); !errors.Is(err, errCorrupt) {
			t.Fatalf("a record cut to %d of %d bytes: got %v, want a corrupt-record error", n, len(rec), err)
		}
	}
	for i := range rec {
		bad := append([]byte(nil), rec...)
		bad[i] ^= 0xa5
		if _, err := decodeFileFacts(string(bad)); err != nil && !errors.Is(err, errCorrupt) {
			t.Fatalf("byte %d changed: %v does not wrap errCorrupt", i, err)
		}
	}
}

// TestFactEncoderReuse: an encoder that encoded a file encodes it again,
// and another, as a new encoder would, byte for byte: no string written
// before reset is referred to after it.
func TestFactEncoderReuse(t *testing.T) {
	a := extractFixture(t, "../testdata/goapp", "service/catalog.go")
	b := extractFixture(t, "../testdata/tsworkspace", "packages/order/src/index.ts")
	var e factEncoder
	for i, f := range []*FileFacts{a, a, b} {
		e.reset(nil)
		got := e.facts(f)
		if want := encodeFileFacts(nil, f); string(got) != string(want) {
			t.Errorf("record %d: the reused encoder's differs from a new encoder's (%d bytes against %d)", i, len(got), len(want))
		}
	}
}
