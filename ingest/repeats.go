package ingest

import (
	"hash/maphash"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// maxRepeats bounds the exchanges remembered as having changed nothing;
// past it the memory starts over.
const maxRepeats = 4096

// repeats remembers the exchanges that, when last turned into facts,
// changed nothing in the graph: the same exchange again, while the graph,
// the editor's buffers and the files it read are unchanged, would change
// nothing either, so it is not worked out again. An editor asks the same
// question often (a definition jumped to again, a document's symbols on
// every focus), and each answer otherwise costs a graph reader, the files'
// text and a merge.
//
// What an exchange turns into depends on its bytes (method, params,
// result, encoding), on what the graph serves for the documents it touches
// (covered by the store's version), on the open buffers (their version)
// and on the files read from disk (each file's identity, size and
// modification time, taken before it was read). A file rewritten with
// the same size within the file system's timestamp granularity looks
// unchanged; such an exchange's facts wait for the next write to the
// graph, when everything remembered is forgotten.
//
// A file looked at less than recheck ago is not looked at again: repeats
// come in bursts (the proxy hands observations over once per tick of its
// own), and a file changed within that moment is one the server's answer,
// already that old, could not have seen either.
type repeats struct {
	seed maphash.Seed
	// store and buffers are the versions every entry was recorded at.
	store, buffers uint64
	entries        map[uint64][]fileStamp
	// looked holds each file's last stat and when it was taken.
	looked map[string]looked
	now    func() time.Time
}

// recheck is how long a file's stat stands for it.
const recheck = 10 * time.Millisecond

// looked is one stat of a file.
type looked struct {
	fi fs.FileInfo // nil: the stat failed
	at time.Time
}

// fileStamp is what a file looked like when an exchange read it.
type fileStamp struct {
	abs string
	fi  fs.FileInfo
}

func newRepeats() *repeats {
	return &repeats{seed: maphash.MakeSeed(), entries: map[uint64][]fileStamp{}, looked: map[string]looked{}, now: time.Now}
}

// key hashes what an exchange says.
func (r *repeats) key(e *Exchange) uint64 {
	var h maphash.Hash
	h.SetSeed(r.seed)
	h.WriteString(e.Method)
	h.WriteByte(0)
	h.WriteByte(byte(e.Encoding))
	h.Write(e.Params)
	h.WriteByte(0)
	h.Write(e.Result)
	return h.Sum64()
}

// holds reports whether the exchange keyed key changed nothing when last
// worked out at these versions of the store and the buffers, and the
// files it read are unchanged since.
func (r *repeats) holds(key, store, buffers uint64) bool {
	if store != r.store || buffers != r.buffers {
		clear(r.entries)
		r.store, r.buffers = store, buffers
		return false
	}
	stamps, ok := r.entries[key]
	if !ok {
		return false
	}
	now := r.now()
	for _, s := range stamps {
		l, ok := r.looked[s.abs]
		if !ok || now.Sub(l.at) >= recheck {
			l = looked{at: now}
			if fi, err := os.Stat(s.abs); err == nil {
				l.fi = fi
			}
			r.looked[s.abs] = l
		}
		if l.fi == nil || !sameFile(s.fi, l.fi) {
			delete(r.entries, key)
			return false
		}
	}
	return true
}

// note records that the exchange keyed key, worked out at these versions
// after reading the files stamped, changed nothing.
func (r *repeats) note(key, store, buffers uint64, stamps []fileStamp) {
	if store != r.store || buffers != r.buffers {
		return
	}
	if len(r.entries) >= maxRepeats {
		clear(r.entries)
		clear(r.looked)
	}
	r.entries[key] = stamps
}

// forget drops everything remembered (the workspace root moved).
func (r *repeats) forget() {
	clear(r.entries)
	clear(r.looked)
}

// stamp describes the file at the root-relative slash path rel under
// root, before it is read; fi is nil when it cannot be stat'ed.
func stamp(root, rel string) fileStamp {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Stat(abs)
	if err != nil {
		fi = nil
	}
	return fileStamp{abs: abs, fi: fi}
}

func sameFile(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && a.Mode() == b.Mode()
}
