package workspace

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lspgraph/lspgraph/graph"
)

// ErrServed is returned by ServeHeadless for a store whose session another
// process already serves: its clients ask that session.
var ErrServed = errors.New("a session already serves the store")

// Headless is a workspace's session served by this process with no
// language server: every command answers in one warm session (the work
// tree watched, the scope analysis, history and looks kept) instead of a
// one-shot session that opens the store, runs git and reads the history
// anew, and other clients (the command line, an agent) attach to it
// through its socket. It gives way to an editor's proxy: a proxy that
// attaches with a language server asks it to (Options.Yield), the session
// closes once the commands in it are answered, and the proxy takes the
// store over; once that has gone, Resume (or the next Do) serves the
// session headless again.
type Headless struct {
	root, dir, kind string
	logf            func(format string, args ...any)

	// mu is held for reading by each command in the session and for
	// writing by the close, so that the session closes between commands.
	// closed is set while no session is served (given way, or Close),
	// ended by Close.
	mu            sync.RWMutex
	session       *Session
	ln            *Listener
	closed, ended bool
	// gaveWay is when the session last gave way and gaveWayTo the pid of
	// the proxy it gave way to, sawOwner whether a look since found the
	// session that took it over: until then, while that proxy runs (for
	// takeoverWait at most), it is not served again, or it would race the
	// proxy for the store.
	gaveWay   time.Time
	gaveWayTo int
	sawOwner  bool
	// active is when the session was last opened or gave way, in Unix
	// nanoseconds.
	active atomic.Int64
}

// takeoverWait is how long a session that gave way waits for the proxy to
// take it over before serving it again without having seen it.
const takeoverWait = 30 * time.Second

// Waiting is what ServeHeadless waits for instead of failing.
type Waiting int

const (
	// WaitNone: a store served or held by another process is an error.
	WaitNone Waiting = iota
	// WaitHeld: a store held by a process that serves no session (a
	// command line's one-shot session, an index) is waited for; one whose
	// session another process serves is an error.
	WaitHeld
	// WaitAll: both are waited for.
	WaitAll
)

// ServeHeadless opens the session of the workspace at root (store dir,
// created if absent) and serves it headless on its socket. kind names the
// server to the sessions it looks for ("mcp", "serve"). A store whose
// session another process serves yields an error wrapping ErrServed, and
// one held by a process that serves no session (a command line's one-shot
// session, an index) an error wrapping graph.ErrLocked, unless wait says
// to wait for it: then it waits until ctx ends for the store to be free,
// and serves it then.
func ServeHeadless(ctx context.Context, root, dir, kind string, wait Waiting, logf func(format string, args ...any)) (*Headless, error) {
	told := false
	for {
		poll := lockedPoll
		if told && wait == WaitAll && listening(ctx, dir) {
			poll = resumeEvery // the session waited for still serves
		} else if c, err := Dial(ctx, dir, kind, ""); err == nil {
			pid := c.PID()
			c.Close()
			err := fmt.Errorf("%w: pid %d serves %s", ErrServed, pid, root)
			if wait != WaitAll {
				return nil, err
			}
			logf("%v; waiting for it to end", err)
			told, poll = true, resumeEvery
		} else if !errors.Is(err, ErrNoSession) {
			return nil, err
		} else {
			h := &Headless{root: root, dir: dir, kind: kind, logf: logf}
			err := h.open()
			if err == nil {
				return h, nil
			}
			if wait == WaitNone || !errors.Is(err, graph.ErrLocked) {
				return nil, err
			}
			if !told {
				logf("%v; waiting for it", err)
				told = true
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// lockedPoll is how often ServeHeadless looks again at a store another
// process holds.
const lockedPoll = 200 * time.Millisecond

// listening reports whether a session serves the store at dir: its socket
// accepts a connection. The connection attaches no client (no hello), so
// the session logs nothing of it, however often a headless session that
// stands by looks.
func listening(ctx context.Context, dir string) bool {
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "unix", SocketPath(dir))
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// open opens the session and serves it. The caller holds h.mu, or h is
// not shared yet.
func (h *Headless) open() error {
	s, err := Open(Options{Root: h.root, StoreDir: h.dir, Background: true, Watch: true, Yield: h.giveWay})
	if err != nil {
		return err
	}
	h.session, h.closed = s, false
	h.touch()
	if h.ln, err = s.Listen(); err != nil {
		// Still this process's session; other clients cannot reach it.
		h.logf("serving the session to other clients: %v", err)
	}
	return nil
}

func (h *Headless) touch() { h.active.Store(time.Now().UnixNano()) }

// LastActive is when the session was last opened, gave way, or began a
// command.
func (h *Headless) LastActive() time.Time {
	t := time.Unix(0, h.active.Load())
	h.mu.RLock()
	defer h.mu.RUnlock()
	if c := h.session.LastCommand(); c.After(t) {
		return c
	}
	return t
}

// Serving reports whether this process serves the session now (it has not
// given way, nor been closed).
func (h *Headless) Serving() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return !h.closed
}

// Do runs fn in the session and reports whether it did: not when the
// session gave way to an editor's proxy and cannot be served again yet
// (see Resume), nor after Close. The caller then asks the session that
// serves the store. The session does not close while fn runs.
func (h *Headless) Do(ctx context.Context, fn func(*Session) error) (bool, error) {
	for range 2 {
		h.mu.RLock()
		if !h.closed {
			defer h.mu.RUnlock()
			return true, fn(h.session)
		}
		h.mu.RUnlock()
		if !h.Resume(ctx) {
			break
		}
	}
	return false, nil
}

// Resume serves the session headless again after it gave way, once the
// proxy it gave way to has gone and nothing else holds the store, and
// reports whether the session is served. Right after giving way it waits
// for the proxy: until a look has found the proxy's session, or the proxy
// has exited (or takeoverWait passed), it does not take the store back.
func (h *Headless) Resume(ctx context.Context) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !h.closed:
		return true
	case h.ended:
		return false
	}
	if listening(ctx, h.dir) {
		h.sawOwner = true // the proxy's session, or another's
		return false
	}
	if !h.sawOwner && time.Since(h.gaveWay) < takeoverWait && running(h.gaveWayTo) {
		return false // the proxy is still taking the store over
	}
	if err := h.open(); err != nil {
		return false // held by a command line meanwhile, say
	}
	h.logf("serving the session of %s again, headless", h.root)
	return true
}

// giveWay closes the session for an editor's proxy to take over, once the
// commands in it are answered.
func (h *Headless) giveWay(pid int) {
	h.logf("an editor's proxy (pid %d) takes the session of %s over with its language server", pid, h.root)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gaveWay, h.gaveWayTo, h.sawOwner = time.Now(), pid, false
	h.touch()
	if err := h.closeLocked(false); err != nil {
		h.logf("%v", err)
	}
}

// Close stops serving the session and closes the store, for good: the
// commands under way are cancelled.
func (h *Headless) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ended = true
	return h.closeLocked(true)
}

