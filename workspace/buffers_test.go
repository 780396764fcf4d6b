package workspace

import (
	"fmt"
	"strings"
	"testing"
)

func TestChangedLines(t *testing.T) {
	lines := func(s string) []byte { return []byte(strings.ReplaceAll(s, " ", "\n")) }
	for _, tc := range []struct {
		name, old, cur string
		added, removed string
	}{
		{"same", "a b c ", "a b c ", "[]", "[]"},
		{"one changed", "a b c ", "a X c ", "[{2 2}]", "[{2 2}]"},
		{"inserted", "a b c ", "a b N M c ", "[{3 4}]", "[{3 2}]"},
		{"deleted", "a b c d ", "a d ", "[{2 1}]", "[{2 3}]"},
		{"two hunks", "a b c d e f ", "a X c d e Y f ", "[{2 2} {6 6}]", "[{2 2} {6 5}]"},
		{"appended", "a b ", "a b c ", "[{3 3}]", "[{3 2}]"},
		{"from empty", "", "a b ", "[{1 2}]", "[{1 0}]"},
		{"no final newline", "a b", "a b ", "[{2 2}]", "[{2 2}]"},
		{"repeated lines", "x } x } ", "x } y } x } ", "[{3 4}]", "[{3 2}]"},
	} {
		added, removed := changedLines(lines(tc.old), lines(tc.cur))
		if got := fmt.Sprint(added); got != tc.added {
			t.Errorf("%s: added %s, want %s", tc.name, got, tc.added)
		}
		if got := fmt.Sprint(removed); got != tc.removed {
			t.Errorf("%s: removed %s, want %s", tc.name, got, tc.removed)
		}
	}
}
