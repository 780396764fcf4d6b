package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/mcpserver"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/workspace"
)

type benchMCPResult struct {
	File          string  `json:"file"`
	ImportSeconds float64 `json:"import_seconds"`
	Depth         int     `json:"depth"`
	MaxTokens     int     `json:"max_tokens"`
	mcpserver.BenchResult
	// CLI is `lspgraph impact --json` as a process through the session's
	// socket; Socket the same command through the socket in this process.
	CLITargets []string          `json:"cli_targets"`
	CLI        mcpserver.Latency `json:"cli"`
	Socket     mcpserver.Latency `json:"socket"`
}

func runBenchMCP(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench mcp", "bench mcp [--targets N] [--depth D] [--cli-targets N] [--cli-runs N] [--cpuprofile FILE] [--json] FILE\n\n"+
		"Imports a SCIP dump into a temporary store (with an empty root), opens a warm session over it and\n"+
		"times the MCP impact tool on N function and method symbols, beside `lspgraph impact --json`.")
	nTargets := fs.Int("targets", 200, "how many function and method symbols to ask about")
	depth := fs.Int("depth", 3, "impact depth (1-3)")
	cliTargets := fs.Int("cli-targets", 5, "how many of the targets the command line asks about")
	cliRuns := fs.Int("cli-runs", 30, "command-line runs per target")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the MCP impact calls to `FILE` (go tool pprof)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one dump file", errUsage)
	}
	file := fs.Arg(0)
	tmp, err := os.MkdirTemp("", "lspgraph-bench-mcp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root, storeDir := filepath.Join(tmp, "root"), filepath.Join(tmp, "store")
	if err := os.Mkdir(root, 0o700); err != nil {
		return err
	}
	res := benchMCPResult{File: file, Depth: *depth, MaxTokens: mcpserver.DefaultMaxTokens}

	t0 := time.Now()
	st, err := graph.Open(storeDir, graph.Options{})
	if err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		st.Close()
		return fmt.Errorf("opening the dump: %w", err)
	}
	_, err = scip.Import(ctx, st, f, scip.Options{Root: root})
	f.Close()
	st.Close()
	if err != nil {
		return fmt.Errorf("importing %s: %w", file, err)
	}
	res.ImportSeconds = time.Since(t0).Seconds()

	s, err := workspace.Open(workspace.Options{Root: root, StoreDir: storeDir})
	if err != nil {
		return err
	}
	defer s.Close()
	ln, err := s.Listen()
	if err != nil {
		return err
	}
	defer ln.Close()
	ask := mcpserver.SessionAsker{Root: root, Session: s}

	bench := func() error {
		var err error
		res.BenchResult, err = mcpserver.Bench(ctx, ask, root, *nTargets, *depth)
		return err
	}
	if *cpuProfile != "" {
		err = withCPUProfile(*cpuProfile, bench)
	} else {
		err = bench()
	}
	if err != nil {
		return err
	}
	picked := res.Targets

	// The command line, through the same warm session.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	step := max(1, len(picked)/max(1, *cliTargets))
	for i := 0; i < len(picked) && len(res.CLITargets) < *cliTargets; i += step {
		res.CLITargets = append(res.CLITargets, picked[i])
	}
	var cli, sock []time.Duration
	for _, target := range res.CLITargets {
		q, _ := json.Marshal(workspace.ImpactRequest{Target: target, Depth: *depth})
		for range *cliRuns {
			t := time.Now()
			out, err := exec.CommandContext(ctx, self, "impact", "--store", storeDir, "--root", root, "--depth", fmt.Sprint(*depth), "--json", target).CombinedOutput()
			cli = append(cli, time.Since(t))
			if err != nil {
				return fmt.Errorf("lspgraph impact %s: %v\n%s", target, err, out)
			}
			t = time.Now()
			c, err := workspace.Dial(ctx, storeDir, "cli", "")
			if err != nil {
				return err
			}
			var raw json.RawMessage
			err = c.Command(ctx, workspace.CommandImpact, []json.RawMessage{q}, 0, &raw)
			c.Close()
			sock = append(sock, time.Since(t))
			if err != nil {
				return fmt.Errorf("impact %s through the socket: %w", target, err)
			}
		}
	}
	res.CLI, res.Socket = mcpserver.LatencyOf(cli), mcpserver.LatencyOf(sock)

	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	w := e.stdout
	fmt.Fprintf(w, "%s: imported in %.1f s; %d function and method symbols, %d asked (depth %d, cap %d tokens)\n",
		file, res.ImportSeconds, res.Candidates, res.MCP.N, res.Depth, res.MaxTokens)
	fmt.Fprintf(w, "MCP impact:        p50 %.2f ms  p99 %.2f ms  max %.2f ms  (n=%d, %d tool errors)\n", res.MCP.P50, res.MCP.P99, res.MCP.Max, res.MCP.N, res.Errors)
	fmt.Fprintf(w, "MCP impact again:  p50 %.2f ms  p99 %.2f ms  max %.2f ms  (answer cache)\n", res.MCPRepeat.P50, res.MCPRepeat.P99, res.MCPRepeat.Max)
	for _, st := range res.Slowest {
		fmt.Fprintf(w, "  slow: %8.2f ms  %5d tokens  %s\n", st.MS, st.Tokens, st.Target)
	}
	fmt.Fprintf(w, "answer size:       median %d tokens, max %d, %d capped\n", res.TokensMedian, res.TokensMax, res.Capped)
	fmt.Fprintf(w, "CLI impact --json: p50 %.2f ms  p99 %.2f ms  (process through the session socket; %d runs over %s)\n", res.CLI.P50, res.CLI.P99, res.CLI.N, strings.Join(res.CLITargets, ", "))
	fmt.Fprintf(w, "socket impact:     p50 %.2f ms  p99 %.2f ms  (the same request in process)\n", res.Socket.P50, res.Socket.P99)
	return nil
}
