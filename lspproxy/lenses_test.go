package lspproxy_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

const ourLens = `{"range":{"start":{"line":3,"character":0},"end":{"line":3,"character":4}},"command":{"title":"1 caller · 0 tests · risk LOW","command":"lspgraph.impact","arguments":["Save"]}}`

const taggedLens = `{"range":{"start":{"line":3,"character":0},"end":{"line":3,"character":4}},"command":{"title":"1 caller · 0 tests · risk LOW","command":"lspgraph.impact","arguments":["Save"]},"data":{"lspgraph":true}}`

func lensConfig(fn lspproxy.LensesFunc) lspproxy.Config {
	cfg := testConfig()
	cfg.Lenses = fn
	return cfg
}

func fixedLenses(ctx context.Context, uri string) ([]json.RawMessage, error) {
	if uri != "file:///work/app/a.go" {
		return nil, nil
	}
	return []json.RawMessage{json.RawMessage(ourLens)}, nil
}

func lensReq(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"textDocument/codeLens","params":{"textDocument":{"uri":"file:///work/app/a.go"}}}`
}

func TestLensesMergedWithServer(t *testing.T) {
	c := lsptest.Proxied(lensConfig(fixedLenses)).Connect(t)
	got := initialize(t, c, `{"codeLensProvider":{"resolveProvider":true}}`)
	if r := field(t, got, "result", "capabilities", "codeLensProvider", "resolveProvider"); r != true {
		t.Fatalf("server's codeLensProvider changed: %s", got)
	}
	serverLens := `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":7}},"command":{"title":"run test","command":"gopls.test"},"data":{"k":1}}`
	for _, id := range []string{`11`, `"l2"`} {
		c.Editor.Send(t, lensReq(id))
		expect(t, c.Server.Recv(t), lensReq(id))
		c.Server.Send(t, `{"jsonrpc":"2.0","id":`+id+`,"result":[`+serverLens+`]}`)
		expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":`+id+`,"result":[`+serverLens+`,`+taggedLens+`]}`)
	}
	// A null result becomes ours alone.
	c.Editor.Send(t, lensReq(`12`))
	c.Server.Recv(t)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":12,"result":null}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":12,"result":[`+taggedLens+`]}`)
	// An error passes untouched.
	c.Editor.Send(t, lensReq(`13`))
	c.Server.Recv(t)
	errResp := `{"jsonrpc":"2.0","id":13,"error":{"code":-32603,"message":"no"}}`
	c.Server.Send(t, errResp)
	expect(t, c.Editor.Recv(t), errResp)

	// Resolve: ours is answered by the proxy unchanged, the server's goes
	// to the server.
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":14,"method":"codeLens/resolve","params":`+taggedLens+`}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":14,"result":`+taggedLens+`}`)
	res := `{"jsonrpc":"2.0","id":15,"method":"codeLens/resolve","params":` + serverLens + `}`
	c.Editor.Send(t, res)
	expect(t, c.Server.Recv(t), res)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":15,"result":`+serverLens+`}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":15,"result":`+serverLens+`}`)
	shutdown(t, c)
}

func TestLensesWithoutServerProvider(t *testing.T) {
	c := lsptest.Proxied(lensConfig(fixedLenses)).Connect(t)
	got := initialize(t, c, `{"hoverProvider":true}`)
	if r := field(t, got, "result", "capabilities", "codeLensProvider", "resolveProvider"); r != false {
		t.Fatalf("codeLensProvider not advertised: %s", got)
	}
	c.Editor.Send(t, lensReq(`21`))
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":21,"result":[`+taggedLens+`]}`)
	// The server never saw it: its next message is this one.
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"textDocument/didSave","params":{"textDocument":{"uri":"file:///a.go"}}}`)
	if m := field(t, c.Server.Recv(t), "method"); m != "textDocument/didSave" {
		t.Fatalf("server received %v, want didSave", m)
	}
	shutdown(t, c)
}

func TestLensesSwitchedOff(t *testing.T) {
	c := lsptest.Proxied(lensConfig(fixedLenses)).Connect(t)
	req := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":1,"rootUri":"file:///work/app","capabilities":{},"initializationOptions":{"lspgraph.lenses":false}}}`
	c.Editor.Send(t, req)
	expect(t, c.Server.Recv(t), req)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}`)
	if got := c.Editor.Recv(t); field(t, got, "result", "capabilities", "codeLensProvider") != nil {
		t.Fatalf("codeLensProvider advertised with lenses off: %s", got)
	}
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	c.Server.Recv(t)
	c.Editor.Send(t, lensReq(`2`))
	expect(t, c.Server.Recv(t), lensReq(`2`))
	c.Server.Send(t, `{"jsonrpc":"2.0","id":2,"result":[]}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":2,"result":[]}`)
	shutdown(t, c)
}

func TestLensesBlockedKeepServerAnswer(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	cfg := lensConfig(func(ctx context.Context, uri string) ([]json.RawMessage, error) {
		<-release // ignores ctx on purpose
		return []json.RawMessage{json.RawMessage(ourLens)}, nil
	})
	cfg.LensBudget = 100 * time.Millisecond
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{"codeLensProvider":{}}`)
	c.Editor.Send(t, lensReq(`31`))
	c.Server.Recv(t)
	resp := `{"jsonrpc":"2.0","id":31,"result":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}]}`
	start := time.Now()
	c.Server.Send(t, resp)
	expect(t, c.Editor.Recv(t), resp)
	if d := time.Since(start); d > time.Second {
		t.Errorf("server's answer took %v, budget 100ms", d)
	}
	// Other traffic is not held up meanwhile.
	c.Editor.Send(t, lensReq(`32`))
	c.Server.Recv(t)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":32,"result":[]}`)
	note := `{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"x"}}`
	c.Server.Send(t, note)
	expect(t, c.Editor.Recv(t), note)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":32,"result":[]}`)
	shutdown(t, c)
}
