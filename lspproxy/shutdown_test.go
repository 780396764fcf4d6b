package lspproxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

// TestShutdownUnanswered: a server that ignores shutdown gets the proxy's
// null answer to the editor, is closed, fails the requests it held, and
// the editor's exit ends the session normally.
func TestShutdownUnanswered(t *testing.T) {
	var logs logBuffer
	cfg := testConfig()
	cfg.ShutdownTimeout = 100 * time.Millisecond
	cfg.ExitTimeout = 100 * time.Millisecond
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":2,"method":"textDocument/definition","params":{}}`)
	c.Server.Recv(t)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":99,"method":"shutdown"}`)
	expect(t, c.Server.Recv(t), `{"jsonrpc":"2.0","id":99,"method":"shutdown"}`)
	// The server never answers.
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":99,"result":null}`)
	if err := c.Server.Ended(lsptest.Timeout); err == nil {
		t.Fatal("server connection still open after the lapsed shutdown")
	}
	got := c.Editor.Recv(t)
	if field(t, got, "id") != json.Number("2") || field(t, got, "error", "code") != json.Number("-32803") {
		t.Fatalf("got %s, want an error for the definition the server held", got)
	}
	// Requests after shutdown are refused, as a server would.
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{}}`)
	if got := c.Editor.Recv(t); field(t, got, "id") != json.Number("3") || field(t, got, "error", "code") != json.Number("-32600") {
		t.Fatalf("got %s, want InvalidRequest for a request after shutdown", got)
	}
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	if err := c.Wait(t, lsptest.Timeout); err != nil {
		t.Fatalf("Serve after the lapsed shutdown and exit = %v, want nil", err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "did not answer shutdown") {
		t.Errorf("log lacks the warning about the lapsed shutdown:\n%s", logs.String())
	}
}

// TestShutdownAnsweredLate: the server's answer after the proxy answered
// for it never reaches the editor.
func TestShutdownAnsweredLate(t *testing.T) {
	cfg := testConfig()
	cfg.ShutdownTimeout = 50 * time.Millisecond
	cfg.ExitTimeout = lsptest.Timeout // keep the connection open for the late answer
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":99,"method":"shutdown"}`)
	c.Server.Recv(t)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":99,"result":null}`)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":99,"result":null}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	expect(t, c.Server.Recv(t), `{"jsonrpc":"2.0","method":"exit"}`)
	c.Server.Close()
	if err := c.Wait(t, lsptest.Timeout); err != nil {
		t.Fatalf("Serve = %v, want nil", err)
	}
	// Serve has handled everything the server sent and closed the editor.
	c.Editor.Ended(lsptest.Timeout)
	n := 0
	for _, m := range c.Editor.Received() {
		if field(t, m, "id") == json.Number("99") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("editor received %d answers to shutdown, want 1:\n%s", n, c.Editor.Received())
	}
}

// TestShutdownUnansweredProcess: a server process that does not answer
// shutdown is stopped: one that reads its input ends when it is closed,
// one that never reads it is killed.
func TestShutdownUnansweredProcess(t *testing.T) {
	// The process that reads its input gets all the time a loaded machine
	// may need to see the end of it, so that only the one that never reads
	// is killed.
	for _, tc := range []struct {
		name        string
		cmd         func(t *testing.T) *exec.Cmd
		exitTimeout time.Duration
		status      string
	}{
		{"ignores shutdown", func(t *testing.T) *exec.Cmd {
			return lsptest.FakeServerCommand(t, lsptest.FakeServer{Hang: []string{"shutdown"}})
		}, lsptest.Timeout / 2, "exit status 1"},
		{"never reads", func(t *testing.T) *exec.Cmd { return exec.Command("sleep", "60") }, 100 * time.Millisecond, "signal: killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := tc.cmd(t)
			proc, err := lspproxy.StartServer(cmd)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			cfg := testConfig()
			cfg.ShutdownTimeout = 100 * time.Millisecond
			cfg.ExitTimeout = tc.exitTimeout
			editorConn, proxyEditor := net.Pipe()
			editor := lsptest.NewEndpoint("editor", editorConn)
			defer editorConn.Close()
			done := make(chan error, 1)
			go func() { done <- lspproxy.New(cfg).ServeProcess(context.Background(), proxyEditor, proc) }()

			editor.Send(t, `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`)
			expect(t, editor.Recv(t), `{"jsonrpc":"2.0","id":1,"result":null}`)
			ctx, cancel := context.WithTimeout(context.Background(), lsptest.Timeout)
			defer cancel()
			err = proc.Wait(ctx)
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("server still running %v after the lapsed shutdown", lsptest.Timeout)
			}
			if err == nil || err.Error() != tc.status {
				t.Errorf("server ended with %v, want %s", err, tc.status)
			}
			editor.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Serve = %v, want nil", err)
				}
			case <-time.After(lsptest.Timeout):
				t.Fatal("proxy did not stop after exit")
			}
		})
	}
}
