//go:build !linux

package lspproxy

// observerThread leaves the observer goroutine as it is: thread priorities
// are set on Linux only (see the Linux version).
func observerThread() {}
