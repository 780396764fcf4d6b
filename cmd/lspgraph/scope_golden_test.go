package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/workspace"
)

// TestScopeGoldens indexes each fixture with the syntax layer alone (no
// SCIP) and records `lspgraph scope` for packages and files of it, and the
// errors for an unknown package and a path outside the root. Each golden
// was checked by hand against the fixture's imports (testdata/README.md).
func TestScopeGoldens(t *testing.T) {
	cases := []struct {
		fixture string
		targets []string
	}{
		{"goapp", []string{"service/catalog.go", "example.com/goapp/cmd/goapp", "store/filestore", "example.com/goapp/store", "example.com/goapp", "example.com/goapp/nope", "../outside.go"}},
		{"gowork", []string{"billing/billing.go", "example.com/user", "pricing", "example.com/nope", "../gowork/billing/billing.go"}},
		{"tsworkspace", []string{"packages/order/src/index.ts", "@shop/pricing", "packages/user", "@shop/nope", "../package.json"}},
		{"pyproject", []string{"tests/test_orders.py", "shop", "shop/orders.py", "shop.nope", "../pyproject.toml"}},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			root := copyFixture(t, filepath.Join(repoRoot(t), "testdata", c.fixture))
			store := filepath.Join(t.TempDir(), "store")
			runCommand(t, "index", "--store", store, "--root", root)
			var b strings.Builder
			for _, target := range c.targets {
				var out, errb bytes.Buffer
				e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
				code := run(context.Background(), e, []string{"scope", "--store", store, "--root", root, target})
				fmt.Fprintf(&b, "$ lspgraph scope %s\n%s%s(exit %d)\n\n", target, out.String(), errb.String(), code)
			}
			got := strings.ReplaceAll(b.String(), root, "ROOT")
			golden(t, filepath.Join("testdata", "scope", c.fixture+".txt"), []byte(got))

			// The session command refuses the same targets.
			for _, target := range []string{"no.such/package", "../elsewhere.go", "/etc/passwd"} {
				var rep workspace.ScopeReport
				err := askSession(context.Background(), nil, "cli", root, store, workspace.CommandScope, workspace.ScopeRequest{Target: target}, &rep, false)
				if err == nil || !strings.Contains(err.Error(), workspace.ErrBadTarget.Error()) {
					t.Errorf("lspgraph.scope %q: want %q, got %v (start %q)", target, workspace.ErrBadTarget, err, rep.Start)
				}
			}
		})
	}
}
