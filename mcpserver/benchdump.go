package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/workspace"
)

// DumpBenchOptions says what BenchDump measures.
type DumpBenchOptions struct {
	Targets    int       // function and method symbols asked through MCP
	Depth      int       // impact depth (1-3)
	CLITargets int       // how many of the targets the command line asks about
	CLIRuns    int       // command-line runs per target
	Self       string    // the lspgraph executable the command-line runs start
	CPUProfile io.Writer // when set, a CPU profile of the MCP calls
}

// DumpBenchResult is BenchDump's measurement.
type DumpBenchResult struct {
	File          string  `json:"file"`
	ImportSeconds float64 `json:"import_seconds"`
	Depth         int     `json:"depth"`
	MaxTokens     int     `json:"max_tokens"`
	BenchResult
	// CLI is `lspgraph impact --json` as a process through the session's
	// socket; Socket the same command through the socket in this process.
	CLITargets []string `json:"cli_targets"`
	CLI        Latency  `json:"cli"`
	Socket     Latency  `json:"socket"`
}

// BenchDump imports a SCIP dump into a temporary store (with an empty
// root), opens a warm session over it, times the impact tool on
// o.Targets function and method symbols (Bench), then `lspgraph impact
// --json` as a process and the same request over the socket in process,
// on o.CLITargets of them.
func BenchDump(ctx context.Context, file string, o DumpBenchOptions) (DumpBenchResult, error) {
	res := DumpBenchResult{File: file, Depth: o.Depth, MaxTokens: DefaultMaxTokens}
	tmp, err := os.MkdirTemp("", "lspgraph-bench-mcp-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(tmp)
	root, storeDir := filepath.Join(tmp, "root"), filepath.Join(tmp, "store")
	if err := os.Mkdir(root, 0o700); err != nil {
		return res, err
	}
	t0 := time.Now()
	st, err := graph.Open(storeDir, graph.Options{})
	if err != nil {
		return res, err
	}
	f, err := os.Open(file)
	if err != nil {
		st.Close()
		return res, fmt.Errorf("opening the dump: %w", err)
	}
	_, err = scip.Import(ctx, st, f, scip.Options{Root: root})
	f.Close()
	st.Close()
	if err != nil {
		return res, fmt.Errorf("importing %s: %w", file, err)
	}
	res.ImportSeconds = time.Since(t0).Seconds()

	s, err := workspace.Open(workspace.Options{Root: root, StoreDir: storeDir})
	if err != nil {
		return res, err
	}
	defer s.Close()
	ln, err := s.Listen()
	if err != nil {
		return res, err
	}
	defer ln.Close()
	ask := SessionAsker{Root: root, Session: s}

	if o.CPUProfile != nil {
		if err := pprof.StartCPUProfile(o.CPUProfile); err != nil {
			return res, fmt.Errorf("starting the CPU profile: %w", err)
		}
	}
	res.BenchResult, err = Bench(ctx, ask, root, o.Targets, o.Depth)
	if o.CPUProfile != nil {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return res, err
	}
	picked := res.Targets

	// The command line, through the same warm session.
	step := max(1, len(picked)/max(1, o.CLITargets))
	for i := 0; i < len(picked) && len(res.CLITargets) < o.CLITargets; i += step {
		res.CLITargets = append(res.CLITargets, picked[i])
	}
	var cli, sock []time.Duration
	for _, target := range res.CLITargets {
		q, _ := json.Marshal(workspace.ImpactRequest{Target: target, Depth: o.Depth})
		for range o.CLIRuns {
			t := time.Now()
			out, err := exec.CommandContext(ctx, o.Self, "impact", "--store", storeDir, "--root", root, "--depth", fmt.Sprint(o.Depth), "--json", target).CombinedOutput()
			cli = append(cli, time.Since(t))
			if err != nil {
				return res, fmt.Errorf("lspgraph impact %s: %v\n%s", target, err, out)
			}
			t = time.Now()
			c, err := workspace.Dial(ctx, storeDir, "cli", "")
			if err != nil {
				return res, err
			}
			var raw json.RawMessage
			err = c.Command(ctx, workspace.CommandImpact, []json.RawMessage{q}, 0, &raw)
			c.Close()
			sock = append(sock, time.Since(t))
			if err != nil {
				return res, fmt.Errorf("impact %s through the socket: %w", target, err)
			}
		}
	}
	res.CLI, res.Socket = LatencyOf(cli), LatencyOf(sock)

	return res, nil
}
