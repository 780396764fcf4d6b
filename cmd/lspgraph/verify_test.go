package main

import (
	"strings"
	"testing"
)

func TestVerifyUsage(t *testing.T) {
	for _, args := range [][]string{
		{"verify"},
		{"verify", "gopls"},
		{"verify", "--layer", "live", "--", "gopls"},
		{"verify", "--max-drift", "1.5", "--", "gopls"},
		{"verify", "--sample", "0", "--", "gopls"},
		{"verify", "--bogus", "--", "gopls"},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, "lspgraph verify:") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and a usage line", args, code, errs)
		}
	}
	code, out, _ := runCLI(t, "verify", "--help")
	if code != 0 || !strings.Contains(out, "drift = 1 - recall-weighted F1") {
		t.Errorf("verify --help: exit %d, %q; want the definition of drift", code, out)
	}
}
