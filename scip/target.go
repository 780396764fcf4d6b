package scip

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lspgraph/lspgraph/graph"
)

// maxHeldFacts bounds the facts (occurrences, edges and symbols) of the
// changed documents an import holds while it may still patch: about 100 MB.
// Past it the import writes a new generation.
const maxHeldFacts = 1 << 20

// An importTarget is where an import writes its documents: a new base
// generation, or a patch of the current one.
//
// An import of a dump from the tool and root the current base generation
// was imported from starts as a patch: a document whose digest is the one
// the generation records is left as it is, a changed one is converted and
// held, and at the end the changed documents and those the dump no longer
// has are written through one graph.BasePatch. A CI import of a commit that
// changed a few files then writes what changed, not the whole generation.
// Once more documents changed than a patch should write (graph.PatchLimit,
// maxHeldFacts), or at the end when the dump turns out to come from
// another tool or fewer documents stayed than changed, the import turns
// into a new generation: the documents found unchanged so far are reused
// from the current one, those held are put, and the rest of the dump
// streams into it. Either way the store ends with the same facts.
type importTarget struct {
	store *graph.Store
	opts  Options

	// Set while the import may patch: the current generation's manifest,
	// its documents' digests, and the store's base version when they were
	// read (a patch of a generation changed since is refused).
	prev        *graph.Manifest
	digests     map[string]string
	baseVersion uint64
	limit       int  // documents a patch may replace or delete
	based       bool // the store has a base generation (patched or not)

	mu        sync.Mutex
	gw        *graph.GenerationWriter // once writing a new generation
	unchanged []string                // while patching: documents left as they are
	changed   []graph.DocumentFacts   // while patching: documents to write
	held      int                     // facts in changed
	committed bool
}

