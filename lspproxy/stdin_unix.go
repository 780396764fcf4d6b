//go:build unix

package lspproxy

import (
	"io"
	"os"
	"syscall"
)

// PollableInput returns r, when it is a pipe or a socket file read with
// blocking system calls (as a process's standard input is), as a file on a
// duplicate of its descriptor that the Go runtime reads through its poller
// instead (and a Close of it ends a read in progress); restore puts the
// descriptor back in blocking mode and closes the duplicate. Anything else (a terminal, a regular file, a reader that
// is not a file) is returned as is.
//
// A goroutine blocked in read(2) holds a thread in the kernel between an
// editor's messages; each time a message arrives the runtime hands the
// thread a processor again and its monitor thread wakes. Polled, the
// goroutine parks instead. On a definition round trip against gopls this
// took a frame copier from 393-431 to 299-309 ms of CPU over 1,800 round
// trips (`perf stat`, `lspgraph bench proxy`).
//
// The descriptor's open file description is shared with whoever else holds
// it, and O_NONBLOCK is a flag of that description: only pipes and sockets
// are switched, whose read end is held by this process alone when an
// editor starts it.
func PollableInput(r io.Reader) (in io.Reader, restore func()) { return pollableEnd(r) }

// PollableOutput is PollableInput for the editor's end that the proxy
// writes: standard output, when it is a pipe or a socket. Nothing else
// in the process may write to w afterwards (a write through the original
// descriptor would see it non-blocking) until restore is called.
func PollableOutput(w io.Writer) (out io.Writer, restore func()) { return pollableEnd(w) }

// pollableEnd is PollableInput and PollableOutput (T is io.Reader or
// io.Writer, both of which pollable's result is): end switched when it is
// a pipe or socket file, else as it is.
func pollableEnd[T any](end T) (T, func()) {
	f, ok := any(end).(*os.File)
	if !ok {
		return end, func() {}
	}
	pf, restore := pollable(f)
	if pf == nil {
		return end, restore
	}
	return any(pf).(T), restore
}

// pollable returns a duplicate of f's descriptor, non-blocking and polled
// by the runtime (read and written with raw calls where pipeIO can), and
// the func that switches f back and closes the duplicate; nil when f is
// not a pipe or socket.
func pollable(f *os.File) (io.ReadWriteCloser, func()) {
	noop := func() {}
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, noop
	}
	dup := -1
	_ = sc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) != nil {
			return
		}
		if t := st.Mode & syscall.S_IFMT; t != syscall.S_IFIFO && t != syscall.S_IFSOCK {
			return
		}
		nfd, err := syscall.Dup(int(fd))
		if err != nil {
			return
		}
		syscall.CloseOnExec(nfd)
		if syscall.SetNonblock(nfd, true) != nil {
			syscall.Close(nfd)
			return
		}
		dup = nfd
	})
	if dup < 0 {
		return nil, noop
	}
	// NewFile sees a non-blocking descriptor and registers it with the
	// poller.
	pf := os.NewFile(uintptr(dup), f.Name())
	var rw io.ReadWriteCloser = pf
	if p, ok := newPipeIO(pf); ok {
		rw = p
	}
	return rw, func() {
		// Through the original descriptor, which stays open: the
		// duplicate may be closed already (and its number reused).
		_ = sc.Control(func(fd uintptr) { _ = syscall.SetNonblock(int(fd), false) })
		rw.Close()
	}
}
