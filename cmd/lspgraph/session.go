package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/lspgraph/lspgraph/workspace"
)

// askSession runs a command of the workspace at root, as a client of the
// given kind ("cli", "mcp"): in the session that
// serves its store (an editor's proxy), which answers with the editor's
// unsaved buffers and its live server; else in a one-shot session of this
// process, which opens the store itself. The answer is decoded into out
// (a *json.RawMessage receives it as the session encoded it). mustExist
// refuses to create a store that does not exist yet. With LSPGRAPH_SERVE=auto
// in the environment, a command line whose store no session serves
// answers on its own, then starts `lspgraph serve` for it in the
// background (see workspace.StartServing), which the next command lines
// ask through (not when e is nil).
func askSession(ctx context.Context, e *env, kind, root, storeFlag, name string, arg any, out any, mustExist bool) error {
	dir, err := storeDir(storeFlag, root)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(arg)
	if err != nil {
		return fmt.Errorf("encoding the %s argument: %w", name, err)
	}
	args := []json.RawMessage{raw}
	if mustExist {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no graph store at %s for %s: run `lspgraph scip import INDEX.scip` or `lspgraph index` first, or pass --store", dir, root)
		}
	}
	answer, err := workspace.AskOrOpen(ctx, kind, root, dir, name, args)
	if e != nil && kind == "cli" && e.getenv("LSPGRAPH_SERVE") == "auto" {
		autoServe(ctx, e, root, dir)
	}
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if rawOut, ok := out.(*json.RawMessage); ok {
		*rawOut = answer
		return nil
	}
	return json.Unmarshal(answer, out)
}

// autoServe starts a session for the store at dir when it exists and none
// serves it; a failure is told.
func autoServe(ctx context.Context, e *env, root, dir string) {
	if _, err := os.Stat(dir); err != nil {
		return
	}
	exe, err := os.Executable()
	if err == nil {
		err = workspace.StartServing(ctx, exe, root, dir, workspace.ServeIdle)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "lspgraph: LSPGRAPH_SERVE=auto: %v\n", err)
	}
}
