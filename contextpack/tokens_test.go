package contextpack

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestTokensNeverUndercount compares the estimate with the real counts of
// tiktoken's cl100k_base and o200k_base on rendered packs in every format
// (testdata/tokens, counted with js-tiktoken; see its README).
func TestTokensNeverUndercount(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "tokens", "counts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ratios []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fs := strings.Split(sc.Text(), "\t")
		cl, _ := strconv.Atoi(fs[1])
		o2, _ := strconv.Atoi(fs[2])
		b, err := os.ReadFile(filepath.Join("testdata", "tokens", fs[0]))
		if err != nil {
			t.Fatal(err)
		}
		real := max(cl, o2)
		est := Tokens(string(b))
		if est < real {
			t.Errorf("%s: estimate %d below the real count %d", fs[0], est, real)
		}
		ratios = append(ratios, float64(est)/float64(real))
	}
	if len(ratios) < 20 {
		t.Fatalf("only %d counted files", len(ratios))
	}
	sort.Float64s(ratios)
	t.Logf("%d files: estimate / real count min %.2f, median %.2f, max %.2f", len(ratios), ratios[0], ratios[len(ratios)/2], ratios[len(ratios)-1])
}

// TestTokensSubadditive: the estimate of a concatenation is at most the
// sum of its parts', the property the pack's fitting relies on; checked on
// random cuts of real text.
func TestTokensSubadditive(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "tokens", "*"))
	self, _ := filepath.Glob("*.go")
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	for _, p := range append(files, self...) {
		b, err := os.ReadFile(p)
		if err != nil || len(b) < 2 {
			continue
		}
		s := string(b)
		for range 50 {
			i := rng.IntN(len(s))
			a, c := s[:i], s[i:]
			if Tokens(s) > Tokens(a)+Tokens(c) {
				t.Fatalf("%s cut at %d: Tokens(whole) %d > %d + %d", p, i, Tokens(s), Tokens(a), Tokens(c))
			}
			n++
		}
	}
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"abc", 1},
		{"abcd", 2},
		{" x", 1},   // a space joins the word
		{" 1", 2},   // not a digit group
		{"1234", 2}, // groups of three
		{"a.b", 3},
		{"\t\t\t\t", 2},
		{"é", 1},
		{"日本", 6}, // a byte each
	} {
		if got := Tokens(tc.s); got != tc.want {
			t.Errorf("Tokens(%q) = %d; want %d", tc.s, got, tc.want)
		}
	}
	if n < 100 {
		t.Fatalf("only %d cuts checked", n)
	}
}
