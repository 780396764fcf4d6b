package graph

import "testing"

// TestEdgeDictIndex: every string of the dictionary is found at its own
// index (the dictionary holds no string twice), anything else nowhere.
func TestEdgeDictIndex(t *testing.T) {
	for i, s := range edgeDictionary {
		if got := edgeDictIndex(s); got != i {
			t.Errorf("edgeDictIndex(%q) = %d, want %d", s, got, i)
		}
	}
	for _, s := range []string{"scip:call ", "syntax:", "lsp:Definition"} {
		if got := edgeDictIndex(s); got != -1 {
			t.Errorf("edgeDictIndex(%q) = %d, want -1", s, got)
		}
	}
}