// closeLocked stops serving the session and closes the store, once the
// commands under way are answered: cancelled first when cancel is set,
// else let finish (giving way to a proxy: a command line's index through
// the session commits and is answered). The caller holds h.mu.
func (h *Headless) closeLocked(cancel bool) error {
	if h.closed {
		return nil
	}
	h.closed = true
	var errs []error
	if h.ln != nil {
		if cancel {
			errs = append(errs, h.ln.Close())
		} else {
			errs = append(errs, h.ln.drain())
		}
		h.ln = nil
	}
	if err := h.session.Close(); err != nil {
		errs = append(errs, fmt.Errorf("closing the session: %w", err))
	}
	return errors.Join(errs...)
}

// resumeEvery is how often Serve looks whether a session that gave way
// can be served again, and whether it has been idle long enough.
const resumeEvery = 2 * time.Second

// Serve keeps the session served until ctx ends, or until idle (when
// positive) has passed serving it without a command, then closes it for
// good; the time it stands by while an editor's proxy serves the session
// does not count. Whenever the session has given way to a proxy and that
// has gone, it is served headless again. A store without a base layer
// gets its syntax index built first, in the session (as `lspgraph index`
// through it), so that the session answers from it.
func (h *Headless) Serve(ctx context.Context, idle time.Duration) error {
	defer h.Close()
	if _, err := h.Do(ctx, func(s *Session) error { return h.indexIfEmpty(ctx, s) }); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	every := resumeEvery
	if idle > 0 {
		every = min(every, max(idle/4, 10*time.Millisecond))
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if !h.Serving() && !h.Resume(ctx) {
			h.touch() // standing by while a proxy serves the session: not idle
			continue
		}
		if idle > 0 && time.Since(h.LastActive()) >= idle {
			h.logf("no command for %v: closing the session of %s", idle, h.root)
			return nil
		}
	}
}

// indexIfEmpty builds the syntax index of a session whose store has no
// base layer.
func (h *Headless) indexIfEmpty(ctx context.Context, s *Session) error {
	r, err := s.reader()
	if err != nil {
		return err
	}
	_, ok, err := r.Manifest(graph.Base)
	r.Close()
	if err != nil || ok {
		return err
	}
	h.logf("%s has no index yet: building its syntax index", h.root)
	res, err := s.Command(ctx, CommandIndex, Call{})
	if err != nil {
		return err
	}
	if ir, ok := res.(IndexResult); ok {
		h.logf("indexed %d files of %s in %.1fs", ir.Summary.Indexed, h.root, ir.Summary.Duration.Seconds())
	}
	return nil
}

// running reports whether the process pid runs (true when it cannot tell).
func running(pid int) bool {
	if pid <= 0 {
		return true
	}
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
