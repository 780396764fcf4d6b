package scip

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// storeFacts renders every record of the store's data spaces, symbol ids
// printed as their strings, leaving out the meta space (times, versions)
// and the symbol tables (a patched generation keeps the ids of symbols
// its old documents named), generations unnumbered: what two stores
// holding the same facts share.
func storeFacts(t testing.TB, store *graph.Store) string {
	t.Helper()
	r, err := store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := r.Dump(&b); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for line := range strings.Lines(b.String()) {
		space, rest, _ := strings.Cut(line, "/")
		if space == "meta" || strings.HasPrefix(rest, "symid ") {
			continue
		}
		if strings.HasPrefix(space, "gen") { // a patched generation keeps its number
			space = "gen"
		}
		out.WriteString(space + "/" + rest)
	}
	return out.String()
}

// freshImport imports dump into a new store and returns the store.
func freshImport(t testing.TB, dump []byte, opts Options) *graph.Store {
	t.Helper()
	store := openStore(t)
	if _, err := importBytes(store, dump, opts); err != nil {
		t.Fatal(err)
	}
	return store
}

// sameFacts fails t when the two stores' facts differ, naming the first
// difference.
func sameFacts(t testing.TB, got, want *graph.Store) {
	t.Helper()
	g, w := storeFacts(t, got), storeFacts(t, want)
	if g == w {
		return
	}
	gl, wl := strings.Split(g, "\n"), strings.Split(w, "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			t.Fatalf("the stores differ at record %d of %d/%d:\ngot  %s\nwant %s", i, len(gl), len(wl), gl[i], wl[i])
		}
	}
	t.Fatalf("the stores differ: %d records against %d", len(gl), len(wl))
}

// editedDump returns the tsworkspace fixture's index with its first
// document changed (an occurrence fewer), its second one gone and a copy
// of its third under a new path.
func editedDump(t testing.TB) []byte {
	t.Helper()
	idx := parseIndex(t, readDump(t, "tsworkspace"))
	if len(idx.Documents) < 4 {
		t.Fatalf("the fixture has %d documents, want 4 or more", len(idx.Documents))
	}
	idx.Documents[0].Occurrences = idx.Documents[0].Occurrences[1:]
	added := proto.Clone(idx.Documents[2]).(*scip.Document)
	added.RelativePath = "src/added.ts"
	idx.Documents = append(append(idx.Documents[:1], idx.Documents[2:]...), added)
	return marshalIndex(t, idx)
}

func TestReimportPatchesTheGeneration(t *testing.T) {
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	first := readDump(t, "tsworkspace")
	store := freshImport(t, first, Options{Root: root, Commit: "c1"})

	// The same dump again: nothing is written but the manifest.
	same, err := importBytes(store, first, Options{Root: root, Commit: "c2"})
	if err != nil {
		t.Fatal(err)
	}
	if !same.Patched || same.Generation != 1 || same.Converted != 0 || same.Deleted != 0 || same.Reused != same.Documents {
		t.Errorf("the same dump again: %+v, want generation 1 patched, every document reused", same)
	}
	sameFacts(t, store, freshImport(t, first, Options{Root: root, Commit: "c2"}))

	// One document changed, one gone, one added.
	edited := editedDump(t)
	sum, err := importBytes(store, edited, Options{Root: root, Commit: "c3"})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Patched || sum.Generation != 1 || sum.Converted != 2 || sum.Deleted != 1 || sum.Reused != sum.Documents-2 ||
		sum.DocumentsBefore != same.Documents || sum.Documents != same.Documents {
		t.Errorf("the edited dump: %+v, want generation 1 patched: 2 converted, 1 deleted, %d reused", sum, same.Documents-2)
	}
	fresh := freshImport(t, edited, Options{Root: root, Commit: "c3"})
	sameFacts(t, store, fresh)
	if got, want := fingerprint(t, store), fingerprint(t, fresh); got != want {
		t.Errorf("readers see another index than a fresh import's:\npatched:\n%s\nfresh:\n%s", got, want)
	}
	var text strings.Builder
	if err := sum.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "generation 1 patched in place") || !strings.Contains(text.String(), "(2 converted, ") ||
		!strings.Contains(text.String(), ", 1 deleted)") {
		t.Errorf("summary does not say the generation was patched:\n%s", text.String())
	}
}

