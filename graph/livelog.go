package graph

import (
	"slices"
	"sync"
)

// liveLog remembers, for each path of the live layer, the store version
// of its last change (written, replaced, deleted, renamed from or to)
// since the store was opened or the layer last cleared: a cache kept
// across versions (a session's scope analysis, a ranking's reads) then
// reads again only the live documents that changed, not every one.
//
// A change is noted before its batch commits, under the store's commit
// lock: a reader that sees a version already finds that version's
// changes noted (a change noted for a commit that then fails is a path
// read again for nothing).
type liveLog struct {
	mu      sync.Mutex
	since   uint64            // every live change after this version is noted
	changed map[string]uint64 // path → version of its last change
}

// note records that the live documents at paths change at version v.
func (l *liveLog) note(v uint64, paths []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = map[string]uint64{}
	}
	for _, p := range paths {
		l.changed[p] = v
	}
}

// clear records that the whole live layer changes at version v.
func (l *liveLog) clear(v uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.since, l.changed = v, nil
}

// start sets the version before which nothing is known (the store's when
// opened).
func (l *liveLog) start(v uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.since = v
}

// changedSince returns the paths whose last change came after version v,
// sorted; false when changes that early are not known.
func (l *liveLog) changedSince(v uint64) ([]string, bool) {
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
