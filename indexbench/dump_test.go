package indexbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/proto"
)

// TestCopyDump copies the goapp fixture's scip-go dump three times: every
// document three times under its copy's directory, each copy's own
// symbols renamed apart, the standard library's left shared.
func TestCopyDump(t *testing.T) {
	in := filepath.Join("..", "testdata", "scip", "goapp.scip")
	out := filepath.Join(t.TempDir(), "x3.scip")
	st, err := CopyDump(in, out, 3)
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) *scip.Index {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var idx scip.Index
		if err := proto.Unmarshal(b, &idx); err != nil {
			t.Fatal(err)
		}
		return &idx
	}
	orig, got := read(in), read(out)
	if len(got.Documents) != 3*len(orig.Documents) || st.Documents != len(got.Documents) {
		t.Fatalf("%d documents (%d reported), want 3 × %d", len(got.Documents), st.Documents, len(orig.Documents))
	}
	defined := map[string]int{} // symbol → copies defining it
	shared := 0
	for i, d := range got.Documents {
		k := i/len(orig.Documents) + 1
		o := orig.Documents[i%len(orig.Documents)]
		if want := "copy" + string(rune('0'+k)) + "/" + o.RelativePath; d.RelativePath != want {
			t.Fatalf("document %d at %q, want %q", i, d.RelativePath, want)
		}
		for _, s := range d.Symbols {
			if !strings.HasPrefix(s.Symbol, "local ") { // locals are per document
				defined[s.Symbol]++
			}
		}
		for j, occ := range d.Occurrences {
			if occ.Symbol == o.Occurrences[j].Symbol && !strings.HasPrefix(occ.Symbol, "local ") {
				shared++ // a dependency's symbol
			}
		}
	}
	for s, n := range defined {
		if n > 1 {
			t.Errorf("%s defined by %d copies", s, n)
		}
	}
	if shared == 0 {
		t.Error("no occurrence of a shared dependency symbol (fmt, …) kept its name")
	}
	if len(got.ExternalSymbols) != len(orig.ExternalSymbols) || !proto.Equal(got.Metadata, orig.Metadata) {
		t.Error("metadata or external symbols changed")
	}
}
