//go:build !linux

package rootfs

import (
	"io/fs"
	"os"
)

// walkHandle is a directory open for Walk, as an os.Root opened from its
// parent's (the Root's own for the root, not closed by the walk).
type walkHandle struct {
	root *os.Root
	own  bool
}

func openWalkRoot(r *Root) (walkHandle, error) { return walkHandle{root: r.root}, nil }

func (h walkHandle) open(name string) (walkHandle, error) {
	sub, err := h.root.OpenRoot(name)
	if err != nil {
		return walkHandle{}, err
	}
	if fi, err := h.root.Lstat(name); err != nil || !fi.IsDir() {
		_ = sub.Close() // a link replaced the directory since it was read
		return walkHandle{}, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return walkHandle{root: sub, own: true}, nil
}

func (h walkHandle) close() {
	if h.own {
		_ = h.root.Close()
	}
}

func (h walkHandle) entries([]byte) ([]DirEntry, error) {
	f, err := h.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, len(des))
	for i, d := range des {
		out[i] = DirEntry{Name: d.Name(), Type: d.Type()}
	}
	return out, nil
}

func (h walkHandle) lstat(name string) (fs.FileInfo, error) { return h.root.Lstat(name) }
