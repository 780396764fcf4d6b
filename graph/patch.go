package graph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// BasePatch changes a few documents of the current base generation in
// place and commits them at once: what a producer does instead of writing
// a whole new generation when it knows that only those documents' facts
// changed (syntax.Index after a small edit). Every document put replaces
// the one of its path, every document deleted goes, with all the index
// records they wrote; nothing is visible until Commit, which applies the
// whole patch and the new manifest in one atomic batch (readers see the
// generation before or after it, never between), and raises the store's
// version. Unlike a GenerationWriter's, a patch's records are held in
// memory until Commit: it suits a small part of a generation.
//
// While a patch is open no generation can be begun; base writes through
// Store.PutDocument or DeleteDocument to the patched documents are not
// allowed (the patch read their records when they were put).
type BasePatch struct {
	s     *Store
	gen   uint64
	space uint64

	mu  sync.Mutex
	b   *pebble.Batch
	ids *storeSymIDs // claims the ids of new symbols, in b
	// storeIDs holds tables that find the ids the store holds, claiming
	// none: the old records of the documents replaced are read through
	// them, outside mu, and Warm leaves what it found in them.
	storeIDs sync.Pool
	touched  map[string]bool // paths put or deleted
	delta    patchCounts
	done     bool
}

// patchCounts are what a patch adds to the generation's counts (negative
// for what it removes).
type patchCounts struct {
	documents, symbols, occurrences, edges, termDocuments, termLength int
}

// PatchLimit is how many of a base generation's n documents a producer
// should replace or delete through one BasePatch at most: past it, a new
// generation costs less. A patch holds its records in memory until it
// commits, and its producer what it read to make them: an index of four
// GOROOT copies (27,304 files) patching 828 documents peaked at 362 MB,
// 1,090 at 364-448 MB, past the 400 MB an index may take. Below that a
// patch is the cheaper by far (with every file's facts cached): 828 of
// those documents in 2.1 s against 11.7-14.1 s for a new generation; 527
// of one copy's 6,826 in 1.2 s against 2.8 s, at 197 against 189 MB; 160
// of the pebble dump's 815 re-imported in 0.26-0.29 s against 0.47-0.50
// s. So: a fifth of the documents, at most 700; one in 40 in a generation
// large enough for that to be more; 100 however small the generation.
func PatchLimit(n int) int { return max(n/40, min(n/5, 700), 100) }

// BeginPatch starts a patch of the current base generation. A store
// without a base generation yields an error wrapping ErrNotFound.
func (s *Store) BeginPatch(ctx context.Context) (*BasePatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable(); err != nil {
		return nil, err
	}
	if s.gen != nil {
		return nil, fmt.Errorf("graph: generation %d is being written in %s", s.gen.gen, s.dir)
	}
	if s.patch != nil {
		return nil, fmt.Errorf("graph: base generation %d is already being patched in %s", s.patch.gen, s.dir)
	}
	gen, err := currentGen(s.db)
	if err != nil {
		return nil, err
	}
	if gen == 0 {
		return nil, fmt.Errorf("graph: patching %s: no base generation: %w", s.dir, ErrNotFound)
	}
	p := &BasePatch{s: s, gen: gen, space: genSpace(gen), b: s.db.NewBatch(), touched: map[string]bool{}}
	p.ids = newStoreSymIDs(s.db, p.b, p.space, true)
	p.storeIDs.New = func() any { return newStoreSymIDs(s.db, nil, p.space, false) }
	s.patch = p
	return p, nil
}

// Generation returns the number of the generation patched.
func (p *BasePatch) Generation() uint64 { return p.gen }

