package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/workspace"
)

// HeadlessSession is a workspace's session served by this process with no
// language server: every call answers in one warm session (the work tree
// watched, the scope analysis, history and looks kept) instead of opening
// the store anew, and other clients (the command line, another agent)
// attach to it. It gives way to an editor's proxy: a proxy that attaches
// with a language server asks it to (workspace.Options.Yield), and calls
// then go to others, which reach the proxy's session; once that has gone,
// the next call serves the session headless again. Calls for other roots
// go to others.
type HeadlessSession struct {
	SessionAsker
	dir    string
	others Asker
	ln     *workspace.Listener
	logf   func(format string, args ...any)

	// mu is held for reading by each call in the session and for writing
	// by the close, so that the session closes between calls. closed is
	// set while no session is served (given way, or Close), ended by
	// Close.
	mu            sync.RWMutex
	closed, ended bool
	// gaveWay is when the session last gave way, sawOwner whether a call
	// since found the session that took it over: until then (or for
	// takeoverWait) it is not served again, or it would race the proxy
	// for the store.
	gaveWay  time.Time
	sawOwner bool
}

// takeoverWait is how long a session that gave way waits for the proxy to
// take it over before serving it again without having seen it.
const takeoverWait = 30 * time.Second

// Headless serves the session of the workspace at root (store dir)
// without a language server, unless a session already serves the store,
// the store does not exist yet (the background index creates it, and the
// first calls answer that it runs), or a process that serves no session
// holds it: then it returns nil and says why through logf.
func Headless(ctx context.Context, root, dir string, others Asker, logf func(format string, args ...any)) (*HeadlessSession, error) {
	if c, err := workspace.Dial(ctx, dir, "mcp", ""); err == nil {
		c.Close()
		logf("a session serves %s; asking it", root)
		return nil, nil
	} else if !errors.Is(err, workspace.ErrNoSession) {
		return nil, err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	h := &HeadlessSession{SessionAsker: SessionAsker{Root: root}, dir: dir, others: others, logf: logf}
	if err := h.open(); errors.Is(err, graph.ErrLocked) {
		logf("%v; opening the store for each call", err)
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return h, nil
}

// open opens the session and serves it. The caller holds h.mu, or h is
// not shared yet.
func (h *HeadlessSession) open() error {
	s, err := workspace.Open(workspace.Options{Root: h.Root, StoreDir: h.dir, Background: true, Watch: true, Yield: h.giveWay})
	if err != nil {
		return err
	}
	h.Session, h.closed = s, false
	if h.ln, err = s.Listen(); err != nil {
		// Still this process's session; other clients cannot reach it.
		h.logf("serving the session to other clients: %v", err)
	}
	return nil
}

// Ask implements Asker.
func (h *HeadlessSession) Ask(ctx context.Context, root, command string, arg any, out any) error {
	if root == h.Root {
		for range 2 {
			h.mu.RLock()
			if !h.closed {
				defer h.mu.RUnlock()
				return h.SessionAsker.Ask(ctx, root, command, arg, out)
			}
			h.mu.RUnlock()
			if !h.reopen(ctx) {
				break
			}
		}
	}
	return h.others.Ask(ctx, root, command, arg, out)
}

// reopen serves the session headless again after it gave way, once the
// proxy it gave way to has gone and nothing else holds the store: the
// next calls answer warm again. It reports whether a session is served.
func (h *HeadlessSession) reopen(ctx context.Context) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !h.closed:
		return true
	case h.ended:
		return false
	}
	if c, err := workspace.Dial(ctx, h.dir, "mcp", ""); err == nil {
		c.Close() // the proxy's, or another's: asked through others
		h.sawOwner = true
		return false
	}
	if !h.sawOwner && time.Since(h.gaveWay) < takeoverWait {
		return false // the proxy is still taking the store over
	}
	if err := h.open(); err != nil {
		return false // held by a command line meanwhile, say: asked per call
	}
	h.logf("serving the session of %s again, headless", h.Root)
	return true
}

// giveWay closes the session for an editor's proxy to take over, once the
// calls in it are answered.
func (h *HeadlessSession) giveWay() {
	h.logf("an editor's proxy takes the session of %s over with its language server", h.Root)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gaveWay, h.sawOwner = time.Now(), false
	if err := h.closeLocked(); err != nil {
		h.logf("%v", err)
	}
}

// Close stops serving the session and closes the store, for good.
func (h *HeadlessSession) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ended = true
	return h.closeLocked()
}

// closeLocked stops serving the session and closes the store. The caller
// holds h.mu.
func (h *HeadlessSession) closeLocked() error {
	if h.closed {
		return nil
	}
	h.closed = true
	var errs []error
	if h.ln != nil {
		errs = append(errs, h.ln.Close())
		h.ln = nil
	}
	if err := h.Session.Close(); err != nil {
		errs = append(errs, fmt.Errorf("closing the session: %w", err))
	}
	return errors.Join(errs...)
}

// Attach returns the Asker the tools of the workspace at root (store dir)
// go through, and what closes it: the session this process serves with
// the language server start starts (Own), or, when start is nil, headless
// (Headless); others when a session already serves the store or a process
// that serves none holds it.
func Attach(ctx context.Context, root, dir string, others Asker, start func() (LiveServer, error), logf func(format string, args ...any)) (Asker, func(), error) {
	closeWith := func(c interface{ Close() error }) func() {
		return func() {
			if err := c.Close(); err != nil {
				logf("%v", err)
			}
		}
	}
	if start != nil {
		own, err := Own(ctx, root, dir, others, start, logf)
		if err != nil || own == nil {
			return others, func() {}, err
		}
		return own, closeWith(own), nil
	}
	h, err := Headless(ctx, root, dir, others, logf)
	if err != nil || h == nil {
		return others, func() {}, err
	}
	return h, closeWith(h), nil
}
