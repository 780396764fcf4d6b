package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/mcpserver"
)

func TestBenchMCP(t *testing.T) {
	t.Setenv("LSPGRAPH_RUN_MAIN", "1") // the command line runs as this binary
	dump := filepath.Join("..", "..", "testdata", "scip", "goapp.scip")
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: os.Getenv}
	if code := run(context.Background(), e, []string{"bench", "mcp", "--targets", "8", "--cli-targets", "2", "--cli-runs", "2", "--cpuprofile", prof, "--json", dump}); code != 0 {
		t.Fatalf("bench mcp exited %d: %s", code, stderr.String())
	}
	var res mcpserver.DumpBenchResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	if res.Candidates < 8 || res.MCP.N != 8 || res.MCPRepeat.N != 8 || res.Errors != 0 || res.MCP.P50 <= 0 ||
		res.TokensMedian <= 0 || res.TokensMax > res.MaxTokens || len(res.CLITargets) != 2 || res.CLI.N != 4 || res.Socket.N != 4 {
		t.Errorf("bench mcp result: %+v", res)
	}
	if len(res.Slowest) != 5 {
		t.Errorf("bench mcp names %d slowest targets; want 5", len(res.Slowest))
	}
	for i, s := range res.Slowest {
		if s.Target == "" || s.Tokens <= 0 || (i > 0 && s.MS > res.Slowest[i-1].MS) {
			t.Errorf("slowest targets not named, sized and sorted slowest first: %+v", res.Slowest)
			break
		}
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Errorf("--cpuprofile wrote no profile: %v", err)
	}
}
