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
	if err := askSession(ctx, e, "cli", root, q.store, workspace.CommandSearch, req, &ans, true); err != nil {
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

// querySeed picks the symbol a question's context pack is built around: the
// definition whose name holds the most query words in the best hit that
// has one.
func querySeed(ctx context.Context, e *env, root, storeFlag, query string) (string, error) {
	var ans workspace.SearchAnswer
	if err := askSession(ctx, e, "cli", root, storeFlag, workspace.CommandSearch, workspace.SearchRequest{Query: query, Limit: 5}, &ans, true); err != nil {
		return "", err
	}
	for _, h := range ans.Hits {
		if len(h.Symbols) > 0 {
			s := h.Symbols[0]
			fmt.Fprintf(e.stderr, "context for %s (%s %s:%d), the best match of %q\n", s.Name, s.Kind, h.Path, s.Line, query)
			return s.ID, nil
		}
	}
	if len(ans.Hits) == 0 {
		return "", fmt.Errorf("no file holds the words of %q; give a TARGET instead", query)
	}
	return "", fmt.Errorf("the files best matching %q (%s first) define nothing named by its words; give a TARGET instead", query, ans.Hits[0].Path)
}
