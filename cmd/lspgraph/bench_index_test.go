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

	"github.com/lspgraph/lspgraph/indexbench"
	"github.com/lspgraph/lspgraph/scip"
)

// TestMain lets the test binary stand in for lspgraph when a command runs
// itself as a child process (bench index): with LSPGRAPH_RUN_MAIN=1 it is
// the command line.
func TestMain(m *testing.M) {
	if os.Getenv("LSPGRAPH_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestBenchIndex(t *testing.T) {
	if _, err := exec.LookPath("ctags"); err != nil {
		if os.Getenv("LSPGRAPH_E2E") == "1" {
			t.Fatal("ctags not found (LSPGRAPH_E2E=1)")
		}
		t.Skip("ctags not found")
	}
	t.Setenv("LSPGRAPH_RUN_MAIN", "1")
	root := filepath.Join("..", "..", "testdata", "goapp")
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: os.Getenv}
	if code := run(context.Background(), e, []string{"bench", "index", "--json", root}); code != 0 {
		t.Fatalf("bench index exited %d: %s", code, stderr.String())
	}
	var res indexbench.CompareResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	if len(res.Runs) != 4 || res.Runs[0].Files == 0 || res.Runs[1].Files != 7 || res.Runs[2].Files != 7 || res.Runs[3].Files != 7 ||
		res.Runs[3].Seconds <= 0 || res.WallRatio <= 0 || res.ParseWallRatio <= 0 {
		t.Errorf("bench index result: %+v", res)
	}
}

// TestBenchSCIP runs bench scip on a fixture dump, each pass a process of
// the test binary standing in for lspgraph (bench scip --pass).
func TestBenchSCIP(t *testing.T) {
	t.Setenv("LSPGRAPH_RUN_MAIN", "1")
	dump := filepath.Join("..", "..", "testdata", "scip", "goapp.scip")
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: os.Getenv}
	if code := run(context.Background(), e, []string{"bench", "scip", "--runs", "1", "--json", dump}); code != 0 {
		t.Fatalf("bench scip exited %d: %s", code, stderr.String())
	}
	var res scip.BenchResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	if !res.Processes || len(res.Phases) != 4 || res.ImportSummary.Documents == 0 || res.Phases[2].Documents != res.ImportSummary.Documents || res.Ratio <= 0 {
		t.Errorf("bench scip result: %+v", res)
	}
}
