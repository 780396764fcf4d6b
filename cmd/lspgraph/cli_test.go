package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIConventions: help and version on standard output with exit 0;
// usage errors exit 2 with their reason in one line on standard error;
// a --store naming a file says so.
func TestCLIConventions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-store")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args       []string
		code       int
		stdout     string // a substring of standard output
		stderrLine string // a substring of the only line of standard error
	}{
		{args: []string{"--help"}, code: 0, stdout: "Usage: lspgraph COMMAND"},
		{args: []string{"--version"}, code: 0, stdout: "lspgraph "},
		{args: []string{"version"}, code: 0, stdout: "lspgraph "},
		{args: []string{"impact", "--help"}, code: 0, stdout: "Usage: lspgraph impact"},
		{args: nil, code: 2, stderrLine: "name a command"},
		{args: []string{"frobnicate"}, code: 2, stderrLine: `unknown command "frobnicate"`},
		{args: []string{"impact", "--bogus", "x"}, code: 2, stderrLine: "flag provided but not defined: -bogus"},
		{args: []string{"impact"}, code: 2, stderrLine: "want exactly one TARGET"},
		{args: []string{"impact", "--depth", "0", "Save"}, code: 2, stderrLine: "--depth must be at least 1"},
		{args: []string{"impact", "--store", file, "Save"}, code: 2, stderrLine: "is a file, not a store directory"},
		{args: []string{"index", "--store", file, "."}, code: 2, stderrLine: "is a file, not a store directory"},
		{args: []string{"bench", "calibrate", "x.scip"}, code: 2, stderrLine: "want --root DIR and one dump file"},
		{args: []string{"bench", "calibrate", "--root", file, "x.scip"}, code: 1, stderrLine: "is not a directory"},
		{args: []string{"bench", "calibrate", "--root", ".", "missing.scip"}, code: 1, stderrLine: "calibrate: opening the dump"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != tc.code {
			t.Errorf("lspgraph %q: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errs)
		}
		if tc.stdout != "" && !strings.Contains(out, tc.stdout) {
			t.Errorf("lspgraph %q: stdout %q lacks %q", tc.args, out, tc.stdout)
		}
		if tc.stderrLine != "" {
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tc.stderrLine) {
				t.Errorf("lspgraph %q: stderr %q; want one line with %q", tc.args, errs, tc.stderrLine)
			}
		}
		if tc.code == 0 && errs != "" {
			t.Errorf("lspgraph %q: stderr %q; want nothing", tc.args, errs)
		}
	}
}
