package graph

import (
	"bytes"
	"encoding/hex"
	"flag"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// updating reports the -update flag (defined in the external test package,
// which shares the test binary).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// exampleKeys builds one key of every kind.
func exampleKeys() [][]byte {
	r := textpos.Range{Start: textpos.Position{Line: 2, Col: 4}, End: textpos.Position{Line: 2, Col: 9}}
	f, g := symbolHash("a.F"), symbolHash("b.G")
	sp := genSpace(1)
	return [][]byte{
		appendMetaKey(nil, kindSchema),
		appendMetaKey(nil, kindCurrent),
		appendManifestKey(nil, Base),
		appendMetaKey(nil, kindAlloc),
		appendPendingKey(nil, 2),
		appendDocKey(nil, spaceLive, "a.go"),
		appendDocSymsKey(nil, sp, "a.go"),
		appendDocOccKey(nil, sp, "a.go"),
		appendDocEdgeKey(nil, sp, "a.go"),
		appendSymIDKey(nil, sp, f),
		appendSymKey(nil, sp, f, "a.go"),
		appendRefKey(nil, sp, f, "a.go"),
		appendDefKey(nil, sp, f, "a.go", r),
		appendEdgeKey(nil, sp, kindOut, f, "a.go"),
		appendEdgeKey(nil, sp, kindIn, g, "a.go"),
		appendNameKey(nil, sp, "F", f, "a.go"),
		appendPkgKey(nil, sp, "example/a", "a.go"),
	}
}

// TestKeyFormat pins the byte layout of every kind (testdata/keys, -update)
// and checks each key decodes back to the same printable form.
func TestKeyFormat(t *testing.T) {
	var b strings.Builder
	for _, k := range exampleKeys() {
		d, ok := decodeKey(k)
		if !ok {
			t.Fatalf("key %q does not decode", k)
		}
		if d.kind != kind(k[8]) {
			t.Errorf("key %q decodes to kind %c", k, d.kind)
		}
		b.WriteString(formatKey(k) + "\n  " + hex.EncodeToString(k[:8]) + " " + hex.EncodeToString(k[8:]) + "\n")
	}
	const golden = "testdata/keys"
	if updating() {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("key format changed (a new SchemaVersion is needed); got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestKeyOrder checks that keys sort by their fields: a path that is a
// prefix of another sorts first, and positions and symbol ids sort
// numerically.
func TestKeyOrder(t *testing.T) {
	pos := func(l, c uint32) textpos.Range {
		return textpos.Range{Start: textpos.Position{Line: l, Col: c}, End: textpos.Position{Line: l, Col: c + 1}}
	}
	ordered := [][]byte{
		appendDefKey(nil, 2, 0xff, "a.go", pos(0, 300)),
		appendDefKey(nil, 2, 0xff, "a.go", pos(1, 2)),
		appendDefKey(nil, 2, 0xff, "a.go", pos(256, 0)),
		appendDefKey(nil, 2, 0xff, "a.go.x", pos(0, 0)),
		appendDefKey(nil, 2, 0xff, "b.go", pos(0, 0)),
		appendDefKey(nil, 2, 0x100, "a.go", pos(0, 0)),
		appendDefKey(nil, 2, 1<<56, "a.go", pos(0, 0)),
		appendRefKey(nil, 2, 0xff, "a.go"),
		appendRefKey(nil, 2, 0xff, "a.go.x"),
		appendRefKey(nil, 2, 0xff, "b.go"),
		appendRefKey(nil, 2, 0x100, "a.go"),
	}
	for i := 1; i < len(ordered); i++ {
		if string(ordered[i-1]) >= string(ordered[i]) {
			t.Errorf("%s sorts after %s", formatKey(ordered[i-1]), formatKey(ordered[i]))
		}
	}
}

func TestDecodeKeyRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{
		nil,
		[]byte("short"),
		append(appendPrefix(nil, 2, kindDef), "sym\x00path\x00tooshort"...),
		append(appendPrefix(nil, 2, kindRef), "12345678a\x00b"...),
		append(appendPrefix(nil, 2, kindOut), "1234567"...),
		append(appendPrefix(nil, 2, kindTerm), "no-separator"...),
		append(appendPrefix(nil, 2, kindDoc), "a\x00b"...),
		append(appendPrefix(nil, 2, kindSym), "short"...),
		append(appendPrefix(nil, 2, kindSymID), "12345678\x00"...),
		appendPrefix(nil, 2, kind('?')),
	} {
		if d, ok := decodeKey(b); ok {
			t.Errorf("decodeKey(%q) = %+v, want failure", b, d)
		}
	}
}

// FuzzDecodeKey checks decoding never panics and that what decodes prints.
func FuzzDecodeKey(f *testing.F) {
	for _, k := range exampleKeys() {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, ok := decodeKey(b); ok {
			_ = formatKey(b)
		}
	})
}

// FuzzDecodeValues checks the value decoders never panic on bad input and
// that a decoded symbol survives re-encoding.
func FuzzDecodeValues(f *testing.F) {
	s := Symbol{ID: "x", DisplayName: "X", Kind: "function", External: true, Def: Location{Path: "a.go"}}
	f.Add(appendSymbolValue(nil, &s))
	f.Add(appendOccValue(nil, RoleDefinition|RoleCall, 7, true))
	edges := []Edge{{Kind: EdgeCalls, Confidence: 0.5, Source: "syntax", Count: 3}, {Kind: EdgeCalls, Confidence: 1, Source: "syntax", Reason: "r"}}
	var strs []string
	f.Add(appendEdgesValue(nil, edges, []edgeEntry{{other: 7, edge: 0}, {other: 9, edge: 1}}, &strs))
	occs := []Occurrence{{Roles: RoleReference}, {Roles: RoleDefinition}, {Roles: RoleCall}}
	f.Add(appendRefsValue(nil, occs, []refEntry{{occ: 0, enclosing: 5, hasEnc: true}, {occ: 1, enclosing: 5, hasEnc: true}, {occ: 2}}))
	f.Add(appendDocEdgesValue(nil, edges))
	f.Add(appendDocValue(nil, &Document{Language: "go", Flags: DocTest}, true))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := decodeSymbolValue("id", b); err == nil {
			// What decodes re-encodes and decodes to the same symbol.
			again, err := decodeSymbolValue("id", appendSymbolValue(nil, &s))
			if err != nil || again != s {
				t.Errorf("symbol %+v does not round-trip: %+v, %v", s, again, err)
			}
		}
		if roles, enc, ok, err := decodeOccValue(b); err == nil {
			// What decodes re-encodes to the same bytes.
			if again := appendOccValue(nil, roles, enc, ok); string(again) != string(b) && len(b) > 0 && b[0] < 0x80 {
				t.Errorf("occurrence value %x re-encodes as %x", b, again)
			}
		}
		// What decodes as a refs or edges value re-encodes and decodes to
		// the same facts.
		var got []refEntry
		var occs []Occurrence
		if decodeRefsValue(b, func(r textpos.Range, roles Role, enc uint64, hasEnc bool) bool {
			got = append(got, refEntry{occ: len(occs), enclosing: enc, hasEnc: hasEnc})
			occs = append(occs, Occurrence{Range: r, Roles: roles})
			return true
		}) == nil {
			again := appendRefsValue(nil, occs, got)
			i := 0
			err := decodeRefsValue(again, func(r textpos.Range, roles Role, enc uint64, hasEnc bool) bool {
				if occs[i].Range != r || occs[i].Roles != roles || got[i].enclosing != enc || got[i].hasEnc != hasEnc {
					t.Errorf("refs value %x re-encodes as %x, which differs at %d", b, again, i)
				}
				i++
				return true
			})
			if err != nil || i != len(occs) {
				t.Errorf("refs value %x re-encodes as %x: %v, %d of %d", b, again, err, i, len(occs))
			}
		}
		var ges []groupEdge
		if decodeEdgesValue(b, func(e *groupEdge) bool { ges = append(ges, *e); return true }) == nil {
			edges := make([]Edge, len(ges))
			group := make([]edgeEntry, len(ges))
			for i, g := range ges {
				edges[i] = Edge{Kind: g.kind, Confidence: g.confidence, Source: g.source, Reason: g.reason, Count: g.count}
				group[i] = edgeEntry{other: g.other, edge: i}
			}
			var strs []string
			var again []groupEdge
			if err := decodeEdgesValue(appendEdgesValue(nil, edges, group, &strs), func(e *groupEdge) bool { again = append(again, *e); return true }); err != nil || !reflect.DeepEqual(again, ges) && !hasNaN(ges) {
				t.Errorf("edges value %x decodes to %v, re-encoded to %v, %v", b, ges, again, err)
			}
		}
		_, _ = decodeDocEdgesValue("p", b)
		_, _ = decodeDocValue("p", b)
	})
}

