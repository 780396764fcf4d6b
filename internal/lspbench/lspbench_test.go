package lspbench

import (
	"testing"
	"time"
)

func TestPairedAddedRatio(t *testing.T) {
	ms := func(v ...float64) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x * float64(time.Millisecond))
		}
		return out
	}
	// Rounds 2 and 3 are slow for every path alike; the reference adds
	// 0.1 ms and the middle 0.2 ms in every round.
	direct := ms(0.5, 2.0, 3.0, 0.5, 0.6)
	ref := ms(0.6, 2.1, 3.1, 0.6, 0.7)
	mid := ms(0.7, 2.2, 3.2, 0.7, 0.8)
	got, ok := PairedAddedRatio(direct, ref, mid)
	if !ok || got < 1.99 || got > 2.01 {
		t.Errorf("PairedAddedRatio = %v, %v; want 2", got, ok)
	}
	if _, ok := PairedAddedRatio(direct, direct, mid); ok {
		t.Error("a reference that adds nothing gave a ratio")
	}
	if _, ok := PairedAddedRatio(direct, ref[:2], mid); ok {
		t.Error("slices of different lengths gave a ratio")
	}
}
