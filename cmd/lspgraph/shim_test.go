package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/internal/goplsshim"
)

func TestCommandLine(t *testing.T) {
	for _, c := range []struct{ argv, want []string }{
		{[]string{"/usr/local/bin/lspgraph", "status"}, []string{"status"}},
		{[]string{"/home/u/shim/gopls", "version", "-json"}, []string{"shim", "gopls", "version", "-json"}},
		{[]string{"gopls"}, []string{"shim", "gopls"}},
	} {
		if got := commandLine(c.argv); !slices.Equal(got, c.want) {
			t.Errorf("commandLine(%q) = %q; want %q", c.argv, got, c.want)
		}
	}
}

func TestShimUsage(t *testing.T) {
	for _, args := range [][]string{{"shim"}, {"shim", "pyright-langserver"}} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, "lspgraph shim gopls") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming lspgraph shim gopls", args, code, errs)
		}
	}
	code, out, _ := runCLI(t, "shim", "--help")
	if code != 0 || !strings.Contains(out, "go.alternateTools") {
		t.Errorf("shim --help: exit %d, %q; want the VS Code setting explained", code, out)
	}
}

// runShimEnv runs `lspgraph shim gopls ARGS` with the environment vars.
func runShimEnv(t *testing.T, vars map[string]string, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }}
	code := run(context.Background(), e, append([]string{"shim", "gopls"}, args...))
	return code, errb.String()
}

func TestShimRefusals(t *testing.T) {
	// Nowhere to find gopls.
	code, errs := runShimEnv(t, map[string]string{"PATH": t.TempDir(), "HOME": t.TempDir()}, "version")
	if code != 1 || !strings.Contains(errs, "no real gopls found") || !strings.Contains(errs, goplsshim.EnvGopls) {
		t.Errorf("no gopls: exit %d, %q; want exit 1 saying how to name it", code, errs)
	}
	// Started by a shim: another lspgraph stood where gopls was looked for.
	code, errs = runShimEnv(t, map[string]string{goplsshim.EnvShimmed: "/elsewhere/gopls"}, "version")
	if code != 1 || !strings.Contains(errs, "another lspgraph") {
		t.Errorf("started by a shim: exit %d, %q; want exit 1 naming the loop", code, errs)
	}
}
