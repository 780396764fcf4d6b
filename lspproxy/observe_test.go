package lspproxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

// recorder collects observations.
type recorder struct {
	mu        sync.Mutex
	sessions  []lspproxy.Session
	exchanges []lspproxy.Exchange
	documents []lspproxy.DocumentEvent
}

func (r *recorder) observer() lspproxy.Observer {
	return lspproxy.Observer{
		OnInitialize: func(s lspproxy.Session) { r.mu.Lock(); r.sessions = append(r.sessions, s); r.mu.Unlock() },
		OnExchange: func(e lspproxy.Exchange) {
			// The raw JSON is the proxy's until this returns.
			e.Params, e.Result, e.Error = bytes.Clone(e.Params), bytes.Clone(e.Result), bytes.Clone(e.Error)
			r.mu.Lock()
			r.exchanges = append(r.exchanges, e)
			r.mu.Unlock()
		},
		OnDocument: func(d lspproxy.DocumentEvent) { r.mu.Lock(); r.documents = append(r.documents, d); r.mu.Unlock() },
	}
}

func TestObserve(t *testing.T) {
	var rec recorder
	cfg := testConfig()
	cfg.Observer = rec.observer()
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{"positionEncoding":"utf-8"}`)
	change := `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"package a"}]}}`
	c.Editor.Send(t, change)
	c.Server.Recv(t)
	params := `{"textDocument":{"uri":"file:///a.go"},"position":{"line":0,"character":8}}`
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":2,"method":"textDocument/definition","params":`+params+`}`)
	c.Server.Recv(t)
	result := `[{"uri":"file:///b.go","range":{"start":{"line":1,"character":5},"end":{"line":1,"character":8}}}]`
	c.Server.Send(t, `{"jsonrpc":"2.0","id":2,"result":`+result+`}`)
	c.Editor.Recv(t)
	// Not observed: hover.
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":`+params+`}`)
	c.Server.Recv(t)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":3,"result":null}`)
	c.Editor.Recv(t)
	// An error answer is observed with its error.
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":4,"method":"textDocument/references","params":`+params+`}`)
	c.Server.Recv(t)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":4,"error":{"code":-32803,"message":"no package"}}`)
	c.Editor.Recv(t)
	shutdown(t, c) // drains the observer

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.sessions) != 1 || rec.sessions[0].Encoding != textpos.UTF8 || rec.sessions[0].RootURI != "file:///work/app" {
		t.Errorf("sessions = %+v", rec.sessions)
	}
	if len(rec.documents) != 1 || rec.documents[0].Method != "textDocument/didChange" || string(rec.documents[0].Params) != `{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"package a"}]}` {
		t.Errorf("documents = %+v", rec.documents)
	}
	if len(rec.exchanges) != 2 {
		t.Fatalf("got %d exchanges, want 2 (definition, references): %+v", len(rec.exchanges), rec.exchanges)
	}
	e := rec.exchanges[0]
	if e.Method != "textDocument/definition" || string(e.Params) != params || string(e.Result) != result || e.Error != nil || e.Encoding != textpos.UTF8 || e.Premature {
		t.Errorf("definition exchange = %+v", e)
	}
	e = rec.exchanges[1]
	if e.Method != "textDocument/references" || e.Result != nil || string(e.Error) != `{"code":-32803,"message":"no package"}` {
		t.Errorf("references exchange = %+v", e)
	}
}

