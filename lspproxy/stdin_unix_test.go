//go:build unix

package lspproxy

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestPollableInput holds PollableInput to its promise: a pipe read with
// blocking system calls comes back as a new reader that reads what was
// written and whose Close ends a read waiting for input (a blocked
// read(2) of the original would not end); restore leaves the descriptor
// blocking again; a regular file is left alone. PollableOutput likewise
// for the end that is written.
func TestPollableInput(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	blocking := os.NewFile(uintptr(p[0]), "pipe")
	w := os.NewFile(uintptr(p[1]), "pipe-w")
	defer blocking.Close()
	defer w.Close()
	if err := blocking.SetReadDeadline(time.Now()); !errors.Is(err, os.ErrNoDeadline) {
		t.Fatalf("a blocking pipe took a deadline (%v): the test cannot tell a polled file", err)
	}
	in, restore := PollableInput(blocking)
	if in == io.Reader(blocking) {
		t.Fatal("PollableInput returned the blocking file")
	}
	out, restoreOut := PollableOutput(w)
	if out == io.Writer(w) {
		t.Fatal("PollableOutput returned the blocking file")
	}
	if _, err := out.Write([]byte("Content-Length: 2\r\n\r\n{}")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := in.Read(buf)
	if err != nil || string(buf[:n]) != "Content-Length: 2\r\n\r\n{}" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := in.Read(buf)
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the read start waiting
	in.(io.Closer).Close()
	select {
	case err := <-got:
		if err == nil {
			t.Error("the waiting read ended without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("closing the input did not end the waiting read")
	}
	restore()
	restoreOut()
	for _, fd := range p {
		flags, err := fcntlFlags(fd)
		if err != nil {
			t.Fatal(err)
		}
		if flags&syscall.O_NONBLOCK != 0 {
			t.Errorf("descriptor %d is still non-blocking after restore", fd)
		}
	}

	regular, err := os.Create(filepath.Join(t.TempDir(), "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	if in, restore := PollableInput(regular); in != regular {
		t.Errorf("a regular file came back as %v", in)
	} else {
		restore()
	}
}

func fcntlFlags(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}
