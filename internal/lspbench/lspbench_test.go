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

// TestAddedInterval: in every run the middle adds twice what the
// reference adds, over a direct latency that differs from run to run;
// the interval holds 2 and only values near it. With the middle adding
// 1.5× in half the runs and 2.5× in the others, it spans both.
func TestAddedInterval(t *testing.T) {
	us := func(v int) time.Duration { return time.Duration(v) * time.Microsecond }
	mkRun := func(direct, added int, times float64) [][]time.Duration {
		var d, r, m []time.Duration
		for i := range 101 {
			jitter := i % 7
			d = append(d, us(direct+jitter))
			r = append(r, us(direct+jitter+added))
			m = append(m, us(direct+jitter+int(times*float64(added))))
		}
		return [][]time.Duration{d, r, m}
	}
	var steady, mixed [][][]time.Duration
	for k := range 10 {
		steady = append(steady, mkRun(200+10*k, 50, 2))
		times := 1.5
		if k%2 == 1 {
			times = 2.5
		}
		mixed = append(mixed, mkRun(200+10*k, 50, times))
	}
	lo, hi, ok := AddedInterval(steady, 500)
	if !ok || lo < 1.95 || hi > 2.05 || lo > hi {
		t.Errorf("steady runs: interval %.3f-%.3f, %v; want about 2-2", lo, hi, ok)
	}
	lo, hi, ok = AddedInterval(mixed, 500)
	if !ok || lo > 1.6 || hi < 2.4 {
		t.Errorf("mixed runs: interval %.3f-%.3f, %v; want it to span 1.6-2.4", lo, hi, ok)
	}
	if _, _, ok := AddedInterval(steady[:1], 500); ok {
		t.Error("one run gave an interval")
	}
}

// TestCPUTimes reads the machine's processor time twice around a busy
// loop: both counts grow, busy no faster than total.
func TestCPUTimes(t *testing.T) {
	busy0, total0, ok := cpuTimes()
	if !ok {
		t.Skip("no /proc/stat on this system")
	}
	x := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		x += x>>3 ^ 1
	}
	busy, total, ok := cpuTimes()
	if !ok || busy <= busy0 || total <= total0 || busy-busy0 > total-total0 || busy > total {
		t.Errorf("busy %d→%d, total %d→%d (%d), %v", busy0, busy, total0, total, x, ok)
	}
}
