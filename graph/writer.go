package graph

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// PutDocument replaces a document's facts in a layer (Base: the current
// generation, in place; Live: the overlay) in one atomic batch. Writing the
// base layer of a store without a base generation starts a partial one.
// Base writes made while a GenerationWriter is active go to the generation
// it will replace.
func (s *Store) PutDocument(ctx context.Context, layer Layer, f DocumentFacts) error {
	nf, err := normalizeFacts(f)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	space, err := s.spaceForWrite(layer, true)
	if err != nil {
		return err
	}
	b := s.db.NewBatch()
	defer b.Close()
	// The ids of both versions' symbols, found through one iterator (as a
	// patch finds them): a lookup each, for the old records and again for
	// the new, was most of a live write's time.
	old, hashed, had, err := readDocFactsHashed(ctx, s.db, space, nf.Document.Path)
	if err != nil {
		return fmt.Errorf("graph: replacing %s document %q: %w", layer, nf.Document.Path, err)
	}
	stored := newStoreSymIDs(s.db, nil, space, false)
	if err := replaceOld(space, &old, hashed, had, &nf, stored, deleteFrom(b)); err != nil {
		return fmt.Errorf("graph: replacing %s document %q: %w", layer, nf.Document.Path, err)
	}
	if err := emitRecords(space, &nf, storedFirst{stored, newStoreSymIDs(s.db, b, space, true)}, setInto(b)); err != nil {
		return err
	}
	if err := s.adjustBaseTerms(b, layer, old.Terms, nf.Terms); err != nil {
		return err
	}
	return s.commitDoc(b, layer, nf.Document.Path)
}

// DeleteDocument removes everything a document contributed to a layer.
// Deleting an absent document is not an error.
func (s *Store) DeleteDocument(ctx context.Context, layer Layer, path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	space, err := s.spaceForWrite(layer, false)
	if err != nil || space == 0 {
		return err
	}
	b := s.db.NewBatch()
	defer b.Close()
	old, err := deleteDocument(ctx, s.db, b, space, path)
	if err != nil {
		return fmt.Errorf("graph: deleting %s document %q: %w", layer, path, err)
	}
	if err := s.adjustBaseTerms(b, layer, old.Terms, nil); err != nil {
		return err
	}
	return s.commitDoc(b, layer, path)
}

