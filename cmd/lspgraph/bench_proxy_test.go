package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/internal/lspbench"
)

func TestBenchProxy(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		if os.Getenv("LSPGRAPH_E2E") == "1" {
			t.Fatal("gopls not found (LSPGRAPH_E2E=1)")
		}
		t.Skip("gopls not found")
	}
	t.Setenv("LSPGRAPH_RUN_MAIN", "1")
	root := filepath.Join("..", "..", "testdata", "goapp")
	bench := func(args ...string) (string, string, int) {
		var stdout, stderr bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: os.Getenv}
		code := run(context.Background(), e, append([]string{"bench", "proxy", "--root", root}, args...))
		return stdout.String(), stderr.String(), code
	}
	prof := filepath.Join(t.TempDir(), "proxy.prof")
	out, errs, code := bench("--requests", "5", "--runs", "2", "--warmup", "2", "--settle", "0", "--proxy-cpuprofile", prof, "--json", "--", "gopls")
	if code != 0 {
		t.Fatalf("bench proxy exited %d: %s", code, errs)
	}
	// The proxy wrote its profile when it exited after the benchmark.
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Errorf("--proxy-cpuprofile: %v, %v", fi, err)
	}
	var res lspbench.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(res.Runs) != 2 || res.Requests != 5 {
		t.Fatalf("runs: %+v", res)
	}
	for _, r := range append(res.Runs, res.Pooled) {
		if len(r.Paths) != 3 || r.Paths[0].Name != "direct" || r.Paths[1].Name != "copier" || r.Paths[2].Name != "proxy" {
			t.Fatalf("paths: %+v", r.Paths)
		}
		for i, p := range r.Paths {
			if p.P50ms <= 0 || p.P99ms < p.P50ms {
				t.Errorf("%s: p50 %v p99 %v", p.Name, p.P50ms, p.P99ms)
			}
			// The middle processes' CPU time is read from /proc.
			if i > 0 && p.CPUusPerReq <= 0 {
				if _, err := os.Stat("/proc/self/task"); err == nil {
					t.Errorf("%s: no CPU time measured", p.Name)
				}
			}
		}
		if r.P99OverDirect <= 0 {
			t.Errorf("p99 ratio %v", r.P99OverDirect)
		}
	}

	// --control measures a second copier in the proxy's place.
	out, errs, code = bench("--requests", "2", "--runs", "1", "--warmup", "1", "--settle", "0", "--control", "--json", "--", "gopls")
	if code != 0 {
		t.Fatalf("bench proxy --control exited %d: %s", code, errs)
	}
	res = lspbench.Result{}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if p := res.Pooled.Paths; len(p) != 3 || p[1].Name != "copier" || p[2].Name != "copier 2" {
		t.Errorf("--control paths: %+v", p)
	}

	// A position without a definition is refused before measuring.
	if _, errs, code := bench("--requests", "1", "--runs", "1", "--warmup", "0", "--settle", "0", "--at", "1:1", "--", "gopls"); code != 1 || !strings.Contains(errs, "has no definition at service/catalog.go:1:1") {
		t.Errorf("position without a definition: exit %d, %s", code, errs)
	}
	for _, args := range [][]string{{"--at", "0:3", "--", "gopls"}, {"--requests", "1"}} {
		if _, errs, code := bench(args...); code != 2 {
			t.Errorf("bench proxy %v: exit %d, %s", args, code, errs)
		}
	}
}
