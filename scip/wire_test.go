package scip

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// wireSeeds are marshalled documents that take every path of the
// document decoder: the compact dump's documents, typed ranges, signature
// documentation, relationships, and messages the fast path hands to
// proto.Unmarshal (diagnostics, unknown fields, a typed range twice).
func wireSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, d := range parseIndex(t, compactIndex(t)).Documents {
		seeds = append(seeds, mustMarshal(t, d))
	}
	rich := &scip.Document{
		RelativePath:     "x/y.go",
		Language:         "go",
		PositionEncoding: scip.PositionEncoding_UTF8CodeUnitOffsetFromLineStart,
		Occurrences: []*scip.Occurrence{
			{TypedRange: &scip.Occurrence_SingleLineRange{SingleLineRange: &scip.SingleLineRange{Line: 1, StartCharacter: 2, EndCharacter: 3}}, Symbol: "s m p 1 a/F().", SymbolRoles: 1,
				TypedEnclosingRange: &scip.Occurrence_MultiLineEnclosingRange{MultiLineEnclosingRange: &scip.MultiLineRange{StartLine: 1, EndLine: 4, EndCharacter: 1}}},
			{TypedRange: &scip.Occurrence_MultiLineRange{MultiLineRange: &scip.MultiLineRange{StartLine: 2, StartCharacter: 1, EndLine: 3, EndCharacter: 9}}, Symbol: "s m p 1 a/G()."},
			{Range: []int32{7, 1, 300000}, Symbol: "s m p 1 a/F().", EnclosingRange: []int32{6, 0, 9, 1}},
			{Range: []int32{-1, 2, 3, 4}, Symbol: "local 1"},
		},
		Symbols: []*scip.SymbolInformation{
			{Symbol: "s m p 1 a/F().", Documentation: []string{"doc", "more"}, Kind: scip.SymbolInformation_Function, DisplayName: "F",
				SignatureDocumentation: &scip.Signature{Language: "go", Text: "func F()", Occurrences: []*scip.Occurrence{{Range: []int32{0, 5, 6}, Symbol: "s m p 1 a/F()."}}},
				EnclosingSymbol:        "s m p 1 a/",
				Relationships:          []*scip.Relationship{{Symbol: "s m p 1 a/I#", IsImplementation: true, IsReference: true, IsTypeDefinition: true, IsDefinition: true}}},
			{Symbol: "s m p 1 a/G()."},
		},
		Text: "package a\n",
	}
	b := mustMarshal(t, rich)
	seeds = append(seeds, b)
	seeds = append(seeds, mustMarshal(t, &scip.Document{Occurrences: []*scip.Occurrence{
		{Range: []int32{7, 1, 3}, Symbol: "s m p 1 a/F().", Diagnostics: []*scip.Diagnostic{{Message: "m", Severity: scip.Severity_Error}}},
		{Range: []int32{1, 2, 3, 4}, Symbol: "local 1", OverrideDocumentation: []string{"o"}, SyntaxKind: scip.SyntaxKind_Identifier},
	}}))
	// Unknown fields at each level, a known field with another wire type,
	// an unpacked range, a typed range given twice.
	seeds = append(seeds, protowire.AppendVarint(protowire.AppendTag(append([]byte(nil), b...), 99, protowire.VarintType), 1))
	seeds = append(seeds, protowire.AppendVarint(protowire.AppendTag(nil, docRelativePath, protowire.VarintType), 5))
	occ := protowire.AppendVarint(protowire.AppendTag(nil, occRange, protowire.VarintType), 4)
	occ = protowire.AppendVarint(protowire.AppendTag(occ, occRange, protowire.VarintType), 1)
	occ = protowire.AppendVarint(protowire.AppendTag(occ, occRange, protowire.VarintType), 2)
	occ = protowire.AppendString(protowire.AppendTag(occ, occSymbol, protowire.BytesType), "local 2")
	seeds = append(seeds, protowire.AppendBytes(protowire.AppendTag(nil, docOccurrences, protowire.BytesType), occ))
	slr := mustMarshal(t, &scip.SingleLineRange{Line: 1, EndCharacter: 2})
	twice := protowire.AppendBytes(protowire.AppendTag(nil, occSingleLineRange, protowire.BytesType), slr)
	twice = protowire.AppendBytes(protowire.AppendTag(twice, occSingleLineRange, protowire.BytesType), slr)
	seeds = append(seeds, protowire.AppendBytes(protowire.AppendTag(nil, docOccurrences, protowire.BytesType), twice))
	unknownInSym := protowire.AppendVarint(protowire.AppendTag(mustMarshal(t, rich.Symbols[0]), 42, protowire.VarintType), 3)
	seeds = append(seeds, protowire.AppendBytes(protowire.AppendTag(nil, docSymbols, protowire.BytesType), unknownInSym))
	seeds = append(seeds, []byte{0x0a, 0x02, 0xff, 0xfe}) // a path that is not UTF-8
	return seeds
}

func mustMarshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDocumentDecoder checks the wire decoder against the bindings: for
// the same bytes both fail, or both give the same Document; and a
// document's head (docDecoder.head) is what the bindings give of those
// fields, or a failure the bindings share, or the slow path.
func FuzzDocumentDecoder(f *testing.F) {
	seeds := wireSeeds(f)
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkDocumentDecoder(t, in)
		checkReusingDecoder(t, seeds, in)
	})
}

// checkReusingDecoder checks that a decoder that reuses a document's
// memory for the next decodes in as the bindings do after the documents
// before (every seed, which leave its memory holding their fields).
func checkReusingDecoder(t *testing.T, before [][]byte, in []byte) {
	t.Helper()
	want := &scip.Document{}
	wantErr := proto.Unmarshal(in, want)
	dec := docDecoder{reuse: true}
	for _, b := range before {
		_, _ = dec.document(b)
	}
	got, err := dec.document(in)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("reusing decoder error %v, bindings error %v, for %x", err, wantErr, in)
	}
	if err == nil && !proto.Equal(got, want) {
		t.Fatalf("reusing decoder's document differs for %x:\nours:     %v\nbindings: %v", in, got, want)
	}
}

func checkDocumentDecoder(t *testing.T, in []byte) {
	t.Helper()
	want := &scip.Document{}
	wantErr := proto.Unmarshal(in, want)
	var dec docDecoder
	// The digest: a failure the bindings share, and the same digest
	// whatever the order of the symbol informations.
	if sum, err := dec.dig.digest(in); err != nil {
		if wantErr == nil {
			t.Fatalf("digest error %v, the bindings decode %x", err, in)
		}
	} else if again, err := dec.dig.digest(reverseSymbols(in)); err != nil || again != sum {
		t.Fatalf("digest of %x with its symbols reversed differs (%v)", in, err)
	}
	switch head, occs, err := dec.head(in); {
	case err == errSlowPath:
	case err != nil:
		if wantErr == nil {
			t.Fatalf("head error %v, the bindings decode %x", err, in)
		}
	case wantErr == nil:
		if head.RelativePath != want.RelativePath || head.Language != want.Language || head.Text != want.Text ||
			head.PositionEncoding != want.PositionEncoding || occs != len(want.Occurrences) {
			t.Fatalf("head of %x: %q %q %q %v, %d occurrences; the bindings: %q %q %q %v, %d", in,
				head.RelativePath, head.Language, head.Text, head.PositionEncoding, occs,
				want.RelativePath, want.Language, want.Text, want.PositionEncoding, len(want.Occurrences))
		}
	}
	got, err := dec.document(in)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("decoder error %v, bindings error %v, for %x", err, wantErr, in)
	}
	if err != nil {
		return
	}
	if !proto.Equal(got, want) {
		t.Fatalf("decoded documents differ for %x:\nours:     %v\nbindings: %v", in, got, want)
	}
	// Decoding again with the same decoder (interned strings, the range
	// arena in use) gives the same document.
	again, err := dec.document(in)
	if err != nil || !proto.Equal(again, want) {
		t.Fatalf("second decoding differs (%v)", err)
	}
}

