package crawl

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
)

// Report is what an index through a language server did (`lspgraph index
// --lsp`, and the session's lspgraph.indexLSP): the crawl and the base
// generation written from it.
type Report struct {
	Root          string      `json:"root"`
	Store         string      `json:"store"`
	Commit        string      `json:"commit"`
	Server        string      `json:"server"`
	ServerVersion string      `json:"serverVersion"`
	Encoding      string      `json:"positionEncoding"`
	State         graph.State `json:"state"`
	Generation    uint64      `json:"generation"`
	LoadSeconds   float64     `json:"loadSeconds"`
	CrawlSeconds  float64     `json:"crawlSeconds"`
	Stats         Stats       `json:"stats"`
	Errors        []string    `json:"errors,omitempty"`
	// Project is the project's root when Root is only a folder of it (see
	// LimitedTo): callers outside the folder were never asked for.
	Project string `json:"project,omitempty"`
}

// Index crawls opts.Root through the language server opts.Server and
// writes the result to store as a new base generation, at commit (the
// work tree's HEAD, "" outside git).
func Index(ctx context.Context, store *graph.Store, opts Options, commit string) (Report, error) {
	res, err := Crawl(ctx, opts)
	if err != nil {
		name := ""
		if len(opts.Server) > 0 {
			name = opts.Server[0]
		}
		return Report{}, fmt.Errorf("crawling %s with %s: %w", opts.Root, name, err)
	}
	m, err := Write(ctx, store, res, opts.Root, WriteOptions{Commit: commit, Args: opts.Server})
	if err != nil {
		return Report{}, err
	}
	project, _ := LimitedTo(opts.Root)
	return Report{
		Root: opts.Root, Store: store.Dir(), Commit: commit,
		Server: res.ServerName, ServerVersion: res.ServerVersion, Encoding: res.Encoding.String(),
		State: m.State, Generation: m.Generation,
		LoadSeconds: res.Stats.Load.Seconds(), CrawlSeconds: res.Stats.Crawl.Seconds(),
		Stats: res.Stats, Errors: res.Errors, Project: project,
	}, nil
}

// WriteText prints the report for a person.
func (r Report) WriteText(w io.Writer) {
	s := r.Stats
	round := func(secs float64) time.Duration {
		return time.Duration(secs * float64(time.Second)).Round(time.Millisecond)
	}
	fmt.Fprintf(w, "%s → %s\n", r.Root, r.Store)
	fmt.Fprintf(w, "crawled %d documents through %s (%s positions): loaded in %s, asked in %s\n",
		s.Documents, strings.TrimSpace(r.Server+" "+r.ServerVersion), r.Encoding, round(r.LoadSeconds), round(r.CrawlSeconds))
	fmt.Fprintf(w, "%d symbols, %d occurrences, %d edges; %d documentSymbol, %d references, %d call hierarchy, %d definition requests\n",
		s.Symbols, s.Occurrences, s.Edges, s.SymbolRequests, s.ReferenceRequests, s.CallRequests, s.DefinitionRequests)
	if s.Disambiguated > 0 {
		fmt.Fprintf(w, "%d references claimed by several symbols were settled by definition\n", s.Disambiguated)
	}
	if s.ExternalLocations > 0 {
		fmt.Fprintf(w, "%d locations outside the workspace were left out\n", s.ExternalLocations)
	}
	if !s.Ready {
		fmt.Fprintf(w, "warning: %s did not report the end of its loading in time; answers may be incomplete\n", r.Server)
	}
	if r.Project != "" {
		fmt.Fprintf(w, "base layer is PARTIAL: %s is a folder of the project at %s; callers outside it were never asked for (crawl the project's root)\n", r.Root, r.Project)
	}
	if s.FailedRequests > 0 || s.SkippedDocuments > 0 {
		fmt.Fprintf(w, "base layer is PARTIAL: %d requests failed, %d documents unreadable\n", s.FailedRequests, s.SkippedDocuments)
		for _, msg := range r.Errors {
			fmt.Fprintf(w, "  %s\n", msg)
		}
	}
	fmt.Fprintf(w, "base generation %d at %s\n", r.Generation, cmp.Or(gitcmd.ShortCommit(r.Commit), "(no commit: not a git work tree)"))
}
