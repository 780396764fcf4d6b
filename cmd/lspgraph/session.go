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

// askSession runs a command of the workspace at root: in the session that
// serves its store (an editor's proxy), which answers with the editor's
// unsaved buffers and its live server; else in a one-shot session of this
// process, which opens the store itself. The answer is decoded into out.
// mustExist refuses to create a store that does not exist yet. kind is
// what this process is to the session ("cli", "mcp").
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
	c, s, err := connect(ctx, kind, root, dir)
	if err != nil {
		return err
	}
	if c != nil {
		err := c.Command(ctx, name, args, 0, out)
		c.Close()
		if !errors.Is(err, workspace.ErrSessionGone) {
			return err
		}
		// The session's process exited during the call: ask whoever
		// holds the store now, or open it here.
		if c, s, err = connect(ctx, kind, root, dir); err != nil {
			return err
		}
		if c != nil {
			defer c.Close()
			return c.Command(ctx, name, args, 0, out)
		}
	}
	defer s.Close()
	res, err := s.Command(ctx, name, workspace.Call{Args: args})
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encoding the answer: %w", err)
	}
	return json.Unmarshal(b, out)
}

// holderWait bounds how long a command line waits for a store that another
// process holds without serving a session (an import, another command
// line), or whose session is still starting.
const holderWait = 3 * time.Second

// connect reaches the session serving the store in dir, or opens a
// one-shot session of this process when none serves it. kind is what this
// process is to the session ("cli", "mcp").
func connect(ctx context.Context, kind, root, dir string) (*workspace.Client, *workspace.Session, error) {
	deadline := time.Now().Add(holderWait)
	for {
		c, err := workspace.Dial(ctx, dir, kind, "")
		if err == nil {
			return c, nil, nil
		}
		if !errors.Is(err, workspace.ErrNoSession) {
			return nil, nil, err
		}
		s, err := workspace.Open(workspace.Options{Root: root, StoreDir: dir})
		if err == nil {
			return nil, s, nil
		}
		if !errors.Is(err, graph.ErrLocked) {
			return nil, nil, err
		}
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("%w; it serves no session to ask through: wait for it to finish, or pass another --store", err)
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
