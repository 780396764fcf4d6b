//go:build unix

package selfexec

import "syscall"

// execProgram replaces the process with the program at path.
func execProgram(path string, args, environ []string) error {
	return syscall.Exec(path, args, environ)
}
