package scip

import (
	"slices"
	"testing"

	"github.com/scip-code/scip/bindings/go/scip"
)

func TestPackageOf(t *testing.T) {
	for _, c := range []struct{ sym, identity, version string }{
		{"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/store`/Store#Put().", "scip-go gomod example.com/goapp", "0.1.0"},
		{"scip-go gomod github.com/cockroachdb/pebble 7fdf87f1b pebble/Batch#", "scip-go gomod github.com/cockroachdb/pebble", "7fdf87f1b"},
		// A name and a version with escaped spaces.
		{"scip-python python my  pkg 1.0  rc mod/f().", "scip-python python my  pkg", "1.0  rc"},
		{"scip-typescript npm @acme/order . src/`index.ts`/", "scip-typescript npm @acme/order", "."},
		{"a b c d", "a b c", "d"},
		{"local 4", "local 4", ""},
		{"a b c", "a b c", ""},
	} {
		identity, version := packageOf(c.sym)
		if identity != c.identity || version != c.version {
			t.Errorf("packageOf(%q) = %q, %q; want %q, %q", c.sym, identity, version, c.identity, c.version)
		}
		if got := packageIdentity(c.sym); got != c.identity {
			t.Errorf("packageIdentity(%q) = %q, want %q", c.sym, got, c.identity)
		}
	}
}

// TestDescribeReusesParse: describing symbols one after another through
// one reused parse gives what describing each afresh gives, whatever came
// before it: more descriptors or fewer, a disambiguator or none, a symbol
// that does not parse, one that panics the bindings.
func TestDescribeReusesParse(t *testing.T) {
	syms := []string{
		"scip-go gomod github.com/cockroachdb/pebble f82e3ff74d10 `github.com/cockroachdb/pebble/internal/base`/InternalKey#Kind(+1).",
		"scip-go gomod github.com/cockroachdb/pebble f82e3ff74d10 pebble/",
		"scip-typescript npm @shop/order 0.1.0 src/`index.ts`/Order#`<constructor>`().(rules)",
		"scip-python python shop 0.1.0 `shop.orders`/__init__:",
		"not a symbol",
		"ל",
		"scip-typescript npm @tanstack/store 0.11.1 src/`atom.ts`/toObserver().[T]",
		"local 42",
		"rust-analyzer cargo std 1.0 macros/println!",
		"scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/Catalog#Save().",
	}
	for _, order := range [][]string{syms, reversed(syms)} {
		var parsed scip.Symbol
		for _, s := range order {
			for _, lang := range []string{"go", "typescript"} {
				if got, want := describeInto(s, nil, lang, &parsed), describe(s, nil, lang); got != want {
					t.Errorf("%q in %s after others: %+v, afresh %+v", s, lang, got, want)
				}
			}
		}
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}
