package main

import (
	"context"
	"fmt"
	"io"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/workspace"
)

// queryFlags are the flags every query command shares.
type queryFlags struct {
	store, root string
	json        bool
}

func runContext(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "context", "context [--store DIR] [--root DIR] [--budget N] [--scope closure|repo|PKG,...] [--json [--pretty]] [--format text|markdown] [--history-rev REV] TARGET | --query TEXT")
	var q queryFlags
	fs.StringVar(&q.store, "store", "", "graph store directory (default: the user cache directory for the root)")
	fs.StringVar(&q.root, "root", "", "workspace root (default: the git top level, else the current directory)")
	fs.BoolVar(&q.json, "json", false, "print the pack as compact JSON")
	pretty := fs.Bool("pretty", false, "with --json: indent the JSON (the budget counts the indented form)")
	budget := fs.Int("budget", contextpack.DefaultBudget, "token budget of the whole printed answer (see contextpack.Tokens for the estimate)")
	scopeArg := fs.String("scope", "closure", "closure (the target package's dependency closure), repo, or a comma list of packages (add 'closure' to the list to extend the closure)")
	format := fs.String("format", "text", "text or markdown")
	historyRev := fs.String("history-rev", "", "read history (files changed together) from the commits reachable from REV (default HEAD); 'none' turns it off")
	query := fs.String("query", "", "a question instead of a TARGET: search picks the symbol the pack is built around")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *query != "" && len(pos) == 0 {
		pos = []string{""}
	} else if *query != "" {
		return fmt.Errorf("%w: give a TARGET or --query, not both", errUsage)
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: give one TARGET (symbol name, Type.Method, FILE:LINE:COL or a symbol string)", errUsage)
	}
	if *format != "text" && *format != "markdown" {
		return fmt.Errorf("%w: --format is text or markdown, not %q", errUsage, *format)
	}
	if *pretty && !q.json {
		return fmt.Errorf("%w: --pretty goes with --json", errUsage)
	}
	if *budget <= 0 {
		return fmt.Errorf("%w: --budget must be positive", errUsage)
	}
	root, err := workspaceRoot(ctx, q.root)
	if err != nil {
		return err
	}
	f := *format
	switch {
	case q.json && *pretty:
		f = string(contextpack.FormatJSONPretty)
	case q.json:
		f = string(contextpack.FormatJSON)
	}
	target := absTarget(pos[0])
	if *query != "" {
		if target, err = querySeed(ctx, e, root, q.store, *query); err != nil {
			return err
		}
	}
	var p contextpack.Answer
	req := contextpack.Request{Symbol: target, Budget: *budget, Scope: *scopeArg, Format: f, HistoryRev: *historyRev}
	if err := askSession(ctx, e, "cli", root, q.store, workspace.CommandContext, req, &p, true); err != nil {
		return err
	}
	if p.Pack == nil {
		return fmt.Errorf("the session gave no context pack")
	}
	out := p.Rendered
	if out == "" {
		out = p.Pack.Render()
	}
	_, err = io.WriteString(e.stdout, out)
	return err
}
