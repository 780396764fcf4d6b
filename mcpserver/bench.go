package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspgraph/lspgraph/workspace"
)

// Latency summarises a set of timings in milliseconds.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// LatencyOf summarises timings.
func LatencyOf(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	q := func(p float64) float64 { return ms(s[min(len(s)-1, int(p*float64(len(s))))]) }
	return Latency{N: len(s), P50: q(0.5), P99: q(0.99), Max: ms(s[len(s)-1])}
}

// BenchResult is what Bench measured.
type BenchResult struct {
	Candidates int      `json:"candidates"` // function and method symbols found
	Targets    []string `json:"-"`          // the ones asked about
	// MCP is the impact tool through the SDK's in-memory transport and a
	// real client, each target once; MCPRepeat the same targets again (the
	// session's answer cache).
	MCP       Latency `json:"mcp"`
	MCPRepeat Latency `json:"mcp_repeat"`
	// Tokens is ceil(bytes/4) of text + structured content, as the cap
	// counts.
	TokensMedian int `json:"tokens_median"`
	TokensMax    int `json:"tokens_max"`
	Capped       int `json:"capped"` // answers that left something out to fit the cap
	Errors       int `json:"errors"`
	// Slowest are the first pass's slowest targets, slowest first.
	Slowest []TargetTime `json:"slowest"`
}

// TargetTime is one target's first impact call.
type TargetTime struct {
	Target string  `json:"target"`
	MS     float64 `json:"ms"`
	Tokens int     `json:"tokens"`
}

// slowestKept is how many of the slowest targets a BenchResult names.
const slowestKept = 5

// Bench times the impact tool (at depth) over n function and method symbols
// of the workspace at root, picked evenly from those the symbols command
// finds, through a real MCP client over the SDK's in-memory transport.
func Bench(ctx context.Context, ask Asker, root string, n, depth int) (BenchResult, error) {
	var res BenchResult
	all, picked, err := benchTargets(ctx, ask, root, n)
	if err != nil {
		return res, err
	}
	res.Candidates, res.Targets = len(all), picked
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(ask, Options{Root: root}).Connect(ctx, st, nil)
	if err != nil {
		return res, err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lspgraph-bench"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return res, err
	}
	defer cs.Close()
	// One call to settle the session (overlay sync, freshness) before timing.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "status", Arguments: map[string]any{}}); err != nil {
		return res, err
	}
	var times, again []time.Duration
	var toks []int
	for pass := range 2 {
		for _, target := range picked {
			t := time.Now()
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "impact", Arguments: map[string]any{"target": target, "depth": depth}})
			d := time.Since(t)
			if err != nil {
				return res, fmt.Errorf("impact %s: %w", target, err)
			}
			if pass == 1 {
				again = append(again, d)
				continue
			}
			times = append(times, d)
			if r.IsError {
				res.Errors++
			}
			n, capped := answerSize(r)
			toks = append(toks, n)
			res.Slowest = append(res.Slowest, TargetTime{Target: target, MS: float64(d.Microseconds()) / 1000, Tokens: n})
			if capped {
				res.Capped++
			}
		}
	}
	res.MCP, res.MCPRepeat = LatencyOf(times), LatencyOf(again)
	slices.SortFunc(res.Slowest, func(a, b TargetTime) int { return cmp.Compare(b.MS, a.MS) })
	res.Slowest = res.Slowest[:min(len(res.Slowest), slowestKept)]
	slices.Sort(toks)
	if len(toks) > 0 {
		res.TokensMedian, res.TokensMax = toks[len(toks)/2], toks[len(toks)-1]
	}
	return res, nil
}

// answerSize is an answer's size in tokens as the cap counts it, and
// whether it left something out to fit.
func answerSize(r *mcp.CallToolResult) (int, bool) {
	n := 0
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			n += len(tc.Text)
		}
	}
	raw, _ := json.Marshal(r.StructuredContent)
	n += len(raw)
	capped := false
	if m, ok := r.StructuredContent.(map[string]any); ok {
		o, _ := m["omitted"].([]any)
		capped = len(o) > 0
	}
	return (n + 3) / 4, capped
}

// benchTargets collects the function and method symbols that symbols finds
// for every initial letter, sorted, and picks n of them evenly spread.
func benchTargets(ctx context.Context, ask Asker, root string, n int) (all, picked []string, err error) {
	seen := map[string]bool{}
	for _, kind := range []string{"function", "method"} {
		for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_" {
			var a workspace.SymbolsAnswer
			if err := ask.Ask(ctx, root, workspace.CommandSymbols, workspace.SymbolsRequest{Query: string(c), Kind: kind, Limit: 200}, &a); err != nil {
				return nil, nil, err
			}
			for _, h := range a.Symbols {
				if !h.External && !seen[h.Target] {
					seen[h.Target] = true
					all = append(all, h.Target)
				}
			}
		}
	}
	slices.Sort(all)
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("no function or method symbols in the workspace")
	}
	picked = all
	if len(all) > n {
		picked = make([]string, 0, n)
		for i := range n {
			picked = append(picked, all[i*len(all)/n])
		}
	}
	return all, picked, nil
}
