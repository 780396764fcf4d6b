package scip

import "testing"

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
