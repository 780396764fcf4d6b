package lspproxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

func TestStatusCommand(t *testing.T) {
	cfg := testConfig()
	cfg.Status = func(ctx context.Context) (any, error) {
		return nil, errors.New("store /tmp/x is in use by pid 7")
	}
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":5,"method":"workspace/executeCommand","params":{"command":"lspgraph.status","arguments":[]}}`)
	got := c.Editor.Recv(t)
	if field(t, got, "id").(json.Number) != "5" {
		t.Fatalf("status answer has the wrong id: %s", got)
	}
	if s := field(t, got, "result", "proxy", "server"); s != "fake" {
		t.Errorf("proxy.server = %v in %s", s, got)
	}
	if s := field(t, got, "result", "proxy", "rootUri"); s != "file:///work/app" {
		t.Errorf("proxy.rootUri = %v", s)
	}
	if n := field(t, got, "result", "proxy", "stats", "fromEditor"); n != json.Number("3") {
		t.Errorf("proxy.stats.fromEditor = %v, want 3 (initialize, initialized, executeCommand)", n)
	}
	if s := field(t, got, "result", "storeError"); s != "store /tmp/x is in use by pid 7" {
		t.Errorf("storeError = %v", s)
	}
	// The server never saw the command: its next message is this one.
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"textDocument/didSave","params":{"textDocument":{"uri":"file:///a.go"}}}`)
	if m := field(t, c.Server.Recv(t), "method"); m != "textDocument/didSave" {
		t.Fatalf("server received %v, want didSave", m)
	}
	// An unknown lspgraph command is an error from the proxy too.
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":6,"method":"workspace/executeCommand","params":{"command":"lspgraph.nope"}}`)
	if code := field(t, c.Editor.Recv(t), "error", "code"); code != json.Number("-32602") {
		t.Errorf("unknown command error code = %v", code)
	}
	shutdown(t, c)
}

func TestRequesterAndCommandCancel(t *testing.T) {
	cfg := testConfig()
	cfg.Commands["lspgraph.symbols"] = func(ctx context.Context, args []json.RawMessage, srv lspproxy.Requester) (any, error) {
		return srv.Request(ctx, "workspace/symbol", map[string]string{"query": "Store"})
	}
	cfg.Commands["lspgraph.wait"] = func(ctx context.Context, args []json.RawMessage, srv lspproxy.Requester) (any, error) {
		return srv.Request(ctx, "workspace/symbol", map[string]string{"query": "slow"})
	}
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)

	c.Editor.Send(t, `{"jsonrpc":"2.0","id":7,"method":"workspace/executeCommand","params":{"command":"lspgraph.symbols"}}`)
	req := c.Server.Recv(t)
	if field(t, req, "method") != "workspace/symbol" || field(t, req, "id") != "lspgraph-1" {
		t.Fatalf("server got %s, want workspace/symbol with id \"lspgraph-1\"", req)
	}
	c.Server.Send(t, `{"jsonrpc":"2.0","id":"lspgraph-1","result":[{"name":"Store","kind":11}]}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":7,"result":[{"name":"Store","kind":11}]}`)

	// The editor cancels a running command: the command's own request is
	// cancelled at the server, the editor gets RequestCancelled, and the
	// server's late answer goes nowhere.
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":8,"method":"workspace/executeCommand","params":{"command":"lspgraph.wait"}}`)
	expect(t, c.Server.Recv(t), `{"jsonrpc":"2.0","id":"lspgraph-2","method":"workspace/symbol","params":{"query":"slow"}}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":8}}`)
	expect(t, c.Server.Recv(t), `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"lspgraph-2"}}`)
	got := c.Editor.Recv(t)
	if code := field(t, got, "error", "code"); code != json.Number("-32800") {
		t.Fatalf("cancelled command answered %s, want code -32800", got)
	}
	c.Server.Send(t, `{"jsonrpc":"2.0","id":"lspgraph-2","result":[]}`)

	// Editor ids in the proxy's namespace are refused, never forwarded.
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":"lspgraph-1","method":"textDocument/hover","params":{}}`)
	if code := field(t, c.Editor.Recv(t), "error", "code"); code != json.Number("-32600") {
		t.Errorf("reserved id: error code %v, want -32600", code)
	}
	shutdown(t, c)
	if st := c.Proxy.Stats(); st.PendingProxy != 0 || st.PendingCommands != 0 || st.PendingEditor != 0 {
		t.Errorf("pending after shutdown: %+v", st)
	}
}
