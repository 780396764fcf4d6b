package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lspgraph/lspgraph/workspace"
)

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "serve", "serve [--root DIR] [--store DIR] [--idle DURATION] [--unless-served]\n\n"+
		"Serves the workspace's session with no language server until interrupted: the work tree watched and the\n"+
		"answers' inputs kept warm, so that the command line (status, impact, changes, context, search, scope,\n"+
		"index, scip import) and `lspgraph mcp` answer from it instead of opening the store, running git and\n"+
		"reading the history for every question. A store without an index gets its syntax index built first; a\n"+
		"store another process holds or serves is waited for. An editor's proxy that starts with a language\n"+
		"server takes the session over; once it has gone the session is served again.")
	root := fs.String("root", "", "workspace root `DIR` (default: the git top level of the current directory)")
	store := fs.String("store", "", "graph store `DIR` (default: the user cache directory for the root)")
	idle := fs.Duration("idle", 30*time.Minute, "exit after `DURATION` serving with no command (0: never)")
	unlessServed := fs.Bool("unless-served", false, "exit at once, not wait, when another process serves the store's session (LSPGRAPH_SERVE=auto starts serve so)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	r, dir, err := workspaceAndStore(ctx, *root, *store)
	if err != nil {
		return err
	}
	logf := func(format string, args ...any) { fmt.Fprintf(e.stderr, "lspgraph serve: "+format+"\n", args...) }
	wait := workspace.WaitAll
	if *unlessServed {
		wait = workspace.WaitHeld
	}
	h, err := workspace.ServeHeadless(ctx, r, dir, "serve", wait, logf)
	if ctx.Err() != nil {
		return nil // interrupted while another process held the store
	} else if *unlessServed && errors.Is(err, workspace.ErrServed) {
		logf("%v; not serving it twice", err)
		return nil
	} else if err != nil {
		return err
	}
	logf("serving the session of %s (store %s)", r, dir)
	return h.Serve(ctx, *idle)
}
