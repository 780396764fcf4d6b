package pricing

import "testing"

func TestQuote(t *testing.T) {
	if got := Quote(100, 10); got != 900 {
		t.Fatalf("Quote(100, 10) = %d; want 900", got)
	}
}