// reverseSymbols returns the document record b with its symbol
// information fields in reverse order, each with its relationships
// reversed; b itself when its fields do not parse.
func reverseSymbols(b []byte) []byte {
	fields := func(b []byte) (all [][]byte, ok bool) {
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				return nil, false
			}
			m := protowire.ConsumeFieldValue(num, typ, b[n:])
			if m < 0 {
				return nil, false
			}
			all, b = append(all, b[:n+m]), b[n+m:]
		}
		return all, true
	}
	isField := func(f []byte, want protowire.Number) bool {
		num, typ, _ := protowire.ConsumeTag(f)
		return num == want && typ == protowire.BytesType
	}
	top, ok := fields(b)
	if !ok {
		return b
	}
	var syms [][]byte
	for _, f := range top {
		if !isField(f, docSymbols) {
			continue
		}
		_, _, n := protowire.ConsumeTag(f)
		v, _ := protowire.ConsumeBytes(f[n:])
		inner, ok := fields(v)
		if !ok {
			syms = append(syms, f)
			continue
		}
		var rels, rest [][]byte
		for _, g := range inner {
			if isField(g, infoRelationships) {
				rels = append([][]byte{g}, rels...)
			} else {
				rest = append(rest, g)
			}
		}
		syms = append(syms, protowire.AppendBytes(protowire.AppendTag(nil, docSymbols, protowire.BytesType), bytes.Join(append(rels, rest...), nil)))
	}
	var out []byte
	for _, f := range top {
		if isField(f, docSymbols) {
			f, syms = syms[len(syms)-1], syms[:len(syms)-1]
		}
		out = append(out, f...)
	}
	return out
}

func TestDocumentDecoderFastPath(t *testing.T) {
	seeds := wireSeeds(t)
	for _, s := range seeds {
		checkDocumentDecoder(t, s)
		checkReusingDecoder(t, seeds, s)
		checkReusingDecoder(t, seeds[:1], s)
	}
	// The compact dump's documents and the rich one take no slow path.
	var dec docDecoder
	for _, s := range seeds[:3] {
		if _, err := dec.document(s); err != nil {
			t.Fatal(err)
		}
	}
	if dec.slow != 0 {
		t.Errorf("%d messages took the slow path, want none", dec.slow)
	}
}

// TestDigestHash: a digest does not depend on how the bytes were written
// (in one piece or many, after a Reset), its halves are two different
// sums, and one changed byte changes both.
func TestDigestHash(t *testing.T) {
	data := bytes.Repeat([]byte("scip-go gomod example.com/m 1.0 `example.com/m/p`/T#M()."), 40)
	want := digestOf(data)
	h := newDigestHash()
	h.Write([]byte("something else"))
	h.Reset()
	for i := 0; i < len(data); i += 7 {
		h.Write(data[i:min(i+7, len(data))])
	}
	if got := h.sum(); got != want {
		t.Errorf("written in pieces after a Reset: %x, in one: %x", got, want)
	}
	if bytes.Equal(want[:8], want[8:]) {
		t.Errorf("the two halves of %x are one sum", want)
	}
	changed := bytes.Clone(data)
	changed[len(changed)/2] ^= 1
	if other := digestOf(changed); bytes.Equal(other[:8], want[:8]) || bytes.Equal(other[8:], want[8:]) {
		t.Errorf("one byte changed: %x against %x, a half the same", other, want)
	}
}

// TestInternRecent: symbols that share a slot of the decoder's recent
// symbols (the same length and last bytes) are each interned as
// themselves, and a symbol met again is the same string.
func TestInternRecent(t *testing.T) {
	a := []byte("scip-go gomod example.com/m 1.0 `example.com/m/a`/T#Method().")
	b := []byte("scip-go gomod example.com/m 1.0 `example.com/m/b`/T#Method().")
	if recentSlot(a) != recentSlot(b) {
		t.Fatalf("the two symbols are in slots %d and %d: the test needs one", recentSlot(a), recentSlot(b))
	}
	var d docDecoder
	for range 3 {
		for _, v := range [][]byte{a, b, a, a, b} {
			s, err := d.symbol(v)
			if err != nil || s != string(v) {
				t.Fatalf("symbol(%s) = %q, %v", v, s, err)
			}
			if again, _ := d.symbol(v); unsafe.StringData(again) != unsafe.StringData(s) {
				t.Fatalf("symbol(%s) met again is another copy", v)
			}
		}
	}
	if s, _ := d.symbol([]byte("short")); s != "short" {
		t.Errorf("symbol(short) = %q", s)
	}
}
