//go:build linux

package rootfs

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"time"

	"golang.org/x/sys/unix"
)

// walkHandle is a directory open for Walk: a descriptor, each opened from
// its parent's with O_NOFOLLOW, one name at a time, so that no symbolic
// link is ever followed below the root. Its entries are read with
// getdents, whose types spare an lstat of every entry (a directory read
// through os.Root describes each entry with one).
type walkHandle struct{ fd int }

// openWalkRoot opens the directory the Root holds (not its path again).
func openWalkRoot(r *Root) (walkHandle, error) {
	f, err := r.root.Open(".")
	if err != nil {
		return walkHandle{-1}, err
	}
	defer f.Close()
	c, err := f.SyscallConn()
	if err != nil {
		return walkHandle{-1}, err
	}
	fd := -1
	cerr := c.Control(func(d uintptr) {
		fd, err = unix.FcntlInt(d, unix.F_DUPFD_CLOEXEC, 0)
	})
	if cerr != nil {
		return walkHandle{-1}, cerr
	}
	return walkHandle{fd}, err
}

// open opens the subdirectory name, refusing a symbolic link.
func (h walkHandle) open(name string) (walkHandle, error) {
	for {
		fd, err := unix.Openat(h.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if !errors.Is(err, unix.EINTR) {
			return walkHandle{fd}, err
		}
	}
}

func (h walkHandle) close() {
	if h.fd >= 0 {
		_ = unix.Close(h.fd)
	}
}

// entries reads the directory's entries, "." and ".." left out, through
// buf.
func (h walkHandle) entries(buf []byte) ([]DirEntry, error) {
	var out []DirEntry
	for {
		n, err := unix.Getdents(h.fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		// struct linux_dirent64: inode (8 bytes), offset (8), record
		// length (2), type (1), the name ending with NUL.
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return nil, errors.New("getdents returned a malformed record")
			}
			ino, typ := binary.NativeEndian.Uint64(buf[off:]), buf[off+18]
			name := buf[off+19 : off+reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			off += reclen
			if ino == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			e := DirEntry{Name: string(name)}
			if typ == unix.DT_UNKNOWN {
				fi, err := h.lstat(e.Name)
				if err != nil {
					continue // gone since it was read
				}
				e.Type = fi.Mode().Type()
			} else {
				e.Type = direntType(typ)
			}
			out = append(out, e)
		}
	}
}

// direntType is the fs.FileMode type of a dirent's type.
func direntType(typ uint8) fs.FileMode {
	switch typ {
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	}
	return 0
}

// lstat describes the entry name without following it.
func (h walkHandle) lstat(name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(h.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		return statInfo{name: name, size: st.Size, mtime: time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)).UnixNano(), mode: st.Mode}, nil
	}
}

// statInfo is the fs.FileInfo of a stat: the fields a walk's callers
// read, not the whole stat (kept for every file listed). Sys is nil.
type statInfo struct {
	name  string
	size  int64
	mtime int64 // Unix nanoseconds
	mode  uint32
}

func (fi statInfo) Name() string       { return fi.name }
func (fi statInfo) Size() int64        { return fi.size }
func (fi statInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi statInfo) Sys() any           { return nil }
func (fi statInfo) ModTime() time.Time { return time.Unix(0, fi.mtime) }

func (fi statInfo) Mode() fs.FileMode {
	m := fs.FileMode(fi.mode & 0o777)
	switch fi.mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	if fi.mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if fi.mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if fi.mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
