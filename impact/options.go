package impact

import (
	"context"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
)

// DefaultKinds returns the edge kinds followed by default: references,
// calls, implements, type-of.
func DefaultKinds() []graph.EdgeKind {
	return []graph.EdgeKind{graph.EdgeReferences, graph.EdgeCalls, graph.EdgeImplements, graph.EdgeTypeOf}
}

// Options configure [Compute]. Start from [DefaultOptions].
type Options struct {
	// Direction: graph.Upstream (who depends on the target, the default) or
	// graph.Downstream (what the target depends on).
	Direction graph.Direction
	// MaxDepth bounds the walk (default 3).
	MaxDepth int
	// MinConfidence drops edges below it (default 0.7: precise facts and the
	// syntax layer's scoped guesses, not its global-name guesses).
	MinConfidence float64
	// Kinds are the edge kinds followed; implements edges feed the
	// implementation, dispatch and satisfaction groups.
	Kinds []graph.EdgeKind
	// IncludeTests keeps dependents in test documents (default true).
	IncludeTests bool
	// LimitPerDepth caps each depth group (0: no cap).
	LimitPerDepth int
	// MaxDependents bounds the walk beyond depth 1: once it has listed
	// this many dependents it lists no more and reads no further
	// dependents, and the answer is Truncated with Skipped saying what it
	// left out. Depth 1 (what will break) is always complete, and answers
	// with fewer dependents are not affected. 0: no bound.
	MaxDependents int
	// Freshness is the block computed for the store (freshness.Compute).
	// When nil, the answer carries the base manifest only and says that
	// changed documents could not be listed.
	Freshness *freshness.Block
	// Verify, when set, cross-checks the d=1 set against a live server.
	Verify Verifier
	// VerifyTimeout bounds Verify (default 5s).
	VerifyTimeout time.Duration
}

// DefaultMaxDependents is the default bound on the dependents a walk
// lists: it keeps the rare answers with hundreds of dependents (a
// widely used helper at depth 3) from costing a hundred times the median.
const DefaultMaxDependents = 100

// DefaultOptions returns the defaults: upstream, depth 3, confidence 0.7,
// default kinds, tests included, at most DefaultMaxDependents dependents.
func DefaultOptions() Options {
	return Options{
		Direction:     graph.Upstream,
		MaxDepth:      3,
		MinConfidence: 0.7,
		Kinds:         DefaultKinds(),
		IncludeTests:  true,
		MaxDependents: DefaultMaxDependents,
		VerifyTimeout: 5 * time.Second,
	}
}

// Verifier asks a live language server for the references of the symbol
// defined at def (textDocument/references, and callHierarchy/incomingCalls
// where supported, unioned), and returns the reported locations in graph
// coordinates (paths relative to the workspace root, UTF-8 columns).
// Declarations may be included; they are ignored.
type Verifier func(ctx context.Context, def graph.Location) ([]graph.Location, error)
