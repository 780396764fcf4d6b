package indexbench

import (
	"math"
	"math/big"
	"testing"
)

// binomialCoverage is 1 - 2·P(Binomial(n, ½) < k), counted exactly.
func binomialCoverage(n, k int) float64 {
	below := new(big.Int)
	for j := 0; j < k; j++ {
		below.Add(below, new(big.Int).Binomial(int64(n), int64(j)))
	}
	p, _ := new(big.Rat).SetFrac(below, new(big.Int).Lsh(big.NewInt(1), uint(n))).Float64()
	return 1 - 2*p
}

// TestMedianOrder: the order statistics bounding the median's interval are
// the widest-reaching ones that still cover it at 95%, against the
// binomial counted exactly.
func TestMedianOrder(t *testing.T) {
	for n := 2; n <= 60; n++ {
		k, conf := medianOrder(n, 0.95)
		if want := binomialCoverage(n, k); math.Abs(conf-want) > 1e-12 {
			t.Errorf("n=%d: k=%d with confidence %.6f, exactly %.6f", n, k, conf, want)
		}
		if k > 1 && conf < 0.95 {
			t.Errorf("n=%d: k=%d covers only %.4f", n, k, conf)
		}
		if 2*(k+1) <= n && binomialCoverage(n, k+1) >= 0.95 {
			t.Errorf("n=%d: k=%d, but k=%d covers %.4f", n, k, k+1, binomialCoverage(n, k+1))
		}
	}
	for _, c := range []struct {
		n, k int
		conf float64
	}{{5, 1, 0.9375}, {10, 2, 1 - 22.0/1024}, {25, 8, 0.9567}} {
		k, conf := medianOrder(c.n, 0.95)
		if k != c.k || math.Abs(conf-c.conf) > 5e-5 {
			t.Errorf("n=%d: k=%d at %.5f, want k=%d at %.5f", c.n, k, conf, c.k, c.conf)
		}
	}
}

// TestRoundRatio: the median of the rounds' ratios and the ratios that
// bound its interval, in any order of rounds.
func TestRoundRatio(t *testing.T) {
	if r := roundRatio([]float64{3.9}); r != nil {
		t.Errorf("one round gave %+v, want none", r)
	}
	r := roundRatio([]float64{4.2, 3.5, 3.9, 4.8, 3.7})
	if r.Median != 3.9 || r.Low != 3.5 || r.High != 4.8 || r.Confidence != 0.9375 {
		t.Errorf("five rounds gave %+v, want median 3.9 within 3.5-4.8 at 0.9375", r)
	}
	x := make([]float64, 25)
	for i := range x {
		x[i] = 3 + float64((i*7)%25)/10 // 3.0 ... 5.4, shuffled
	}
	r = roundRatio(x)
	if r.Median != 4.2 || math.Abs(r.Low-3.7) > 1e-9 || math.Abs(r.High-4.7) > 1e-9 {
		t.Errorf("25 rounds gave %+v, want median 4.2 within the 8th smallest and largest, 3.7-4.7", r)
	}
}
