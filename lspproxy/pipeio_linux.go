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

// rawOp is one read or write in progress: its buffer, what it did, and
// the func the poller calls (allocated once).
type rawOp struct {
	buf   []byte
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
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
	p.rd.fn = p.rd.read
	p.wr.fn = p.wr.write
	return p, true
}

func (p *pipeIO) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p.rmu.Lock()
	defer p.rmu.Unlock()
	p.rd.buf, p.rd.n, p.rd.errno = b, 0, 0
	err := p.rc.Read(p.rd.fn)
	n, errno := p.rd.n, p.rd.errno
	p.rd.buf = nil
	switch {
	case err != nil:
		return 0, p.pathError("read", err)
	case errno != 0:
		return 0, p.pathError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (p *pipeIO) Write(b []byte) (int, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.wr.buf, p.wr.n, p.wr.errno = b, 0, 0
	err := p.rc.Write(p.wr.fn)
	n, errno := p.wr.n, p.wr.errno
	p.wr.buf = nil
	switch {
	case err != nil:
		return n, p.pathError("write", err)
	case errno != 0:
		return n, p.pathError("write", errno)
	}
	return n, nil
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

// read reads once into buf: true when done (data, end of file or an
// error), false when the poller must wait for input.
func (o *rawOp) read(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(o.buf))), uintptr(len(o.buf)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			o.n = int(n)
		default:
			o.errno = e
		}
		return true
	}
}

// write writes what is left of buf: true when all of it is written or a
// call failed, false when the poller must wait for room.
func (o *rawOp) write(fd uintptr) bool {
	for o.n < len(o.buf) {
		rest := o.buf[o.n:]
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			o.n += int(n)
		default:
			o.errno = e
			return true
		}
	}
	return true
}
