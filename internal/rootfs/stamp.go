package rootfs

import (
	"io/fs"
	"time"
)

// RacyWindow is how recent a file's modification time must not be for
// that time to vouch for the file's content: a file modified within it of
// the moment it was read could be written again, unseen, in the same tick
// of the file system's clock (the rule git applies to racily clean index
// entries).
const RacyWindow = 2 * time.Second

// Stamp is what a file's metadata says of its version: a cache of what
// was read from a file holds while the file's stamp is the one it was read
// at. The zero Stamp vouches for nothing.
type Stamp struct {
	Size  int64
	MTime int64 // Unix nanoseconds
}

// StampOf returns the stamp of a file described by fi.
func StampOf(fi fs.FileInfo) Stamp {
	return Stamp{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
}

// Vouched returns s if it can vouch for what was read of the file from
// the moment readStart on, else the zero Stamp: a file modified within
// RacyWindow of readStart is read again next time. The window runs back
// from the read, not from the listing: a tree written just before it is
// read (a checkout, a copy) is mostly read more than RacyWindow after its
// last write, and its times vouch for it.
func (s Stamp) Vouched(readStart time.Time) Stamp {
	if s.MTime >= readStart.Add(-RacyWindow).UnixNano() {
		return Stamp{}
	}
	return s
}

// Vouches reports whether s vouches for anything.
func (s Stamp) Vouches() bool { return s != Stamp{} }
