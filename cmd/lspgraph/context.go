package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/workspace"
)

// queryFlags are the flags every query command shares.
type queryFlags struct {
	store, root string
	json        bool
}

func runContext(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "context", "context [--store DIR] [--root DIR] [--budget N] [--scope closure|repo|PKG,...] [--json] [--format text|markdown] TARGET")
	var q queryFlags
	fs.StringVar(&q.store, "store", "", "graph store directory (default: the user cache directory for the root)")
	fs.StringVar(&q.root, "root", "", "workspace root (default: the git top level, else the current directory)")
	fs.BoolVar(&q.json, "json", false, "print the pack as JSON")
	budget := fs.Int("budget", contextpack.DefaultBudget, "token budget (estimate: ceil(bytes/4) + per-item overhead)")
	scopeArg := fs.String("scope", "closure", "closure (the target package's dependency closure), repo, or a comma list of packages (add 'closure' to the list to extend the closure)")
	format := fs.String("format", "text", "text or markdown")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: give one TARGET (symbol name, Type.Method, FILE:LINE:COL or a symbol string)", errUsage)
	}
	if *format != "text" && *format != "markdown" {
		return fmt.Errorf("%w: --format is text or markdown, not %q", errUsage, *format)
	}
	if *budget <= 0 {
		return fmt.Errorf("%w: --budget must be positive", errUsage)
	}
	root, err := workspaceRoot(ctx, q.root)
	if err != nil {
		return err
	}
	var p contextpack.Answer
	req := contextpack.Request{Symbol: absTarget(pos[0]), Budget: *budget, Scope: *scopeArg}
	if err := askSession(ctx, "cli", root, q.store, workspace.CommandContext, req, &p, true); err != nil {
		return err
	}
	switch {
	case q.json:
		return writeJSON(e.stdout, p.Pack)
	case *format == "markdown":
		_, err = io.WriteString(e.stdout, p.Pack.Markdown())
		return err
	}
	return writeContextText(e.stdout, p.Pack)
}

func writeContextText(w io.Writer, p *contextpack.Pack) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Context for `%s` (%s) at %s\n", p.Target.Name, p.Target.Kind, p.Target.Location)
	fmt.Fprintf(&b, "Scope %s: %s\n", p.Scope.Spec, strings.Join(p.Scope.Packages, ", "))
	fmt.Fprintf(&b, "%d of %d tokens, %d items\n\n", p.Tokens, p.Budget, len(p.Items))
	for i, it := range p.Items {
		shown := "location"
		if it.Snippet != nil {
			shown = it.Snippet.Kind
		}
		fmt.Fprintf(&b, "%3d. %-14s %-24s %s  score %.3f  [%s]\n", i+1, it.Role, it.Name, it.Location, it.Score, shown)
		fmt.Fprintf(&b, "     %s\n", it.Reason)
		if it.Note != "" {
			fmt.Fprintf(&b, "     (%s)\n", it.Note)
		}
	}
	o := p.Omitted
	if o.BudgetCount > 0 {
		fmt.Fprintf(&b, "\nDropped for the budget: %d\n", o.BudgetCount)
		for _, d := range o.Budget {
			fmt.Fprintf(&b, "  %-14s %-24s %s  score %.3f\n", d.Role, d.Name, d.Location, d.Score)
		}
	}
	if len(o.OutOfScope) > 0 {
		b.WriteString("\nOutside the scope:\n")
		for _, s := range o.OutOfScope {
			fmt.Fprintf(&b, "  %s: %s\n", s.Message, strings.Join(s.Examples, ", "))
		}
	}
	if f := p.Freshness; f != nil {
		fmt.Fprintf(&b, "\nFreshness: base %s, HEAD %s, %d changed, %d live, partial=%v\n", orDash(f.BaseCommit), orDash(f.Head), len(f.Changed), len(f.Live), f.Partial)
		for _, r := range f.Reasons {
			fmt.Fprintf(&b, "  %s\n", r)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
