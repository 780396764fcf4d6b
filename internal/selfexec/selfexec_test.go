package selfexec

import (
	"slices"
	"testing"
)

func TestAddGODEBUG(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
		ok   bool
	}{
		{[]string{"HOME=/h"}, []string{"HOME=/h", "GODEBUG=madvdontneed=0"}, true},
		{[]string{"GODEBUG=", "A=1"}, []string{"GODEBUG=madvdontneed=0", "A=1"}, true},
		{[]string{"GODEBUG=gctrace=1"}, []string{"GODEBUG=gctrace=1,madvdontneed=0"}, true},
		{[]string{"GODEBUG=gctrace=1,madvdontneed=1"}, nil, false},
		{[]string{"A=1", "GODEBUG=madvdontneed=0"}, nil, false},
		{[]string{"GODEBUGX=1"}, []string{"GODEBUGX=1", "GODEBUG=madvdontneed=0"}, true},
	} {
		got, ok := addGODEBUG(tc.in, "madvdontneed=0")
		if ok != tc.ok || (ok && !slices.Equal(got, tc.want)) {
			t.Errorf("addGODEBUG(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if !ok && !slices.Equal(got, tc.in) {
			t.Errorf("addGODEBUG(%q) changed the environment it refused: %q", tc.in, got)
		}
	}
}