func TestPatchTurnsIntoAGeneration(t *testing.T) {
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	edited := editedDump(t)
	fresh := freshImport(t, edited, Options{Root: root, Commit: "c2"})
	// More documents change than a patch may write: while the dump is read
	// (the limit is passed at the second changed document) and at the end
	// (a deletion passes it).
	for _, limit := range []int{1, 2} {
		store := freshImport(t, readDump(t, "tsworkspace"), Options{Root: root, Commit: "c1"})
		sum, err := importBytes(store, edited, Options{Root: root, Commit: "c2", patchLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Patched || sum.Generation != 2 || sum.Converted != 2 || sum.Reused != sum.Documents-2 {
			t.Errorf("limit %d: %+v, want generation 2 written anew: 2 converted, %d reused", limit, sum, sum.Documents-2)
		}
		sameFacts(t, store, fresh)
	}
}

func TestPatchNeedsTheSameToolAndRoot(t *testing.T) {
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	dump := readDump(t, "tsworkspace")
	idx := parseIndex(t, dump)
	idx.Metadata.ToolInfo.Name = "another-indexer"
	other := marshalIndex(t, idx)
	cases := []struct {
		name string
		dump []byte
		opts Options
	}{
		{"tool", other, Options{Root: root}},
		{"root", dump, Options{Root: t.TempDir()}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := freshImport(t, dump, Options{Root: root})
			sum, err := importBytes(store, c.dump, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Patched || sum.Generation != 2 {
				t.Errorf("%+v, want generation 2 written anew", sum)
			}
			sameFacts(t, store, freshImport(t, c.dump, c.opts))
		})
	}
}

// TestPatchNeedsThisConverter: a generation whose documents another
// converter (or producer) wrote is replaced, not patched.
func TestPatchNeedsThisConverter(t *testing.T) {
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	dump := readDump(t, "tsworkspace")
	ctx := context.Background()
	store := openStore(t)
	gw, err := store.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := graph.DocumentFacts{Document: graph.Document{Path: "packages/order/src/index.ts", Digest: "scip-convert-0:00"}}
	if err := gw.PutDocument(ctx, old); err != nil {
		t.Fatal(err)
	}
	tool := parseIndex(t, dump).Metadata.ToolInfo.Name
	if err := gw.Commit(ctx, graph.Manifest{Tool: tool, Root: root}); err != nil {
		t.Fatal(err)
	}
	sum, err := importBytes(store, dump, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Patched || sum.Generation != 2 {
		t.Errorf("%+v, want generation 2 written anew", sum)
	}
	sameFacts(t, store, freshImport(t, dump, Options{Root: root}))
}

// TestShrinkingReimport: a dump that keeps few of the generation's
// documents is no patch: as a new generation it is refused as a shrink,
// and written when the shrink is allowed.
func TestShrinkingReimport(t *testing.T) {
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	dump := readDump(t, "tsworkspace")
	store := freshImport(t, dump, Options{Root: root, Commit: "c1"})
	before := fingerprint(t, store)
	idx := parseIndex(t, dump)
	idx.Documents = idx.Documents[:1]
	cut := marshalIndex(t, idx)
	_, err := importBytes(store, cut, Options{Root: root, Commit: "c2"})
	if !errors.Is(err, graph.ErrShrink) || !strings.HasPrefix(err.Error(), "import refused: ") {
		t.Fatalf("error %v, want the shrink refused", err)
	}
	if after := fingerprint(t, store); after != before {
		t.Errorf("a refused import changed what readers see:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	sum, err := importBytes(store, cut, Options{Root: root, Commit: "c2", AllowShrink: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Patched || sum.Documents != 1 || sum.Generation == 1 {
		t.Errorf("%+v, want a new generation with one document", sum)
	}
	sameFacts(t, store, freshImport(t, cut, Options{Root: root, Commit: "c2"}))
}

// TestReimportOfMostlyChangedDocuments: when at least as many documents
// changed as stayed, the import writes a new generation, not a patch.
func TestReimportOfMostlyChangedDocuments(t *testing.T) {
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	dump := readDump(t, "tsworkspace")
	store := freshImport(t, dump, Options{Root: root, Commit: "c1"})
	idx := parseIndex(t, dump)
	for _, d := range idx.Documents[:len(idx.Documents)/2+1] {
		d.Occurrences = d.Occurrences[1:]
	}
	changed := marshalIndex(t, idx)
	sum, err := importBytes(store, changed, Options{Root: root, Commit: "c2"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Patched || sum.Generation != 2 || sum.Converted != len(idx.Documents)/2+1 {
		t.Errorf("%+v, want generation 2 with %d documents converted", sum, len(idx.Documents)/2+1)
	}
	sameFacts(t, store, freshImport(t, changed, Options{Root: root, Commit: "c2"}))
}

func TestPatchFailureKeepsTheGeneration(t *testing.T) {
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	dump := readDump(t, "tsworkspace")
	store := freshImport(t, dump, Options{Root: root, Commit: "c1"})
	before := storeFacts(t, store)
	edited := editedDump(t)
	if _, err := importBytes(store, edited[:len(edited)-7], Options{Root: root, Commit: "c2"}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("error %v, want ErrCorrupt", err)
	}
	if after := storeFacts(t, store); after != before {
		t.Error("a failed import changed the generation it meant to patch")
	}
}

// TestPatchOfAChangedBase: a patch is refused when another writer changed
// the generation after the import compared its documents with it.
func TestPatchOfAChangedBase(t *testing.T) {
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	dump := readDump(t, "tsworkspace")
	store := freshImport(t, dump, Options{Root: root, Commit: "c1"})
	ctx := context.Background()
	opts := Options{Root: root, Commit: "c2"}
	tgt, err := newImportTarget(ctx, store, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.abort()
	if tgt.prev == nil {
		t.Fatal("the import does not mean to patch")
	}
	sum, _, err := stream(ctx, bytes.NewReader(editedDump(t)), opts, tgt.sink())
	if err != nil {
		t.Fatal(err)
	}
	// Another import patches the generation meanwhile.
	if _, err := importBytes(store, dump, Options{Root: root, Commit: "c3"}); err != nil {
		t.Fatal(err)
	}
	before := storeFacts(t, store)
	err = tgt.commit(ctx, graph.Manifest{Tool: sum.Tool, Root: sum.Root, Commit: "c2", Documents: sum.Documents}, &sum)
	if !errors.Is(err, errBaseChanged) || !strings.Contains(err.Error(), "import again") {
		t.Fatalf("error %v, want the changed base named", err)
	}
	if after := storeFacts(t, store); after != before {
		t.Error("a refused patch changed the generation")
	}
}

// TestPatchCorpus imports the pebble corpus, then the corpus with one
// document in a hundred changed and one gone: the patched store holds
// exactly what a fresh import of the edited dump writes.
func TestPatchCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("imports the pebble corpus three times")
	}
	data, err := os.ReadFile(filepath.Join(corpusDir(t), "pebble-go.scip"))
	if err != nil {
		t.Skipf("corpus dump absent: %v", err)
	}
	edited, changed, deleted := editEveryHundredth(t, data)
	t.Logf("%d documents changed, %d deleted", changed, deleted)

	store := freshImport(t, data, Options{Commit: "c1"})
	sum, err := importBytes(store, edited, Options{Commit: "c2"})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Patched || sum.Generation != 1 || sum.Converted != changed || sum.Deleted != deleted || deleted != 1 {
		t.Errorf("%+v, want generation 1 patched: %d converted, 1 deleted", sum, changed)
	}
	fresh := freshImport(t, edited, Options{Commit: "c2"})
	// Both generations are the first: their records compare byte for byte
	// (the symbol ids are the symbols' hashes in both stores; printing
	// 320,000 records to compare them took 20 s).
	got, want := rawRecords(t, store), rawRecords(t, fresh)
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("the stores differ at record %d of %d/%d:\ngot  %s\nwant %s", i, len(got), len(want), got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("the patched store holds %d records, a fresh import %d", len(got), len(want))
	}
}

// rawRecords closes store and returns its data spaces' records but the
// symbol tables', each as its key in hex and its value's hash.
func rawRecords(t testing.TB, store *graph.Store) []string {
	t.Helper()
	dir := store.Dir()
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	var recs []string
	graphtest.EachRecord(t, dir, func(k, v []byte) {
		if len(k) < 9 || binary.BigEndian.Uint64(k) == 0 || k[8] == 'I' {
			return
		}
		recs = append(recs, fmt.Sprintf("%x => %x", k, sha256.Sum256(v)))
	})
	return recs
}

// TestImportIgnoresSymbolOrder: a dump whose documents list their symbol
// informations in another order (scip-go's differ from run to run) is
// the same dump: nothing is converted again, and what a fresh import
// makes of it is what the store holds, a symbol given twice with other
// documentation and signatures included.
func TestImportIgnoresSymbolOrder(t *testing.T) {
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	idx := parseIndex(t, readDump(t, "tsworkspace"))
	d := idx.Documents[0]
	if len(d.Symbols) < 2 {
		t.Fatalf("the fixture's first document has %d symbol informations, want 2 or more", len(d.Symbols))
	}
	for i, text := range []string{"const a = 1", "const b = 2"} {
		twin := proto.Clone(d.Symbols[0]).(*scip.SymbolInformation)
		twin.Documentation = []string{fmt.Sprint("entry ", i)}
		twin.SignatureDocumentation = &scip.Signature{Language: "typescript", Text: text}
		twin.Relationships = append(twin.Relationships, &scip.Relationship{Symbol: d.Symbols[1].Symbol, IsReference: true})
		d.Symbols = append(d.Symbols, twin)
	}
	dump := marshalIndex(t, idx)
	for _, doc := range idx.Documents {
		slices.Reverse(doc.Symbols)
		for _, si := range doc.Symbols {
			slices.Reverse(si.Relationships)
		}
	}
	reordered := marshalIndex(t, idx)
	if bytes.Equal(dump, reordered) {
		t.Fatal("reordering changed nothing")
	}
	store := freshImport(t, dump, Options{Root: root})
	sum, err := importBytes(store, reordered, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Patched || sum.Converted != 0 || sum.Reused != sum.Documents {
		t.Errorf("%+v, want every document reused", sum)
	}
	sameFacts(t, store, freshImport(t, reordered, Options{Root: root}))
}

// TestReimportOfACorruptDocument: a document that changed and does not
// decode (found by the worker that decodes it whole, past its head) fails
// the import with its offset, and the generation stays as it was.
func TestReimportOfACorruptDocument(t *testing.T) {
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	dump := readDump(t, "tsworkspace")
	store := freshImport(t, dump, Options{Root: root, Commit: "c1"})
	before := storeFacts(t, store)

	idx := parseIndex(t, dump)
	var b []byte
	b = protowire.AppendBytes(protowire.AppendTag(b, fieldMetadata, protowire.BytesType), mustMarshal(t, idx.Metadata))
	var offset int
	for i, d := range idx.Documents {
		rec := mustMarshal(t, d)
		if i == 1 {
			// An occurrence whose range varint is cut short.
			rec = protowire.AppendBytes(protowire.AppendTag(rec, docOccurrences, protowire.BytesType), []byte{0x08, 0xff})
			offset = len(b)
		}
		b = protowire.AppendBytes(protowire.AppendTag(b, fieldDocuments, protowire.BytesType), rec)
	}
	_, err := importBytes(store, b, Options{Root: root, Commit: "c2"})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("document record at byte %d: ", offset)) {
		t.Fatalf("error %v, want the corrupt document record at byte %d", err, offset)
	}
	if after := storeFacts(t, store); after != before {
		t.Error("a failed import changed the generation it meant to patch")
	}
}

// withModuleVersion returns dump with every symbol of the module
// example.com/goapp named at version v instead, as scip-go names a module
// without --module-version: at its commit.
func withModuleVersion(t testing.TB, dump []byte, v string) []byte {
	t.Helper()
	const own = "scip-go gomod example.com/goapp 0.1.0 "
	to := "scip-go gomod example.com/goapp " + v + " "
	rewrite := func(s *string) { *s = strings.ReplaceAll(*s, own, to) }
	idx := parseIndex(t, dump)
	n := 0
	for _, d := range idx.Documents {
		for _, o := range d.Occurrences {
			n += strings.Count(o.Symbol, own)
			rewrite(&o.Symbol)
		}
		for _, si := range d.Symbols {
			rewrite(&si.Symbol)
			for _, r := range si.Relationships {
				rewrite(&r.Symbol)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no symbol of the fixture names %q", own)
	}
	return marshalIndex(t, idx)
}

// TestImportNamesVersionChanges: a dump naming the module at another
// version changes every document; the import says which version changed
// and, for scip-go, how to keep it fixed. An import of the same version
// names no change.
func TestImportNamesVersionChanges(t *testing.T) {
	_, root := fixtureDump(t, "goapp", "goapp")
	first := readDump(t, "goapp")
	store := freshImport(t, first, Options{Root: root, Commit: "c1"})
	packages := func() map[string]string { return graphtest.BaseManifest(t, store).Packages }
	// The standard library's symbols are referenced, not defined: not
	// the dump's own package.
	fixed := map[string]string{"scip-go gomod example.com/goapp": "0.1.0"}
	if got := packages(); !maps.Equal(got, fixed) {
		t.Errorf("manifest packages %v, want %v", got, fixed)
	}

	// Every document reused: the packages are the previous generation's.
	same, err := importBytes(store, first, Options{Root: root, Commit: "c2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(same.VersionChanges) != 0 || same.Converted != 0 {
		t.Errorf("the same dump again: %d converted, version changes %v, want none", same.Converted, same.VersionChanges)
	}
	if got := packages(); !maps.Equal(got, fixed) {
		t.Errorf("manifest packages after a patch reusing every document %v, want %v", got, fixed)
	}

	next := withModuleVersion(t, first, "v0.0.0-20261205-abcdef")
	sum, err := importBytes(store, next, Options{Root: root, Commit: "c3"})
	if err != nil {
		t.Fatal(err)
	}
	want := []VersionChange{{Package: "scip-go gomod example.com/goapp", From: "0.1.0", To: "v0.0.0-20261205-abcdef"}}
	if sum.Patched || sum.Reused != 0 || !slices.Equal(sum.VersionChanges, want) {
		t.Errorf("the dump at another version: patched %v, %d reused, changes %v; want a new generation, none reused, changes %v",
			sum.Patched, sum.Reused, sum.VersionChanges, want)
	}
	var text strings.Builder
	if err := sum.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"versions     scip-go gomod example.com/goapp: 0.1.0 → v0.0.0-20261205-abcdef", "--module-version"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("summary does not say %q:\n%s", s, text.String())
		}
	}
	sameFacts(t, store, freshImport(t, next, Options{Root: root, Commit: "c3"}))

	// Back to the fixed version, one document changed: a patch, whose
	// manifest still names every package.
	idx := parseIndex(t, first)
	idx.Documents[0].Occurrences = idx.Documents[0].Occurrences[1:]
	edited := marshalIndex(t, idx)
	if _, err := importBytes(store, first, Options{Root: root, Commit: "c4"}); err != nil {
		t.Fatal(err)
	}
	sum, err = importBytes(store, edited, Options{Root: root, Commit: "c5"})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Patched || len(sum.VersionChanges) != 0 {
		t.Errorf("one document edited: patched %v, changes %v; want a patch, no change", sum.Patched, sum.VersionChanges)
	}
	if got := packages(); !maps.Equal(got, fixed) {
		t.Errorf("patched manifest packages %v, want %v", got, fixed)
	}
}
