package graph

import (
	"slices"
	"sync"
)

// changeLog remembers, for each path of a layer, the store version of its
// last change (written, replaced, deleted, renamed from or to) since the
// store was opened or the layer last replaced whole (the live layer
// cleared, a new base generation): a cache kept across versions (a
// session's scope analysis, a ranking's reads, a search's) then reads
// again only the documents that changed, not every one.
//
// A change is noted before its batch commits, under the store's commit
// lock: a reader that sees a version already finds that version's
// changes noted (a change noted for a commit that then fails is a path
// read again for nothing).
type changeLog struct {
	mu      sync.Mutex
	since   uint64            // every live change after this version is noted
	changed map[string]uint64 // path → version of its last change
}

// note records that the documents at paths change at version v.
func (l *changeLog) note(v uint64, paths []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = map[string]uint64{}
	}
	for _, p := range paths {
		l.changed[p] = v
	}
}

// clear records that the whole layer changes at version v.
func (l *changeLog) clear(v uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.since, l.changed = v, nil
}

// start sets the version before which nothing is known (the store's when
// opened).
func (l *changeLog) start(v uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.since = v
}

// changedSince returns the paths whose last change came after version v,
// sorted; false when changes that early are not known.
func (l *changeLog) changedSince(v uint64) ([]string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v < l.since {
		return nil, false
	}
	var out []string
	for p, at := range l.changed {
		if at > v {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, true
}

// LiveChangedSince returns the paths of the live layer's documents that
// changed (written, replaced, deleted, renamed from or to) after store
// version v, at least up to the reader's version (a later change may be
// listed too), sorted; false when that cannot be told: v comes before the
// store was opened or the live layer last cleared. A cache of what it read
// at version v reads those documents again to hold for this reader's,
// provided the base layer is the same (BaseVersion).
func (r *Reader) LiveChangedSince(v uint64) ([]string, bool) {
	if r.store == nil {
		return nil, false
	}
	return r.store.liveChanges.changedSince(v)
}

// BaseChangedSince returns the paths of the base layer's documents that
// changed in place (a patch of the base generation, a document written to
// it) after store version v, at least up to the reader's version, sorted;
// false when that cannot be told: v comes before the store was opened or
// the current base generation began. A cache of what it read of the base
// at version v, of the same BaseGeneration, reads those documents again.
func (r *Reader) BaseChangedSince(v uint64) ([]string, bool) {
	if r.store == nil {
		return nil, false
	}
	return r.store.baseChanges.changedSince(v)
}
