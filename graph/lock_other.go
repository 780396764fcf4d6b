//go:build !unix

package graph

// lockOwnerPID is unknown on this platform; the pid file is used instead.
func lockOwnerPID(string) int { return 0 }
