package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/workspace"
)

// askSession runs a command of the workspace at root, as a client of the
// given kind ("cli", "mcp"): in the session that
// serves its store (an editor's proxy), which answers with the editor's
// unsaved buffers and its live server; else in a one-shot session of this
// process, which opens the store itself. The answer is decoded into out
// (a *json.RawMessage receives it as the session encoded it). mustExist
// refuses to create a store that does not exist yet.
func askSession(ctx context.Context, kind, root, storeFlag, name string, arg any, out any, mustExist bool) error {
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
	answer, err := ask(ctx, kind, root, dir, name, args)
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

// holderWait bounds how long a command line waits for a store that another
// process holds without serving a session (an import, another command
// line), or whose session is still starting.
const holderWait = 3 * time.Second

// ask runs a command in the session serving the store in dir, or in a
// one-shot session of this process when none serves it, and returns the
// answer's JSON. A session that goes away during the call is asked again
// of whoever holds the store then.
func ask(ctx context.Context, kind, root, dir, name string, args []json.RawMessage) (json.RawMessage, error) {
	deadline := time.Now().Add(holderWait)
	retried := false
	for {
		answer, _, err := workspace.Ask(ctx, dir, kind, name, args, 0)
		switch {
		case err == nil:
			return answer, nil
		case errors.Is(err, workspace.ErrSessionGone) && !retried:
			retried = true
			continue
		case !errors.Is(err, workspace.ErrNoSession):
			return nil, err
		}
		if name == workspace.CommandImpact {
			// Asked again with nothing changed: the answer kept on disk,
			// without opening the store for writing.
			if raw, ok := workspace.Cached(ctx, root, dir, args); ok {
				return raw, nil
			}
		}
		s, err := workspace.Open(workspace.Options{Root: root, StoreDir: dir})
		if err == nil {
			defer s.Close()
			res, err := s.Command(ctx, name, workspace.Call{Args: args})
			if err != nil {
				return nil, err
			}
			if raw, ok := res.(json.RawMessage); ok {
				return raw, nil
			}
			b, err := json.Marshal(res)
			if err != nil {
				return nil, fmt.Errorf("encoding the answer: %w", err)
			}
			return b, nil
		}
		if !errors.Is(err, graph.ErrLocked) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w; it serves no session to ask through: wait for it to finish, or pass another --store", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
