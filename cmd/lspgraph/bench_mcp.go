package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/lspgraph/lspgraph/mcpserver"
)

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
	self, err := os.Executable()
	if err != nil {
		return err
	}
	o := mcpserver.DumpBenchOptions{Targets: *nTargets, Depth: *depth, CLITargets: *cliTargets, CLIRuns: *cliRuns, Self: self}
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		o.CPUProfile = pf
	}
	res, err := mcpserver.BenchDump(ctx, file, o)
	if err != nil {
		return err
	}
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
