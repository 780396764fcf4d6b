//go:build !unix

package lspproxy

import "io"

// PollableInput returns r as is: only Unix files are switched to the
// poller (see the Unix version).
func PollableInput(r io.Reader) (in io.Reader, restore func()) { return r, func() {} }

// PollableOutput returns w as is, as PollableInput does.
func PollableOutput(w io.Writer) (out io.Writer, restore func()) { return w, func() {} }
