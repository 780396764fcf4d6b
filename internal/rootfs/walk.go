package rootfs

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"
	"sync/atomic"
)

// WalkOptions says what [Root.Walk] lists.
type WalkOptions struct {
	// Workers is the number of directories read at once (at least 1).
	Workers int
	// Enter reports whether the directory rel (root-relative, "." for
	// the root), whose entries are entries, is listed: false leaves it
	// and everything below it out. Nil enters every directory. It is
	// called from several goroutines at once.
	Enter func(rel string, entries []DirEntry) bool
	// Keep reports whether the entry rel (root-relative), of type typ
	// (not a directory), is listed. Nil keeps every one. It is called
	// from several goroutines at once.
	Keep func(rel string, typ fs.FileMode) bool
}

// DirEntry is an entry of a directory: its name, and its type (the type
// bits of fs.FileMode: 0 for a regular file).
type DirEntry struct {
	Name string
	Type fs.FileMode
}

// WalkedFile is a file [Root.Walk] listed: its root-relative path and
// what lstat said of it (a symbolic link is described, not followed), or
// why lstat failed.
type WalkedFile struct {
	Path string
	Info fs.FileInfo
	Err  error
}

// Walk lists the files below the root, sorted by path, never following a
// symbolic link to a directory: each directory is opened from its parent
// (one system call, where a walk by path resolves every component again)
// and the files it keeps are described with one lstat in it. Directories
// that cannot be read are left out; the root's failure is an error.
func (r *Root) Walk(ctx context.Context, o WalkOptions) ([]WalkedFile, error) {
	if r == nil || r.root == nil {
		return nil, ErrNoRoot
	}
	w := &walk{ctx: ctx, o: o}
	w.cond = sync.NewCond(&w.mu)
	h, err := openWalkRoot(r)
	if err != nil {
		return nil, fmt.Errorf("rootfs: opening the workspace root: %w", underlying(err))
	}
	top := &walkDir{h: h, rel: "."}
	top.refs.Store(1)
	entries, err := h.entries(make([]byte, direntBuffer))
	if err != nil {
		top.release()
		return nil, fmt.Errorf("rootfs: reading the workspace root: %w", underlying(err))
	}
	if o.Enter != nil && !o.Enter(".", entries) {
		top.release()
		return nil, nil
	}
	w.pending = 1
	var out [][]WalkedFile
	var outMu sync.Mutex
	var wg sync.WaitGroup
	for range max(o.Workers, 1) {
		wg.Go(func() {
			var mine []WalkedFile
			buf := make([]byte, direntBuffer)
			for {
				job, ok := w.take()
				if !ok {
					break
				}
				mine = w.list(job, mine, buf)
				w.done()
			}
			outMu.Lock()
			out = append(out, mine)
			outMu.Unlock()
		})
	}
	// The root's entries were read above: its job lists them.
	w.put(walkJob{dir: top, entries: entries})
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	files := slices.Concat(out...)
	slices.SortFunc(files, func(a, b WalkedFile) int {
		switch {
		case a.Path < b.Path:
			return -1
		case a.Path > b.Path:
			return 1
		}
		return 0
	})
	return files, nil
}

// walk is the state of one Walk: a stack of directories to list, shared
// by its workers.
type walk struct {
	ctx     context.Context
	o       WalkOptions
	mu      sync.Mutex
	cond    *sync.Cond
	stack   []walkJob
	pending int // jobs put and not yet done
}

// walkJob is a directory to list: name in parent (opened when the job
// runs), or dir itself with its entries read (the root).
type walkJob struct {
	parent  *walkDir
	name    string
	dir     *walkDir
	entries []DirEntry
}

// walkDir is an open directory, closed when neither its own job nor a
// job of a subdirectory still to be opened holds it.
type walkDir struct {
	h    walkHandle
	rel  string
	refs atomic.Int32
}

func (d *walkDir) hold() { d.refs.Add(1) }

// release drops a hold, closing the directory with the last one.
func (d *walkDir) release() {
	if d.refs.Add(-1) == 0 {
		d.h.close()
	}
}

// put adds a job. The first put counts in pending already.
func (w *walk) put(j walkJob) {
	w.mu.Lock()
	w.stack = append(w.stack, j)
	w.mu.Unlock()
	w.cond.Signal()
}

// take returns the next job, waiting while other workers may still add
// one; false when every job is done.
func (w *walk) take() (walkJob, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.stack) == 0 && w.pending > 0 {
		w.cond.Wait()
	}
	if len(w.stack) == 0 {
		return walkJob{}, false
	}
	j := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	return j, true
}

// done marks a job done, waking every waiting worker after the last.
func (w *walk) done() {
	w.mu.Lock()
	w.pending--
	last := w.pending == 0
	w.mu.Unlock()
	if last {
		w.cond.Broadcast()
	}
}

// direntBuffer is the size of the buffer a worker reads directory
// entries into.
const direntBuffer = 16 << 10

// list lists one directory: its subdirectories become jobs, its kept
// files are described and appended to out. buf is the worker's buffer
// for reading entries.
func (w *walk) list(j walkJob, out []WalkedFile, buf []byte) []WalkedFile {
	d, entries := j.dir, j.entries
	if d == nil {
		var h walkHandle
		err := w.ctx.Err()
		if err == nil {
			h, err = j.parent.h.open(j.name)
		}
		rel := path.Join(j.parent.rel, j.name)
		j.parent.release()
		if err != nil {
			return out // unreadable directories are left out
		}
		d = &walkDir{h: h, rel: rel}
		d.refs.Store(1)
		if entries, err = h.entries(buf); err != nil || (w.o.Enter != nil && !w.o.Enter(rel, entries)) {
			d.release()
			return out
		}
	}
	defer d.release()
	for _, e := range entries {
		rel := e.Name
		if d.rel != "." {
			rel = d.rel + "/" + rel
		}
		if e.Type == fs.ModeDir {
			d.hold()
			w.mu.Lock()
			w.pending++
			w.mu.Unlock()
			w.put(walkJob{parent: d, name: e.Name})
			continue
		}
		if w.o.Keep != nil && !w.o.Keep(rel, e.Type) {
			continue
		}
		fi, err := d.h.lstat(e.Name)
		if err != nil {
			err = fmt.Errorf("rootfs: %s: %w", rel, underlying(err))
		}
		out = append(out, WalkedFile{Path: rel, Info: fi, Err: err})
	}
	return out
}
