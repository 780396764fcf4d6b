//go:build !unix

package selfexec

import "errors"

// execProgram cannot replace the process here.
func execProgram(path string, args, environ []string) error {
	return errors.New("selfexec: cannot replace the process on this system")
}
