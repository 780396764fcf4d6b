package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/overlay"
)

// syncLiveLayer brings the live layer of the store for root (or dir) up to
// date with the work tree before a command-line query: documents changed
// since the base commit are re-extracted with syntax (overlay.Sync). It
// never fails the query. A store held by another lspgraph (an editor's
// proxy keeps its own overlay in step) or not created yet is left alone;
// other failures are reported on stderr, and the answer's freshness block
// then says what is stale.
func syncLiveLayer(ctx context.Context, e *env, root, dir string) {
	if dir == "" {
		d, err := graph.DefaultDir(root)
		if err != nil {
			return
		}
		dir = d
	}
	if _, err := os.Stat(dir); err != nil {
		return
	}
	st, err := graph.Open(dir, graph.Options{})
	if errors.Is(err, graph.ErrLocked) {
		return
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "warning: not updating the live layer: %v\n", err)
		return
	}
	defer st.Close()
	if _, err := overlay.Sync(ctx, st, root); err != nil {
		fmt.Fprintf(e.stderr, "warning: updating the live layer: %v (answers may be stale; see freshness)\n", err)
	}
}
