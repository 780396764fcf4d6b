package scip

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// fingerprint renders what a reader sees of the base layer: the manifest
// and every document with its occurrences and symbols.
func fingerprint(t testing.TB, store *graph.Store) string {
	t.Helper()
	ctx := context.Background()
	r, err := store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b strings.Builder
	m, ok, err := r.Manifest(graph.Base)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		fmt.Fprintf(&b, "manifest gen=%d commit=%s docs=%d occs=%d syms=%d edges=%d state=%s\n",
			m.Generation, m.Commit, m.Documents, m.Occurrences, m.Symbols, m.Edges, m.State)
	}
	var paths []string
	if err := r.Documents(ctx, func(d graph.Document) error {
		fmt.Fprintf(&b, "doc %+v\n", d)
		paths = append(paths, d.Path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		occs, err := r.Occurrences(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range occs {
			fmt.Fprintf(&b, "occ %s %s %s %d %s\n", p, o.Range, o.Symbol, o.Roles, o.Enclosing)
		}
		syms, err := r.DocumentSymbols(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range syms {
			fmt.Fprintf(&b, "sym %s %+v\n", p, s)
		}
	}
	return b.String()
}

// readDump reads a fixture dump's bytes.
func readDump(t testing.TB, name string) []byte {
	t.Helper()
	dump, _ := fixtureDump(t, name, name)
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// marshalIndex encodes an index as the records indexers write.
func marshalIndex(t testing.TB, idx *scip.Index) []byte {
	t.Helper()
	b, err := proto.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parseIndex decodes a whole dump (small fixtures only).
func parseIndex(t testing.TB, b []byte) *scip.Index {
	t.Helper()
	var idx scip.Index
	if err := proto.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	return &idx
}

func importBytes(store *graph.Store, b []byte, opts Options) (Summary, error) {
	opts.Size = int64(len(b))
	return Import(context.Background(), store, bytes.NewReader(b), opts)
}

func TestDecodeErrorsNameTheOffset(t *testing.T) {
	good := readDump(t, "gowork-user")
	// The first record is the metadata; find where the document starts.
	_, _, n := protowire.ConsumeTag(good)
	l, m := protowire.ConsumeVarint(good[n:])
	docStart := n + m + int(l)

	huge := protowire.AppendTag(nil, fieldDocuments, protowire.BytesType)
	huge = protowire.AppendVarint(huge, 1<<40)
	cases := []struct {
		name  string
		input []byte
		want  string
		size  bool // pass the input's size, as for a file
	}{
		{"truncated payload (file)", good[:len(good)-5], fmt.Sprintf("document record at byte %d declares %d bytes but only %d remain", docStart, len(good)-docStart-3, len(good)-docStart-8), true},
		{"truncated payload (stream)", good[:len(good)-5], fmt.Sprintf("document record at byte %d is truncated: input ends at byte %d, 5 bytes short", docStart, len(good)-5), false},
		{"truncated length", append(append([]byte{}, good[:docStart]...), 0x12, 0x80), fmt.Sprintf("document record at byte %d is truncated inside its length", docStart), true},
		{"corrupt length varint", append(append([]byte{}, good[:docStart]...), 0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), fmt.Sprintf("document record at byte %d has a corrupt length varint", docStart), true},
		{"impossible length (file)", huge, "document record at byte 0 declares 1099511627776 bytes but only 0 remain", true},
		{"impossible length (stream)", huge, "document record at byte 0 declares 1099511627776 bytes, more than the 1073741824 a record may hold", false},
		{"wrong wire type", []byte{0x10, 0x01}, "document at byte 0 has wire type 0, want length-delimited", true},
		{"garbage payload", append(append([]byte{}, good[:docStart]...), 0x12, 0x02, 0xff, 0xff), fmt.Sprintf("document record at byte %d", docStart), true},
		{"group wire type", []byte{0x23}, "field 4 at byte 0 has unsupported wire type 3", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			size := int64(0)
			if c.size {
				size = int64(len(c.input))
			}
			_, err := Decode(context.Background(), bytes.NewReader(c.input), size, Visitor{
				Document: func(context.Context, Record, *scip.Document) error { return nil },
			}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant ErrCorrupt naming %q", err, c.want)
			}
		})
	}
}

func TestDecodeSkipsUnknownFields(t *testing.T) {
	good := readDump(t, "gowork-user")
	var in []byte
	in = protowire.AppendTag(in, 7, protowire.VarintType)
	in = protowire.AppendVarint(in, 300)
	in = protowire.AppendTag(in, 99, protowire.BytesType)
	in = protowire.AppendBytes(in, []byte("future"))
	in = protowire.AppendTag(in, 5, protowire.Fixed64Type)
	in = protowire.AppendFixed64(in, 1)
	prefix := len(in)
	in = append(in, good...)
	var offsets []int64
	stats, err := Decode(context.Background(), bytes.NewReader(in), 0, Visitor{
		Document: func(_ context.Context, rec Record, d *scip.Document) error {
			offsets = append(offsets, rec.Offset)
			return nil
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.UnknownFields != 3 || stats.Bytes != int64(len(in)) {
		t.Errorf("stats %+v, want 3 unknown fields over %d bytes", stats, len(in))
	}
	if len(offsets) != 1 || offsets[0] <= int64(prefix) {
		t.Errorf("document offsets %v, want one after byte %d", offsets, prefix)
	}
}

func TestImportFailureKeepsPreviousGeneration(t *testing.T) {
	store := openStore(t)
	good := readDump(t, "gowork-user")
	if _, err := importBytes(store, good, Options{Commit: "c1"}); err != nil {
		t.Fatal(err)
	}
	before := fingerprint(t, store)
	ts := readDump(t, "tsworkspace")
	bad := ts[:len(ts)*2/3]
	_, err := importBytes(store, bad, Options{Commit: "c2"})
	var ie *ImportError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v, want an ImportError", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "import failed at byte ") || !strings.Contains(msg, "the previous index (commit c1, imported ") ||
		!strings.HasSuffix(msg, "is still in use") || !errors.Is(err, ErrCorrupt) {
		t.Errorf("message %q does not say where it failed and which index is still in use", msg)
	}
	if after := fingerprint(t, store); after != before {
		t.Errorf("a failed import changed what readers see:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// The store still accepts a good import afterwards.
	if _, err := importBytes(store, ts, Options{Commit: "c3"}); err != nil {
		t.Fatal(err)
	}
}

func TestImportCancelled(t *testing.T) {
	store := openStore(t)
	good := readDump(t, "gowork-user")
	if _, err := importBytes(store, good, Options{Commit: "c1"}); err != nil {
		t.Fatal(err)
	}
	before := fingerprint(t, store)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ts := readDump(t, "tsworkspace")
	_, err := Import(ctx, store, bytes.NewReader(ts), Options{Size: int64(len(ts))})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if after := fingerprint(t, store); after != before {
		t.Error("a cancelled import changed what readers see")
	}
}

func TestImportEmptyIndex(t *testing.T) {
	store := openStore(t)
	for _, in := range [][]byte{nil, marshalIndex(t, &scip.Index{Metadata: &scip.Metadata{ToolInfo: &scip.ToolInfo{Name: "x"}}})} {
		_, err := importBytes(store, in, Options{})
		if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "the store has no previous index") {
			t.Errorf("error %v, want ErrEmpty and no previous index", err)
		}
	}
}

func TestImportSkipsUnsafeAndDuplicateDocuments(t *testing.T) {
	idx := parseIndex(t, readDump(t, "gowork-user"))
	doc := idx.Documents[0]
	clone := func(p string) *scip.Document {
		d := proto.Clone(doc).(*scip.Document)
		d.RelativePath = p
		return d
	}
	idx.Documents = append(idx.Documents,
		clone("../outside.go"), clone("/etc/passwd"), clone("a/../../b.go"), clone(""), clone(doc.RelativePath), clone("C:\\x.go"))
	store := openStore(t)
	sum, err := importBytes(store, marshalIndex(t, idx), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, s := range sum.Skipped {
		reasons = append(reasons, s.Path+": "+s.Reason)
	}
	want := []string{
		"../outside.go: " + SkipEscapesRoot,
		"/etc/passwd: " + SkipAbsolute,
		"a/../../b.go: " + SkipEscapesRoot,
		": " + SkipEmptyPath,
		doc.RelativePath + ": " + SkipDuplicate,
		"C:\\x.go: " + SkipAbsolute,
	}
	if strings.Join(reasons, "\n") != strings.Join(want, "\n") || sum.Documents != 1 {
		t.Errorf("imported %d documents, skipped:\n%s\nwant 1 and:\n%s", sum.Documents, strings.Join(reasons, "\n"), strings.Join(want, "\n"))
	}
}

func TestReimportReusesUnchangedDocuments(t *testing.T) {
	dump, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	store := openStore(t)
	first, err := importFile(t, store, dump, Options{Root: root, Commit: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	want := fingerprint(t, store)
	second, err := importFile(t, store, dump, Options{Root: root, Commit: "c2"})
	if err != nil {
		t.Fatal(err)
	}
	if second.Reused != first.Documents || second.Converted != 0 ||
		second.Occurrences != first.Occurrences || second.Symbols != first.Symbols || second.Edges != first.Edges {
		t.Errorf("second import %+v, want every document reused with the same counts as %+v", second, first)
	}
	strip := func(s string) string { // generation and commit differ by design
		_, rest, _ := strings.Cut(s, "\n")
		return rest
	}
	if got := fingerprint(t, store); strip(got) != strip(want) {
		t.Errorf("reused facts differ from converted ones:\nconverted:\n%s\nreused:\n%s", want, got)
	}

	// Change one document: only it is converted again.
	idx := parseIndex(t, readDump(t, "tsworkspace"))
	idx.Documents[0].Occurrences = idx.Documents[0].Occurrences[1:]
	third, err := importBytes(store, marshalIndex(t, idx), Options{Root: root, Commit: "c3"})
	if err != nil {
		t.Fatal(err)
	}
	if third.Converted != 1 || third.Reused != first.Documents-1 || third.Occurrences != first.Occurrences-1 {
		t.Errorf("third import converted %d, reused %d, %d occurrences; want 1, %d, %d",
			third.Converted, third.Reused, third.Occurrences, first.Documents-1, first.Occurrences-1)
	}
}

func TestUnverifiedPositions(t *testing.T) {
	idx := parseIndex(t, readDump(t, "tsworkspace"))
	var doc *scip.Document
	for _, d := range idx.Documents {
		if d.RelativePath == "packages/order/src/index.ts" {
			doc = d
		}
	}
	if doc == nil {
		t.Fatal("fixture document missing")
	}
	conv := &Converter{Tool: "scip-typescript"}
	_, root := fixtureDump(t, "tsworkspace", "tsworkspace")
	text, err := os.ReadFile(root + "/packages/order/src/index.ts")
	if err != nil {
		t.Fatal(err)
	}
	find := func(f graph.DocumentFacts, suffix string, line uint32) graph.Occurrence {
		for _, o := range f.Occurrences {
			if strings.HasSuffix(o.Symbol, suffix) && o.Range.Start.Line == line && o.Roles&graph.RoleReference != 0 {
				return o
			}
		}
		t.Fatalf("no reference to %s on line %d", suffix, line+1)
		return graph.Occurrence{}
	}
	// With the text: UTF-16 column 42 becomes UTF-8 byte 45.
	f, st := conv.Convert(doc, "packages/order/src/index.ts", text)
	if o := find(f, "/HEADER_WIDTH.", 13); o.Range.Start.Col != 45 || st.Unverified || f.Document.Flags&graph.DocPositionsUnverified != 0 {
		t.Errorf("with text: HEADER_WIDTH at byte %d (unverified %v), want 45", o.Range.Start.Col, st.Unverified)
	}
	// Without it: kept as given, flagged.
	f, st = conv.Convert(doc, "packages/order/src/index.ts", nil)
	if o := find(f, "/HEADER_WIDTH.", 13); o.Range.Start.Col != 42 || !st.Unverified || f.Document.Flags&graph.DocPositionsUnverified == 0 {
		t.Errorf("without text: HEADER_WIDTH at %d (unverified %v), want 42 and flagged", o.Range.Start.Col, st.Unverified)
	}
	// With text that does not match (a line too short): kept as given, flagged.
	f, st = conv.Convert(doc, "packages/order/src/index.ts", []byte("short\n"))
	if o := find(f, "/HEADER_WIDTH.", 13); o.Range.Start.Col != 42 || !st.Unverified || f.Document.ContentHash != "" {
		t.Errorf("mismatching text: HEADER_WIDTH at %d (unverified %v, hash %q), want 42, flagged, no hash", o.Range.Start.Col, st.Unverified, f.Document.ContentHash)
	}
}
