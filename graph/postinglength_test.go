package graph

import (
	"math"
	"testing"
)

// TestPostingLength: lengths below 32 are exact; above, within 3.2% of
// the length and the same for the neighbours of one bucket, which a few
// words added or removed mostly stay in; never decreasing.
func TestPostingLength(t *testing.T) {
	for n := range 32 {
		if got := postingLength(n); got != n {
			t.Errorf("postingLength(%d) = %d, want it exact", n, got)
		}
	}
	prev, buckets := 0, 0
	for n := 32; n < 1<<20; n++ {
		got := postingLength(n)
		if d := math.Abs(float64(got-n)) / float64(n); d > 0.032 {
			t.Fatalf("postingLength(%d) = %d, %.1f%% off", n, got, 100*d)
		}
		if got < prev {
			t.Fatalf("postingLength(%d) = %d, less than postingLength(%d) = %d", n, got, n-1, prev)
		}
		if got != prev {
			buckets++
		}
		prev = got
	}
	// Five bits kept: 16 buckets for each doubling from 32 on.
	if want := 16 * 15; buckets != want {
		t.Errorf("%d distinct rounded lengths between 32 and 2^20, want %d", buckets, want)
	}
	if a, b := postingLength(2000), postingLength(2005); a != b {
		t.Errorf("a document of 2000 words and one of 2005 hold other lengths: %d, %d", a, b)
	}
}
