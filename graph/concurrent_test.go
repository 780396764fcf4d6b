package graph_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
)

// TestReadersDuringCommits runs readers against a writer that commits
// generation after generation (and edits the live layer), and checks every
// reader sees exactly one whole generation: all the references of "shared"
// carry the same tag, their number is the generation's size, and the
// manifest matches.
func TestReadersDuringCommits(t *testing.T) {
	ctx := context.Background()
	s := graphtest.Open(t)
	const gens, docs, readers = 12, 30, 4
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, readers+1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer done.Store(true)
		errs <- writeGenerations(ctx, s, gens, docs)
	}()
	var checks atomic.Int64
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				if err := checkOneGeneration(ctx, s, docs); err != nil {
					errs <- err
					return
				}
				checks.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if checks.Load() == 0 {
		t.Error("no reader ran")
	}
	if err := checkOneGeneration(ctx, s, docs); err != nil {
		t.Error(err)
	}
}

// writeGenerations commits n generations; generation k tags its facts "gK".
// Between commits it rewrites a live document, which must not disturb base
// readers.
func writeGenerations(ctx context.Context, s *graph.Store, n, docs int) error {
	for k := 1; k <= n; k++ {
		g, err := s.BeginGeneration(ctx)
		if err != nil {
			return err
		}
		tag := fmt.Sprintf("g%d", g.Generation())
		for i := range docs {
			if err := g.PutDocument(ctx, numberedDoc(i, tag)); err != nil {
				return err
			}
		}
		if err := g.Commit(ctx, graph.Manifest{Commit: tag}); err != nil {
			return err
		}
		live := graph.DocumentFacts{Document: graph.Document{Path: "live.go"}}
		live.Occurrences = []graph.Occurrence{{Symbol: fmt.Sprintf("live%d", k)}}
		if err := s.PutDocument(ctx, graph.Live, live); err != nil {
			return err
		}
	}
	return nil
}

func checkOneGeneration(ctx context.Context, s *graph.Store, docs int) error {
	r, err := s.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	m, ok, err := r.Manifest(graph.Base)
	if err != nil || !ok {
		return err // no generation committed yet
	}
	tag := fmt.Sprintf("g%d", m.Generation)
	if m.Commit != tag || r.BaseGeneration() != m.Generation {
		return fmt.Errorf("manifest %+v does not match generation %d", m, r.BaseGeneration())
	}
	refs, err := r.References(ctx, "shared", 0)
	if err != nil {
		return err
	}
	if len(refs) != docs {
		return fmt.Errorf("generation %s: %d references, want %d", tag, len(refs), docs)
	}
	for _, o := range refs {
		if !strings.HasSuffix(o.Enclosing, tag) {
			return fmt.Errorf("reader of %s sees %v from another generation", tag, o)
		}
	}
	in, err := r.Incoming(ctx, "shared", graph.EdgeFilter{})
	if err != nil || len(in) != docs {
		return fmt.Errorf("generation %s: %d incoming edges (%v), want %d", tag, len(in), err, docs)
	}
	return nil
}
