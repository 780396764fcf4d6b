//go:build !linux

package lspproxy

// newPacer returns a pacer on a runtime timer (see the Linux version).
func newPacer() pacer { return newTimerPacer() }
