package mcpserver

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/workspace"
)

// indexer builds the base layer of a workspace whose store has none
// (lspgraph.index through the Asker), in the background, starting on the
// first tool call for it. Until the build ends every call for that
// workspace answers partial without asking the store, which the build
// holds.
type indexer struct {
	mu   sync.Mutex
	runs map[string]*indexRun // by root
}

type indexRun struct {
	start time.Time
	done  chan struct{} // nil: the workspace had a base layer
	err   error
}

// hasNoBase reports whether the store of root has no base layer (or no
// store at all); an error means it could not tell.
func hasNoBase(ctx context.Context, ask Asker, root string) (bool, error) {
	var st workspace.Status
	if err := ask.Ask(ctx, root, workspace.CommandStatus, nil, &st); err != nil {
		if strings.Contains(err.Error(), "no graph store") {
			return true, nil
		}
		return false, err
	}
	for _, l := range st.Layers {
		if l.Layer == "base" && l.Documents > 0 {
			return false, nil
		}
	}
	return true, nil
}

// pending returns why a call for root cannot be answered yet (the base
// layer is being built), or "" when it can. The first call for a root
// without a base layer starts the build. A build that failed is reported
// once as an error; the next call checks again.
func (x *indexer) pending(ctx context.Context, ask Asker, root string) (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	run := x.runs[root]
	if run == nil {
		none, err := hasNoBase(ctx, ask, root)
		if err != nil {
			return "", nil // the tool's own call reports what is wrong
		}
		if !none {
			x.runs[root] = &indexRun{}
			return "", nil
		}
		run = &indexRun{start: time.Now(), done: make(chan struct{})}
		x.runs[root] = run
		go func() {
			defer close(run.done)
			var res workspace.IndexResult
			run.err = ask.Ask(context.Background(), root, workspace.CommandIndex, workspace.IndexRequest{}, &res)
		}()
	}
	if run.done == nil {
		return "", nil
	}
	select {
	case <-run.done:
		if run.err != nil {
			delete(x.runs, root)
			return "", fmt.Errorf("building the syntax index of %s failed: %v", root, run.err)
		}
		run.done = nil
		return "", nil
	default:
		return fmt.Sprintf("indexing; %d s so far: the workspace had no index, so lspgraph builds its syntax index in the background; ask again shortly",
			int(time.Since(run.start).Seconds())), nil
	}
}

// pendingOut is a tool's answer while the base layer is built: the
// tool's answer type (a struct) with nothing in it but a partial
// freshness block.
func pendingOut(outType reflect.Type, reason string) any {
	v := reflect.New(outType)
	if f := v.Elem().FieldByName("Freshness"); f.IsValid() && f.Type() == reflect.TypeFor[Freshness]() {
		f.Set(reflect.ValueOf(Freshness{Live: []string{}, Dirty: []string{}, Partial: true, Reasons: []string{reason}}))
	}
	return v.Interface()
}
