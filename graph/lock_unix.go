//go:build unix

package graph

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// lockOwnerPID asks the kernel which process holds a write lock on path
// (the lock Pebble takes with fcntl), or returns 0.
func lockOwnerPID(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil || lk.Type == unix.F_UNLCK {
		return 0
	}
	return int(lk.Pid)
}
