//go:build unix

package rootfs

import (
	"os"
	"syscall"
)

// openFlags open without blocking, should a named pipe appear.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