// hasNaN reports whether an edge's confidence is NaN, which equals
// nothing, not even itself.
func hasNaN(es []groupEdge) bool {
	for _, e := range es {
		if e.confidence != e.confidence {
			return true
		}
	}
	return false
}

func TestValueRoundTrip(t *testing.T) {
	r := textpos.Range{Start: textpos.Position{Line: 1, Col: 2}, End: textpos.Position{Line: 3, Col: 400}}
	s := Symbol{ID: "id", DisplayName: "N", Kind: "k", Language: "go", Package: "p", Signature: "func()",
		Doc: "d", External: true, Def: Location{Path: "a.go", Range: r}, DefExtent: r}
	if got, err := decodeSymbolValue("id", appendSymbolValue(nil, &s)); err != nil || got != s {
		t.Errorf("symbol round trip = %+v, %v; want %+v", got, err, s)
	}
	edges := []Edge{
		{From: "a", Kind: EdgeCalls, To: "b", Confidence: 0.25, Source: "lsp", Reason: "r", Count: 7},
		{From: "a", Kind: EdgeReferences, To: "c", Confidence: 1, Source: "lsp", Reason: "r", Count: 1},
		{From: "d", Kind: EdgeCalls, To: "b", Confidence: 0.5, Source: "syntax", Count: 2},
	}
	var strs []string
	var ges []groupEdge
	v := appendEdgesValue(nil, edges, []edgeEntry{{other: 3, edge: 0}, {other: 4, edge: 1}, {other: 3, edge: 2}}, &strs)
	if err := decodeEdgesValue(v, func(e *groupEdge) bool { ges = append(ges, *e); return true }); err != nil {
		t.Fatal(err)
	}
	want := []groupEdge{
		{EdgeCalls, 3, 0.25, "lsp", "r", 7},
		{EdgeReferences, 4, 1, "lsp", "r", 1},
		{EdgeCalls, 3, 0.5, "syntax", "", 2},
	}
	if !reflect.DeepEqual(ges, want) {
		t.Errorf("edges round trip = %+v; want %+v", ges, want)
	}
	if got, err := decodeDocEdgesValue("a.go", appendDocEdgesValue(nil, edges)); err != nil || !reflect.DeepEqual(got, edges) {
		t.Errorf("doc-edges round trip = %+v, %v; want %+v", got, err, edges)
	}
	occs := []Occurrence{{Range: r, Roles: RoleDefinition}, {Range: r, Roles: RoleReference | RoleCall}, {Roles: RoleReference}, {Roles: RoleWrite}}
	refs := []refEntry{{occ: 0, enclosing: 9, hasEnc: true}, {occ: 1, enclosing: 9, hasEnc: true}, {occ: 2}, {occ: 3, enclosing: 1<<63 + 5, hasEnc: true}}
	v = appendRefsValue(nil, occs, refs)
	i := 0
	err := decodeRefsValue(v, func(rng textpos.Range, roles Role, enc uint64, hasEnc bool) bool {
		if i >= len(refs) || rng != occs[i].Range || roles != occs[i].Roles || enc != refs[i].enclosing || hasEnc != refs[i].hasEnc {
			t.Errorf("refs entry %d = %v %v %d %v; want %+v %+v", i, rng, roles, enc, hasEnc, occs[min(i, len(occs)-1)], refs[min(i, len(refs)-1)])
		}
		i++
		return true
	})
	if err != nil || i != len(refs) {
		t.Errorf("refs round trip: %v after %d of %d", err, i, len(refs))
	}
	if err := decodeRefsValue(v[:len(v)-1], func(textpos.Range, Role, uint64, bool) bool { return true }); err == nil {
		t.Errorf("a truncated refs value decodes")
	}
	if err := decodeRefsValue([]byte{1, 0, 0, 0, 0, encSame}, func(textpos.Range, Role, uint64, bool) bool { return true }); err == nil {
		t.Errorf("a refs value whose first entry has the previous enclosing symbol decodes")
	}
	d := Document{Path: "a.go", Language: "go", Package: "p", ContentHash: "h", Digest: "g", Source: "scip", Flags: DocTest | DocGenerated}
	for _, hashed := range []bool{false, true} {
		got, gotHashed, err := decodeDocValueHashed("a.go", appendDocValue(nil, &d, hashed))
		if err != nil || got != d || gotHashed != hashed {
			t.Errorf("document round trip (hashed ids %v) = %+v, %v, %v; want %+v", hashed, got, gotHashed, err, d)
		}
	}
	// The store's own flag is not a producer's to set.
	forged := d
	forged.Flags |= docIDsHashed
	if got, hashed, err := decodeDocValueHashed("a.go", appendDocValue(nil, &forged, false)); err != nil || got != d || hashed {
		t.Errorf("a producer's top flag bit was kept: %+v, hashed ids %v, %v", got, hashed, err)
	}
	if _, err := decodeDocValue("a.go", append(appendDocValue(nil, &d, false), 0)); err == nil {
		t.Errorf("trailing bytes accepted")
	}
}

