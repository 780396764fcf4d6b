package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// TestSymbolIDCollision makes another string hold the id that p.B's hash
// asks for, in a generation being written and in the live layer, and
// checks that p.B gets the next id, that every read (symbol, references,
// definitions, edges both ways, names, traversal) finds it there, that a
// document encoded outside the writer's lock before the collision was
// known is encoded again, and that replacing and deleting live documents
// remove exactly the records they wrote.
func TestSymbolIDCollision(t *testing.T) {
	ctx := context.Background()
	s, err := Open("collide", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := func(line uint32) textpos.Range {
		return textpos.Range{Start: textpos.Position{Line: line, Col: 1}, End: textpos.Position{Line: line, Col: 2}}
	}
	facts := func(path, from, to string, line uint32) DocumentFacts {
		return DocumentFacts{
			Document: Document{Path: path},
			Symbols:  []Symbol{{ID: from, DisplayName: strings.ToUpper(from[len(from)-1:]), Def: Location{Path: path, Range: at(line)}}},
			Occurrences: []Occurrence{
				{Symbol: from, Range: at(line), Roles: RoleDefinition},
				{Symbol: to, Range: at(line + 1), Roles: RoleReference | RoleCall, Enclosing: from},
			},
			Edges: []Edge{{From: from, Kind: EdgeCalls, To: to, Confidence: 1}},
		}
	}
	home := symbolHash("p.B")
	g := squattedGeneration(t, s, home)
	for _, f := range []DocumentFacts{facts("a.go", "p.A", "p.B", 1), facts("b.go", "p.B", "p.C", 5)} {
		if err := g.PutDocument(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Commit(ctx, Manifest{}); err != nil {
		t.Fatal(err)
	}
	check := func(what, wantIn string, wantRefs int) {
		t.Helper()
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		dump := dumpString(t, r)
		if !strings.Contains(dump, fmt.Sprintf("gen1/symid id=%s => p.B\n", formatSymID(home+1))) {
			t.Errorf("%s: p.B is not at the id after its hash:\n%s", what, dump)
		}
		if strings.HasPrefix(what, "live") && !strings.Contains(dump, fmt.Sprintf("live/symid id=%s => p.B\n", formatSymID(home+1))) {
			t.Errorf("%s: p.B is not at the id after its hash in the live layer:\n%s", what, dump)
		}
		if sym, ok, err := r.Symbol(ctx, "p.B"); err != nil || !ok || sym.DisplayName != "B" {
			t.Errorf("%s: Symbol(p.B) = %+v, %v, %v", what, sym, ok, err)
		}
		refs, err := r.References(ctx, "p.B", 0)
		if err != nil || len(refs) != wantRefs || refs[0].Enclosing != "p.A" {
			t.Errorf("%s: References(p.B) = %+v, %v; want a.go's call from p.A first of %d", what, refs, err, wantRefs)
		}
		defs, err := r.Definitions(ctx, "p.B")
		if err != nil || len(defs) != 1 || defs[0].Path != "b.go" {
			t.Errorf("%s: Definitions(p.B) = %+v, %v", what, defs, err)
		}
		var got []string
		in, err := r.Incoming(ctx, "p.B", EdgeFilter{})
		for _, e := range in {
			got = append(got, e.From+"@"+e.Path)
		}
		if err != nil || strings.Join(got, " ") != wantIn {
			t.Errorf("%s: Incoming(p.B) = %v, %v; want %s", what, got, err, wantIn)
		}
		out, err := r.Outgoing(ctx, "p.B", EdgeFilter{})
		if err != nil || len(out) != 1 || out[0].To != "p.C" {
			t.Errorf("%s: Outgoing(p.B) = %+v, %v", what, out, err)
		}
		if found, err := r.FindSymbols(ctx, "B", false, 0); err != nil || len(found) != 1 || found[0].ID != "p.B" {
			t.Errorf("%s: FindSymbols(B) = %+v, %v", what, found, err)
		}
		visits, _, err := r.Traverse(ctx, []string{"p.C"}, TraverseOptions{Direction: Upstream})
		if err != nil || len(visits) < 2 || visits[0].Symbol != "p.B" || visits[1].Symbol != "p.A" {
			t.Errorf("%s: Traverse(p.C up) = %+v, %v; want p.B then p.A", what, visits, err)
		}
		if sym, ok, err := r.Symbol(ctx, "squatter"); err != nil || ok {
			t.Errorf("%s: Symbol(squatter) = %+v, %v, %v; it has an id and no records", what, sym, ok, err)
		}
	}
	check("base", "p.A@a.go", 2)

	// The live layer: the squatter's symid record comes first there too.
	b := s.db.NewBatch()
	if err := b.Set(appendSymIDKey(nil, spaceLive, home), []byte("squatter"), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.commit(b, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if err := s.PutDocument(ctx, Live, facts("c.go", "q.D", "p.B", 9)); err != nil {
		t.Fatal(err)
	}
	check("live", "p.A@a.go q.D@c.go", 3)
	// Replaced by a document without the edge, then deleted: no record of
	// c.go remains in the live layer's indexes.
	if err := s.PutDocument(ctx, Live, DocumentFacts{Document: Document{Path: "c.go"}}); err != nil {
		t.Fatal(err)
	}
	check("live replaced", "p.A@a.go", 2)
	if err := s.DeleteDocument(ctx, Live, "c.go"); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for l := range strings.Lines(dumpString(t, r)) {
		if strings.HasPrefix(l, "live/") && !strings.HasPrefix(l, "live/symid ") {
			t.Errorf("left in the live layer: %s", l)
		}
	}
}

// dumpString returns r's Dump.
func dumpString(t *testing.T, r *Reader) string {
	t.Helper()
	var b strings.Builder
	if err := r.Dump(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSymIDLookupsViewClaimsNothing holds a claiming table and its
// look-up view (through which a patch deletes) to one memory: what either
// found or claimed, both know; an id the view was only told it would get
// is not remembered, so the claiming table still writes its record.
func TestSymIDLookupsViewClaimsNothing(t *testing.T) {
	s, err := Open("lookups", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.db.NewBatch()
	defer b.Close()
	ids := newStoreSymIDs(s.db, b, genSpace(1), true)
	view := ids.lookups()
	free, _, err := view.symID("p.New")
	if err != nil {
		t.Fatal(err)
	}
	if b.Count() != 0 || len(ids.known) != 0 {
		t.Fatalf("the view claimed p.New: %d records in the batch, known %v", b.Count(), ids.known)
	}
	got, _, err := ids.symID("p.New")
	if err != nil || got != free {
		t.Fatalf("claimed id %d, %v; the view said %d", got, err, free)
	}
	if b.Count() != 1 {
		t.Fatalf("%d records in the batch after the claim, want the symid record", b.Count())
	}
	if again, _, err := view.symID("p.New"); err != nil || again != free {
		t.Fatalf("the view finds %d, %v after the claim, want %d", again, err, free)
	}
}

// TestSymbolHashLocality checks where symbolHash splits the symbol strings
// of SCIP indexers and of the syntax index, and that the ids of a type's
// members share their top 32 bits and those of a package's symbols their
// top 16, so that their index records sort side by side.
func TestSymbolHashLocality(t *testing.T) {
	const pebble = "scip-go gomod github.com/cockroachdb/pebble f82e3ff74d10 `github.com/cockroachdb/pebble`/"
	for _, c := range []struct{ sym, owner, parent string }{
		{pebble + "DB#maybeScheduleCompaction().", pebble, pebble + "DB#"},
		{pebble + "DB#mu.", pebble, pebble + "DB#"},
		{pebble + "Open().", pebble, pebble},
		{pebble + "DB#", pebble, pebble},
		{"scip-typescript npm vue 3.4.0 src/`reactive.ts`/ReactiveEffect#run().", "scip-typescript npm vue 3.4.0 src/`reactive.ts`/", "scip-typescript npm vue 3.4.0 src/`reactive.ts`/ReactiveEffect#"},
		{"scip-python python flask 2.0.0 `flask.app`/Flask#run().", "scip-python python flask 2.0.0 `flask.app`/", "scip-python python flask 2.0.0 `flask.app`/Flask#"},
		{"syntax go example.com/goapp/store Store.Put", "syntax go example.com/goapp/store ", "syntax go example.com/goapp/store Store."},
		{"syntax go example.com/goapp/cmd/goapp main", "syntax go example.com/goapp/cmd/goapp ", "syntax go example.com/goapp/cmd/goapp "},
		{"p.A", "", "p."},
		{"", "", ""},
		{"a/", "a/", "a/"},
	} {
		owner, parent := symbolOwners(c.sym)
		if c.sym[:owner] != c.owner || c.sym[:parent] != c.parent {
			t.Errorf("symbolOwners(%q) = %q, %q; want %q, %q", c.sym, c.sym[:owner], c.sym[:parent], c.owner, c.parent)
		}
	}
	method, field := symbolHash(pebble+"DB#maybeScheduleCompaction()."), symbolHash(pebble+"DB#mu.")
	open := symbolHash(pebble + "Open().")
	other := symbolHash("scip-go gomod github.com/cockroachdb/pebble f82e3ff74d10 `github.com/cockroachdb/pebble/sstable`/Open().")
	if method>>32 != field>>32 || method == field {
		t.Errorf("members of DB: ids %016x and %016x, want the same top 32 bits and different ids", method, field)
	}
	if method>>48 != open>>48 || method>>32 == open>>32 {
		t.Errorf("DB#maybeScheduleCompaction and Open: ids %016x and %016x, want the same top 16 bits only", method, open)
	}
	if open>>48 == other>>48 {
		t.Errorf("Open of two packages: ids %016x and %016x, want different top 16 bits", open, other)
	}
}

// squattedGeneration begins a generation of s in which another string
// holds the id home.
func squattedGeneration(t *testing.T, s *Store, home uint64) *GenerationWriter {
	t.Helper()
	g, err := s.BeginGeneration(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	g.syms.claim(g.space, home, "squatter")
	g.mu.Unlock()
	return g
}

// TestStoreSymIDsPrefetch: a table's prefetch finds the ids the space
// holds, the one after a symbol's hash when another string holds that, as
// one lookup each would, and leaves the symbols the space lacks to
// symID.
func TestStoreSymIDsPrefetch(t *testing.T) {
	ctx := context.Background()
	s, err := Open("prefetch", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	home := symbolHash("p.B")
	g := squattedGeneration(t, s, home)
	f := DocumentFacts{
		Document:    Document{Path: "a.go"},
		Symbols:     []Symbol{{ID: "p.A"}, {ID: "p.B"}},
		Occurrences: []Occurrence{{Symbol: "p.B", Roles: RoleReference, Enclosing: "p.A"}},
	}
	if err := g.PutDocument(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(ctx, Manifest{}); err != nil {
		t.Fatal(err)
	}
	space := genSpace(g.Generation())
	fetched := newStoreSymIDs(s.db, nil, space, false)
	if err := fetched.prefetch(factSymbols([]string{"absent", "p.B"}, &f)); err != nil {
		t.Fatal(err)
	}
	looked := newStoreSymIDs(s.db, nil, space, false)
	for _, sym := range []string{"p.A", "p.B", "absent"} {
		want, _, err := looked.symID(sym)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := fetched.known[sym]
		if sym == "absent" {
			if ok {
				t.Errorf("prefetch found %q, which the space lacks, at %s", sym, formatSymID(got))
			}
			continue
		}
		if !ok || got != want {
			t.Errorf("prefetch gave %q %s (found %v), a lookup %s", sym, formatSymID(got), ok, formatSymID(want))
		}
	}
	if fetched.known["p.B"] != home+1 {
		t.Errorf("p.B at %s, want the id after its hash %s", formatSymID(fetched.known["p.B"]), formatSymID(home+1))
	}
}

// TestDocIDsHashed checks which documents their writers mark as holding
// only ids that are their symbols' hashes (docIDsHashed): not one that
// names a symbol whose hash another string holds, in a generation, the
// live layer or a patch. Replacing and deleting documents, marked ones
// without a look-up of their ids, must leave what writing the final
// documents anew leaves.
func TestDocIDsHashed(t *testing.T) {
	ctx := context.Background()
	at := func(line uint32) textpos.Range {
		return textpos.Range{Start: textpos.Position{Line: line, Col: 1}, End: textpos.Position{Line: line, Col: 2}}
	}
	facts := func(path, from, to string) DocumentFacts {
		return DocumentFacts{
			Document: Document{Path: path, Package: "p"},
			Symbols:  []Symbol{{ID: from, DisplayName: from, Def: Location{Path: path, Range: at(1)}}},
			Occurrences: []Occurrence{
				{Symbol: from, Range: at(1), Roles: RoleDefinition},
				{Symbol: to, Range: at(2), Roles: RoleReference, Enclosing: from},
				{Symbol: "local 1 " + path, Range: at(3), Roles: RoleReference, Enclosing: from},
			},
			Edges: []Edge{{From: from, Kind: EdgeCalls, To: to, Confidence: 1}},
		}
	}
	home := symbolHash("p.B")
	// open returns a store whose generation holds a.go and b.go, with
	// p.B's hash held by another string there and in the live layer.
	open := func(name string, base ...DocumentFacts) *Store {
		s, err := Open(name, Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		g := squattedGeneration(t, s, home)
		for _, f := range base {
			if err := g.PutDocument(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Commit(ctx, Manifest{}); err != nil {
			t.Fatal(err)
		}
		b := s.db.NewBatch()
		defer b.Close()
		if err := b.Set(appendSymIDKey(nil, spaceLive, home), []byte("squatter"), nil); err != nil {
			t.Fatal(err)
		}
		if err := s.commit(b, pebble.Sync); err != nil {
			t.Fatal(err)
		}
		return s
	}
	hashedIDs := func(s *Store, space uint64, path string) bool {
		t.Helper()
		_, hashed, ok, err := readDocFactsHashed(ctx, s.db, space, path)
		if err != nil || !ok {
			t.Fatalf("reading %s in %s: %v, found %v", path, spaceName(space), err, ok)
		}
		return hashed
	}
	s := open("hashed", facts("a.go", "p.A", "p.C"), facts("b.go", "p.D", "p.B"))
	defer s.Close()
	gen := genSpace(1)
	if !hashedIDs(s, gen, "a.go") || hashedIDs(s, gen, "b.go") {
		t.Errorf("generation: a.go marked %v, b.go (names p.B) %v; want true, false", hashedIDs(s, gen, "a.go"), hashedIDs(s, gen, "b.go"))
	}
	for _, f := range []DocumentFacts{facts("c.go", "q.C", "p.B"), facts("d.go", "q.D", "p.A"), facts("e.go", "q.E", "p.A")} {
		if err := s.PutDocument(ctx, Live, f); err != nil {
			t.Fatal(err)
		}
	}
	if hashedIDs(s, spaceLive, "c.go") || !hashedIDs(s, spaceLive, "d.go") {
		t.Errorf("live: c.go (names p.B) marked %v, d.go %v; want false, true", hashedIDs(s, spaceLive, "c.go"), hashedIDs(s, spaceLive, "d.go"))
	}
	// Live: the marked d.go takes p.B, c.go loses it; e.go goes, and f.go
	// takes the marked d.go's place.
	for _, f := range []DocumentFacts{facts("d.go", "q.D", "p.B"), facts("c.go", "q.C", "p.A")} {
		if err := s.PutDocument(ctx, Live, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteDocument(ctx, Live, "e.go"); err != nil {
		t.Fatal(err)
	}
	if err := s.RenameDocument(ctx, Live, "c.go", "f.go"); err != nil {
		t.Fatal(err)
	}
	if !hashedIDs(s, spaceLive, "f.go") || hashedIDs(s, spaceLive, "d.go") {
		t.Errorf("live after replacing: f.go marked %v, d.go (names p.B) %v; want true, false", hashedIDs(s, spaceLive, "f.go"), hashedIDs(s, spaceLive, "d.go"))
	}
	// A patch: the marked a.go takes p.B, b.go loses it.
	p, err := s.BeginPatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Warm(ctx, []string{"a.go", "b.go"})
	for _, f := range []DocumentFacts{facts("a.go", "p.A", "p.B"), facts("b.go", "p.D", "p.C")} {
		if err := p.PutDocument(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Commit(ctx, Manifest{}); err != nil {
		t.Fatal(err)
	}
	if hashedIDs(s, gen, "a.go") || !hashedIDs(s, gen, "b.go") {
		t.Errorf("patch: a.go (names p.B) marked %v, b.go %v; want false, true", hashedIDs(s, gen, "a.go"), hashedIDs(s, gen, "b.go"))
	}

	fresh := open("fresh", facts("a.go", "p.A", "p.B"), facts("b.go", "p.D", "p.C"))
	defer fresh.Close()
	moved := facts("c.go", "q.C", "p.A")
	moveFacts(&moved, "c.go", "f.go") // as RenameDocument moves them
	for _, f := range []DocumentFacts{facts("d.go", "q.D", "p.B"), moved} {
		if err := fresh.PutDocument(ctx, Live, f); err != nil {
			t.Fatal(err)
		}
	}
	records := func(s *Store) string {
		t.Helper()
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var keep []string
		for l := range strings.Lines(dumpString(t, r)) {
			// A space's symbol table keeps every id it gave.
			if !strings.HasPrefix(l, "meta/") && !strings.Contains(l, "/symid ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "")
	}
	if got, want := records(s), records(fresh); got != want {
		t.Errorf("replacing and deleting left other records than writing anew:\n%s\nwant:\n%s", got, want)
	}
}

// collidingSymbols returns two symbol strings of one owner and parent
// whose hashes agree: the low 32 bits of a hash collide, by the birthday
// bound, among some 100,000 siblings.
func collidingSymbols(t *testing.T) (string, string) {
	t.Helper()
	seen := make(map[uint64]string)
	for i := range 1 << 20 {
		s := fmt.Sprintf("p.f%d", i)
		h := symbolHash(s)
		if other, ok := seen[h]; ok {
			return other, s
		}
		seen[h] = s
	}
	t.Fatal("no two symbols' hashes collide")
	return "", ""
}

// TestSymbolIDCollisionInDocument writes one document naming two symbols
// whose hashes collide, neither known to the space before, into a new
// generation and into the live layer: each keeps an id of its own, so that
// neither's symbol, definition or references are the other's.
func TestSymbolIDCollisionInDocument(t *testing.T) {
	ctx := context.Background()
	a, b := collidingSymbols(t)
	at := func(line uint32) textpos.Range {
		return textpos.Range{Start: textpos.Position{Line: line, Col: 1}, End: textpos.Position{Line: line, Col: 2}}
	}
	f := DocumentFacts{
		Document: Document{Path: "a.go"},
		Symbols: []Symbol{
			{ID: a, DisplayName: "A", Def: Location{Path: "a.go", Range: at(1)}},
			{ID: b, DisplayName: "B", Def: Location{Path: "a.go", Range: at(2)}},
		},
		Occurrences: []Occurrence{
			{Symbol: a, Range: at(1), Roles: RoleDefinition},
			{Symbol: b, Range: at(2), Roles: RoleDefinition},
			{Symbol: b, Range: at(3), Roles: RoleReference, Enclosing: a},
		},
	}
	for _, layer := range []Layer{Base, Live} {
		s, err := Open("collide-"+layer.String(), Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if layer == Base {
			g, err := s.BeginGeneration(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.PutDocument(ctx, f); err != nil {
				t.Fatal(err)
			}
			if err := g.Commit(ctx, Manifest{}); err != nil {
				t.Fatal(err)
			}
		} else if err := s.PutDocument(ctx, Live, f); err != nil {
			t.Fatal(err)
		}
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for sym, name := range map[string]string{a: "A", b: "B"} {
			if got, ok, err := r.Symbol(ctx, sym); err != nil || !ok || got.DisplayName != name {
				t.Errorf("%s: Symbol(%s) = %+v, %v, %v; want %s", layer, sym, got, ok, err, name)
			}
		}
		if refs, err := r.References(ctx, a, 0); err != nil || len(refs) != 1 || refs[0].Range != at(1) {
			t.Errorf("%s: References(%s) = %+v, %v; want its definition alone", layer, a, refs, err)
		}
		if refs, err := r.References(ctx, b, 0); err != nil || len(refs) != 2 {
			t.Errorf("%s: References(%s) = %+v, %v; want its definition and one use", layer, b, refs, err)
		}
	}
}

// TestGenSymTableRegister registers the ids documents gave their symbols
// in a generation's table, again and again (the later ones found in the
// table's recent ids), then a symbol whose hash collides with one held:
// the table must refuse it however it found the holder, and give back
// the ids the refused document took.
func TestGenSymTableRegister(t *testing.T) {
	a, b := collidingSymbols(t)
	var emitted []string
	tab := newGenSymTable(func(k, v []byte) { emitted = append(emitted, string(v)) })
	given := func(seeded bool, syms ...string) *hashSymIDs {
		h := &hashSymIDs{}
		if seeded {
			h.seed = &tab.seed
		}
		for _, s := range syms {
			if _, _, err := h.symID(s); err != nil {
				t.Fatal(err)
			}
		}
		return h
	}
	register := func(want bool, wantEmitted []string, seeded bool, syms ...string) {
		t.Helper()
		emitted = nil
		if got := tab.register(1, given(seeded, syms...)); got != want {
			t.Errorf("register(%q) = %v, want %v", syms, got, want)
		}
		if !slices.Equal(emitted, wantEmitted) {
			t.Errorf("register(%q) added the symid records of %q, want %q", syms, emitted, wantEmitted)
		}
	}
	register(true, []string{a, "p.X"}, true, a, "p.X")
	for range 3 {
		register(true, nil, true, a, "p.X")
		register(true, nil, false, "p.X", a)
	}
	register(false, nil, true, b)
	register(false, nil, false, b)
	register(false, nil, true, "p.Y", b)
	if _, held := tab.ids[symbolHash("p.Y")]; held {
		t.Error("a refused document's new id stayed in the table")
	}
	register(true, []string{"p.Y"}, true, "p.Y")
	register(true, nil, true, a, "p.Y")
}
