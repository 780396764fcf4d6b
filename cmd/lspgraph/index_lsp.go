package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/lspgraph/lspgraph/crawl"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/workspace"
)

// runIndexLSP crawls a language server (`lspgraph index --lsp -- SERVER
// ARGS...`) into a new base generation of source "lsp" facts: in the
// session that serves the store when one runs, else here.
func runIndexLSP(ctx context.Context, e *env, root, dir string, server []string, asJSON bool) error {
	if len(server) == 0 {
		return fmt.Errorf("%w: --lsp needs the language server's command line after --, e.g. `lspgraph index --lsp -- gopls`", errUsage)
	}
	var rep crawl.Report
	if c, err := workspace.Dial(ctx, dir, "cli", ""); err == nil {
		defer c.Close()
		fmt.Fprintf(e.stderr, "crawling through the session of pid %d\n", c.PID())
		if p, err := exec.LookPath(server[0]); err == nil {
			server[0] = p // as this shell finds it, not the session's PATH
		}
		if err := c.Command(ctx, workspace.CommandIndexLSP, []json.RawMessage{mustJSON(workspace.IndexLSPRequest{Server: server})}, 0, &rep); err != nil {
			return err
		}
	} else if !errors.Is(err, workspace.ErrNoSession) {
		return err
	} else {
		store, err := workspace.OpenStore(dir, root, nil)
		if err != nil {
			return fmt.Errorf("opening store %s: %w", dir, err)
		}
		defer store.Close()
		prog := newCrawlProgress(e)
		serverLog, closeLog := crawlServerLog(e)
		rep, err = crawl.Index(ctx, store, crawl.Options{Root: root, Server: server, Progress: prog.update, Stderr: serverLog}, gitHead(ctx, root))
		closeLog()
		prog.finish()
		if err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(e.stdout, rep)
	}
	rep.WriteText(e.stdout)
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
