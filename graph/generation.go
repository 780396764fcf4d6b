package graph

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/lspgraph/lspgraph/internal/freelist"
)

// GenerationWriter writes one new base generation. Its methods are safe for
// concurrent use. Nothing it writes is visible until Commit.
type GenerationWriter struct {
	s       *Store
	gen     uint64
	space   uint64
	prev    uint64 // space of the generation being replaced, 0 if none
	started time.Time

	mu      sync.Mutex
	chunk   chunk               // records neither spilled nor ingested
	values  *valueFile          // large records not ingested (see largeValue), nil if none
	large   int                 // the value length that makes a record large
	limit   int                 // chunk size that makes it spill
	sizes   mergeSizes          // run marks and sstables a merge cuts
	runs    []*runFile          // sorted run files spilled, oldest first
	files   int                 // run files and sstables created so far
	written map[string]struct{} // paths written, to replace duplicates
	syms    genSymTable         // the generation's symbol ids
	counts  genCounts
	done    bool
	guard   bool // Commit applies CheckShrink

	// Full chunks are written to their run files outside mu, so that
	// producers go on meanwhile; flush and finish wait for them.
	spilling sync.WaitGroup
	spillMu  sync.Mutex
	spillErr error  // the first failed spill's
	spare    *chunk // a spilled chunk, for reuse
	// encoders holds the encodedDocs between documents, one per
	// concurrent writer at most. Not a sync.Pool: every collection empties
	// one, and a generation's load runs a dozen, each of which made the
	// next documents grow their buffers again.
	encoders freelist.List[*encodedDoc]
}

// encodedDoc is a document's records encoded outside the writer's lock,
// and the symbol ids they were given.
type encodedDoc struct {
	chunk
	ids  hashSymIDs
	norm normalizer    // the document's normalized facts
	emit recordEmitter // and the buffers encoding them
}

// genCounts are what a generation writer has written.
type genCounts struct {
	documents, symbols, occurrences, edges, reused int
	termDocuments, termLength                      int // documents with terms, their lengths summed
}

// BeginGeneration starts a new base generation. Nothing is visible to
// readers until Commit switches to it atomically. Only one generation can
// be written at a time.
func (s *Store) BeginGeneration(ctx context.Context) (*GenerationWriter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable(); err != nil {
		return nil, err
	}
	if s.gen != nil {
		return nil, fmt.Errorf("graph: generation %d is already being written in %s", s.gen.gen, s.dir)
	}
	if s.patch != nil {
		return nil, fmt.Errorf("graph: base generation %d is being patched in %s", s.patch.gen, s.dir)
	}
	cur, err := currentGen(s.db)
	if err != nil {
		return nil, err
	}
	b := s.db.NewBatch()
	defer b.Close()
	gen, err := allocGeneration(s.db, b)
	if err != nil {
		return nil, err
	}
	if err := b.Set(appendPendingKey(nil, gen), nil, nil); err != nil {
		return nil, err
	}
	if err := s.commit(b, pebble.Sync); err != nil {
		return nil, fmt.Errorf("graph: starting generation %d: %w", gen, err)
	}
	g := &GenerationWriter{
		s: s, gen: gen, space: genSpace(gen), prev: genSpaceOrZero(cur),
		started: time.Now().UTC(), written: map[string]struct{}{}, limit: chunkBytes, large: largeValue, sizes: defaultMergeSizes,
	}
	g.chunk.reserve = g.limit
	g.syms = newGenSymTable(func(k, v []byte) { g.chunk.add(k, v) })
	s.gen = g
	return g, nil
}

// Generation returns the number of the generation being written.
func (g *GenerationWriter) Generation() uint64 { return g.gen }

