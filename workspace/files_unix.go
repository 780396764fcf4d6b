//go:build unix

package workspace

import "syscall"

// nonBlock keeps an open of a FIFO from waiting for a writer.
const nonBlock = syscall.O_NONBLOCK
