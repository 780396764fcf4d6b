package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// patchDoc is a document of n symbols, each referring to the next of
// document next (a shared name across documents).
func patchDoc(path string, n int, next string, terms ...string) DocumentFacts {
	f := DocumentFacts{Document: Document{Path: path, Language: "go", Package: "p", ContentHash: "h" + path, Source: SourceSyntax}}
	for i := range n {
		id := fmt.Sprintf("go p %s.F%d", strings.TrimSuffix(path, ".go"), i)
		r := textpos.Range{Start: textpos.Position{Line: uint32(i)}, End: textpos.Position{Line: uint32(i), Col: 2}}
		f.Symbols = append(f.Symbols, Symbol{ID: id, DisplayName: fmt.Sprintf("F%d", i), Kind: "function", Language: "go", Package: "p",
			Def: Location{Path: path, Range: r}})
		f.Occurrences = append(f.Occurrences, Occurrence{Path: path, Range: r, Symbol: id, Roles: RoleDefinition})
		if next != "" {
			to := fmt.Sprintf("go p %s.F%d", strings.TrimSuffix(next, ".go"), i)
			f.Edges = append(f.Edges, Edge{From: id, To: to, Kind: EdgeCalls, Confidence: 0.9, Source: SourceSyntax, Reason: "r", Count: 1})
		}
	}
	for _, w := range terms {
		f.Terms = append(f.Terms, Term{Word: w, Field: TermName, Count: 1})
	}
	f.Lookups = []byte("lookups of " + path)
	return f
}