// RenameDocument moves a document's facts to a new path within a layer,
// replacing whatever the new path held. Definition locations in the moved
// document follow it; symbol ids are kept as they are.
// A missing source document yields an error wrapping ErrNotFound.
func (s *Store) RenameDocument(ctx context.Context, layer Layer, from, to string) error {
	if err := validID("path", to); err != nil || to == "" {
		return fmt.Errorf("graph: renaming %q to %q: invalid new path", from, to)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	space, err := s.spaceForWrite(layer, false)
	if err != nil {
		return err
	}
	f, hashed, ok, err := readDocFactsHashed(ctx, s.db, space, from)
	if err != nil {
		return fmt.Errorf("graph: renaming %s document %q: %w", layer, from, err)
	}
	if !ok || space == 0 {
		return fmt.Errorf("graph: renaming %s document %q: %w", layer, from, ErrNotFound)
	}
	b := s.db.NewBatch()
	defer b.Close()
	if err := emitOld(space, &f, hashed, newStoreSymIDs(s.db, b, space, false), deleteFrom(b)); err != nil {
		return err
	}
	replaced, err := deleteDocument(ctx, s.db, b, space, to)
	if err != nil {
		return err
	}
	if err := s.adjustBaseTerms(b, layer, replaced.Terms, nil); err != nil {
		return err
	}
	moveFacts(&f, from, to)
	nf, err := normalizeFacts(f)
	if err != nil {
		return err
	}
	if err := emitRecords(space, &nf, newStoreSymIDs(s.db, b, space, true), setInto(b)); err != nil {
		return err
	}
	return s.commitDoc(b, layer, to, from)
}

// moveFacts changes a document's path, and the definition locations of its
// symbols that point into it.
func moveFacts(f *DocumentFacts, from, to string) {
	f.Document.Path = to
	for i := range f.Symbols {
		if f.Symbols[i].Def.Path == from {
			f.Symbols[i].Def.Path = to
		}
	}
}

// ClearLayer removes every document of a layer (Live only).
func (s *Store) ClearLayer(ctx context.Context, layer Layer) error {
	if layer != Live {
		return fmt.Errorf("graph: only the live layer can be cleared, not %s", layer)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable(); err != nil {
		return err
	}
	b := s.db.NewBatch()
	defer b.Close()
	if err := b.DeleteRange(spaceStart(spaceLive), spaceStart(spaceLive+1), nil); err != nil {
		return fmt.Errorf("graph: clearing the live layer: %w", err)
	}
	if err := s.commitNoting(b, pebble.Sync, Live, layerChange{cleared: true}); err != nil {
		return fmt.Errorf("graph: clearing the live layer: %w", err)
	}
	return nil
}

// SetManifest records a layer's manifest (the live layer's, mostly).
// Generation is set by the store for the base layer.
func (s *Store) SetManifest(ctx context.Context, m Manifest) error {
	if m.Layer != Base && m.Layer != Live {
		return fmt.Errorf("graph: manifest for unknown layer %d", m.Layer)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable(); err != nil {
		return err
	}
	if m.Layer == Base {
		cur, err := currentGen(s.db)
		if err != nil {
			return err
		}
		m.Generation = cur
	}
	if _, kept := m.Extra[ManifestTermLength]; kept && m.Layer == Base {
		// The store keeps the term statistics; a manifest given whole
		// may hold older ones.
		m.Extra = maps.Clone(m.Extra)
		delete(m.Extra, ManifestTermLength)
	}
	b := s.db.NewBatch()
	defer b.Close()
	if err := putManifest(b, m); err != nil {
		return err
	}
	return s.commitLayer(b, pebble.Sync, m.Layer)
}

// adjustBaseTerms adds to b the base manifest with its term statistics
// (ManifestTermLength) moved by a document whose terms were removed and
// those added, when layer is Base and its manifest keeps them. The caller
// holds s.mu.
func (s *Store) adjustBaseTerms(b *pebble.Batch, layer Layer, removed, added []Term) error {
	if layer != Base {
		return nil
	}
	d0, l0 := termTotals(removed)
	d1, l1 := termTotals(added)
	if d0 == d1 && l0 == l1 {
		return nil
	}
	m, ok, err := readManifest(s.db, Base)
	if err != nil || !ok {
		return err
	}
	if _, kept := m.Extra[ManifestTermLength]; !kept {
		return nil
	}
	m.Extra[ManifestTermDocuments] += d1 - d0
	m.Extra[ManifestTermLength] += l1 - l0
	return putManifest(b, m)
}

func putManifest(b *pebble.Batch, m Manifest) error {
	v, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("graph: encoding %s manifest: %w", m.Layer, err)
	}
	return b.Set(appendManifestKey(nil, m.Layer), v, nil)
}

// spaceForWrite returns the space a layer's writes go to. For Base without
// a generation it starts one when create is set, else returns 0.
// The caller holds s.mu.
func (s *Store) spaceForWrite(layer Layer, create bool) (uint64, error) {
	if err := s.writable(); err != nil {
		return 0, err
	}
	switch layer {
	case Live:
		return spaceLive, nil
	case Base:
		cur, err := currentGen(s.db)
		if err != nil || cur != 0 || !create {
			return genSpaceOrZero(cur), err
		}
		return s.startPartialBase()
	}
	return 0, fmt.Errorf("graph: unknown layer %d", layer)
}

func genSpaceOrZero(gen uint64) uint64 {
	if gen == 0 {
		return 0
	}
	return genSpace(gen)
}

// startPartialBase makes a new, empty, current base generation marked
// partial, for stores written document by document. The caller holds s.mu.
func (s *Store) startPartialBase() (uint64, error) {
	b := s.db.NewBatch()
	defer b.Close()
	gen, err := allocGeneration(s.db, b)
	if err != nil {
		return 0, err
	}
	now := time.Now().UTC()
	if err := putManifest(b, Manifest{Layer: Base, Generation: gen, State: StatePartial, Started: now}); err != nil {
		return 0, err
	}
	if err := b.Set(appendMetaKey(nil, kindCurrent), binary.BigEndian.AppendUint64(nil, gen), nil); err != nil {
		return 0, err
	}
	if err := s.commitBase(b, pebble.Sync); err != nil {
		return 0, fmt.Errorf("graph: starting a base generation: %w", err)
	}
	return genSpace(gen), nil
}

// allocGeneration adds to b the allocation of the next generation number.
// The caller holds s.mu.
func allocGeneration(r kvReader, b *pebble.Batch) (uint64, error) {
	v, ok, err := get(r, appendMetaKey(nil, kindAlloc))
	if err != nil {
		return 0, err
	}
	var last uint64
	if ok && len(v) == 8 {
		last = binary.BigEndian.Uint64(v)
	}
	gen := last + 1
	return gen, b.Set(appendMetaKey(nil, kindAlloc), binary.BigEndian.AppendUint64(nil, gen), nil)
}

// deleteDocument adds to b the deletion of every record path wrote in
// space, and returns what it deleted.
func deleteDocument(ctx context.Context, r kvReader, b *pebble.Batch, space uint64, path string) (DocumentFacts, error) {
	return deleteDocumentWith(ctx, r, b, space, path, newStoreSymIDs(r, b, space, false))
}

// deleteDocumentWith is deleteDocument finding symbol ids through ids,
// which claims none.
func deleteDocumentWith(ctx context.Context, r kvReader, b *pebble.Batch, space uint64, path string, ids *storeSymIDs) (DocumentFacts, error) {
	f, hashed, ok, err := readDocFactsHashed(ctx, r, space, path)
	if err != nil || !ok {
		return DocumentFacts{}, err
	}
	return f, emitOld(space, &f, hashed, ids, deleteFrom(b))
}

// emitOld is emitRecords for a document's facts as the space holds them
// (read back), whose ids stored finds; when the document's record says
// they are their hashes (hashed), they are given so without a look-up,
// and stored learns them.
func emitOld(space uint64, f *DocumentFacts, hashed bool, stored *storeSymIDs, sink recordSink) error {
	if !hashed {
		return emitRecords(space, f, stored, sink)
	}
	var given hashSymIDs
	if err := emitRecords(space, f, &given, sink); err != nil {
		return err
	}
	stored.learnHashed(&given)
	return nil
}

func setInto(b *pebble.Batch) recordSink {
	return func(k, v []byte) error { return b.Set(k, v, nil) }
}

func deleteFrom(b *pebble.Batch) recordSink {
	return func(k, v []byte) error { return b.Delete(k, nil) }
}

func (s *Store) commitDoc(b *pebble.Batch, layer Layer, path string, changed ...string) error {
	if err := s.commitNoting(b, pebble.NoSync, layer, layerChange{paths: append(changed, path)}); err != nil {
		return fmt.Errorf("graph: writing %s document %q: %w", layer, path, err)
	}
	return nil
}