// PutDocument replaces the document of f's path (or adds it). A path is
// put or deleted once per patch.
func (p *BasePatch) PutDocument(ctx context.Context, f DocumentFacts) error {
	nf, err := normalizeFacts(f)
	if err != nil {
		return err
	}
	path := nf.Document.Path
	p.mu.Lock()
	err = p.claimLocked(path)
	p.mu.Unlock()
	if err != nil {
		return err
	}
	// The old records by key, each kept when the new document writes it
	// again with the same value: an edit changes a few of a document's
	// records, and the patch writes (and commits, logs and flushes) only
	// those. They are read outside the lock, in parallel with other
	// documents': every id they hold is the store's already.
	old, hashed, had, err := readDocFactsHashed(ctx, p.s.db, p.space, path)
	if err != nil {
		return fmt.Errorf("graph: patching document %q in generation %d: %w", path, p.gen, err)
	}
	was := map[string]string{}
	stored := p.storeIDs.Get().(*storeSymIDs)
	defer p.storeIDs.Put(stored)
	err = replaceOld(p.space, &old, hashed, had, &nf, stored, func(k, v []byte) error {
		was[string(k)] = string(v)
		return nil
	})
	if err != nil {
		return fmt.Errorf("graph: patching document %q in generation %d: %w", path, p.gen, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.usable(); err != nil {
		return err
	}
	if had {
		p.delta.add(old, -1)
	}
	err = emitRecords(p.space, &nf, storedFirst{stored, p.ids}, func(k, v []byte) error {
		if ov, ok := was[string(k)]; ok {
			delete(was, string(k))
			if ov == string(v) {
				return nil
			}
		}
		return p.b.Set(k, v, nil)
	})
	if err != nil {
		return fmt.Errorf("graph: patching document %q in generation %d: %w", path, p.gen, err)
	}
	for k := range was {
		if err := p.b.Delete([]byte(k), nil); err != nil {
			return fmt.Errorf("graph: patching document %q in generation %d: %w", path, p.gen, err)
		}
	}
	p.delta.add(nf, 1)
	return nil
}

// PutLookups replaces the lookups record (DocumentFacts.Lookups) of a
// document the generation has, its facts left as they are: a producer
// updating what it recorded of a document that did not change (a file's
// time, once old enough to vouch for its version). A path is put, deleted
// or given lookups once per patch.
func (p *BasePatch) PutLookups(path string, lookups []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.usable(); err != nil {
		return err
	}
	if p.touched[path] {
		return fmt.Errorf("graph: document %q is patched twice in generation %d", path, p.gen)
	}
	p.touched[path] = true
	if err := p.b.Set(appendDocLookupsKey(nil, p.space, path), lookups, nil); err != nil {
		return fmt.Errorf("graph: patching the lookups of %q in generation %d: %w", path, p.gen, err)
	}
	return nil
}

// DeleteDocument removes the document at path, if the generation has it.
func (p *BasePatch) DeleteDocument(ctx context.Context, path string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.removeLocked(ctx, path)
	return err
}

// Warm reads what paths hold in the patched generation (their records and
// the ids of the symbols they name) through the store's block cache and
// changes nothing: a caller that knows which documents it will replace
// runs it beside the work that comes first, so that replacing them finds
// their blocks read and their symbols' ids known already. It
// stops at ctx's end and never fails: what it could not read is read
// again when needed.
func (p *BasePatch) Warm(ctx context.Context, paths []string) {
	// A table that claims nothing: a symbol named twice is read once, the
	// patch's table is left to the patch, and the ids found serve the
	// reading of these documents' old records when they are replaced.
	ids := p.storeIDs.Get().(*storeSymIDs)
	defer p.storeIDs.Put(ids)
	for _, path := range paths {
		if ctx.Err() != nil || p.s.closed.Load() {
			return
		}
		if touchDocHashed(p.s.db, p.space, path) {
			continue // a document whose ids are its symbols' hashes needs none found
		}
		f, _, ok, err := readDocFactsHashed(ctx, p.s.db, p.space, path)
		if err != nil || !ok {
			continue
		}
		_ = ids.prefetch(factSymbols(nil, &f))
	}
}

// touchDocHashed reads a document's records into the block cache without
// decoding them when its record says its ids are its symbols' hashes
// (docIDsHashed), and reports whether it did: a document that is not so
// (or unreadable) is left to the caller.
func touchDocHashed(r kvReader, space uint64, path string) bool {
	hashed := false
	ok, err := view(r, appendDocKey(nil, space, path), func(v []byte) error {
		var err error
		_, hashed, err = decodeDocValueHashed(path, v)
		return err
	})
	if err != nil || !ok || !hashed {
		return false
	}
	touch := func([]byte) error { return nil }
	for _, key := range [][]byte{
		appendDocSymsKey(nil, space, path), appendDocOccKey(nil, space, path), appendDocEdgeKey(nil, space, path),
		appendDocTermsKey(nil, space, path), appendDocLookupsKey(nil, space, path),
	} {
		if _, err := view(r, key, touch); err != nil {
			return true
		}
	}
	return true
}

// replaceOld prepares the replacement of a document by nf: it finds,
// through stored, the ids of the symbols of the document's old facts (if
// it had any) and of nf that the space holds, in one pass, and emits the
// old facts' records into sink. The old ids need no look-up when the
// old document's record says they are their symbols' hashes (hashed);
// nf's symbols that the old facts named are then known too.
func replaceOld(space uint64, old *DocumentFacts, hashed, had bool, nf *DocumentFacts, stored *storeSymIDs, sink recordSink) error {
	if !had {
		return stored.prefetch(factSymbols(nil, nf))
	}
	if hashed {
		if err := emitOld(space, old, true, stored, sink); err != nil {
			return err
		}
		return stored.prefetch(factSymbols(nil, nf))
	}
	if err := stored.prefetch(factSymbols(factSymbols(nil, old), nf)); err != nil {
		return err
	}
	return emitRecords(space, old, stored, sink)
}

// factSymbols appends to dst every symbol f names: its symbols, its
// occurrences' symbols and enclosing symbols, its edges' ends.
func factSymbols(dst []string, f *DocumentFacts) []string {
	for i := range f.Symbols {
		dst = append(dst, f.Symbols[i].ID)
	}
	for i := range f.Occurrences {
		o := &f.Occurrences[i]
		dst = append(dst, o.Symbol)
		if o.Enclosing != "" {
			dst = append(dst, o.Enclosing)
		}
	}
	for i := range f.Edges {
		dst = append(dst, f.Edges[i].From, f.Edges[i].To)
	}
	return dst
}

// removeLocked adds the deletion of path's records to the batch and
// reports whether there were any. The caller holds p.mu.
func (p *BasePatch) removeLocked(ctx context.Context, path string) (bool, error) {
	if err := p.claimLocked(path); err != nil {
		return false, err
	}
	old, err := deleteDocumentWith(ctx, p.s.db, p.b, p.space, path, p.ids.lookups())
	if err != nil {
		return false, fmt.Errorf("graph: patching document %q in generation %d: %w", path, p.gen, err)
	}
	if old.Document.Path == "" {
		return false, nil
	}
	p.delta.add(old, -1)
	return true, nil
}

// storedFirst gives the ids stored knows (the store's, which never change)
// without reading them again, and asks claim for the others.
type storedFirst struct{ stored, claim *storeSymIDs }

func (x storedFirst) symID(sym string) (uint64, bool, error) {
	if id, ok := x.stored.known[sym]; ok {
		return id, x.stored.hashed(sym), nil
	}
	return x.claim.symID(sym)
}

// claimLocked marks path as patched, refusing a path patched before. The
// caller holds p.mu.
func (p *BasePatch) claimLocked(path string) error {
	if err := p.usable(); err != nil {
		return err
	}
	if p.touched[path] {
		return fmt.Errorf("graph: document %q is patched twice in generation %d", path, p.gen)
	}
	p.touched[path] = true
	return nil
}

func (c *patchCounts) add(f DocumentFacts, sign int) {
	c.documents += sign
	c.symbols += sign * len(f.Symbols)
	c.occurrences += sign * len(f.Occurrences)
	c.edges += sign * len(f.Edges)
	docs, length := termTotals(f.Terms)
	c.termDocuments += sign * docs
	c.termLength += sign * length
}

func (p *BasePatch) usable() error {
	if p.s.closed.Load() {
		return ErrClosed
	}
	if p.done {
		return errors.New("graph: base patch already committed or aborted")
	}
	return nil
}

// Commit applies the patch with m as the base manifest, atomically. m's
// Layer and Generation are set by the patch; its zero counts are the
// previous manifest's with the patch's changes applied (a producer that
// counts the whole generation its own way gives its counts), and its
// State, Started and Finished are filled as a GenerationWriter's Commit
// fills them. The generation must still be the current one.
func (p *BasePatch) Commit(ctx context.Context, m Manifest) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.usable(); err != nil {
		return err
	}
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	defer p.finish()
	cur, err := currentGen(s.db)
	if err != nil {
		return err
	}
	if cur != p.gen {
		return fmt.Errorf("graph: base generation %d was replaced by %d while it was patched", p.gen, cur)
	}
	prev, _, err := readManifest(s.db, Base)
	if err != nil {
		return err
	}
	m.Layer, m.Generation = Base, p.gen
	m.State = cmp.Or(m.State, StateComplete)
	m.Documents = cmp.Or(m.Documents, prev.Documents+p.delta.documents)
	m.Symbols = cmp.Or(m.Symbols, prev.Symbols+p.delta.symbols)
	m.Occurrences = cmp.Or(m.Occurrences, prev.Occurrences+p.delta.occurrences)
	m.Edges = cmp.Or(m.Edges, prev.Edges+p.delta.edges)
	if terms := prev.Extra[ManifestTermDocuments] + p.delta.termDocuments; terms > 0 {
		if m.Extra == nil {
			m.Extra = map[string]int{}
		}
		m.Extra[ManifestTermDocuments] = terms
	}
	if n, ok := prev.Extra[ManifestTermLength]; ok {
		if m.Extra == nil {
			m.Extra = map[string]int{}
		}
		m.Extra[ManifestTermLength] = n + p.delta.termLength
	} else if m.Extra != nil {
		delete(m.Extra, ManifestTermLength) // not known: counted from the documents
	}
	if m.Started.IsZero() {
		m.Started = time.Now().UTC()
	}
	if m.Finished.IsZero() {
		m.Finished = time.Now().UTC()
	}
	if err := putManifest(p.b, m); err != nil {
		return err
	}
	if err := s.commitNoting(p.b, pebble.Sync, Base, layerChange{paths: slices.Sorted(maps.Keys(p.touched))}); err != nil {
		return fmt.Errorf("graph: committing the patch of generation %d: %w", p.gen, err)
	}
	// Written out to a table now, the patch is not replayed from the log
	// by every process that opens the store next, until something flushes
	// it: after a re-index of 64 files of GOROOT (a 5.8 MB log), `lspgraph
	// status` took 0.16-0.20 s instead of 0.01-0.04, and the re-index
	// 0.1 s more for the flush. A flush that fails leaves the log to be
	// replayed, as before.
	_ = s.db.Flush()
	return nil
}

// Abort discards the patch. Aborting a committed or aborted patch does
// nothing.
func (p *BasePatch) Abort() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return nil
	}
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	p.finish()
	return nil
}

// finish releases the batch and the store's slot. The caller holds p.mu
// and p.s.mu.
func (p *BasePatch) finish() {
	p.done = true
	_ = p.b.Close()
	if p.s.patch == p {
		p.s.patch = nil
	}
}
