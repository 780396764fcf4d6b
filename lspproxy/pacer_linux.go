package lspproxy

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// newPacer returns a pacer on a kernel timer (timerfd) read through the
// runtime's poller, else one on a runtime timer.
func newPacer() pacer {
	if p, ok := newKernelPacer(); ok {
		return p
	}
	return newTimerPacer()
}

// kernelPacer is a pacer on a timerfd.
type kernelPacer struct {
	rd  *pipeIO
	buf [8]byte // a read's expiration count

	mu     sync.Mutex // arming and closing exclude each other
	fd     int        // the timer's descriptor, for arming (f.Fd would make f blocking)
	closed bool
}

func newKernelPacer() (*kernelPacer, bool) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), "timerfd")
	rd, ok := newPipeIO(f)
	if !ok {
		f.Close()
		return nil, false
	}
	return &kernelPacer{fd: fd, rd: rd}, true
}

// arm sets the timer, which also clears an expiration not yet read.
func (p *kernelPacer) arm(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(int64(d), 1))}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		_ = unix.TimerfdSettime(p.fd, 0, &spec, nil)
	}
}

func (p *kernelPacer) wait() { _, _ = p.rd.Read(p.buf[:]) }

func (p *kernelPacer) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.rd.Close()
}