// newImportTarget returns the target of an import into store of a dump
// from the workspace root.
func newImportTarget(ctx context.Context, store *graph.Store, root string, opts Options) (*importTarget, error) {
	t := &importTarget{store: store, opts: opts}
	ok, err := t.readBase(ctx, root)
	if err != nil {
		return nil, err
	}
	if !ok {
		if t.gw, err = t.begin(ctx); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// readBase reads what the import needs to patch the current generation,
// when it may: the generation is complete, imported from a dump of the
// same root by this converter.
func (t *importTarget) readBase(ctx context.Context, root string) (bool, error) {
	r, err := t.store.Reader()
	if err != nil {
		return false, fmt.Errorf("scip: reading the current generation: %w", err)
	}
	defer r.Close()
	m, ok, err := r.Manifest(graph.Base)
	if err != nil {
		return false, fmt.Errorf("scip: reading the current generation: %w", err)
	}
	t.based = ok
	if !ok || m.State != graph.StateComplete || m.Tool == "" || m.Root != root {
		return false, nil
	}
	digests := make(map[string]string, m.Documents)
	ours := false
	err = r.BaseDocuments(ctx, func(d graph.Document) error {
		digests[d.Path] = d.Digest
		ours = ours || strings.HasPrefix(d.Digest, converterVersion+":")
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("scip: reading the current generation: %w", err)
	}
	if !ours {
		return false, nil // another producer's, or another converter's: nothing to keep
	}
	t.prev, t.digests, t.baseVersion = &m, digests, r.BaseVersion()
	t.limit = graph.PatchLimit(len(digests))
	if t.opts.patchLimit > 0 {
		t.limit = t.opts.patchLimit
	}
	return true, nil
}

// begin starts the new generation.
func (t *importTarget) begin(ctx context.Context) (*graph.GenerationWriter, error) {
	gw, err := t.store.BeginGeneration(ctx)
	if err != nil {
		return nil, fmt.Errorf("scip: starting a new generation: %w", err)
	}
	if !t.opts.AllowShrink {
		gw.RefuseShrink()
	}
	return gw, nil
}

// sink is what the decoding and converting stream hands documents to:
// without a base generation, nothing to find unchanged.
func (t *importTarget) sink() sink {
	// A generation writer is done with a document's facts when its put
	// returns; documents held to patch the current generation are kept.
	out := sink{reuse: t.reuse, put: t.put, copies: t.gw != nil}
	if t.based {
		out.previousDigest = t.previousDigest
	}
	return out
}

func (t *importTarget) previousDigest(path string) (string, bool) {
	if t.digests != nil {
		d, ok := t.digests[path]
		return d, ok && d != ""
	}
	return t.gw.PreviousDigest(path)
}

func (t *importTarget) reuse(ctx context.Context, path string) error {
	t.mu.Lock()
	gw := t.gw
	if gw == nil {
		t.unchanged = append(t.unchanged, path)
	}
	t.mu.Unlock()
	if gw == nil {
		return nil
	}
	return gw.ReuseDocument(ctx, path)
}

func (t *importTarget) put(ctx context.Context, f graph.DocumentFacts) error {
	t.mu.Lock()
	gw := t.gw
	if gw == nil {
		t.changed = append(t.changed, f)
		t.held += len(f.Occurrences) + len(f.Edges) + len(f.Symbols)
		var err error
		if len(t.changed) > t.limit || t.held > maxHeldFacts {
			err = t.generationLocked(ctx)
		}
		t.mu.Unlock()
		return err
	}
	t.mu.Unlock()
	return gw.PutDocument(ctx, f)
}

// errBaseChanged is a base generation changed by another writer while an
// import that meant to patch it read the dump.
var errBaseChanged = errors.New("the base index changed while the dump was read (another import or index finished first): import again")

// generationLocked turns a patching import into one writing a new
// generation: the documents found unchanged are reused from the current
// generation, those held are put. The caller holds t.mu.
func (t *importTarget) generationLocked(ctx context.Context) error {
	gw, err := t.begin(ctx)
	if err != nil {
		return err
	}
	if err := t.checkBase(); err != nil {
		gw.Abort()
		return err
	}
	for _, p := range t.unchanged {
		if err := gw.ReuseDocument(ctx, p); err != nil {
			gw.Abort()
			return fmt.Errorf("scip: reusing document %q: %w", p, err)
		}
	}
	for _, f := range t.changed {
		if err := gw.PutDocument(ctx, f); err != nil {
			gw.Abort()
			return fmt.Errorf("scip: writing document %q: %w", f.Document.Path, err)
		}
	}
	t.gw, t.unchanged, t.changed, t.held = gw, nil, nil, 0
	return nil
}

// checkBase fails when the base generation is no longer the one whose
// digests the import compared with.
func (t *importTarget) checkBase() error {
	r, err := t.store.Reader()
	if err != nil {
		return fmt.Errorf("scip: %w", err)
	}
	defer r.Close()
	if r.BaseVersion() != t.baseVersion {
		return fmt.Errorf("scip: %w", errBaseChanged)
	}
	return nil
}

// commit writes what the import holds and makes it current with manifest
// m: a patch of the current generation when few documents changed, else
// the new generation. It records in sum how.
func (t *importTarget) commit(ctx context.Context, m graph.Manifest, sum *Summary) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gw == nil {
		deleted := t.deletedLocked()
		// A patch reads the old records of what it replaces: when at
		// least as much changed as stayed, a new generation writes less
		// (a release of a TanStack/store package, the version in every
		// symbol: 93 documents patched in 0.11 s, written anew in
		// 0.05-0.07 s).
		changes := len(t.changed) + len(deleted)
		if m.Tool == t.prev.Tool && changes <= t.limit && changes <= len(t.unchanged) {
			if err := t.patchLocked(ctx, m, deleted); err != nil {
				return err
			}
			sum.Generation, sum.Patched, sum.Deleted = t.prev.Generation, true, len(deleted)
			t.committed = true
			return nil
		}
		if err := t.generationLocked(ctx); err != nil {
			return err
		}
	}
	if err := t.gw.Commit(ctx, m); err != nil {
		return err
	}
	sum.Generation = t.gw.Generation()
	t.committed = true
	return nil
}

// deletedLocked returns the documents of the current generation the dump
// does not have. The caller holds t.mu.
func (t *importTarget) deletedLocked() []string {
	kept := make(map[string]bool, len(t.unchanged)+len(t.changed))
	for _, p := range t.unchanged {
		kept[p] = true
	}
	for i := range t.changed {
		kept[t.changed[i].Document.Path] = true
	}
	var deleted []string
	for p := range t.digests {
		if !kept[p] {
			deleted = append(deleted, p)
		}
	}
	return deleted
}

// patchLocked writes the changed and deleted documents through one patch
// of the current generation and commits it with m. The caller holds t.mu.
//
// A patch never loses half the generation (it changes no more documents
// than stay), so graph.CheckShrink, which the new generation applies, has
// nothing to refuse here.
func (t *importTarget) patchLocked(ctx context.Context, m graph.Manifest, deleted []string) error {
	p, err := t.store.BeginPatch(ctx)
	if err != nil {
		return fmt.Errorf("scip: starting a patch of the current generation: %w", err)
	}
	defer p.Abort()
	if err := t.checkBase(); err != nil {
		return err
	}
	// The documents are put side by side: each reads its old records.
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		errs = make([]error, len(t.changed))
	)
	for range min(runtime.GOMAXPROCS(0), len(t.changed)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(t.changed); i = int(next.Add(1)) - 1 {
				f := &t.changed[i]
				if err := p.PutDocument(ctx, *f); err != nil {
					errs[i] = fmt.Errorf("scip: writing document %q: %w", f.Document.Path, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, path := range deleted {
		if err := p.DeleteDocument(ctx, path); err != nil {
			return fmt.Errorf("scip: deleting document %q: %w", path, err)
		}
	}
	if err := p.Commit(ctx, m); err != nil {
		return fmt.Errorf("scip: committing the patch of generation %d: %w", p.Generation(), err)
	}
	return nil
}

// abort discards what an import that did not commit wrote.
func (t *importTarget) abort() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gw != nil && !t.committed {
		t.gw.Abort()
	}
}
