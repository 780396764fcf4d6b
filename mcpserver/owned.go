package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/workspace"
)

// LiveServer is a language server this process started to verify with
// (crawl.Server): a session's Server that can be waited for and stopped.
type LiveServer interface {
	workspace.Server
	WaitReady(ctx context.Context) bool
	Shutdown(ctx context.Context, grace time.Duration) error
}

// serverReadyWait bounds how long an impact call waits for a server this
// process started to load its project.
const serverReadyWait = 30 * time.Second

// OwnedSession is a workspace's session served by this process itself,
// verifying with a language server it started. Calls for other roots go
// to others.
type OwnedSession struct {
	SessionAsker
	others Asker
	ln     *workspace.Listener
	srv    LiveServer
}

// Own serves the session of the workspace at root (store dir) with the
// language server start starts, unless a session already serves the store
// (an editor's proxy, whose server verifies instead) or a process that
// serves no session holds it: then it returns nil, starting nothing, and
// says why through logf. others answers the other roots.
func Own(ctx context.Context, root, dir string, others Asker, start func() (LiveServer, error), logf func(format string, args ...any)) (*OwnedSession, error) {
	if c, err := workspace.Dial(ctx, dir, "mcp", ""); err == nil {
		c.Close()
		logf("a session serves %s; verifying with its server, not starting one", root)
		return nil, nil
	} else if !errors.Is(err, workspace.ErrNoSession) {
		return nil, err
	}
	s, err := workspace.Open(workspace.Options{Root: root, StoreDir: dir, Background: true, Watch: true})
	if errors.Is(err, graph.ErrLocked) {
		logf("%v; answering without starting the server", err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	srv, err := start()
	if err != nil {
		s.Close()
		return nil, err
	}
	s.SetServer(srv)
	o := &OwnedSession{SessionAsker: SessionAsker{Root: root, Session: s}, others: others, srv: srv}
	if o.ln, err = s.Listen(); err != nil {
		// Still this process's session; other clients cannot reach it.
		logf("serving the session to other clients: %v", err)
	}
	return o, nil
}

// Ask implements Asker.
func (o *OwnedSession) Ask(ctx context.Context, root, command string, arg any, out any) error {
	if root != o.Root {
		return o.others.Ask(ctx, root, command, arg, out)
	}
	if command == workspace.CommandImpact && !o.srv.Ready() {
		// The server was started with this process: an agent's first
		// question usually comes while it still loads the project. Wait a
		// while for it so that d=1 is checked; past that the answer says it
		// was not.
		wctx, cancel := context.WithTimeout(ctx, serverReadyWait)
		o.srv.WaitReady(wctx)
		cancel()
	}
	return o.SessionAsker.Ask(ctx, root, command, arg, out)
}

// Close stops serving the session, closes the store and shuts the server
// down.
func (o *OwnedSession) Close() error {
	var errs []error
	if o.ln != nil {
		errs = append(errs, o.ln.Close())
	}
	if err := o.Session.Close(); err != nil {
		errs = append(errs, fmt.Errorf("closing the session: %w", err))
	}
	if err := o.srv.Shutdown(context.Background(), 5*time.Second); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
