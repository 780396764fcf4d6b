package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspgraph/lspgraph/crawl"
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
	return askSession(ctx, nil, "mcp", root, store, command, arg, out, command != workspace.CommandIndex)
}

func runMCP(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "mcp", "mcp [--root DIR] [--store DIR] [--max-tokens N] [-- SERVER ARGS...]\n\n"+
		"Serves the Model Context Protocol on standard input and output: the tools status, symbols, impact,\n"+
		"context and changes, answered by the session of the editor's proxy when one runs for the workspace,\n"+
		"else by a session it serves itself, headless, until an editor's proxy takes it over. With -- SERVER ARGS...\n"+
		"and no session running for the --root workspace, it starts that language server and serves the session\n"+
		"with it, so that impact's d=1 is checked against it; the server is shut down on exit. A workspace with no store gets\n"+
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
	r, dir, err := workspaceAndStore(ctx, *root, *store)
	if err != nil {
		return err
	}
	var start func() (mcpserver.LiveServer, error)
	if len(server) > 0 {
		start = func() (mcpserver.LiveServer, error) {
			return crawl.StartServer(ctx, crawl.Options{Root: r, Server: server, Stderr: e.stderr})
		}
	}
	logf := func(format string, args ...any) { fmt.Fprintf(e.stderr, "lspgraph mcp: "+format+"\n", args...) }
	asker, closeSession, err := mcpserver.Attach(ctx, r, dir, mcpAsker{root: r, store: *store}, start, logf)
	if err != nil {
		return err
	}
	defer closeSession()
	srv := mcpserver.New(asker, mcpserver.Options{Root: r, MaxTokens: *maxTokens, Version: version(), IndexWhenEmpty: true})
	err = srv.Run(ctx, &mcp.IOTransport{Reader: nopReadCloser{e.stdin}, Writer: nopWriteCloser{e.stdout}})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// nopReadCloser and nopWriteCloser leave the process's standard streams
// open when the transport closes.
type nopReadCloser struct{ r io.Reader }

func (n nopReadCloser) Read(p []byte) (int, error) { return n.r.Read(p) }
func (nopReadCloser) Close() error                 { return nil }

type nopWriteCloser struct{ w io.Writer }

func (n nopWriteCloser) Write(p []byte) (int, error) { return n.w.Write(p) }
func (nopWriteCloser) Close() error                  { return nil }
