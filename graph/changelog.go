package graph

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"sync"

	"github.com/cockroachdb/pebble/v2"
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
// live layer was last cleared, or before the store was opened and the
// writes since are not all recorded (changeRecords). A cache of what it
// read at version v reads those documents again to hold for this
// reader's, provided the base layer is the same (BaseVersion).
func (r *Reader) LiveChangedSince(v uint64) ([]string, bool) {
	if r.store == nil {
		return nil, false
	}
	if paths, ok := r.store.liveChanges.changedSince(v); ok {
		return paths, true
	}
	paths, _, ok := r.recordedChangesSince(Live, v, false)
	return paths, ok
}

// LiveWritesSince is LiveChangedSince for a cache of what it read of the
// base layer's documents alone, which a write replacing the live layer
// whole (the overlay's, after the base changed) leaves as they were:
// cleared then says that one did, and paths lists those written after
// the last of them (the documents live before it changed too, but do not
// concern such a cache). False when the writes after v are not all
// recorded.
func (r *Reader) LiveWritesSince(v uint64) (paths []string, cleared, ok bool) {
	if r.store == nil {
		return nil, false, false
	}
	if paths, ok := r.store.liveChanges.changedSince(v); ok {
		return paths, false, true
	}
	return r.recordedChangesSince(Live, v, true)
}

// BaseChangedSince returns the paths of the base layer's documents that
// changed in place (a patch of the base generation, a document written to
// it) after store version v, at least up to the reader's version, sorted;
// false when that cannot be told: v comes before the current base
// generation began, or before the store was opened and the writes since
// are not all recorded. A cache of what it read of the base at version v,
// of the same BaseGeneration, reads those documents again.
func (r *Reader) BaseChangedSince(v uint64) ([]string, bool) {
	if r.store == nil {
		return nil, false
	}
	if paths, ok := r.store.baseChanges.changedSince(v); ok {
		return paths, true
	}
	paths, _, ok := r.recordedChangesSince(Base, v, false)
	return paths, ok
}

// changeRecords is how many of the last writes' changes the store keeps
// on disk (kindChanges), for the readers of another process: a command
// line that kept what it read at some version (a scope analysis's
// observations) reads again only what changed since, when that version
// is at most this many writes old.
const changeRecords = 1024

// putChanges records in b, the batch of write v, the documents it
// changes of layer, and drops the record that falls out of the last
// changeRecords. Every write that raises the version records one, so
// that a version without a record (dropped, or written by a release that
// kept none) says its changes are not known.
//
// A changes value is the layer (1 byte), 1 when the write replaced the
// layer whole or else 0 (1 byte), and the paths: a uvarint count, each a
// uvarint length and its bytes.
func putChanges(b *pebble.Batch, v uint64, layer Layer, c layerChange) error {
	val := []byte{byte(layer), 0}
	if c.cleared {
		val[1] = 1
	}
	val = binary.AppendUvarint(val, uint64(len(c.paths)))
	for _, p := range c.paths {
		val = binary.AppendUvarint(val, uint64(len(p)))
		val = append(val, p...)
	}
	if err := b.Set(appendChangesKey(nil, v), val, nil); err != nil {
		return err
	}
	if v > changeRecords {
		return b.Delete(appendChangesKey(nil, v-changeRecords), nil)
	}
	return nil
}

// decodeChanges reads a changes value.
func decodeChanges(val []byte) (layer Layer, cleared bool, paths []string, err error) {
	if len(val) < 3 || val[1] > 1 {
		return 0, false, nil, errors.New("graph: damaged changes record")
	}
	layer, cleared, val = Layer(val[0]), val[1] == 1, val[2:]
	n, k := binary.Uvarint(val)
	if k <= 0 || n > uint64(len(val)) {
		return 0, false, nil, errors.New("graph: damaged changes record")
	}
	val = val[k:]
	paths = make([]string, 0, n)
	for range n {
		l, k := binary.Uvarint(val)
		if k <= 0 || l > uint64(len(val)-k) {
			return 0, false, nil, errors.New("graph: damaged changes record")
		}
		paths = append(paths, string(val[k:k+int(l)]))
		val = val[k+int(l):]
	}
	if len(val) != 0 {
		return 0, false, nil, errors.New("graph: damaged changes record")
	}
	return layer, cleared, paths, nil
}

// recordedChangesSince is LiveChangedSince or BaseChangedSince from the
// records of the writes after v up to the reader's version: false unless
// each of them has its record, all are read, and none of them replaced
// the layer whole, unless clears is set: then the paths are those written
// after the last write that did, and cleared says there was one.
func (r *Reader) recordedChangesSince(layer Layer, v uint64, clears bool) (paths []string, cleared, ok bool) {
	if v >= r.version {
		return nil, false, true
	}
	if r.version-v > changeRecords {
		return nil, false, false
	}
	next := v + 1 // the version whose record comes next
	err := scanRange(context.Background(), r.kv(), appendChangesKey(nil, v+1), appendChangesKey(nil, r.version+1), func(k, val []byte) error {
		if binary.BigEndian.Uint64(k[len(k)-8:]) != next {
			return errStop // a write without its record
		}
		l, whole, written, err := decodeChanges(val)
		if err != nil {
			return err
		}
		if l == layer && whole {
			if !clears {
				return errStop
			}
			paths, cleared = paths[:0], true
		}
		next++
		if l == layer {
			paths = append(paths, written...)
		}
		return nil
	})
	if err != nil || next != r.version+1 {
		return nil, false, false // errStop too: a write without a record, or one that replaced the layer
	}
	slices.Sort(paths)
	return slices.Compact(paths), cleared, true
}
