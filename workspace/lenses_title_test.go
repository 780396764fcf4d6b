package workspace

import (
	"testing"

	"github.com/lspgraph/lspgraph/impact"
)

func TestLensTitleBoundedWalk(t *testing.T) {
	deps := make([]impact.Dependent, 3)
	a := &impact.Answer{Depths: []impact.DepthGroup{{Depth: 1, Dependents: deps}}, Risk: impact.Risk{Level: "HIGH"}}
	if got, want := lensTitle(a), "3 callers · 0 tests · risk HIGH"; got != want {
		t.Errorf("complete walk: %q, want %q", got, want)
	}
	a.Truncated, a.Skipped = true, &impact.Skipped{Unlisted: 7}
	if got, want := lensTitle(a), "3+ callers · 0 tests · risk HIGH"; got != want {
		t.Errorf("bounded walk: %q, want %q", got, want)
	}
}
