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

// TestStringsAdopt: strings of an adopted buffer are read from it, not
// copied, and strings added afterwards never land in it.
func TestStringsAdopt(t *testing.T) {
	var a Strings
	first := a.Add("before")
	buf := []byte("hello, world")
	ref := a.Adopt(buf[:5])
	hello, empty := ref(0, 5), ref(2, 0)
	after := a.Add("after")
	if got := a.String(hello); got != "hello" {
		t.Errorf("adopted string = %q, want hello", got)
	}
	if a.String(empty) != "" || empty != (Ref{}) {
		t.Errorf("an empty adopted string = %+v", empty)
	}
	if a.String(first) != "before" || a.String(after) != "after" {
		t.Errorf("added strings = %q, %q", a.String(first), a.String(after))
	}
	if string(buf) != "hello, world" {
		t.Errorf("the adopted buffer was written: %q", buf)
	}
	buf[0] = 'j'
	if got := a.String(hello); got != "jello" {
		t.Errorf("adopted string = %q after its buffer changed, want jello (not a copy)", got)
	}
}
