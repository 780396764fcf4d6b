package lspproxy

import (
	"container/heap"
	"sync"
	"time"
)

// deadlines runs funcs at their times, on goroutines of their own, from
// one goroutine that waits on a pacer: while a deadline waits, no runtime
// timer is pending (see exchangeTick). Editors cancel requests often, as
// one types; the grace of each cancel was a runtime timer pending for
// seconds.
type deadlines struct {
	pacer pacer
	done  chan struct{} // closed when the goroutine ended

	mu     sync.Mutex
	due    deadlineHeap
	closed bool
}

type deadline struct {
	when time.Time
	f    func()
}

func newDeadlines() *deadlines {
	d := &deadlines{pacer: newPacer(), done: make(chan struct{})}
	go d.run()
	return d
}

// after runs f once dur has passed, unless d is closed first.
func (d *deadlines) after(dur time.Duration, f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	w := time.Now().Add(dur)
	heap.Push(&d.due, deadline{when: w, f: f})
	if !d.due[0].when.Before(w) { // the earliest now
		d.pacer.arm(dur)
	}
}

func (d *deadlines) run() {
	defer close(d.done)
	for {
		d.pacer.wait()
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			return
		}
		now := time.Now()
		var ready []func()
		for len(d.due) > 0 && !d.due[0].when.After(now) {
			ready = append(ready, heap.Pop(&d.due).(deadline).f)
		}
		if len(d.due) > 0 {
			d.pacer.arm(d.due[0].when.Sub(now))
		}
		d.mu.Unlock()
		for _, f := range ready {
			go f()
		}
	}
}

// close drops the deadlines still waiting and ends the goroutine.
func (d *deadlines) close() {
	d.mu.Lock()
	d.closed = true
	d.due = nil
	d.mu.Unlock()
	d.pacer.arm(0)
	<-d.done
	d.pacer.close()
}

// deadlineHeap orders deadlines by time (container/heap).
type deadlineHeap []deadline

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].when.Before(h[j].when) }
func (h deadlineHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *deadlineHeap) Push(x any)        { *h = append(*h, x.(deadline)) }
func (h *deadlineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
