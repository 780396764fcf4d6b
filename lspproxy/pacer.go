package lspproxy

import (
	"sync"
	"time"
)

// pacer is the observer's clock: one goroutine waits on it, any may arm
// it. Where the kernel has timers that the runtime's poller can wait on
// (Linux), waiting leaves no runtime timer pending (see exchangeTick).
type pacer interface {
	// arm makes the pacer fire d from now (at once when d ≤ 0),
	// replacing any earlier arming and any firing not yet waited for.
	arm(d time.Duration)
	// wait blocks until the pacer fires or is closed.
	wait()
	close()
}

// timerPacer is a pacer on a runtime timer.
type timerPacer struct {
	mu     sync.Mutex
	t      *time.Timer
	fired  chan struct{}
	closed chan struct{}
	once   sync.Once
}

func newTimerPacer() *timerPacer {
	return &timerPacer{fired: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (p *timerPacer) arm(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.t != nil {
		p.t.Stop()
	}
	select {
	case <-p.fired:
	default:
	}
	p.t = time.AfterFunc(max(d, 0), func() {
		select {
		case p.fired <- struct{}{}:
		default:
		}
	})
}

func (p *timerPacer) wait() {
	select {
	case <-p.fired:
	case <-p.closed:
	}
}

func (p *timerPacer) close() { p.once.Do(func() { close(p.closed) }) }