// TestDocEdgesValue round-trips a document's edges through the doc-edges
// value, whose ids repeat through its string table, and checks that every
// truncation of the value is refused.
func TestDocEdgesValue(t *testing.T) {
	edges := []Edge{
		{From: "a.F", Kind: EdgeCalls, To: "b.G", Confidence: 1, Source: SourceSCIP, Count: 2},
		{From: "a.F", Kind: EdgeReferences, To: "b.G", Confidence: 1, Source: SourceSCIP, Reason: "r", Count: 1},
		{From: "b.G", Kind: EdgeCalls, To: "a.F", Confidence: 0.5, Source: SourceSyntax, Count: 1},
		{From: "", Kind: EdgeCalls, To: "calls", Count: 0},
	}
	v := appendDocEdgesValue(nil, edges)
	got, err := decodeDocEdgesValue("a.go", v)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, edges) {
		t.Errorf("decoded %+v, want %+v", got, edges)
	}
	for n := range len(v) {
		if _, err := decodeDocEdgesValue("a.go", v[:n]); err == nil {
			t.Errorf("value cut to %d of %d bytes decoded", n, len(v))
		}
	}
}

// TestDocOccsValue round-trips a document's occurrences through the
// doc-occs value, checks that reading stops after a line, and that every
// truncation of the value is refused.
func TestDocOccsValue(t *testing.T) {
	at := func(line, col uint32) textpos.Range {
		return textpos.Range{Start: textpos.Position{Line: line, Col: col}, End: textpos.Position{Line: line, Col: col + 3}}
	}
	occs := []Occurrence{
		{Path: "a.go", Range: at(1, 6), Symbol: "a.F", Roles: RoleDefinition},
		{Path: "a.go", Range: at(2, 2), Symbol: "b.G", Roles: RoleReference | RoleCall, Enclosing: "a.F"},
		{Path: "a.go", Range: at(2, 9), Symbol: "a.F", Roles: RoleReference, Enclosing: "a.F"},
		{Path: "a.go", Range: at(7, 1), Symbol: "local 1 a.go", Roles: RoleDefinition, Enclosing: "b.G"},
	}
	v := appendDocOccsValue(nil, occs)
	got, err := decodeDocOccsValue("a.go", v, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, occs) {
		t.Errorf("decoded %+v, want %+v", got, occs)
	}
	line := uint32(2)
	if got, err := decodeDocOccsValue("a.go", v, &line); err != nil || !reflect.DeepEqual(got, occs[:3]) {
		t.Errorf("decoded up to line 2: %+v, %v; want the first three", got, err)
	}
	for n := range len(v) {
		if _, err := decodeDocOccsValue("a.go", v[:n], nil); err == nil {
			t.Errorf("value cut to %d of %d bytes decoded", n, len(v))
		}
	}
	// The encoding is the one that asks the table for every symbol, the
	// enclosing symbol of a run of occurrences included.
	rng := rand.New(rand.NewPCG(3, 4))
	syms := []string{"", "a.F", "b.G", "local 1 a.go", "c.H"}
	for range 200 {
		occs := make([]Occurrence, rng.IntN(12))
		for i := range occs {
			occs[i] = Occurrence{Path: "a.go", Range: at(uint32(i+1), 1), Symbol: syms[1+rng.IntN(4)], Enclosing: syms[rng.IntN(3)]}
		}
		if got, want := appendDocOccsValue(nil, occs), referenceDocOccs(occs); !bytes.Equal(got, want) {
			t.Fatalf("doc-occs of %+v = %x, want %x", occs, got, want)
		}
	}
}

