package lspproxy

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// pipeIO reads and writes a non-blocking descriptor the runtime polls
// (a pipe or socket from os.Pipe, or one PollableInput or PollableOutput
// switched) with raw read(2) and write(2) calls, waiting in the poller
// when one would block.
//
// A non-blocking call returns at once, so it needs no handing of the
// processor to another thread, which is all the runtime's own system
// call path adds; but that path also wakes the runtime's monitor thread
// whenever the process was idle, which it is between an editor's
// messages: every message then cost a wake-up and a few 20 µs sleeps of
// that thread (strace -c over a definition round trip against gopls:
// 4-8 nanosleeps and 1-2 futex calls besides the reads and writes).
type pipeIO struct {
	f      *os.File
	rc     syscall.RawConn
	rmu    sync.Mutex // one read at a time owns rd
	rd     rawOp
	wmu    sync.Mutex // one write at a time owns wr
	wr     rawOp
	once   sync.Once
	closed atomic.Bool
}

// rawOp is one read or write in progress: its buffer, what it did, the
// func the poller calls and the RawConn method that polls it (both
// allocated once).
type rawOp struct {
	buf   []byte
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
	poll  func(func(fd uintptr) bool) error
}

// newPipeIO returns f read and written with raw calls, or false when f
// cannot be (it is not polled by the runtime).
func newPipeIO(f *os.File) (*pipeIO, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, false
	}
	nonblocking := false
	if rc.Control(func(fd uintptr) {
		fl, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblocking = e == 0 && fl&syscall.O_NONBLOCK != 0
	}) != nil || !nonblocking {
		return nil, false
	}
	p := &pipeIO{f: f, rc: rc}
	p.rd.fn, p.rd.poll = p.rd.read, rc.Read
	p.wr.fn, p.wr.poll = p.wr.write, rc.Write
	return p, true
}

func (p *pipeIO) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p.rmu.Lock()
	defer p.rmu.Unlock()
	n, err := p.rd.do(b)
	switch {
	case err != nil:
		return 0, p.pathError("read", err)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (p *pipeIO) Write(b []byte) (int, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	n, err := p.wr.do(b)
	if err != nil {
		return n, p.pathError("write", err)
	}
	return n, nil
}

// do runs the operation on b through the poller: how many bytes it
// moved, and the poller's error or the call's.
func (o *rawOp) do(b []byte) (int, error) {
	o.buf, o.n, o.errno = b, 0, 0
	err := o.poll(o.fn)
	n, errno := o.n, o.errno
	o.buf = nil
	if err == nil && errno != 0 {
		err = errno
	}
	return n, err
}

// Close closes the file; a read or write waiting in the poller returns
// with an error.
func (p *pipeIO) Close() error {
	var err error
	p.once.Do(func() {
		p.closed.Store(true)
		err = p.f.Close()
	})
	return err
}

// pathError wraps err as os.File does: a call that failed because the
// file was closed fails with os.ErrClosed.
func (p *pipeIO) pathError(op string, err error) error {
	if p.closed.Load() {
		err = os.ErrClosed
	}
	return &os.PathError{Op: op, Path: p.f.Name(), Err: err}
}

// move makes one read or write (trap) of what is left of buf, again
// when a signal interrupted it: false when the poller must wait for input
// or room, true when it moved bytes, met the end of the input or failed.
func (o *rawOp) move(trap, fd uintptr) bool {
	for {
		rest := o.buf[o.n:]
		n, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			o.n += int(n)
		default:
			o.errno = e
		}
		return true
	}
}

// read reads once into buf: true when done (data, end of file or an
// error), false when the poller must wait for input.
func (o *rawOp) read(fd uintptr) bool { return o.move(syscall.SYS_READ, fd) }

// write writes what is left of buf: true when all of it is written or a
// call failed, false when the poller must wait for room.
func (o *rawOp) write(fd uintptr) bool {
	for o.n < len(o.buf) && o.errno == 0 {
		before := o.n
		if !o.move(syscall.SYS_WRITE, fd) {
			return false
		}
		if o.n == before && o.errno == 0 {
			o.errno = syscall.EIO // a pipe never takes nothing without an error
		}
	}
	return true
}
