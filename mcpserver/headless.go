package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/workspace"
)

// HeadlessSession is a workspace's session served by this process with no
// language server: every call answers in one warm session (the work tree
// watched, the scope analysis, history and looks kept) instead of opening
// the store anew, and other clients (the command line, another agent)
// attach to it. It gives way to an editor's proxy: a proxy that attaches
// with a language server asks it to (workspace.Options.Yield), and from
// then on calls go to others, which reach the proxy's session. Calls for
// other roots go to others too.
type HeadlessSession struct {
	SessionAsker
	others Asker
	ln     *workspace.Listener
	logf   func(format string, args ...any)

	// mu is held for reading by each call in the session and for writing
	// by the close, so that the session closes between calls.
	mu     sync.RWMutex
	closed bool
}

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
	h := &HeadlessSession{others: others, logf: logf}
	s, err := workspace.Open(workspace.Options{Root: root, StoreDir: dir, Background: true, Watch: true, Yield: h.giveWay})
	if errors.Is(err, graph.ErrLocked) {
		logf("%v; opening the store for each call", err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	h.SessionAsker = SessionAsker{Root: root, Session: s}
	if h.ln, err = s.Listen(); err != nil {
		// Still this process's session; other clients cannot reach it.
		logf("serving the session to other clients: %v", err)
	}
	return h, nil
}

// Ask implements Asker.
func (h *HeadlessSession) Ask(ctx context.Context, root, command string, arg any, out any) error {
	if root == h.Root {
		h.mu.RLock()
		if !h.closed {
			defer h.mu.RUnlock()
			return h.SessionAsker.Ask(ctx, root, command, arg, out)
		}
		h.mu.RUnlock()
	}
	return h.others.Ask(ctx, root, command, arg, out)
}

// giveWay closes the session for an editor's proxy to take over, once the
// calls in it are answered.
func (h *HeadlessSession) giveWay() {
	h.logf("an editor's proxy takes the session of %s over with its language server", h.Root)
	if err := h.Close(); err != nil {
		h.logf("%v", err)
	}
}

// Close stops serving the session and closes the store.
func (h *HeadlessSession) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	var errs []error
	if h.ln != nil {
		errs = append(errs, h.ln.Close())
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
