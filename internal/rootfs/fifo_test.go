//go:build linux || darwin || freebsd || netbsd || openbsd

package rootfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFIFO: a named pipe is refused at once, read directly or through a
// link, and never opened in a way that waits for a writer.
func TestFIFO(t *testing.T) {
	l := newLayout(t)
	if err := syscall.Mkfifo(filepath.Join(l.root, "pipe.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("pipe.go", filepath.Join(l.root, "pipelink.go")); err != nil {
		t.Fatal(err)
	}
	r := open(t, l.root)
	// The open ReadFile does, should a pipe replace a file after the
	// check: it must return without a writer.
	opened := make(chan error, 1)
	go func() {
		f, err := r.root.OpenFile("pipe.go", openFlags, 0)
		if err == nil {
			err = f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Errorf("opening the pipe with openFlags: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a named pipe with openFlags blocked")
	}
	for _, rel := range []string{"pipe.go", "pipelink.go"} {
		done := make(chan error, 1)
		go func() {
			_, err := r.ReadFile(rel)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("ReadFile(%s) error = %v; want ErrNotRegular", rel, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadFile(%s) blocked on a named pipe", rel)
		}
	}
	if fi, err := r.Stat("pipe.go"); err != nil || fi.Mode().IsRegular() {
		t.Errorf("Stat(pipe.go) = %v, %v; want the pipe described", fi, err)
	}
}