// TestPremature follows typescript-language-server's loading sequence.
func TestPremature(t *testing.T) {
	var rec recorder
	cfg := testConfig()
	cfg.Observer = rec.observer()
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	id := 10
	definition := func() {
		t.Helper()
		id++
		c.Editor.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/definition","params":{}}`, id))
		c.Server.Recv(t)
		c.Server.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":[]}`, id))
		c.Editor.Recv(t)
	}
	fromServer := func(msgs ...string) {
		t.Helper()
		for _, m := range msgs {
			c.Server.Send(t, m)
			c.Editor.Recv(t)
		}
	}
	definition() // 11: not gated yet: a server that never gates is always ready
	fromServer(`{"jsonrpc":"2.0","method":"$/typescriptVersion","params":{"version":"5.9.2","source":"bundled"}}`)
	definition() // 12: gated, loading not yet reported
	fromServer(
		`{"jsonrpc":"2.0","id":1,"method":"window/workDoneProgress/create","params":{"token":"t1"}}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t1","value":{"kind":"begin","title":"Initializing JS/TS language features…"}}}`,
	)
	definition() // 13: loading
	// 14: sent while loading, answered after the end: still premature.
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":14,"method":"textDocument/definition","params":{}}`)
	c.Server.Recv(t)
	fromServer(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t1","value":{"kind":"end"}}}`)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":14,"result":[]}`)
	c.Editor.Recv(t)
	id = 14
	definition() // 15: ready
	fromServer(`{"jsonrpc":"2.0","id":2,"method":"window/workDoneProgress/create","params":{"token":"t2"}}`)
	definition() // 16: a second project loading
	shutdown(t, c)

	want := map[string]bool{"11": false, "12": true, "13": true, "14": true, "15": false, "16": true}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.exchanges) != len(want) {
		t.Fatalf("got %d exchanges, want %d", len(rec.exchanges), len(want))
	}
	for i, e := range rec.exchanges {
		n := fmt.Sprint(11 + i)
		if e.Premature != want[n] {
			t.Errorf("definition %s: premature = %v, want %v", n, e.Premature, want[n])
		}
	}
}

// TestPrematureStartGated: a server known to answer early is gated before
// it says anything: typescript-language-server's $/typescriptVersion can
// arrive after the editor's first requests were forwarded.
func TestPrematureStartGated(t *testing.T) {
	var rec recorder
	cfg := testConfig()
	cfg.Observer = rec.observer()
	cfg.StartGated = true
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":2,"method":"textDocument/definition","params":{}}`)
	c.Server.Recv(t)
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"$/typescriptVersion","params":{"version":"5.9.3"}}`,
		`{"jsonrpc":"2.0","id":0,"method":"window/workDoneProgress/create","params":{"token":"t"}}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","value":{"kind":"begin","title":"Initializing JS/TS language features…"}}}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","value":{"kind":"end"}}}`,
		// The syntax server's answer, sent before the load, arrives after it.
		`{"jsonrpc":"2.0","id":2,"result":[{"uri":"file:///a.ts","range":{"start":{"line":0,"character":9},"end":{"line":0,"character":14}}}]}`,
	} {
		c.Server.Send(t, m)
		c.Editor.Recv(t)
	}
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":3,"method":"textDocument/definition","params":{}}`)
	c.Server.Recv(t)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":3,"result":[]}`)
	c.Editor.Recv(t)
	shutdown(t, c)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var got []bool
	for _, e := range rec.exchanges {
		got = append(got, e.Premature)
	}
	if fmt.Sprint(got) != "[true false]" {
		t.Errorf("premature = %v, want [true false]", got)
	}
}

