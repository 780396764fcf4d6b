package contextpack

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestItemTokensMatchWhole: an item priced through its text's cost (a
// textCosts, asked twice so that the second answer is the memo's) counts
// what the whole rendered item counts, in both JSON formats, for texts cut
// from real files and made of random pieces (punctuation only, spaces at
// either end, escapes, non-ASCII letters).
func TestItemTokensMatchWhole(t *testing.T) {
	var texts []string
	files, _ := filepath.Glob(filepath.Join("testdata", "tokens", "*"))
	self, _ := filepath.Glob("*.go")
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range append(files, self...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ls := strings.SplitAfter(string(b), "\n")
		for range 20 {
			a := rng.IntN(len(ls))
			z := min(len(ls), a+1+rng.IntN(30))
			texts = append(texts, strings.Join(ls[a:z], ""))
		}
	}
	pieces := []string{"a", "Zq", "_", "42", " ", "  ", "\t", "\n", "\r\n", "{", "}", "\"", "\\", "<", "&", "//", "é", "ß", "中", "\u2028", "\x01", "\xff", "…", "1 ", " 7"}
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	if len(texts) < 3100 {
		t.Fatalf("only %d texts", len(texts))
	}
	for _, j := range []jsonParts{{}, {indent: true}} {
		var costs textCosts
		for i, text := range texts {
			it := Item{Role: "caller", Name: "DB.Get", Kind: "method", Line: 12 + i, Reason: `calls "Get" <at> a.go:3`,
				Score: 0.37, Show: SnippetBody, Start: 10, Text: text, Note: []string{"", "first 3 of 9 lines", " x"}[i%3], Path: "a.go"}
			want := Tokens(j.item(&it, ""))
			for range 2 {
				if got := j.itemTokens(&it, &costs); got != want {
					t.Fatalf("indent %v: item with text %q: %d tokens priced, %d whole", j.indent, text, got, want)
				}
			}
		}
	}
}

// TestFormTokensMatchWhole: a form priced after its item's head counts what
// the whole compact item counts, with and without each of the form's
// fields, for names, reasons, notes and texts that need escaping.
func TestFormTokensMatchWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "Zq", "_", "42", " ", "\t", "\n", "{", "}", "\"", "\\", "<", "&", "é", "中", "\u2028", "\x01", "\xff", "…", "1 ", " 7", ":"}
	random := func(n int) string {
		var b strings.Builder
		for range rng.IntN(n + 1) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	var costs textCosts
	for i := range 5000 {
		it := Item{Role: random(2), Name: random(3), Kind: random(1), Line: rng.IntN(2000), SiteLine: rng.IntN(3) * rng.IntN(900),
			Reason: random(6), Score: float64(rng.IntN(300)-20) / 100, Path: "a.go"}
		head := newItemHead(it)
		for range 4 {
			it.Show = []string{"", SnippetBody, SnippetSignature, random(2)}[rng.IntN(4)]
			it.Start = rng.IntN(3) * rng.IntN(500)
			it.Text = []string{"", random(10), "…\n", "}\n"}[rng.IntN(4)]
			it.Note = []string{"", "first 3 of 9 lines; body cut to doc for the budget", random(4)}[rng.IntN(3)]
			want := Tokens(jsonParts{}.item(&it, ""))
			if got := head.formTokens(&it, &costs); got != want {
				t.Fatalf("item %d %+v: %d tokens priced, %d whole", i, it, got, want)
			}
		}
	}
}
