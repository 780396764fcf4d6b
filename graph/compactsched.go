package graph

import (
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// compactionScheduler lets Pebble run as many compactions at once as it
// allows without permission, as Pebble's default scheduler does, but
// looks again only when something can change the answer: a compaction
// ends, or Pebble reports (after a flush) that it allows more. Pebble's
// default also looks every 100 ms on a ticker, for the whole life of the
// store; a process whose runtime has a timer pending arms a kernel timer
// each time one of its threads waits for input, and in a proxy that waits
// after every message this cost more CPU than the forwarding (`lspgraph
// bench proxy`: the proxy's CPU per round trip 1.13-1.15× a bare copier's
// without the ticker, 1.18-1.21× with it, no observer in either).
//
// A compaction Pebble wants while none is allowed waits for the next of
// those events, where the default would also retry on its tick: a store
// written in bulk generations and a small live layer rarely has more than
// one compaction to run.
type compactionScheduler struct {
	db pebble.DBForCompaction // set by Register, before any other call

	mu           sync.Mutex
	done         *sync.Cond // signalled when granting stops
	running      int
	allowed      int // the last GetAllowedWithoutPermission seen
	granting     bool
	unregistered bool
}

var _ pebble.CompactionScheduler = (*compactionScheduler)(nil)

func newCompactionScheduler() *compactionScheduler {
	s := &compactionScheduler{}
	s.done = sync.NewCond(&s.mu)
	return s
}

func (s *compactionScheduler) Register(_ int, db pebble.DBForCompaction) { s.db = db }

// Unregister returns once no grant is under way; none follows.
func (s *compactionScheduler) Unregister() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unregistered = true
	for s.granting {
		s.done.Wait()
	}
}

func (s *compactionScheduler) TrySchedule() (bool, pebble.CompactionGrantHandle) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unregistered {
		return false, nil
	}
	s.allowed = s.db.GetAllowedWithoutPermission()
	if s.allowed > s.running {
		s.running++
		return true, s
	}
	return false, nil
}

// UpdateGetAllowedWithoutPermission is called with Pebble's own mutex
// held, which granting takes: a grant it makes room for runs on a
// goroutine of its own.
func (s *compactionScheduler) UpdateGetAllowedWithoutPermission() {
	s.mu.Lock()
	allowed := s.db.GetAllowedWithoutPermission()
	more := allowed > s.allowed
	s.allowed = allowed
	s.mu.Unlock()
	if more {
		go s.grant()
	}
}

// The scheduler is its own grant handle.
func (s *compactionScheduler) Started()                                          {}
func (s *compactionScheduler) MeasureCPU(pebble.CompactionGoroutineKind)         {}
func (s *compactionScheduler) CumulativeStats(pebble.CompactionGrantHandleStats) {}

// Done ends a granted compaction and grants waiting ones the room it left.
func (s *compactionScheduler) Done() {
	s.mu.Lock()
	s.running--
	s.mu.Unlock()
	s.grant()
}

// grant starts waiting compactions while Pebble allows more than run;
// one grant at a time.
func (s *compactionScheduler) grant() {
	s.mu.Lock()
	for s.granting {
		s.done.Wait()
	}
	if s.unregistered {
		s.mu.Unlock()
		return
	}
	s.allowed = s.db.GetAllowedWithoutPermission()
	free := s.allowed - s.running
	if free <= 0 {
		s.mu.Unlock()
		return
	}
	s.granting = true
	s.mu.Unlock()
	for ; free > 0; free-- {
		if waiting, _ := s.db.GetWaitingCompaction(); !waiting {
			break
		}
		if !s.db.Schedule(s) {
			break
		}
		s.mu.Lock()
		s.running++
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.granting = false
	s.done.Broadcast()
	s.mu.Unlock()
}
