package lspproxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
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

// slowLenses is a LensesFunc whose calls each wait for the test to hand
// them their lenses.
type slowLenses chan []json.RawMessage

func (s slowLenses) lenses(ctx context.Context, uri string) ([]json.RawMessage, error) {
	select {
	case l := <-s:
		return l, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// initializeRefresh runs initialize for an editor that does or does not
// support workspace/codeLens/refresh, with a server that has a
// codeLensProvider, and opens file:///work/app/a.go.
func initializeRefresh(t *testing.T, c *lsptest.Connection, refresh bool) {
	t.Helper()
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":1,"rootUri":"file:///work/app","capabilities":{"workspace":{"codeLens":{"refreshSupport":%v}}}}}`, refresh)
	c.Editor.Send(t, req)
	expect(t, c.Server.Recv(t), req)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"codeLensProvider":{}}}}`)
	c.Editor.Recv(t)
	for _, n := range []string{
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///work/app/a.go","languageId":"go","version":1,"text":"package a\n"}}}`,
	} {
		c.Editor.Send(t, n)
		expect(t, c.Server.Recv(t), n)
	}
}

// lensRound sends textDocument/codeLens, lets the server answer with
// serverLens and returns what the editor got.
func lensRound(t *testing.T, c *lsptest.Connection, id, serverLens string) json.RawMessage {
	t.Helper()
	c.Editor.Send(t, lensReq(id))
	expect(t, c.Server.Recv(t), lensReq(id))
	c.Server.Send(t, `{"jsonrpc":"2.0","id":`+id+`,"result":[`+serverLens+`]}`)
	return c.Editor.Recv(t)
}

// TestLensesRefreshWhenLate: lenses that miss their budget are computed
// anyway; once ready they are cached and the editor, which advertised
// refreshSupport, is sent workspace/codeLens/refresh in the proxy's id
// space (its answer goes nowhere). The next codeLens answer that misses
// its budget carries the cached lenses while the document is unchanged;
// after an edit the cache is not used. Lenses equal to those already sent
// bring no refresh.
func TestLensesRefreshWhenLate(t *testing.T) {
	slow := make(slowLenses)
	cfg := lensConfig(slow.lenses)
	cfg.LensBudget = 50 * time.Millisecond
	c := lsptest.Proxied(cfg).Connect(t)
	initializeRefresh(t, c, true)
	serverLens := `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":7}},"command":{"title":"run test","command":"gopls.test"}}`
	alone := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":[` + serverLens + `]}` }

	// Late: the server's answer goes alone, then a refresh follows.
	expect(t, lensRound(t, c, `1`, serverLens), alone(`1`))
	slow <- []json.RawMessage{json.RawMessage(ourLens)}
	refresh := c.Editor.Recv(t)
	id, _ := field(t, refresh, "id").(string)
	if field(t, refresh, "method") != "workspace/codeLens/refresh" || !strings.HasPrefix(id, "lspgraph-") {
		t.Fatalf("after late lenses the editor got %s; want workspace/codeLens/refresh with an lspgraph- id", refresh)
	}
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":"`+id+`","result":null}`)

	// The next answer, late again, carries the cached lenses; the editor's
	// answer to the refresh never reached the server (its next message is
	// this request).
	expect(t, lensRound(t, c, `2`, serverLens), `{"jsonrpc":"2.0","id":2,"result":[`+serverLens+`,`+taggedLens+`]}`)
	slow <- []json.RawMessage{json.RawMessage(ourLens)} // the same: no refresh

	// After an edit the cached lenses describe another text: not used.
	change := `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///work/app/a.go","version":2},"contentChanges":[{"text":"package a\n\nfunc F() {}\n"}]}}`
	c.Editor.Send(t, change)
	expect(t, c.Server.Recv(t), change)
	expect(t, lensRound(t, c, `3`, serverLens), alone(`3`))
	moved := strings.Replace(ourLens, `"line":3`, `"line":2`, 2)
	slow <- []json.RawMessage{json.RawMessage(moved)}
	refresh = c.Editor.Recv(t)
	if field(t, refresh, "method") != "workspace/codeLens/refresh" {
		t.Fatalf("after new late lenses the editor got %s; want workspace/codeLens/refresh", refresh)
	}
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":`+string(mustJSON(t, field(t, refresh, "id")))+`,"result":null}`)
	// In time: merged at once.
	c.Editor.Send(t, lensReq(`4`))
	expect(t, c.Server.Recv(t), lensReq(`4`))
	slow <- []json.RawMessage{json.RawMessage(moved)}
	c.Server.Send(t, alone(`4`))
	got := c.Editor.Recv(t)
	if n := len(field(t, got, "result").([]any)); n != 2 {
		t.Fatalf("codeLens answer with lenses in time: %s; want the server's and ours", got)
	}
	shutdown(t, c)
	if refreshes := refreshesSent(t, c); refreshes != 2 {
		t.Errorf("the editor was sent %d refreshes; want 2 (none for lenses equal to those it had)", refreshes)
	}
}

