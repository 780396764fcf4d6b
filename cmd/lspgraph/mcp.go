package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspgraph/lspgraph/crawl"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/mcpserver"
	"github.com/lspgraph/lspgraph/workspace"
)

// mcpAsker runs the MCP tools' workspace commands as the command line
// does: in the session serving the workspace's store, else in a one-shot
// session of this process. The --store flag applies to the --root
// workspace; other roots use their default stores.
type mcpAsker struct {
	root, store string
}

func (a mcpAsker) Ask(ctx context.Context, root, command string, arg any, out any) error {
	store := ""
	if root == a.root {
		store = a.store
	}
	// Only the background index may create the store.
	return askSession(ctx, "mcp", root, store, command, arg, out, command != workspace.CommandIndex)
}

func runMCP(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "mcp", "mcp [--root DIR] [--store DIR] [--max-tokens N] [-- SERVER ARGS...]\n\n"+
		"Serves the Model Context Protocol on standard input and output: the tools status, symbols, impact,\n"+
		"context and changes, answered by the session of the editor's proxy when one runs for the workspace,\n"+
		"else from the store directly. With -- SERVER ARGS... and no session running for the --root workspace,\n"+
		"it starts that language server itself and serves the workspace's session, so that impact's d=1 is\n"+
		"checked against the server; the server is shut down on exit. A workspace whose store has no index gets\n"+
		"its syntax index built in the background from the first call; until it is done the tools answer partial.")
	root := fs.String("root", "", "workspace root `DIR` a call without root answers for (default: the git top level of the current directory)")
	store := fs.String("store", "", "graph store `DIR` of the --root workspace (default: the user cache directory for the root)")
	maxTokens := fs.Int("max-tokens", mcpserver.DefaultMaxTokens, fmt.Sprintf("cap every answer at `N` tokens (estimated as bytes/4; %d-%d)", mcpserver.MinMaxTokens, mcpserver.HardMaxTokens))
	if err := fs.Parse(args); err != nil {
		return err
	}
	server := fs.Args()
	if len(server) > 0 && !slices.Contains(args, "--") {
		return fmt.Errorf("%w: unexpected arguments %s (a language server goes after --)", errUsage, strings.Join(server, " "))
	}
	if *maxTokens < mcpserver.MinMaxTokens || *maxTokens > mcpserver.HardMaxTokens {
		return fmt.Errorf("%w: --max-tokens must be within %d-%d", errUsage, mcpserver.MinMaxTokens, mcpserver.HardMaxTokens)
	}
	r, err := workspaceRoot(ctx, *root)
	if err != nil {
		return err
	}
	var asker mcpserver.Asker = mcpAsker{root: r, store: *store}
	if len(server) > 0 {
		own, err := ownSession(ctx, e, r, *store, server)
		if err != nil {
			return err
		}
		if own != nil {
			defer own.close(e)
			asker = own
		}
	}
	srv := mcpserver.New(asker, mcpserver.Options{Root: r, MaxTokens: *maxTokens, Version: version(), IndexWhenEmpty: true})
	err = srv.Run(ctx, &mcp.IOTransport{Reader: nopReadCloser{e.stdin}, Writer: nopWriteCloser{e.stdout}})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// ownedSession is the --root workspace's session served by `lspgraph mcp
// -- SERVER` itself, verifying with the language server it started.
// Other roots are asked as without a server.
type ownedSession struct {
	mcpserver.SessionAsker
	others mcpAsker
	ln     *workspace.Listener
	srv    *crawl.Server
}

func (o *ownedSession) Ask(ctx context.Context, root, command string, arg any, out any) error {
	if root != o.Root {
		return o.others.Ask(ctx, root, command, arg, out)
	}
	if command == workspace.CommandImpact && !o.srv.Ready() {
		// The server was started with this process: an agent's first
		// question usually comes while it still loads the project. Wait a
		// while for it so that d=1 is checked; past that the answer says it
		// was not.
		wctx, cancel := context.WithTimeout(ctx, mcpServerReadyWait)
		o.srv.WaitReady(wctx)
		cancel()
	}
	return o.SessionAsker.Ask(ctx, root, command, arg, out)
}

// mcpServerReadyWait bounds how long an impact call waits for the server
// `lspgraph mcp -- SERVER` started to load its project.
const mcpServerReadyWait = 30 * time.Second

// close stops serving the session, closes the store and shuts the server
// down.
func (o *ownedSession) close(e *env) {
	if o.ln != nil {
		_ = o.ln.Close()
	}
	if err := o.Session.Close(); err != nil {
		fmt.Fprintf(e.stderr, "lspgraph mcp: closing the session: %v\n", err)
	}
	if err := o.srv.Shutdown(context.Background(), 5*time.Second); err != nil {
		fmt.Fprintf(e.stderr, "lspgraph mcp: %v\n", err)
	}
}

// ownSession starts the language server and serves the workspace's
// session with it, unless a session already serves the store (an
// editor's proxy, whose server verifies instead): then it returns nil and
// starts nothing. A store held by a process that serves no session is
// left to the one-shot sessions of each call, also without the server.
func ownSession(ctx context.Context, e *env, root, storeFlag string, server []string) (*ownedSession, error) {
	dir, err := storeDir(storeFlag, root)
	if err != nil {
		return nil, err
	}
	if c, err := workspace.Dial(ctx, dir, "mcp", ""); err == nil {
		c.Close()
		fmt.Fprintf(e.stderr, "lspgraph mcp: a session serves %s; verifying with its server, not starting %s\n", root, server[0])
		return nil, nil
	} else if !errors.Is(err, workspace.ErrNoSession) {
		return nil, err
	}
	s, err := workspace.Open(workspace.Options{Root: root, StoreDir: dir, Background: true})
	if errors.Is(err, graph.ErrLocked) {
		fmt.Fprintf(e.stderr, "lspgraph mcp: %v; answering without starting %s\n", err, server[0])
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	srv, err := crawl.StartServer(ctx, crawl.Options{Root: root, Server: server, Stderr: e.stderr})
	if err != nil {
		s.Close()
		return nil, err
	}
	s.SetServer(srv)
	o := &ownedSession{SessionAsker: mcpserver.SessionAsker{Root: root, Session: s}, others: mcpAsker{root: root}, srv: srv}
	if o.ln, err = s.Listen(); err != nil {
		// Still this process's session; other clients cannot reach it.
		fmt.Fprintf(e.stderr, "lspgraph mcp: serving the session to other clients: %v\n", err)
	}
	return o, nil
}

// nopReadCloser and nopWriteCloser leave the process's standard streams
// open when the transport closes.
type nopReadCloser struct{ r io.Reader }

func (n nopReadCloser) Read(p []byte) (int, error) { return n.r.Read(p) }
func (nopReadCloser) Close() error                 { return nil }

type nopWriteCloser struct{ w io.Writer }

func (n nopWriteCloser) Write(p []byte) (int, error) { return n.w.Write(p) }
func (nopWriteCloser) Close() error                  { return nil }
