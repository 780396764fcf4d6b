package main

import (
	"context"
	"fmt"
	"io"

	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/workspace"
)

func runChanges(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "changes", "changes [--store DIR] [--root DIR] [--base REV] [--staged] [--depth N] [--min-confidence X] [--kinds a,b] [--no-tests] [--limit N] [--json] [--format text|markdown]\n\n"+
		"Maps `git diff BASE` (the work tree, or the index with --staged; untracked files count as added)\nto the symbols whose definitions the changed lines touch, and shows their combined impact.")
	var f impactFlags
	f.register(fs, false)
	base := fs.String("base", "", "compare with `REV` (default: the commit the graph's base index was built from, else HEAD)")
	staged := fs.Bool("staged", false, "compare the index (staged changes) instead of the work tree")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("%w: changes takes no arguments, got %q", errUsage, pos)
	}
	q, err := f.request("")
	if err != nil {
		return err
	}
	root, err := workspaceRoot(ctx, f.root)
	if err != nil {
		return err
	}
	var a impact.Answer
	req := workspace.ChangesRequest{Base: *base, Staged: *staged, ImpactRequest: q}
	if err := askSession(ctx, e, "cli", root, f.store, workspace.CommandChanges, req, &a, false); err != nil {
		return err
	}
	return writeChangesAnswer(e.stdout, &a, f.json, f.format)
}

// writeChangesAnswer prints the changed symbols, then their impact.
func writeChangesAnswer(w io.Writer, a *impact.Answer, asJSON bool, format string) error {
	if asJSON {
		return writeJSON(w, a)
	}
	return impact.WriteChanges(w, a, format == "markdown")
}
