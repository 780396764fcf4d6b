package main

import (
	"context"
	"fmt"
	"io"
	"strings"

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
	if err := askSession(ctx, "cli", root, f.store, workspace.CommandChanges, req, &a, false); err != nil {
		return err
	}
	return writeChangesAnswer(e.stdout, &a, f.json, f.format)
}

// writeChangesAnswer prints the changed symbols, then their impact.
func writeChangesAnswer(w io.Writer, a *impact.Answer, asJSON bool, format string) error {
	if asJSON {
		return writeJSON(w, a)
	}
	var b strings.Builder
	if format == "markdown" {
		fmt.Fprintf(&b, "#### Changed symbols (%d in %d files)\n\n", len(a.Changes), len(a.Files))
		if len(a.Changes) > 0 {
			b.WriteString("| change | symbol | kind | location |\n|---|---|---|---|\n")
			for _, c := range a.Changes {
				fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", c.Change, impactMD(c.Name), c.Kind, changeLoc(c, "`"))
			}
		}
		b.WriteString("\n")
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		return writeImpactMarkdown(w, a)
	}
	fmt.Fprintf(&b, "changed files (%d)\n", len(a.Files))
	for _, f := range a.Files {
		p := f.Path
		if f.Status == "R" {
			p = f.OldPath + " -> " + f.Path
		} else if p == "" {
			p = f.OldPath
		}
		fmt.Fprintf(&b, "  %s %s\n", f.Status, p)
	}
	fmt.Fprintf(&b, "changed symbols (%d)\n", len(a.Changes))
	for _, c := range a.Changes {
		fmt.Fprintf(&b, "  %-8s %s (%s) %s\n", c.Change, c.Name, c.Kind, changeLoc(c, ""))
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeImpactText(w, a)
}

// changeLoc renders where a changed symbol is, and where it was.
func changeLoc(c impact.ChangedSymbol, quote string) string {
	var parts []string
	if c.Location != nil {
		parts = append(parts, quote+impactLoc(*c.Location)+quote)
	}
	if c.OldLocation != nil && (c.Location == nil || c.OldLocation.Path != c.Location.Path || c.Change != impact.ChangeModified) {
		parts = append(parts, "was "+quote+impactLoc(*c.OldLocation)+quote)
	}
	return strings.Join(parts, " ")
}
