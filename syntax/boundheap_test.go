package syntax

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestBoundHeap: an index's heap limit is MemoryLimit above what the
// process holds when it starts, the previous limit back after it; a limit
// set already (GOMEMLIMIT) is left alone.
func TestBoundHeap(t *testing.T) {
	old := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })

	held := make([]byte, 64<<20) // what a session holds before its index
	for i := range held {
		held[i] = 1
	}
	restore := BoundHeap()
	limit := debug.SetMemoryLimit(-1)
	if limit < MemoryLimit+int64(len(held)) || limit > MemoryLimit+int64(len(held))+256<<20 {
		t.Errorf("a process holding %d MB bounds its index at %d MB, want %d MB above what it holds", len(held)>>20, limit>>20, MemoryLimit>>20)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after the index the limit is %d, want none", got)
	}
	held[0] = 2 // live until here

	const set = 1 << 40
	debug.SetMemoryLimit(set)
	restore = BoundHeap()
	if got := debug.SetMemoryLimit(-1); got != set {
		t.Errorf("a limit set before the index became %d during it", got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != set {
		t.Errorf("a limit set before the index became %d after it", got)
	}
}