// PutDocument writes one document's facts into the new generation. Writing
// the same path twice replaces the first write.
func (g *GenerationWriter) PutDocument(ctx context.Context, f DocumentFacts) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Normalize and encode the records before taking the lock, in buffers
	// kept from document to document; only copying them into the pending
	// chunk is serialized.
	rec := g.encoders.Get(func() *encodedDoc { return &encodedDoc{} })
	rec.ids.seed = &g.syms.seed
	defer func() {
		rec.reset()
		rec.ids.reset()
		g.encoders.Put(rec)
	}()
	nf, err := rec.norm.facts(f)
	if err != nil {
		return err
	}
	if err := rec.emit.emit(g.space, &nf, &rec.ids, func(k, v []byte) error { rec.add(k, v); return nil }); err != nil {
		return fmt.Errorf("graph: writing document %q in generation %d: %w", nf.Document.Path, g.gen, err)
	}
	g.mu.Lock()
	err = g.putEncodedLocked(ctx, &nf, rec)
	var full *chunk
	var run *runFile
	if err == nil && g.chunk.size() >= g.limit {
		// One chunk is spilled at a time, so that a writer holds two at
		// most: wait for the one before, whose memory the next reuses.
		g.spilling.Wait()
		full, run = g.startSpill()
	}
	g.mu.Unlock()
	if err != nil || full == nil {
		return err
	}
	return g.finishSpill(full, run)
}

// usable reports why the writer cannot be used, if it cannot. The caller
// holds g.mu.
func (g *GenerationWriter) usable() error {
	if g.s.closed.Load() {
		return ErrClosed
	}
	if g.done {
		return errors.New("graph: generation writer already committed or aborted")
	}
	return nil
}

func (g *GenerationWriter) putLocked(ctx context.Context, f *DocumentFacts) error {
	if err := g.putEncodedLocked(ctx, f, nil); err != nil {
		return err
	}
	if g.chunk.size() >= g.limit {
		return g.spill()
	}
	return nil
}

// putEncodedLocked writes f, whose records are rec if not nil (else they
// are encoded here), into the pending chunk. The caller holds g.mu.
func (g *GenerationWriter) putEncodedLocked(ctx context.Context, f *DocumentFacts, rec *encodedDoc) error {
	if err := g.usable(); err != nil {
		return err
	}
	path := f.Document.Path
	if _, dup := g.written[path]; dup {
		old, err := g.deleteWritten(ctx, path)
		if err != nil {
			return fmt.Errorf("graph: replacing document %q in generation %d: %w", path, g.gen, err)
		}
		g.counts.symbols -= len(old.Symbols)
		g.counts.occurrences -= len(old.Occurrences)
		g.counts.edges -= len(old.Edges)
		docs, length := termTotals(old.Terms)
		g.counts.termDocuments -= docs
		g.counts.termLength -= length
	} else {
		g.written[path] = struct{}{}
		g.counts.documents++
	}
	if rec != nil && g.syms.register(g.space, &rec.ids) {
		if err := g.addAll(&rec.chunk); err != nil {
			return err
		}
	} else if err := emitRecords(g.space, f, tableSymIDs{&g.syms, g.space}, g.add); err != nil {
		return fmt.Errorf("graph: writing document %q in generation %d: %w", path, g.gen, err)
	}
	g.counts.symbols += len(f.Symbols)
	g.counts.occurrences += len(f.Occurrences)
	g.counts.edges += len(f.Edges)
	docs, length := termTotals(f.Terms)
	g.counts.termDocuments += docs
	g.counts.termLength += length
	return nil
}

// startSpill takes the pending chunk to be spilled by finishSpill outside
// g.mu, and reserves its run file's place among the runs. The caller holds
// g.mu.
func (g *GenerationWriter) startSpill() (*chunk, *runFile) {
	run := &runFile{path: g.s.fs.PathJoin(g.s.dir, g.fileName("run"))}
	g.runs = append(g.runs, run)
	full := new(chunk)
	*full = g.chunk
	g.spillMu.Lock()
	if g.spare != nil {
		g.chunk, g.spare = *g.spare, nil
	} else {
		g.chunk = chunk{reserve: g.limit}
	}
	g.spillMu.Unlock()
	g.spilling.Add(1)
	return full, run
}

// finishSpill writes a chunk taken by startSpill to its run file.
func (g *GenerationWriter) finishSpill(c *chunk, run *runFile) error {
	defer g.spilling.Done()
	err := g.s.spillChunk(c, run, g.sizes)
	if err == nil {
		err = g.compactRuns()
	}
	c.reset()
	g.spillMu.Lock()
	defer g.spillMu.Unlock()
	g.spare = c
	if err != nil {
		err = fmt.Errorf("graph: writing generation %d: %w", g.gen, err)
		if g.spillErr == nil {
			g.spillErr = err
		}
	}
	return err
}