// TestLensesLateWithoutRefreshSupport: an editor that cannot refresh gets
// no workspace/codeLens/refresh; late lenses are still cached, and its
// next answer that misses the budget carries them.
func TestLensesLateWithoutRefreshSupport(t *testing.T) {
	slow := make(slowLenses)
	cfg := lensConfig(slow.lenses)
	cfg.LensBudget = 50 * time.Millisecond
	c := lsptest.Proxied(cfg).Connect(t)
	initializeRefresh(t, c, false)
	serverLens := `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":7}}}`
	expect(t, lensRound(t, c, `1`, serverLens), `{"jsonrpc":"2.0","id":1,"result":[`+serverLens+`]}`)
	slow <- []json.RawMessage{json.RawMessage(ourLens)}
	// The cache is written before the computation ends; wait for it
	// through answers (each late, the last with the cached lens).
	deadline := time.Now().Add(lsptest.Timeout)
	for id := 2; ; id++ {
		got := lensRound(t, c, fmt.Sprint(id), serverLens)
		if len(field(t, got, "result").([]any)) == 2 {
			expect(t, got, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":[%s,%s]}`, id, serverLens, taggedLens))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("late lenses were not cached: %s", got)
		}
	}
	shutdown(t, c)
	if n := refreshesSent(t, c); n != 0 {
		t.Errorf("an editor without refreshSupport was sent %d workspace/codeLens/refresh", n)
	}
}

// refreshesSent counts the workspace/codeLens/refresh requests the editor
// received.
func refreshesSent(t *testing.T, c *lsptest.Connection) int {
	t.Helper()
	n := 0
	for _, m := range c.Editor.Received() {
		if field(t, m, "method") == "workspace/codeLens/refresh" {
			n++
		}
	}
	return n
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLensesShareRun: codeLens requests for the same text of a document
// while its lenses are being computed share that computation, and its
// late lenses bring one refresh, not one per answer.
func TestLensesShareRun(t *testing.T) {
	slow := make(slowLenses)
	var calls atomic.Int32
	cfg := lensConfig(func(ctx context.Context, uri string) ([]json.RawMessage, error) {
		calls.Add(1)
		return slow.lenses(ctx, uri)
	})
	cfg.LensBudget = 50 * time.Millisecond
	c := lsptest.Proxied(cfg).Connect(t)
	initializeRefresh(t, c, true)
	serverLens := `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":7}}}`
	for _, id := range []string{`1`, `2`, `3`} {
		expect(t, lensRound(t, c, id, serverLens), `{"jsonrpc":"2.0","id":`+id+`,"result":[`+serverLens+`]}`)
	}
	slow <- []json.RawMessage{json.RawMessage(ourLens)}
	if m := c.Editor.Recv(t); field(t, m, "method") != "workspace/codeLens/refresh" {
		t.Fatalf("after late lenses the editor got %s; want workspace/codeLens/refresh", m)
	}
	// The cached lenses, in time or not, with the next answer.
	expect(t, lensRound(t, c, `4`, serverLens), `{"jsonrpc":"2.0","id":4,"result":[`+serverLens+`,`+taggedLens+`]}`)
	if n := calls.Load(); n > 2 {
		t.Errorf("the lenses were computed %d times for 4 requests on one text; want the first 3 to share one computation", n)
	}
	go func() { slow <- []json.RawMessage{json.RawMessage(ourLens)} }() // a 4th request's computation, if any
	shutdown(t, c)
	if refreshes := refreshesSent(t, c); refreshes != 1 {
		t.Errorf("the editor was sent %d refreshes for one late computation shared by 3 answers; want 1", refreshes)
	}
}

// TestLensesCachedAnswerAtOnce: with lenses cached for the document's
// text the answer does not wait for new ones (the budget here is an
// hour); new ones that differ come with a refresh.
func TestLensesCachedAnswerAtOnce(t *testing.T) {
	slow := make(slowLenses)
	cfg := lensConfig(slow.lenses)
	cfg.LensBudget = time.Hour
	c := lsptest.Proxied(cfg).Connect(t)
	initializeRefresh(t, c, true)
	serverLens := `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":7}}}`
	c.Editor.Send(t, lensReq(`1`))
	expect(t, c.Server.Recv(t), lensReq(`1`))
	c.Server.Send(t, `{"jsonrpc":"2.0","id":1,"result":[`+serverLens+`]}`)
	slow <- []json.RawMessage{json.RawMessage(ourLens)} // the answer waits for these
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":1,"result":[`+serverLens+`,`+taggedLens+`]}`)

	expect(t, lensRound(t, c, `2`, serverLens), `{"jsonrpc":"2.0","id":2,"result":[`+serverLens+`,`+taggedLens+`]}`)
	moved := strings.Replace(ourLens, `"line":3`, `"line":2`, 2)
	slow <- []json.RawMessage{json.RawMessage(moved)}
	if m := c.Editor.Recv(t); field(t, m, "method") != "workspace/codeLens/refresh" {
		t.Fatalf("after new lenses the editor got %s; want workspace/codeLens/refresh", m)
	}
	go func() { slow <- []json.RawMessage{json.RawMessage(moved)} }()
	got := lensRound(t, c, `3`, serverLens)
	if l := field(t, got, "result").([]any); len(l) != 2 || !strings.Contains(string(got), `"line":2`) {
		t.Fatalf("after the refresh: %s; want the new lens", got)
	}
	shutdown(t, c)
}
