package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/impact"
)

// TestImpactImplementationsFromSyntax checks that a syntax-only index
// links an interface's, trait's or base class's method to the methods
// that implement it (Java and TypeScript implements, Rust impl Trait for
// Type, Python subclasses), and that the declaration naming the supertype is not
// taken for a use of the type as that supertype.
func TestImpactImplementationsFromSyntax(t *testing.T) {
	for _, c := range []struct {
		fixture, target string
		want            []string // the implementations, by name
	}{
		{filepath.Join("..", "..", "syntax", "testdata", "rustcrate"), "Rule.apply", []string{"Flat.apply", "Percent.apply"}},
		{filepath.Join("..", "..", "syntax", "testdata", "rustcrate"), "Rule.name", []string{"Percent.name"}},
		{filepath.Join("..", "..", "syntax", "testdata", "javaapp"), "Rule.apply", []string{"Percent.apply"}},
		{filepath.Join("..", "..", "testdata", "pyproject"), "PriceRule.apply", []string{"FlatRule.apply", "PercentRule.apply"}},
		{filepath.Join("..", "..", "testdata", "tsworkspace"), "PriceRule.apply", []string{"FlatRule.apply", "PercentRule.apply"}},
	} {
		t.Run(filepath.Base(c.fixture)+"/"+c.target, func(t *testing.T) {
			root := copyFixture(t, c.fixture)
			store := filepath.Join(t.TempDir(), "store")
			if code, _, errs := runCLI(t, "index", "--store", store, "--root", root); code != 0 {
				t.Fatalf("index exited %d: %s", code, errs)
			}
			code, out, errs := runCLI(t, "impact", "--store", store, "--root", root, "--json", c.target)
			if code != 0 {
				t.Fatalf("impact exited %d: %s", code, errs)
			}
			var a impact.Answer
			if err := json.Unmarshal([]byte(out), &a); err != nil {
				t.Fatalf("decoding JSON: %v\n%s", err, out)
			}
			var got []string
			for _, d := range a.Implementations {
				got = append(got, d.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("implementations of %s: %q, want %q", c.target, got, c.want)
			}
			for _, d := range a.Satisfaction {
				if d.Kind == "file" {
					t.Errorf("satisfaction lists the top level of %s (a supertype declaration, not a use): %+v", d.Location.Path, d)
				}
			}
		})
	}
}