// waitSpills waits for the chunks being spilled and returns the first
// spill's error. The caller holds g.mu.
func (g *GenerationWriter) waitSpills() error {
	g.spilling.Wait()
	g.spillMu.Lock()
	defer g.spillMu.Unlock()
	return g.spillErr
}

// spill writes the pending chunk, sorted, to a run file, to be merged with
// the others when the generation is flushed.
func (g *GenerationWriter) spill() error {
	run := &runFile{path: g.s.fs.PathJoin(g.s.dir, g.fileName("run"))}
	if err := g.s.spillChunk(&g.chunk, run, g.sizes); err != nil {
		return fmt.Errorf("graph: writing generation %d: %w", g.gen, err)
	}
	g.runs = append(g.runs, run)
	g.chunk.reset()
	if err := g.compactRuns(); err != nil {
		return fmt.Errorf("graph: writing generation %d: %w", g.gen, err)
	}
	return nil
}

// compactRuns merges the last runs into one while the last sizes.fanIn of
// them are of one level, so that however many chunks a generation spills,
// its final merge reads fanIn-1 runs of each level at most and holds
// their blocks only. Each record is merged again once per level: at fanIn
// 512 and 4 MiB chunks, once in a generation of more than 2 GiB of
// records (of small values: large ones are in the value file), twice past
// 1 TiB. The caller holds g.mu, or is the one
// spill running: nothing else touches g.runs meanwhile, since a spill
// starts after the one before it ended and the final merge waits for
// every spill.
func (g *GenerationWriter) compactRuns() error {
	fanIn := g.sizes.fanIn
	for fanIn > 1 && len(g.runs) >= fanIn {
		last := g.runs[len(g.runs)-fanIn:]
		if !allOneLevel(last) {
			return nil
		}
		out := &runFile{path: g.s.fs.PathJoin(g.s.dir, g.fileName("run"))}
		if err := g.s.mergeRuns(last, out, g.sizes); err != nil {
			return err
		}
		for _, r := range last {
			_ = g.s.fs.Remove(r.path)
		}
		g.runs = append(g.runs[:len(g.runs)-fanIn], out)
	}
	return nil
}

// allOneLevel reports whether the runs are all of one level.
func allOneLevel(runs []*runFile) bool {
	for _, r := range runs {
		if r.level != runs[0].level {
			return false
		}
	}
	return true
}

// fileName names the next run file or sstable the writer creates.
func (g *GenerationWriter) fileName(ext string) string {
	g.files++
	return fmt.Sprintf("%s%d-%d.%s", ingestPrefix, g.gen, g.files, ext)
}

// add adds a record to the pending chunk, or to the value file if its
// value is large. The caller holds g.mu.
func (g *GenerationWriter) add(k, v []byte) error {
	if len(v) < g.large {
		g.chunk.add(k, v)
		return nil
	}
	if g.values == nil {
		vf, err := g.s.createValueFile(g.s.fs.PathJoin(g.s.dir, g.fileName("val")))
		if err != nil {
			return err
		}
		g.values = vf
	}
	return g.values.add(k, v)
}

// addAll adds the records of c as add does. The caller holds g.mu.
func (g *GenerationWriter) addAll(c *chunk) error {
	large := false
	for _, e := range c.ents {
		if int(e.end-e.v) >= g.large {
			large = true
			break
		}
	}
	if !large {
		g.chunk.addAll(c)
		return nil
	}
	for _, e := range c.ents {
		if err := g.add(c.key(e), c.value(e)); err != nil {
			return err
		}
	}
	return nil
}

