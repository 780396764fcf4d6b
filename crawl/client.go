package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// client is a small LSP client over a server process's stdio. Parameters and
// results travel as raw JSON; only what the crawl reads is decoded.
type client struct {
	cmd  *exec.Cmd
	conn jsonrpc2.Conn

	mu       sync.Mutex
	progress map[string]bool // active work-done progress tokens
	ended    int             // progress reports that ended
	changed  chan struct{}   // closed and replaced whenever progress changes
	folders  json.RawMessage // workspace folders, for workspace/workspaceFolders
}

// stdio joins a process's stdout and stdin into one stream.
type stdio struct {
	io.ReadCloser
	in io.WriteCloser
}

func (s stdio) Write(p []byte) (int, error) { return s.in.Write(p) }
func (s stdio) Close() error {
	err := s.in.Close()
	if err2 := s.ReadCloser.Close(); err == nil {
		err = err2
	}
	return err
}

// startClient starts the server and serves its requests to the client.
func startClient(ctx context.Context, argv []string, dir string, stderr io.Writer) (*client, error) {
	if len(argv) == 0 {
		return nil, errors.New("crawl: no language server command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("crawl: starting %s: %w", argv[0], err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("crawl: starting %s: %w", argv[0], err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("crawl: starting %s: %w", argv[0], err)
	}
	c := &client{
		cmd:      cmd,
		conn:     jsonrpc2.NewConn(jsonrpc2.NewStream(stdio{ReadCloser: out, in: in})),
		progress: map[string]bool{},
		changed:  make(chan struct{}),
	}
	c.conn.Go(context.WithoutCancel(ctx), c.handle)
	return c, nil
}

// handle answers the server's requests and follows its progress reports.
// It runs on the connection's read loop, so it never blocks.
func (c *client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case "$/progress":
		var p struct {
			Token any `json:"token"`
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			c.noteProgress(fmt.Sprint(p.Token), p.Value.Kind)
		}
		return reply(ctx, nil, nil)
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "workspace/semanticTokens/refresh", "workspace/inlayHint/refresh",
		"workspace/codeLens/refresh", "workspace/diagnostic/refresh", "workspace/inlineValue/refresh":
		return reply(ctx, nil, nil)
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		return reply(ctx, make([]any, len(p.Items)), nil)
	case "workspace/workspaceFolders":
		c.mu.Lock()
		f := c.folders
		c.mu.Unlock()
		return reply(ctx, f, nil)
	case "workspace/applyEdit":
		return reply(ctx, map[string]any{"applied": false, "failureReason": "read-only crawl"}, nil)
	}
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		return reply(ctx, nil, fmt.Errorf("%q: %w", req.Method(), jsonrpc2.ErrMethodNotFound))
	}
	return nil // notifications: diagnostics, log and show messages
}

func (c *client) noteProgress(token, kind string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch kind {
	case "begin":
		c.progress[token] = true
	case "end":
		if c.progress[token] {
			c.ended++
		}
		delete(c.progress, token)
	default:
		return
	}
	close(c.changed)
	c.changed = make(chan struct{})
}

// waitReady waits until the server reports no work in progress: every
// progress it began has ended and none began during quiet. A server that
// reports no progress at all is ready after quiet. It gives up (and says
// so, not an error) after limit.
func (c *client) waitReady(ctx context.Context, quiet, limit time.Duration) (bool, error) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		active := len(c.progress)
		ch := c.changed
		c.mu.Unlock()
		var settle <-chan time.Time
		if active == 0 {
			t := time.NewTimer(quiet)
			defer t.Stop()
			settle = t.C
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-deadline.C:
			return false, nil
		case <-c.conn.Done():
			return false, fmt.Errorf("crawl: language server stopped while loading: %w", c.conn.Err())
		case <-ch:
		case <-settle:
			return true, nil
		}
	}
}

// call sends a request and decodes its result into result (which may be a
// *json.RawMessage).
func (c *client) call(ctx context.Context, method string, params, result any) error {
	if _, err := c.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

func (c *client) notify(ctx context.Context, method string, params any) error {
	if err := c.conn.Notify(ctx, method, params); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// shutdown asks the server to shut down and exit, and waits for the process
// (killing it after grace).
func (c *client) shutdown(ctx context.Context, grace time.Duration) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := c.call(sctx, "shutdown", nil, nil)
	if err == nil {
		err = c.notify(sctx, "exit", nil)
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case werr := <-done:
		_ = c.conn.Close()
		if err == nil && werr != nil && !isExit(werr) {
			err = werr
		}
	case <-time.After(grace):
		_ = c.cmd.Process.Kill()
		<-done
		_ = c.conn.Close()
		if err == nil {
			err = fmt.Errorf("did not exit within %s and was killed", grace)
		}
	}
	if err != nil {
		return fmt.Errorf("crawl: shutting down %s: %w", c.cmd.Path, err)
	}
	return nil
}

// kill stops the server without ceremony (after a failure).
func (c *client) kill() {
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Signal(os.Kill)
	}
	_ = c.conn.Close()
	_ = c.cmd.Wait()
}

// isExit reports whether err only says the process exited non-zero (some
// servers exit 1 on `exit` whatever happened).
func isExit(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && strings.Contains(err.Error(), "exit status")
}
