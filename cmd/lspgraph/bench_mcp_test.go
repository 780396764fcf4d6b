package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchMCP(t *testing.T) {
	t.Setenv("LSPGRAPH_RUN_MAIN", "1") // the command line runs as this binary
	dump := filepath.Join("..", "..", "testdata", "scip", "goapp.scip")
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: os.Getenv}
	if code := run(context.Background(), e, []string{"bench", "mcp", "--targets", "8", "--cli-targets", "2", "--cli-runs", "2", "--json", dump}); code != 0 {
		t.Fatalf("bench mcp exited %d: %s", code, stderr.String())
	}
	var res benchMCPResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	if res.Candidates < 8 || res.MCP.N != 8 || res.MCPRepeat.N != 8 || res.Errors != 0 || res.MCP.P50 <= 0 ||
		res.TokensMedian <= 0 || res.TokensMax > res.MaxTokens || len(res.CLITargets) != 2 || res.CLI.N != 4 || res.Socket.N != 4 {
		t.Errorf("bench mcp result: %+v", res)
	}
}
