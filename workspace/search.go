package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/search"
)

// CommandSearch finds documents by words.
const CommandSearch = "lspgraph.search"

// SearchRequest is lspgraph.search's argument; a bare string is a Query
// with the defaults.
type SearchRequest struct {
	// Query is what the code does or is about, in words.
	Query string `json:"query"`
	// Scope is repo (default) or closure: the package of From and what it
	// imports.
	Scope string `json:"scope,omitempty"`
	// From is the current file (root-relative or absolute), for proximity
	// and the closure.
	From string `json:"from,omitempty"`
	// Limit is the most hits returned (default 10, at most 100).
	Limit int `json:"limit,omitempty"`
}

// SearchAnswer is lspgraph.search's answer.
type SearchAnswer struct {
	search.Result
	Freshness freshness.Block `json:"freshness"`
}

const maxSearchLimit = 100

// searchCommand answers lspgraph.search over the session's graph, unsaved
// buffers included.
func (s *Session) searchCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, `{"query": TEXT}`)
	if err != nil {
		return nil, err
	}
	var q SearchRequest
	if json.Unmarshal(arg, &q.Query) != nil {
		if err := json.Unmarshal(arg, &q); err != nil {
			return nil, fmt.Errorf("argument %.200s is not a query or {\"query\": TEXT, \"scope\": repo|closure, \"from\": FILE, \"limit\": N}", arg)
		}
	}
	o, err := q.Options(s.root)
	if err != nil {
		return nil, err
	}
	w := s.sync(ctx)
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	o.Cache = s.searches
	res, err := search.Search(ctx, r, q.Query, o)
	if err != nil {
		return nil, err
	}
	fb, err := s.freshness(ctx, r, w)
	if err != nil {
		return nil, err
	}
	return &SearchAnswer{Result: res, Freshness: fb}, nil
}

// WarmSearch reads into the session's search cache what searches of the
// current base generation read again, so that none pays for it. A session
// started in the background does this once when it opens.
func (s *Session) WarmSearch(ctx context.Context) error {
	r, err := s.reader()
	if err != nil {
		return err
	}
	defer r.Close()
	return s.searches.Warm(ctx, r, s.fg.wait)
}

// Options checks the request and turns it into search options; From is
// made relative to root.
func (q *SearchRequest) Options(root string) (search.Options, error) {
	q.Query = strings.TrimSpace(q.Query)
	if q.Query == "" {
		return search.Options{}, fmt.Errorf("query is empty: say in words what the code does")
	}
	if q.Limit < 0 {
		return search.Options{}, fmt.Errorf("limit must not be negative")
	}
	sc, err := search.ParseScope(q.Scope)
	if err != nil {
		return search.Options{}, err
	}
	from := q.From
	if from != "" && filepath.IsAbs(from) {
		rel, err := filepath.Rel(root, from)
		if err != nil || strings.HasPrefix(rel, "..") {
			return search.Options{}, fmt.Errorf("from %s is outside the workspace %s", from, root)
		}
		from = filepath.ToSlash(rel)
	}
	return search.Options{Limit: min(q.Limit, maxSearchLimit), Scope: sc, From: from}, nil
}
