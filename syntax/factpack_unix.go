//go:build unix

package syntax

import (
	"os"

	"golang.org/x/sys/unix"
)

// packLocks: a pack's writer holds a lock on it (flock) while it runs,
// which the kernel releases when the process dies.
const packLocks = true

// lockPack takes the lock of the pack open in f, without waiting: an error
// when another open file of it (another process, or another FactCache)
// holds the lock.
func lockPack(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}

// claimPack takes the lock of the pack at path, for removing or merging
// it: ok is false while a writer holds it. release closes the file, which
// releases the lock.
func claimPack(path string) (release func(), ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	if err := lockPack(f); err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
