//go:build unix

package lspproxy

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestPollableInput holds PollableInput to its promise: a pipe read with
// blocking system calls comes back pollable (read deadlines work only
// there) and reads what was written; restore leaves the descriptor
// blocking again; a regular file is left alone.
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
	f, ok := in.(*os.File)
	if !ok || f == blocking {
		t.Fatalf("PollableInput returned %T %v, want a new file", in, in)
	}
	if err := f.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatalf("the returned file takes no deadline, so it is not polled: %v", err)
	}
	if _, err := w.Write([]byte("Content-Length: 2\r\n\r\n{}")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := f.Read(buf)
	if err != nil || string(buf[:n]) != "Content-Length: 2\r\n\r\n{}" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	restore()
	flags, err := fcntlFlags(p[0])
	if err != nil {
		t.Fatal(err)
	}
	if flags&syscall.O_NONBLOCK != 0 {
		t.Error("the descriptor is still non-blocking after restore")
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
