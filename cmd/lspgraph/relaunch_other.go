//go:build !unix

package main

import "errors"

// execProgram cannot replace the process here.
func execProgram(path string, args, environ []string) error {
	return errors.New("cannot replace the process on this system")
}
