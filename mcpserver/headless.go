package mcpserver

import (
	"context"
	"errors"
	"os"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/workspace"
)

// HeadlessSession is a workspace's session served by this process with no
// language server (workspace.Headless): every call answers in one warm
// session, other clients attach to it, and it gives way to an editor's
// proxy, whose session calls then reach through others until it has gone.
// Calls for other roots go to others.
type HeadlessSession struct {
	root   string
	h      *workspace.Headless
	others Asker
}

// Headless serves the session of the workspace at root (store dir)
// without a language server, unless a session already serves the store,
// the store does not exist yet (the background index creates it, and the
// first calls answer that it runs), or a process that serves no session
// holds it: then it returns nil and says why through logf.
func Headless(ctx context.Context, root, dir string, others Asker, logf func(format string, args ...any)) (*HeadlessSession, error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	h, err := workspace.ServeHeadless(ctx, root, dir, "mcp", workspace.WaitNone, logf)
	switch {
	case errors.Is(err, workspace.ErrServed):
		logf("a session serves %s; asking it", root)
		return nil, nil
	case errors.Is(err, graph.ErrLocked):
		logf("%v; opening the store for each call", err)
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &HeadlessSession{root: root, h: h, others: others}, nil
}

// Ask implements Asker.
func (h *HeadlessSession) Ask(ctx context.Context, root, command string, arg any, out any) error {
	if root == h.root {
		served, err := h.h.Do(ctx, func(s *workspace.Session) error {
			return SessionAsker{Root: root, Session: s}.Ask(ctx, root, command, arg, out)
		})
		if served {
			return err
		}
	}
	return h.others.Ask(ctx, root, command, arg, out)
}

// Close stops serving the session and closes the store, for good.
func (h *HeadlessSession) Close() error { return h.h.Close() }

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
