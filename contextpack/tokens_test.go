package contextpack

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
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

// TestTokensAtMostBytes checks the bound capBody relies on to skip counting
// short texts: an estimate never exceeds the text's length in bytes. The
// texts are the standard library's sources, plus cuts at random offsets
// (a partial rune, a run split anywhere).
func TestTokensAtMostBytes(t *testing.T) {
	root := filepath.Join(runtime.GOROOT(), "src", "strings")
	files, err := filepath.Glob(filepath.Join(root, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources under %s: %v", root, err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "a", "é", "日本", " ", "\t\n", "1", "ab1 ", "\xff", "a\u00e9b"}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		texts = append(texts, s)
		for range 20 {
			i := rng.IntN(len(s) + 1)
			j := i + rng.IntN(len(s)-i+1)
			texts = append(texts, s[i:j])
		}
	}
	for _, s := range texts {
		if n := Tokens(s); n > len(s) {
			t.Errorf("Tokens(%.40q…) = %d > %d bytes", s, n, len(s))
		}
	}
}

func TestTokensAtMostAgreesWithTokens(t *testing.T) {
	for _, s := range []string{"", "func (d *DB) Get(key []byte) error {\n\treturn nil\n}\n", "héllo wörld 12345 ;;; \t\n", "  x"} {
		n := Tokens(s)
		if !tokensAtMost(s, n) {
			t.Errorf("tokensAtMost(%q, %d) = false; Tokens is %d", s, n, n)
		}
		if n > 0 && tokensAtMost(s, n-1) {
			t.Errorf("tokensAtMost(%q, %d) = true; Tokens is %d", s, n-1, n)
		}
	}
}