func TestPrematureWithoutProgress(t *testing.T) {
	var rec recorder
	cfg := testConfig()
	cfg.Observer = rec.observer()
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	for i, m := range []string{
		`{"jsonrpc":"2.0","method":"$/typescriptVersion","params":{"version":"5.9.2"}}`,
		`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///a.ts","diagnostics":[]}}`,
	} {
		c.Editor.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/definition","params":{}}`, 20+i))
		c.Server.Recv(t)
		c.Server.Send(t, json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":null}`, 20+i)))
		c.Editor.Recv(t)
		c.Server.Send(t, m)
		c.Editor.Recv(t)
	}
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":30,"method":"textDocument/definition","params":{}}`)
	c.Server.Recv(t)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":30,"result":null}`)
	c.Editor.Recv(t)
	shutdown(t, c)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var got []bool
	for _, e := range rec.exchanges {
		got = append(got, e.Premature)
	}
	if fmt.Sprint(got) != "[false true false]" {
		t.Errorf("premature = %v, want [false true false]", got)
	}
}

// TestObserveBuffersInFlight: the copies the proxy makes of observed
// requests and answers come from buffers it reuses once an exchange was
// delivered or dropped. Many requests in flight at once, answered in
// reverse order, with a queue small enough to drop some: every exchange
// the observer gets pairs its own params with its own answer, and stays
// so for the whole call while others pass; delivered and dropped add up.
func TestObserveBuffersInFlight(t *testing.T) {
	const rounds, inFlight = 6, 80
	var mu sync.Mutex
	delivered, bad := 0, 0
	cfg := testConfig()
	cfg.QueueSize = 64
	cfg.Observer = lspproxy.Observer{OnExchange: func(e lspproxy.Exchange) {
		var p struct {
			Position struct{ Line int } `json:"position"`
		}
		check := func() bool {
			if err := json.Unmarshal(e.Params, &p); err != nil {
				return false
			}
			return string(e.Result) == fmt.Sprintf(`[{"uri":"file:///b.go","range":{"start":{"line":%d,"character":0},"end":{"line":%[1]d,"character":1}}}]`, p.Position.Line)
		}
		ok := check()
		time.Sleep(200 * time.Microsecond) // others pass meanwhile
		ok = ok && check()
		mu.Lock()
		delivered++
		if !ok {
			bad++
		}
		mu.Unlock()
	}}
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	for round := range rounds {
		for i := range inFlight {
			line := round*inFlight + i
			c.Editor.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///a.go"},"position":{"line":%d,"character":%d}}}`, 1000+line, line, line%7))
			c.Server.Recv(t)
		}
		for i := inFlight - 1; i >= 0; i-- {
			line := round*inFlight + i
			c.Server.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":[{"uri":"file:///b.go","range":{"start":{"line":%d,"character":0},"end":{"line":%[2]d,"character":1}}}]}`, 1000+line, line))
		}
		for range inFlight {
			c.Editor.Recv(t)
		}
		time.Sleep(30 * time.Millisecond) // the observer delivers part
	}
	shutdown(t, c)
	st := c.Proxy.Stats()
	mu.Lock()
	defer mu.Unlock()
	if bad > 0 {
		t.Errorf("%d of %d delivered exchanges did not pair their own params and answer", bad, delivered)
	}
	if total := int64(delivered) + st.Dropped; total != rounds*inFlight || delivered == 0 {
		t.Errorf("delivered %d, dropped %d: want %d in all", delivered, st.Dropped, rounds*inFlight)
	}
	t.Logf("delivered %d, dropped %d", delivered, st.Dropped)
}

// TestObserveAnswerRead checks what the observer gets of answers routed
// without reading their result (the id read from the end, after the
// result, as gopls writes it), and that an observed answer found malformed
// only on the observer's side is forwarded as it came but not observed.
func TestObserveAnswerRead(t *testing.T) {
	var rec recorder
	var logs logBuffer
	cfg := testConfig()
	cfg.Observer = rec.observer()
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	params := `{"textDocument":{"uri":"file:///a.go"},"position":{"line":0,"character":8}}`
	ask := func(id string) {
		t.Helper()
		c.Editor.Send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"textDocument/definition","params":`+params+`}`)
		c.Server.Recv(t)
	}
	// The result holds what a backward read must not take for the id.
	result := `[{"uri":"file:///b.go","note":"\"id\":9}","range":{"start":{"line":1,"character":5},"end":{"line":1,"character":8}}}]`
	ask("2")
	c.Server.Send(t, `{"jsonrpc":"2.0","result":`+result+` , "id" : 2 }`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","result":`+result+`,"id":2}`)
	ask(`"a\"b"`)
	c.Server.Send(t, `{"jsonrpc":"2.0","result":null,"id":"a\"b"}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","result":null,"id":"a\"b"}`)
	// Unbalanced: the editor gets it as the server sent it.
	ask("3")
	broken := `{"jsonrpc":"2.0","result":[{"uri":"file:///b.go"},"id":3}`
	c.Server.SendRaw(t, fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(broken), broken))
	if got, err := c.Editor.RecvTimeout(lsptest.Timeout); err != nil || string(got) != broken {
		t.Fatalf("editor got %q, %v; want the answer as sent: %s", got, err, broken)
	}
	shutdown(t, c) // drains the observer

	if st := c.Proxy.Stats(); st.Malformed != 1 {
		t.Errorf("malformed = %d, want 1", st.Malformed)
	}
	if !strings.Contains(logs.String(), "not observing a malformed answer") {
		t.Errorf("log lacks the malformed answer line:\n%s", logs.String())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.exchanges) != 2 {
		t.Fatalf("got %d exchanges, want 2: %+v", len(rec.exchanges), rec.exchanges)
	}
	if e := rec.exchanges[0]; string(e.Params) != params || string(e.Result) != result || e.Error != nil {
		t.Errorf("first exchange: params %s result %s error %s; want result %s", e.Params, e.Result, e.Error, result)
	}
	if e := rec.exchanges[1]; string(e.Result) != "null" || e.Error != nil {
		t.Errorf("second exchange: result %s error %s; want null", e.Result, e.Error)
	}
}
