package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lspgraph/lspgraph/workspace"
)

// SessionAsker answers from one session of this process, for the one
// workspace it serves (benchmarks and tests; `lspgraph mcp` asks through
// the workspace's socket).
type SessionAsker struct {
	Root    string
	Session *workspace.Session
}

// Ask implements Asker.
func (a SessionAsker) Ask(ctx context.Context, root, command string, arg any, out any) error {
	if root != a.Root {
		return fmt.Errorf("no graph store for %s", root)
	}
	raw, err := json.Marshal(arg)
	if err != nil {
		return err
	}
	res, err := a.Session.Command(ctx, command, workspace.Call{Args: []json.RawMessage{raw}})
	if err != nil {
		return err
	}
	b, ok := res.(json.RawMessage)
	if !ok {
		if b, err = json.Marshal(res); err != nil {
			return err
		}
	}
	return json.Unmarshal(b, out)
}
