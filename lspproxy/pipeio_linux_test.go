package lspproxy

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"
)

// pipePair returns both ends of an os.Pipe read and written by pipeIO.
func pipePair(t *testing.T) (r, w *pipeIO) {
	t.Helper()
	rf, wf, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r, ok1 := newPipeIO(rf)
	w, ok2 := newPipeIO(wf)
	if !ok1 || !ok2 {
		t.Fatal("os.Pipe's ends are not taken by pipeIO")
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestPipeIOStream moves 4 MiB through a pipe whose buffer holds 64 KiB,
// in writes and reads of random sizes: writes fill the pipe and wait for
// room, reads find it empty and wait for input; what arrives is what was
// sent, in order, and the end of the writer is the reader's io.EOF.
func TestPipeIOStream(t *testing.T) {
	r, w := pipePair(t)
	rng := rand.New(rand.NewPCG(1, 2))
	want := make([]byte, 4<<20)
	for i := range want {
		want[i] = byte(rng.Uint32())
	}
	done := make(chan error, 1)
	go func() {
		rest := want
		for len(rest) > 0 {
			n := min(len(rest), 1+rng.IntN(200<<10))
			if k, err := w.Write(rest[:n]); err != nil || k != n {
				done <- errors.Join(err, io.ErrShortWrite)
				return
			}
			rest = rest[n:]
		}
		done <- w.Close()
	}()
	var got bytes.Buffer
	buf := make([]byte, 100<<10)
	for {
		n, err := r.Read(buf[:1+len(got.Bytes())%len(buf)])
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read after %d bytes: %v", got.Len(), err)
		}
		if n == 0 {
			t.Fatal("a read returned nothing and no error")
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("writing: %v", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("read %d bytes, not the %d written", got.Len(), len(want))
	}
}

// TestPipeIOClose: closing a pipeIO ends a read waiting in the poller
// with an error, and a write to a pipe nobody reads fails with EPIPE
// instead of killing the process.
func TestPipeIOClose(t *testing.T) {
	r, w := pipePair(t)
	got := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 16))
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the read reach the poller
	r.Close()
	select {
	case err := <-got:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("the waiting read ended with %v, want os.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("closing did not end the waiting read")
	}
	if _, err := w.Write([]byte("Content-Length: 2\r\n\r\n{}")); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("writing to a pipe without a reader: %v, want EPIPE", err)
	}
}

// TestPipeIOBlocking: a blocking descriptor (a process's stdin as
// inherited) is refused; PollableInput and PollableOutput switch it first.
func TestPipeIOBlocking(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	rf, wf := os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	defer rf.Close()
	defer wf.Close()
	if _, ok := newPipeIO(rf); ok {
		t.Error("pipeIO took a blocking descriptor")
	}
	in, restoreIn := PollableInput(rf)
	defer restoreIn()
	out, restoreOut := PollableOutput(wf)
	defer restoreOut()
	if _, ok := in.(*pipeIO); !ok {
		t.Errorf("PollableInput returned %T, want a pipeIO", in)
	}
	if _, ok := out.(*pipeIO); !ok {
		t.Errorf("PollableOutput returned %T, want a pipeIO", out)
	}
	if _, err := out.Write([]byte("{}")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if n, err := in.Read(buf); err != nil || string(buf[:n]) != "{}" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
}
