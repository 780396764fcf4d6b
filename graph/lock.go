package graph

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// pidFile names the file in which the process holding a store records its
// pid, for the message another process gets when the store is in use.
const pidFile = "lspgraph.pid"

// dirLock is the exclusive lock on a store directory: Pebble's LOCK file
// plus the holder's pid file.
type dirLock struct {
	pebble  *pebble.Lock
	pidPath string // "" for in-memory stores
}

// lockDir takes the directory lock before Pebble opens the store, so that a
// lock conflict is told apart from other open failures.
func lockDir(dir string, fs vfs.FS, opts Options) (*dirLock, error) {
	if opts.InMemory {
		if err := fs.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("graph: creating in-memory store %s: %w", dir, err)
		}
	}
	l, err := pebble.LockDirectory(dir, fs)
	if err != nil {
		return nil, lockedError(dir, opts.ReadOnly, err)
	}
	d := &dirLock{pebble: l}
	if !opts.InMemory && !opts.ReadOnly {
		d.pidPath = filepath.Join(dir, pidFile)
		// The pid file only improves a message; failing to write it is not fatal.
		_ = writePrivate(d.pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"))
	}
	return d, nil
}

func (d *dirLock) close() error {
	if d.pidPath != "" {
		_ = os.Remove(d.pidPath)
	}
	return d.pebble.Close()
}

// lockedError explains a failure to lock dir, naming the holder when known.
func lockedError(dir string, readOnly bool, cause error) error {
	holder := "another process"
	if pid := lockHolder(dir); pid > 0 {
		holder = "process " + strconv.Itoa(pid)
	} else if strings.Contains(cause.Error(), "current process") {
		holder = "this process"
	}
	msg := fmt.Sprintf("store %s is in use by %s (another lspgraph, e.g. an editor's proxy); "+
		"close it or pass --store to use another store", dir, holder)
	if readOnly {
		msg += " (a store cannot be opened, even read-only, while another process holds it)"
	}
	return &explainedError{sentinel: ErrLocked, msg: msg, cause: cause}
}

// lockHolder returns the pid holding dir's lock, or 0 when unknown: from
// the kernel's lock table where the platform supports asking it, else from
// the pid file.
func lockHolder(dir string) int {
	if pid := lockOwnerPID(filepath.Join(dir, "LOCK")); pid > 0 {
		return pid
	}
	b, err := os.ReadFile(filepath.Join(dir, pidFile))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}
