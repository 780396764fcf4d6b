package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/crawl"
	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/workspace"
)

// runIndexLSP crawls a language server (`lspgraph index --lsp -- SERVER
// ARGS...`) into a new base generation of source "lsp" facts.
func runIndexLSP(ctx context.Context, e *env, root, dir string, server []string, asJSON bool) error {
	if len(server) == 0 {
		return fmt.Errorf("%w: --lsp needs the language server's command line after --, e.g. `lspgraph index --lsp -- gopls`", errUsage)
	}
	store, err := workspace.OpenStore(dir, root, nil)
	if err != nil {
		return fmt.Errorf("opening store %s: %w", dir, err)
	}
	defer store.Close()

	prog := newCrawlProgress(e)
	serverLog, closeLog := crawlServerLog(e)
	res, err := crawl.Crawl(ctx, crawl.Options{
		Root:     root,
		Server:   server,
		Progress: prog.update,
		Stderr:   serverLog,
	})
	closeLog()
	prog.finish()
	if err != nil {
		return fmt.Errorf("crawling %s with %s: %w", root, server[0], err)
	}
	commit, err := freshness.Head(ctx, root)
	if err != nil {
		return fmt.Errorf("reading HEAD of %s: %w", root, err)
	}
	m, err := crawl.Write(ctx, store, res, root, crawl.WriteOptions{Commit: commit, Args: server})
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.stdout, struct {
			Root          string      `json:"root"`
			Store         string      `json:"store"`
			Commit        string      `json:"commit"`
			Server        string      `json:"server"`
			ServerVersion string      `json:"serverVersion"`
			Encoding      string      `json:"positionEncoding"`
			State         graph.State `json:"state"`
			LoadSeconds   float64     `json:"loadSeconds"`
			CrawlSeconds  float64     `json:"crawlSeconds"`
			Stats         crawl.Stats `json:"stats"`
			Errors        []string    `json:"errors,omitempty"`
		}{root, dir, commit, res.ServerName, res.ServerVersion, res.Encoding.String(), m.State,
			res.Stats.Load.Seconds(), res.Stats.Crawl.Seconds(), res.Stats, res.Errors})
	}
	s := res.Stats
	fmt.Fprintf(e.stdout, "%s → %s\n", root, dir)
	fmt.Fprintf(e.stdout, "crawled %d documents through %s (%s positions): loaded in %s, asked in %s\n",
		s.Documents, strings.TrimSpace(res.ServerName+" "+res.ServerVersion), res.Encoding, s.Load.Round(time.Millisecond), s.Crawl.Round(time.Millisecond))
	fmt.Fprintf(e.stdout, "%d symbols, %d occurrences, %d edges; %d documentSymbol, %d references, %d call hierarchy, %d definition requests\n",
		s.Symbols, s.Occurrences, s.Edges, s.SymbolRequests, s.ReferenceRequests, s.CallRequests, s.DefinitionRequests)
	if s.Disambiguated > 0 {
		fmt.Fprintf(e.stdout, "%d references claimed by several symbols were settled by definition\n", s.Disambiguated)
	}
	if s.ExternalLocations > 0 {
		fmt.Fprintf(e.stdout, "%d locations outside the workspace were left out\n", s.ExternalLocations)
	}
	if !s.Ready {
		fmt.Fprintf(e.stdout, "warning: %s did not report the end of its loading in time; answers may be incomplete\n", res.ServerName)
	}
	if project, ok := crawl.LimitedTo(root); ok {
		fmt.Fprintf(e.stdout, "base layer is PARTIAL: %s is a folder of the project at %s; callers outside it were never asked for (crawl the project's root)\n", root, project)
	}
	if s.FailedRequests > 0 || s.SkippedDocuments > 0 {
		fmt.Fprintf(e.stdout, "base layer is PARTIAL: %d requests failed, %d documents unreadable\n", s.FailedRequests, s.SkippedDocuments)
		for _, msg := range res.Errors {
			fmt.Fprintf(e.stdout, "  %s\n", msg)
		}
	}
	fmt.Fprintf(e.stdout, "base generation %d at %s\n", m.Generation, shortCommit(commit))
	return nil
}

func shortCommit(c string) string {
	return cmp.Or(gitcmd.ShortCommit(c), "(no commit: not a git work tree)")
}

// crawlServerLog is where the server's stderr goes: the file named by
// LSPGRAPH_SERVER_LOG, else nowhere (servers are chatty).
func crawlServerLog(e *env) (io.Writer, func()) {
	p := e.getenv("LSPGRAPH_SERVER_LOG")
	if p == "" {
		return io.Discard, func() {}
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintf(e.stderr, "warning: cannot open LSPGRAPH_SERVER_LOG %s: %v\n", p, err)
		return io.Discard, func() {}
	}
	return f, func() { _ = f.Close() }
}

// crawlProgress shows a crawl's phases: one rewritten line on a terminal,
// a line per finished phase otherwise.
type crawlProgress struct{ *progress }

func newCrawlProgress(e *env) crawlProgress { return crawlProgress{newProgress(e.stderr)} }

func (p crawlProgress) update(pr crawl.Progress) {
	done := pr.Done == pr.Total
	p.show(done, func(time.Duration) (string, string) {
		line := fmt.Sprintf("crawl: %s %d/%d", pr.Phase, pr.Done, pr.Total)
		if !done {
			return line, ""
		}
		return line, line
	})
}