// referenceDocOccs is the doc-occs value of occs with every symbol,
// enclosing ones included, written through the string table.
func referenceDocOccs(occs []Occurrence) []byte {
	var w valueWriter
	t := idWriter{w: &w, table: map[string]uint64{}, memo: new(stringMemo[uint64])}
	w.uvarint(uint64(len(occs)))
	for i := range occs {
		o := &occs[i]
		w.rng(o.Range)
		t.id(o.Symbol)
		w.uvarint(uint64(o.Roles))
		t.id(o.Enclosing)
	}
	return w.b
}

// TestEmitterLeavesLookups checks that encoding a document never writes
// into its Lookups bytes, which stay the producer's: a value built after
// them (the document record, the next document's records) once went into
// their spare capacity.
func TestEmitterLeavesLookups(t *testing.T) {
	var e recordEmitter
	var ids hashSymIDs
	sink := func(k, v []byte) error { return nil }
	var docs []DocumentFacts
	for _, p := range []string{"a.go", "b.go"} {
		lookups := append(make([]byte, 0, 1<<10), "looked up "+p...)
		docs = append(docs, DocumentFacts{
			Document:    Document{Path: p, Language: "go", Package: "p"},
			Symbols:     []Symbol{{ID: "p.A", DisplayName: "A"}},
			Occurrences: []Occurrence{{Path: p, Symbol: "p.A", Roles: RoleDefinition}},
			Lookups:     lookups,
		})
		if err := e.emit(genSpace(1), &docs[len(docs)-1], &ids, sink); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range docs {
		if want := "looked up " + f.Document.Path; string(f.Lookups[:cap(f.Lookups)][:len(want)]) != want {
			t.Errorf("%s: Lookups now %q, want %q", f.Document.Path, f.Lookups, want)
		}
	}
}