// putGeneration writes docs as a new base generation of s.
func putGeneration(t *testing.T, s *Store, docs ...DocumentFacts) {
	t.Helper()
	ctx := context.Background()
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := g.PutDocument(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Commit(ctx, Manifest{Tool: "t"}); err != nil {
		t.Fatal(err)
	}
}

// baseDump is the dump of a store's base generation without its symbol
// table (a patch keeps the ids of symbols no document names any more).
func baseDump(t *testing.T, s *Store) string {
	t.Helper()
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	if err := r.Dump(&buf); err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, "gen") && !strings.Contains(l, "/symid ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestBasePatchEqualsNewGeneration: a generation patched (a document
// replaced, one deleted, one added) holds exactly the records of a new
// generation of the same documents, its manifest the same counts; a
// reader opened before the commit still sees the generation before.
func TestBasePatchEqualsNewGeneration(t *testing.T) {
	ctx := context.Background()
	write := func(s *Store, docs ...DocumentFacts) { putGeneration(t, s, docs...) }
	patched := openDisk(t, t.TempDir(), Options{})
	defer patched.Close()
	write(patched, patchDoc("a.go", 3, "b.go", "alpha"), patchDoc("b.go", 2, "c.go", "beta"), patchDoc("c.go", 4, "", "gamma"))
	before, err := patched.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close()
	want := baseDump(t, patched)

	p, err := patched.BeginPatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := patched.BeginGeneration(ctx); err == nil {
		t.Error("a generation was begun while a patch was open")
	}
	p.Warm(ctx, []string{"b.go", "c.go", "absent.go"}) // reads, changes nothing
	if n := p.b.Count(); n != 0 || len(p.ids.known) != 0 {
		t.Fatalf("Warm wrote %d records and made %d symbols known", n, len(p.ids.known))
	}
	// A document put again as it was writes nothing; one changed in
	// part writes the records that changed.
	if err := p.PutDocument(ctx, patchDoc("a.go", 3, "b.go", "alpha")); err != nil {
		t.Fatal(err)
	}
	if n := p.b.Count(); n != 0 {
		t.Errorf("a document put again unchanged wrote %d records", n)
	}
	if err := p.PutDocument(ctx, patchDoc("b.go", 5, "d.go", "beta", "delta")); err != nil {
		t.Fatal(err)
	}
	// Deleting every old record and writing every new one, the patch
	// would write both documents' records (and the ids of new symbols).
	changed := p.b.Count()
	var both uint32
	count := func(k, v []byte) error { both++; return nil }
	b2, b5 := patchDoc("b.go", 2, "c.go", "beta"), patchDoc("b.go", 5, "d.go", "beta", "delta")
	for _, f := range []*DocumentFacts{&b2, &b5} {
		nf, err := normalizeFacts(*f)
		if err != nil {
			t.Fatal(err)
		}
		if err := emitRecords(p.space, &nf, p.ids.lookups(), count); err != nil {
			t.Fatal(err)
		}
	}
	if changed == 0 || changed >= both {
		t.Errorf("b.go, changed in part, wrote %d records; its old and new records are %d", changed, both)
	}
	if err := p.DeleteDocument(ctx, "c.go"); err != nil {
		t.Fatal(err)
	}
	if err := p.PutDocument(ctx, patchDoc("d.go", 1, "a.go")); err != nil {
		t.Fatal(err)
	}
	if err := p.PutDocument(ctx, patchDoc("d.go", 1, "")); err == nil {
		t.Error("a document was patched twice")
	}
	if err := p.Commit(ctx, Manifest{Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	if got := baseDump(t, patched); got == want {
		t.Fatal("the patch changed nothing")
	}

	fresh := openDisk(t, t.TempDir(), Options{})
	defer fresh.Close()
	write(fresh, patchDoc("a.go", 3, "b.go", "alpha"), b5, patchDoc("d.go", 1, "a.go"))
	if got, want := baseDump(t, patched), baseDump(t, fresh); got != want {
		t.Errorf("patched generation:\n%s\n\nnew generation:\n%s", got, want)
	}
	manifest := func(s *Store) Manifest {
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		m, _, err := r.Manifest(Base)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	pm, fm := manifest(patched), manifest(fresh)
	if pm.Documents != fm.Documents || pm.Symbols != fm.Symbols || pm.Occurrences != fm.Occurrences || pm.Edges != fm.Edges ||
		pm.Extra[ManifestTermDocuments] != fm.Extra[ManifestTermDocuments] {
		t.Errorf("patched manifest %+v, new generation's %+v", pm, fm)
	}
	if syms, err := before.DocumentSymbols(ctx, "c.go"); err != nil || len(syms) != 4 {
		t.Errorf("a reader of the generation before the patch reads c.go's symbols = %d, %v; want 4", len(syms), err)
	}
	if err := p.DeleteDocument(ctx, "a.go"); err == nil {
		t.Error("a committed patch took a deletion")
	}
	empty := openDisk(t, t.TempDir(), Options{})
	defer empty.Close()
	if _, err := empty.BeginPatch(ctx); !errors.Is(err, ErrNotFound) {
		t.Errorf("patching a store without a base generation = %v, want ErrNotFound", err)
	}
}

// TestBasePatchLeavesNoLogToReplay commits a patch and checks that its
// records are in a table, not only in the log: every process that opens
// the store would otherwise replay the log first.
func TestBasePatchLeavesNoLogToReplay(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.PutDocument(ctx, patchDoc("a.go", 5, "", "alpha")); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(ctx, Manifest{Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	p, err := s.BeginPatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.PutDocument(ctx, patchDoc("a.go", 400, "b.go", "alpha", "beta")); err != nil {
		t.Fatal(err)
	}
	before := s.db.Metrics().WAL.BytesIn
	if err := p.Commit(ctx, Manifest{Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	m := s.db.Metrics()
	if written := m.WAL.BytesIn - before; written < 10000 {
		t.Fatalf("the patch wrote %d bytes to the log: the test needs a larger one", written)
	}
	if m.WAL.Size > 1024 {
		t.Errorf("%d bytes of the log are live after the patch: opening the store replays them", m.WAL.Size)
	}
}

// TestBasePatchWarmReadsRecords: Warm reads the records of documents
// whose ids are their symbols' hashes into the block cache, so that
// replacing them afterwards reads no block from disk; without it, the
// same replacement does.
func TestBasePatchWarmReadsRecords(t *testing.T) {
	ctx := context.Background()
	// Large documents, whose records span several blocks each.
	docs := []DocumentFacts{patchDoc("a.go", 2000, "b.go", "alpha"), patchDoc("b.go", 2000, "c.go", "beta"), patchDoc("c.go", 2000, "", "gamma")}
	misses := func(warm bool) int64 {
		dir := t.TempDir()
		s := openDisk(t, dir, Options{})
		putGeneration(t, s, docs...)
		if _, hashed, ok, err := readDocFactsHashed(ctx, s.db, genSpace(1), "b.go"); err != nil || !ok || !hashed {
			t.Fatalf("b.go: hashed ids %v, found %v, %v; want a document whose ids are its symbols' hashes", hashed, ok, err)
		}
		s.Close()
		s = openDisk(t, dir, Options{}) // nothing cached
		defer s.Close()
		// A compaction's reads count as misses too: let any the reopened
		// store starts finish first.
		for idle, deadline := 0, time.Now().Add(10*time.Second); idle < 3 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if s.db.Metrics().Compact.NumInProgress == 0 {
				idle++
			} else {
				idle = 0
			}
		}
		p, err := s.BeginPatch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Abort()
		if warm {
			p.Warm(ctx, []string{"b.go"})
		}
		before := s.BlockCacheMisses()
		if err := p.PutDocument(ctx, patchDoc("b.go", 1999, "c.go", "beta")); err != nil {
			t.Fatal(err)
		}
		return s.BlockCacheMisses() - before
	}
	// A document's records are a block or so each (most values are larger
	// than a block).
	cold := misses(false)
	if cold < 4 {
		t.Fatalf("replacing a document read %d blocks from disk without Warm; the test measures nothing", cold)
	}
	// None, but for one read by something else on a loaded machine.
	if n := misses(true); n > 1 {
		t.Errorf("replacing a warmed document read %d blocks from disk, want none (%d without Warm)", n, cold)
	}
}

// TestPatchLimit: a fifth of a generation's documents, at most 700, one
// in 40 past that, 100 at least.
func TestPatchLimit(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{0, 100}, {300, 100}, {815, 163}, {2000, 400}, {6826, 700}, {27304, 700}, {40000, 1000},
	} {
		if got := PatchLimit(c.n); got != c.want {
			t.Errorf("PatchLimit(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestBasePatchKeepsUntouchedPostings: a document given one word more
// (its length 100 words, rounded the same for 101) is patched by writing
// its document, terms and lookups records and the new word's posting,
// not the postings of its other words, which hold the same rounded
// length.
func TestBasePatchKeepsUntouchedPostings(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t, t.TempDir(), Options{})
	defer s.Close()
	var words []string
	for i := range 100 {
		words = append(words, fmt.Sprintf("word%03d", i))
	}
	putGeneration(t, s, patchDoc("a.go", 3, "", words...))
	p, err := s.BeginPatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Abort()
	changed := patchDoc("a.go", 3, "", append(words, "added")...)
	changed.Document.ContentHash = "h2"
	changed.Lookups = []byte("lookups again")
	if err := p.PutDocument(ctx, changed); err != nil {
		t.Fatal(err)
	}
	kinds := map[byte]int{}
	r := p.b.Reader()
	for {
		_, k, _, ok, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		kinds[k[8]]++
	}
	want := map[byte]int{byte(kindDoc): 1, byte(kindDocTerms): 1, byte(kindDocLookups): 1, byte(kindTerm): 1}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("the patch writes records of kinds %s, want %s (one posting: the new word's)", kindCounts(kinds), kindCounts(want))
	}
}

// kindCounts renders counts of records by kind.
func kindCounts(m map[byte]int) string {
	var b strings.Builder
	for _, k := range []byte("DSOETLtbdfnprsI") {
		if m[k] > 0 {
			fmt.Fprintf(&b, " %c:%d", k, m[k])
		}
	}
	return strings.TrimSpace(b.String())
}
