package arena

import (
	"strings"
	"testing"
)

func TestStrings(t *testing.T) {
	var a Strings
	in := []string{"", "a", strings.Repeat("x", chunkSize+1), "bc", strings.Repeat("y", chunkSize-2), "z"}
	refs := make([]Ref, len(in))
	for i, s := range in {
		refs[i] = a.Add(s)
	}
	for i, s := range in {
		if got := a.String(refs[i]); got != s {
			t.Errorf("string %d: got %d bytes, want %d", i, len(got), len(s))
		}
	}
	if refs[0] != (Ref{}) {
		t.Errorf("the empty string's ref is %v, want the zero Ref", refs[0])
	}
}
