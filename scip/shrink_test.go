package scip

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"google.golang.org/protobuf/encoding/protowire"
)

// documentEnds returns the byte offset just past each document record of
// a dump: cutting there leaves a dump that decodes cleanly, as a crashed
// indexer's does.
func documentEnds(t testing.TB, b []byte) []int {
	t.Helper()
	var ends []int
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			t.Fatalf("tag at byte %d: %v", off, protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			t.Fatalf("field %d at byte %d: %v", num, off, protowire.ParseError(m))
		}
		off += n + m
		if num == fieldDocuments {
			ends = append(ends, off)
		}
	}
	return ends
}

// lookups renders what readers answer for the symbols defined in a dump's
// documents: each symbol, its definitions and references.
func lookups(t testing.TB, store *graph.Store, ids []string) string {
	t.Helper()
	ctx := context.Background()
	r, err := store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b strings.Builder
	for _, id := range ids {
		s, ok, err := r.Symbol(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		defs, err := r.Definitions(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		refs, err := r.References(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s found=%v def=%s %d definitions %d references\n", id, ok, s.Def.Path, len(defs), len(refs))
	}
	return b.String()
}

// definedSymbols returns the ids of the symbols the base layer's documents
// define.
func definedSymbols(t testing.TB, store *graph.Store) []string {
	t.Helper()
	ctx := context.Background()
	r, err := store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var paths, ids []string
	if err := r.Documents(ctx, func(d graph.Document) error { paths = append(paths, d.Path); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		syms, err := r.DocumentSymbols(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range syms {
			if s.Def.Path == p {
				ids = append(ids, s.ID)
			}
		}
	}
	return ids
}

func TestImportRefusesShrink(t *testing.T) {
	dump, root := fixtureDump(t, "goapp", "goapp")
	full := readDump(t, "goapp")
	ends := documentEnds(t, full)
	// goapp has nine document records; the fourth and the ninth (files
	// of the build cache) escape the root and are skipped.
	if len(ends) != 9 {
		t.Fatalf("goapp has %d document records, the test expects 9", len(ends))
	}
	store := openStore(t)
	first, err := importFile(t, store, dump, Options{Root: root, Commit: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	if first.DocumentsBefore != 0 || first.Documents != 7 {
		t.Fatalf("first import: documents %d → %d, want 0 → 7", first.DocumentsBefore, first.Documents)
	}
	before := fingerprint(t, store)
	ids := definedSymbols(t, store)
	if len(ids) < 7 {
		t.Fatalf("only %d symbols defined", len(ids))
	}
	answers := lookups(t, store, ids)

	// Three of seven documents, cut at a record boundary: refused.
	cut := full[:ends[3]]
	sum, err := importBytes(store, cut, Options{Root: root, Commit: "cut"})
	var ie *ImportError
	if !errors.As(err, &ie) || !errors.Is(err, graph.ErrShrink) {
		t.Fatalf("importing 3 of 7 documents = %v, want an ImportError wrapping graph.ErrShrink", err)
	}
	msg := err.Error()
	for _, want := range []string{"import refused: ", "documents 7 → 3", "pass --allow-shrink if intended", "the previous index (commit c1, imported "} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if sum.DocumentsBefore != 7 || sum.Documents != 3 {
		t.Errorf("refused import's summary: documents %d → %d, want 7 → 3", sum.DocumentsBefore, sum.Documents)
	}
	if after := fingerprint(t, store); after != before {
		t.Errorf("a refused import changed what readers see:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if got := lookups(t, store, ids); got != answers {
		t.Errorf("a refused import changed symbol lookups:\nbefore:\n%s\nafter:\n%s", answers, got)
	}

	// Four of seven (more than half): accepted.
	sum, err = importBytes(store, full[:ends[4]], Options{Root: root, Commit: "four"})
	if err != nil {
		t.Fatalf("importing 4 of 7 documents: %v", err)
	}
	if sum.DocumentsBefore != 7 || sum.Documents != 4 {
		t.Errorf("summary: documents %d → %d, want 7 → 4", sum.DocumentsBefore, sum.Documents)
	}
	var text bytes.Buffer
	if err := sum.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "documents    7 → 4 (") {
		t.Errorf("summary text does not state documents before → after:\n%s", text.String())
	}

	// The whole dump again (grown), then once more (same size): accepted.
	for _, want := range [][2]int{{4, 7}, {7, 7}} {
		sum, err := importBytes(store, full, Options{Root: root, Commit: "c2"})
		if err != nil {
			t.Fatalf("importing the whole dump over %d documents: %v", want[0], err)
		}
		if sum.DocumentsBefore != want[0] || sum.Documents != want[1] {
			t.Errorf("summary: documents %d → %d, want %d → %d", sum.DocumentsBefore, sum.Documents, want[0], want[1])
		}
	}
	if got := lookups(t, store, ids); got != answers {
		t.Errorf("after importing the whole dump again, symbol lookups differ:\nfirst:\n%s\nnow:\n%s", answers, got)
	}

	// A cut inside a record is corrupt input, whatever AllowShrink says.
	if _, err := importBytes(store, full[:ends[3]+5], Options{Root: root, AllowShrink: true}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a dump cut inside a document record = %v, want ErrCorrupt", err)
	}

	// With AllowShrink the cut dump is accepted.
	sum, err = importBytes(store, cut, Options{Root: root, Commit: "cut", AllowShrink: true})
	if err != nil {
		t.Fatalf("importing 3 of 7 documents with AllowShrink: %v", err)
	}
	if sum.DocumentsBefore != 7 || sum.Documents != 3 {
		t.Errorf("summary: documents %d → %d, want 7 → 3", sum.DocumentsBefore, sum.Documents)
	}
	if m := graphtest.BaseManifest(t, store); m.Commit != "cut" || m.Documents != 3 {
		t.Errorf("manifest after an allowed shrink: commit %s, %d documents; want cut, 3", m.Commit, m.Documents)
	}
}

func TestFirstImportNeverRefused(t *testing.T) {
	full := readDump(t, "goapp")
	cut := full[:documentEnds(t, full)[0]]
	store := openStore(t)
	sum, err := importBytes(store, cut, Options{})
	if err != nil {
		t.Fatalf("a first import of one document: %v", err)
	}
	if sum.DocumentsBefore != 0 || sum.Documents != 1 {
		t.Errorf("summary: documents %d → %d, want 0 → 1", sum.DocumentsBefore, sum.Documents)
	}
}

// TestImportShrinkOtherToolOrRoot checks that a small dump of another tool,
// or for another root, replaces a larger index: the rule compares like
// with like.
func TestImportShrinkOtherToolOrRoot(t *testing.T) {
	_, root := fixtureDump(t, "goapp", "goapp")
	_, userRoot := fixtureDump(t, "gowork-user", "gowork")
	idx := parseIndex(t, readDump(t, "gowork-user"))
	idx.Metadata.ToolInfo.Name = "scip-other"
	other := marshalIndex(t, idx)
	for _, c := range []struct {
		name string
		dump []byte
		root string
	}{
		{"another tool", other, root},
		{"another root", readDump(t, "gowork-user"), userRoot},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := openStore(t)
			if _, err := importBytes(store, readDump(t, "goapp"), Options{Root: root}); err != nil {
				t.Fatal(err)
			}
			sum, err := importBytes(store, c.dump, Options{Root: c.root})
			if err != nil {
				t.Fatalf("one document over seven: %v", err)
			}
			if sum.DocumentsBefore != 7 || sum.Documents != 1 {
				t.Errorf("summary: documents %d → %d, want 7 → 1", sum.DocumentsBefore, sum.Documents)
			}
		})
	}
}
