package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/lspgraph/lspgraph/search"
	"github.com/lspgraph/lspgraph/workspace"
)

func runSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "search", "search [--store DIR] [--root DIR] [--scope repo|closure] [--from FILE] [--limit N] [--json|--format markdown] QUERY...")
	var q queryFlags
	fs.StringVar(&q.store, "store", "", "graph store directory (default: the user cache directory for the root)")
	fs.StringVar(&q.root, "root", "", "workspace root (default: the git top level, else the current directory)")
	fs.BoolVar(&q.json, "json", false, "print JSON")
	format := fs.String("format", "text", "text or markdown")
	scope := fs.String("scope", "repo", "repo (every document) or closure (the package of --from and what it imports)")
	from := fs.String("from", "", "the current file: ranks nearby documents higher, and starts --scope closure")
	limit := fs.Int("limit", 10, "most hits shown (at most 100)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: give the words to search for", errUsage)
	}
	if *format != "text" && *format != "markdown" {
		return fmt.Errorf("%w: --format is text or markdown, not %q", errUsage, *format)
	}
	root, err := workspaceRoot(ctx, q.root)
	if err != nil {
		return err
	}
	req := workspace.SearchRequest{Query: strings.Join(pos, " "), Scope: *scope, Limit: *limit}
	if *from != "" {
		req.From = rootRelative(root, *from)
	}
	if _, err := req.Options(root); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	var ans workspace.SearchAnswer
	if err := askSession(ctx, "cli", root, q.store, workspace.CommandSearch, req, &ans, true); err != nil {
		return err
	}
	switch {
	case q.json:
		return writeJSON(e.stdout, ans)
	case *format == "markdown":
		return search.WriteMarkdown(e.stdout, &ans.Result)
	}
	return search.WriteText(e.stdout, &ans.Result)
}