// deleteWritten removes a document written earlier in this generation:
// its records are ingested first, so that deleting them (in a batch with a
// higher sequence number) and writing the new ones afterwards orders right.
func (g *GenerationWriter) deleteWritten(ctx context.Context, path string) (DocumentFacts, error) {
	if err := g.flush(); err != nil {
		return DocumentFacts{}, err
	}
	b := g.s.db.NewBatch()
	defer b.Close()
	old, err := deleteDocument(ctx, g.s.db, b, g.space, path)
	if err != nil {
		return old, err
	}
	return old, g.s.commit(b, pebble.NoSync)
}

// Flush writes the documents put so far to disk (durably, still invisible
// to readers) instead of waiting for the pending chunk to fill. Commit
// flushes too; producers rarely need to call it.
func (g *GenerationWriter) Flush() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usable(); err != nil {
		return err
	}
	return g.flush()
}

// flush merges the spilled runs and the pending records into sstables
// that do not overlap and ingests them.
func (g *GenerationWriter) flush() error {
	if err := g.waitSpills(); err != nil {
		return err
	}
	if g.chunk.empty() && len(g.runs) == 0 && g.values == nil {
		return nil
	}
	runs, vf := g.runs, g.values
	g.runs, g.values = nil, nil
	g.spillMu.Lock()
	g.spare = nil // the merge needs its memory more
	g.spillMu.Unlock()
	err := g.s.ingestMerged(context.Background(), runs, &g.chunk, vf, g.sizes, func() string { return g.fileName("sst") })
	g.chunk.reset()
	if vf != nil {
		vf.remove(g.s.fs)
	}
	if err != nil {
		return fmt.Errorf("graph: writing generation %d: %w", g.gen, err)
	}
	return nil
}

// PreviousDigest returns the Digest the current base generation records for
// path, so a producer can skip re-converting an unchanged document.
func (g *GenerationWriter) PreviousDigest(path string) (string, bool) {
	if g.prev == 0 || g.s.closed.Load() {
		return "", false
	}
	v, ok, err := get(g.s.db, appendDocKey(nil, g.prev, path))
	if err != nil || !ok {
		return "", false
	}
	d, err := decodeDocValue(path, v)
	if err != nil || d.Digest == "" {
		return "", false
	}
	return d.Digest, true
}

// ReuseDocument copies path's facts from the current base generation.
// A document absent there yields an error wrapping ErrNotFound.
func (g *GenerationWriter) ReuseDocument(ctx context.Context, path string) error {
	if g.s.closed.Load() {
		return ErrClosed
	}
	if g.prev == 0 {
		return fmt.Errorf("graph: reusing %q: no previous generation: %w", path, ErrNotFound)
	}
	f, ok, err := readDocFacts(ctx, g.s.db, g.prev, path)
	if err != nil {
		return fmt.Errorf("graph: reusing %q: %w", path, err)
	}
	if !ok {
		return fmt.Errorf("graph: reusing %q: not in base %s: %w", path, spaceName(g.prev), ErrNotFound)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.putLocked(ctx, &f); err != nil {
		return err
	}
	g.counts.reused++
	return nil
}

// RefuseShrink makes Commit refuse, with an error wrapping ErrShrink, a
// generation that [CheckShrink] refuses against the current base
// generation's manifest. The writer is then left uncommitted, for the
// caller to Abort; readers go on seeing the previous generation.
func (g *GenerationWriter) RefuseShrink() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.guard = true
}

// Commit records m and switches readers to the new generation atomically,
// then removes the previous generation with a range deletion. m's Layer and
// Generation are set by the writer; zero counts, State and times are filled
// from what was written. After RefuseShrink, a generation that loses most
// of the previous one's documents is refused (see CheckShrink).
func (g *GenerationWriter) Commit(ctx context.Context, m Manifest) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usable(); err != nil {
		return err
	}
	if err := g.checkShrink(g.fillManifest(m)); err != nil {
		return err
	}
	if err := g.flush(); err != nil {
		return err
	}
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	if err := g.switchTo(g.fillManifest(m)); err != nil {
		return err
	}
	g.finish()
	if g.prev != 0 {
		err := g.s.db.DeleteRange(spaceStart(g.prev), spaceStart(g.prev+1), pebble.NoSync)
		if err != nil {
			return fmt.Errorf("graph: removing the previous generation: %w", err)
		}
	}
	return nil
}

