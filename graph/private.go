package graph

import (
	"io"
	"os"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// The modes of everything a store creates, whatever the process umask:
// the graph names every symbol of the code it describes, so its files are
// for their owner only.
const (
	filePerm os.FileMode = 0o600
	dirPerm  os.FileMode = 0o700
)

// privateFS is a filesystem (vfs.Default) whose files created or opened
// for writing get filePerm and whose directories get dirPerm. Modes are
// set with chmod after creation, so the umask neither widens nor narrows
// them, and a file left wider by an older version is narrowed when it is
// written again.
type privateFS struct{ vfs.FS }

func (fs privateFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err != nil {
		return nil, err
	}
	if err := restrict(name, f); err != nil {
		return nil, err
	}
	return f, nil
}

func (fs privateFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := fs.FS.OpenReadWrite(name, category, opts...)
	if err != nil {
		return nil, err
	}
	if err := restrict(name, f); err != nil {
		return nil, err
	}
	return f, nil
}

func (fs privateFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	if err != nil {
		return nil, err
	}
	if err := restrict(newname, f); err != nil {
		return nil, err
	}
	return f, nil
}

func (fs privateFS) Lock(name string) (io.Closer, error) {
	l, err := fs.FS.Lock(name)
	if err != nil {
		return nil, err
	}
	if err := restrict(name, l); err != nil {
		return nil, err
	}
	return l, nil
}

func (fs privateFS) MkdirAll(dir string, _ os.FileMode) error {
	if err := fs.FS.MkdirAll(dir, dirPerm); err != nil {
		return err
	}
	return os.Chmod(dir, dirPerm)
}

func (fs privateFS) Unwrap() vfs.FS { return fs.FS }

// restrict sets the mode of name, just opened as f, to filePerm; if that
// fails it closes f.
func restrict(name string, f io.Closer) error {
	if err := os.Chmod(name, filePerm); err != nil {
		_ = f.Close()
		return err
	}
	return nil
}

// WritePrivateFile writes data to path atomically (a temporary file
// renamed over it) with the mode of the store's own files, 0600, whatever
// the umask. It serves the files kept beside a store's (the overlay's
// state).
func WritePrivateFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := writePrivate(tmp, data); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// writePrivate writes data to path, created or truncated, with mode 0600.
func writePrivate(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, filePerm)
	if err != nil {
		return err
	}
	if err := f.Chmod(filePerm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// restrictDir sets an existing directory's mode to dirPerm.
func restrictDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm() == dirPerm {
		return nil
	}
	return os.Chmod(dir, dirPerm)
}
