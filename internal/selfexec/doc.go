// Package selfexec replaces a process with its own program, run again
// with the same arguments and a runtime setting added to GODEBUG: some of
// the runtime's settings (madvdontneed) are read once, at start, and a
// command that wants one for itself alone, not for every command of the
// binary, can only start again with it.
package selfexec
