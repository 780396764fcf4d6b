package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspgraph/lspgraph/search"
	"github.com/lspgraph/lspgraph/workspace"
)

// SearchIn is the search tool's arguments.
type SearchIn struct {
	Query string `json:"query" jsonschema:"What the code does or is about, in words: 'where are expired cache entries evicted', 'retry with backoff', 'parse the config file'."`
	Limit int    `json:"limit,omitempty" jsonschema:"The most files to return (1-100, default 10)."`
	Scope string `json:"scope,omitempty" jsonschema:"repo (default): every file; closure: the package of from and the packages it depends on."`
	From  string `json:"from,omitempty" jsonschema:"The file being worked on (relative to the workspace root): nearby files rank higher; closure starts from it."`
	Root  string `json:"root,omitempty" jsonschema:"Absolute path of the workspace (repository) to answer for; default: the workspace the server was started in."`
}

// SearchOut is the search tool's answer.
type SearchOut struct {
	Query string   `json:"query"`
	Words []string `json:"words"`
	// Documents is how many files the term index holds.
	Documents int          `json:"documents"`
	Hits      []search.Hit `json:"hits"`
	// Truncated is set when hits were cut to fit the answer.
	Truncated bool      `json:"truncated"`
	Freshness Freshness `json:"freshness"`
	Omitted   []string  `json:"omitted,omitempty"`
	cut       int
}

func registerSearch(ms *mcp.Server, s *server, readOnly *mcp.ToolAnnotations) {
	addTool[SearchIn, *SearchOut](ms, s, &mcp.Tool{Name: "search", Annotations: readOnly,
		Description: "Find the files that are about some words when you do not know a symbol's name: BM25 over the words of names, paths, comments, strings and code, fused with the graph (how many packages depend on a file, nearness to the file you work on, tests last). Each hit says which words matched where and why it ranked. Unsaved editor buffers are searched as they are. Follow up with symbols, impact or context."},
		func(in *jsonschema.Schema) {
			in.Properties["query"].MinLength = ptr(1)
			in.Properties["limit"].Minimum, in.Properties["limit"].Maximum = ptr(1.0), ptr(100.0)
			in.Properties["scope"].Enum = []any{"repo", "closure"}
		}, (*server).search)
}

func (s *server) search(ctx context.Context, in SearchIn) (shaped, error) {
	root, err := s.root(in.Root)
	if err != nil {
		return nil, err
	}
	req := workspace.SearchRequest{Query: in.Query, Scope: in.Scope, From: in.From, Limit: in.Limit}
	if _, err := req.Options(root); err != nil {
		return nil, invalidParams("search: %v", err)
	}
	var a workspace.SearchAnswer
	if err := s.ask.Ask(ctx, root, workspace.CommandSearch, req, &a); err != nil {
		return nil, &toolError{err.Error()}
	}
	out := &SearchOut{Query: a.Query, Words: a.Words, Documents: a.Documents, Hits: a.Hits, Freshness: freshnessOf(a.Freshness)}
	if out.Hits == nil {
		out.Hits = []search.Hit{}
	}
	return out, nil
}

func (o *SearchOut) trim() bool {
	if n := len(o.Hits); n > 1 {
		o.cut += n - n/2
		o.Hits, o.Truncated = o.Hits[:n/2], true
		o.Omitted = []string{fmt.Sprintf("the last %s", plural(o.cut, "hit"))}
		return true
	}
	if o.Freshness.shrink() {
		o.Omitted = append(o.Omitted, "freshness lists cut to their counts")
		return true
	}
	return false
}

func (o *SearchOut) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Search `%s`: %s of %d files\n", o.Query, plural(len(o.Hits), "hit"), o.Documents)
	fmt.Fprintf(&b, "Words: %s\n", strings.Join(o.Words, " "))
	if len(o.Hits) == 0 {
		b.WriteString("No file holds these words. Try other words, or check status for the index.\n")
	}
	for i, h := range o.Hits {
		test := ""
		if h.Test {
			test = " (test)"
		}
		fmt.Fprintf(&b, "%d. `%s`%s — %s\n", i+1, h.Path, test, h.Reasons())
	}
	b.WriteString(o.Freshness.markdown())
	return b.String()
}