// checkShrink applies CheckShrink to m when the writer guards against
// shrinking and replaces a generation. The caller holds g.mu.
func (g *GenerationWriter) checkShrink(m Manifest) error {
	if !g.guard || g.prev == 0 {
		return nil
	}
	prev, ok, err := readManifest(g.s.db, Base)
	if err != nil {
		return err
	}
	if !ok || genSpaceOrZero(prev.Generation) != g.prev {
		return nil // a manifest that does not describe the generation replaced
	}
	return CheckShrink(prev, m)
}

// switchTo writes the manifest, the current-generation pointer and the end
// of the in-progress marker in one synced batch. The caller holds g.s.mu.
func (g *GenerationWriter) switchTo(m Manifest) error {
	b := g.s.db.NewBatch()
	defer b.Close()
	if err := putManifest(b, m); err != nil {
		return err
	}
	if err := b.Set(appendMetaKey(nil, kindCurrent), binary.BigEndian.AppendUint64(nil, g.gen), nil); err != nil {
		return err
	}
	if err := b.Delete(appendPendingKey(nil, g.gen), nil); err != nil {
		return err
	}
	if err := g.s.commitBase(b, pebble.Sync); err != nil {
		return fmt.Errorf("graph: switching to generation %d: %w", g.gen, err)
	}
	return nil
}

func (g *GenerationWriter) fillManifest(m Manifest) Manifest {
	m.Layer, m.Generation = Base, g.gen
	m.State = cmp.Or(m.State, StateComplete)
	m.Documents = cmp.Or(m.Documents, g.counts.documents)
	m.Symbols = cmp.Or(m.Symbols, g.counts.symbols)
	m.Occurrences = cmp.Or(m.Occurrences, g.counts.occurrences)
	m.Edges = cmp.Or(m.Edges, g.counts.edges)
	if m.Started.IsZero() {
		m.Started = g.started
	}
	if m.Finished.IsZero() {
		m.Finished = time.Now().UTC()
	}
	if g.counts.termDocuments == 0 && m.Extra != nil {
		m.Extra = maps.Clone(m.Extra)
		delete(m.Extra, ManifestTermLength) // no term records: nothing to count
	}
	if g.counts.termDocuments > 0 {
		if m.Extra == nil {
			m.Extra = map[string]int{}
		}
		m.Extra[ManifestTermDocuments] = g.counts.termDocuments
		m.Extra[ManifestTermLength] = g.counts.termLength
	}
	if g.counts.reused > 0 {
		if m.Extra == nil {
			m.Extra = map[string]int{}
		}
		if _, ok := m.Extra["reused"]; !ok {
			m.Extra["reused"] = g.counts.reused
		}
	}
	return m
}

// finish releases the writer's chunk and the store's generation slot. The
// caller holds g.mu and g.s.mu.
func (g *GenerationWriter) finish() {
	g.done = true
	_ = g.waitSpills() // reported by flush, or moot when aborting
	g.chunk = chunk{}
	g.spare = nil
	g.encoders.Drop()
	g.syms.release()
	for _, r := range g.runs {
		_ = g.s.fs.Remove(r.path)
	}
	g.runs = nil
	if g.values != nil {
		g.values.remove(g.s.fs)
		g.values = nil
	}
	if g.s.gen == g {
		g.s.gen = nil
	}
}

// Abort discards the new generation. Aborting a committed or aborted
// writer does nothing.
func (g *GenerationWriter) Abort() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done || g.s.closed.Load() {
		return nil
	}
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	g.finish()
	b := g.s.db.NewBatch()
	defer b.Close()
	// Records reach the store when they are ingested; a generation aborted
	// before any were leaves no range deletion behind, which every read of
	// the memtable would otherwise have to step over.
	if err := deleteRangeIfAny(g.s.db, b, spaceStart(g.space), spaceStart(g.space+1)); err != nil {
		return err
	}
	if err := b.Delete(appendPendingKey(nil, g.gen), nil); err != nil {
		return err
	}
	if err := g.s.commit(b, pebble.Sync); err != nil {
		return fmt.Errorf("graph: aborting generation %d: %w", g.gen, err)
	}
	return nil
}
