package scip

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/proto"
)

// FuzzImport feeds mutated dumps to the importer over a store that already
// serves a generation. The importer must never panic, a failed (or
// refused) import must leave readers seeing exactly the previous
// generation, and a successful one must serve what its summary counts.
// The seed corpus (a compact dump, its truncations and corruptions) lives
// in testdata/fuzz/FuzzImport and runs under plain go test.
//
// The fuzzer minimises every input that finds new coverage, running it
// thousands of times (the subset pass is quadratic in its size), before
// it fuzzes on. Two things made that take the whole budget: each run
// opened a store and imported the base generation before the import under
// test (milliseconds), and the seeds were kilobyte fixture dumps. Now each
// fuzzing process keeps one store, importing the base again only after an
// input that imports, and the seeds are a few hundred bytes.
func FuzzImport(f *testing.F) {
	seed := compactIndex(f)
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	// The generation every input is imported over: the seed's documents
	// and a third, so that an input keeping only one is refused as a
	// shrink, and one keeping the seed's reuses their facts.
	idx := parseIndex(f, seed)
	idx.Documents = append(idx.Documents, &scip.Document{RelativePath: "c"})
	base := marshalIndex(f, idx)
	var (
		store   *graph.Store
		before  string // what readers see of the base generation
		commits int    // generations committed since store was opened
	)
	f.Cleanup(func() {
		if store != nil {
			store.Close()
		}
	})
	f.Fuzz(func(t *testing.T, in []byte) {
		// A fresh store now and then: every commit leaves a range deletion
		// of the generation it replaced in the memtable, which every read
		// steps over.
		if store == nil || commits >= 100 {
			if store != nil {
				store.Close()
			}
			var err error
			if store, err = graph.Open("fuzz", graph.Options{InMemory: true}); err != nil {
				t.Fatal(err)
			}
			commits = 0
			if _, err := importBytes(store, base, Options{Commit: "base"}); err != nil {
				t.Fatal(err)
			}
			before = fingerprint(t, store)
		}
		sum, err := importBytes(store, in, Options{Commit: "fuzz"})
		if err != nil {
			if after := fingerprint(t, store); after != before {
				t.Fatalf("import failed (%v) but readers no longer see the previous generation:\nbefore:\n%s\nafter:\n%s", err, before, after)
			}
			if !strings.Contains(err.Error(), "the previous index (commit base,") {
				t.Errorf("error %q does not name the index still in use", err)
			}
			return
		}
		r, err := store.Reader()
		if err != nil {
			t.Fatal(err)
		}
		m, ok, err := r.Manifest(graph.Base)
		if err != nil || !ok || m.Commit != "fuzz" || m.State != graph.StateComplete {
			t.Fatalf("after a successful import the manifest is %+v (found %v, %v)", m, ok, err)
		}
		docs := 0
		if err := r.Documents(t.Context(), func(d graph.Document) error {
			if d.Path != ExternalPath {
				docs++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if docs != sum.Documents {
			t.Errorf("readers see %d documents, the summary says %d", docs, sum.Documents)
		}
		// Serve the base again for the next input.
		commits += 2
		if _, err := importBytes(store, base, Options{Commit: "base", AllowShrink: true}); err != nil {
			t.Fatal(err)
		}
		before = fingerprint(t, store)
	})
}

// compactIndex is a dump of about 250 bytes with what the fixtures
// spread over kilobytes: two documents, one in UTF-16 columns with its
// text and one in scip-go's UTF-8 by default, an escaped descriptor,
// definitions with and without an enclosing range,
// references, a local, an import, a relationship and an external symbol.
func compactIndex(t testing.TB) []byte {
	const (
		f = "s m p 1 `a.b`/f()."
		g = "s m p 1 a/g()."
		i = "s m p 1 a/I#"
		x = "s m q 1 x/X()."
	)
	def := int32(scip.SymbolRole_Definition)
	idx := &scip.Index{
		Metadata: &scip.Metadata{ToolInfo: &scip.ToolInfo{Name: "scip-go"}},
		Documents: []*scip.Document{{
			RelativePath:     "a",
			PositionEncoding: scip.PositionEncoding_UTF16CodeUnitOffsetFromLineStart,
			Text:             "é f(){g()}\ng(){}\n",
			Occurrences: []*scip.Occurrence{
				{Range: []int32{0, 2, 3}, Symbol: f, SymbolRoles: def, EnclosingRange: []int32{0, 2, 10}},
				{Range: []int32{0, 6, 7}, Symbol: g},
				{Range: []int32{0, 8, 9}, Symbol: "local 0"},
				{Range: []int32{1, 0, 1}, Symbol: g, SymbolRoles: def},
			},
			Symbols: []*scip.SymbolInformation{{Symbol: f, Relationships: []*scip.Relationship{{Symbol: i, IsImplementation: true}}}},
		}, {
			RelativePath: "b",
			Occurrences: []*scip.Occurrence{
				{Range: []int32{0, 0, 1}, Symbol: i, SymbolRoles: def},
				{Range: []int32{1, 0, 1}, Symbol: x, SymbolRoles: int32(scip.SymbolRole_Import)},
			},
		}},
		ExternalSymbols: []*scip.SymbolInformation{{Symbol: x, Documentation: []string{"d"}}},
	}
	return marshalIndex(t, idx)
}

// FuzzSymbol checks the symbol helpers against the bindings' parser: they
// never panic; a symbol that parses formats to a stable canonical string;
// the suffix read from the string's end agrees with the parsed last
// descriptor; the parent symbol found by describe is a prefix of it.
func FuzzSymbol(f *testing.F) {
	for _, s := range []string{
		"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/Catalog#Save().",
		"scip-typescript npm @shop/order 0.1.0 src/`index.ts`/Order#`<constructor>`().(rules)",
		"scip-python python shop 0.1.0 `shop.orders`/__init__:",
		"scip-typescript npm @tanstack/store 0.11.1 src/`atom.ts`/toObserver().[T]",
		"scip-go gomod github.com/golang/go/src go1.26.0 fmt/Stringer#String().",
		"rust-analyzer cargo std 1.0 macros/println!",
		"a  b c d e f g/x(+1).",
		"local 42",
		"local",
		"",
		". . . . x.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = symbolSuffix(s)
		identity, version := packageOf(s)
		if !strings.HasPrefix(s, identity) || version != "" && !strings.HasPrefix(s, identity+" "+version) {
			t.Fatalf("packageOf(%q) = %q, %q: not the symbol's start", s, identity, version)
		}
		_ = describe(s, nil, "typescript")
		parsed, err := parseSymbol(s)
		if err != nil {
			return
		}
		if p := parsed.GetPackage(); p != nil && p.Version != "" && strings.ReplaceAll(version, "  ", " ") != p.Version {
			t.Fatalf("packageOf(%q) gives version %q, the bindings %q", s, version, p.Version)
		}
		formatted := scip.VerboseSymbolFormatter.FormatSymbol(parsed)
		again, err := parseSymbol(formatted)
		if err != nil {
			if hasEmptyName(parsed) {
				// The bindings format an empty name without escaping it
				// (`` becomes nothing), which then does not parse.
				return
			}
			t.Fatalf("%q parses, its formatted form %q does not: %v", s, formatted, err)
		}
		// The formatted form is a fixed point. (The bindings format an
		// empty scheme as ".", which parses back as ".", so the first
		// round trip may differ from s.)
		if f2 := scip.VerboseSymbolFormatter.FormatSymbol(again); f2 != formatted || len(again.Descriptors) != len(parsed.Descriptors) {
			t.Fatalf("formatting is not stable: %q → %q → %q", s, formatted, f2)
		}
		if scip.IsLocalSymbol(s) || len(parsed.Descriptors) == 0 {
			return
		}
		last := parsed.Descriptors[len(parsed.Descriptors)-1]
		want := map[scip.Descriptor_Suffix]suffixKind{
			scip.Descriptor_Namespace:     sufNamespace,
			scip.Descriptor_Type:          sufType,
			scip.Descriptor_Term:          sufTerm,
			scip.Descriptor_Method:        sufMethod,
			scip.Descriptor_TypeParameter: sufTypeParam,
			scip.Descriptor_Parameter:     sufParam,
			scip.Descriptor_Meta:          sufMeta,
			scip.Descriptor_Macro:         sufMacro,
		}[last.Suffix]
		if got := symbolSuffix(formatted); got != want {
			t.Errorf("symbolSuffix(%q) = %d, want %d (descriptor %v)", formatted, got, want, last)
		}
		d := describe(formatted, nil, "go")
		if len(parsed.Descriptors) > 1 && !strings.HasPrefix(formatted, d.Parent) {
			t.Errorf("describe(%q).Parent = %q, not a prefix", formatted, d.Parent)
		}
		if d.Parent != "" && !isMember(formatted, d.Parent) {
			t.Errorf("%q is not a member of its parent %q", formatted, d.Parent)
		}
	})
}

// TestWriteFuzzSeeds writes the committed seed corpus of FuzzImport when
// run with -update: truncations of the compact dump at record boundaries
// and inside records, and corruptions of its framing.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata/fuzz/FuzzImport")
	}
	b := compactIndex(t)
	seeds := map[string][]byte{
		"truncated-tag-only":      b[:1],
		"truncated-in-length":     b[:2],
		"truncated-at-quarter":    b[:len(b)/4],
		"truncated-last-byte":     b[:len(b)-1],
		"corrupt-length-varint":   append(append([]byte{}, b[:1]...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
		"huge-length":             {0x12, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"unknown-field-then-dump": append([]byte{0x38, 0x01}, b...),
		"garbage-document":        {0x12, 0x03, 0xff, 0xff, 0xff},
		"empty-document":          {0x12, 0x00},
	}
	idx := parseIndex(t, b)
	// A document whose path escapes the root, duplicated, with a bad range.
	d := proto.Clone(idx.Documents[0]).(*scip.Document)
	d.Occurrences = append(d.Occurrences, &scip.Occurrence{Range: []int32{5, 9, 2}, Symbol: "x"}, &scip.Occurrence{Range: []int32{1}, Symbol: "y"})
	idx.Documents = append(idx.Documents, d, &scip.Document{RelativePath: "../../escape.go"})
	seeds["duplicate-escape-bad-ranges"] = marshalIndex(t, idx)
	dir := filepath.Join("testdata", "fuzz", "FuzzImport")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, in := range seeds {
		content := "go test fuzz v1\n[]byte(" + strconv.Quote(string(in)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// hasEmptyName reports whether a parsed symbol has an empty scheme, package
// field or descriptor name, which the bindings do not format faithfully.
func hasEmptyName(s *scip.Symbol) bool {
	if s.Scheme == "" || s.Package == nil || s.Package.Manager == "" || s.Package.Name == "" || s.Package.Version == "" {
		return true
	}
	for _, d := range s.Descriptors {
		if d.Name == "" {
			return true
		}
	}
	return false
}
