package lspproxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

// logBuffer is a goroutine-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// processConnection runs the proxy in front of a real fake-server process.
type processConnection struct {
	editor *lsptest.Endpoint
	proc   *lspproxy.ServerProcess
	proxy  *lspproxy.Proxy
	done   chan error
}

func startProcess(t *testing.T, cfg lspproxy.Config, f lsptest.FakeServer) *processConnection {
	t.Helper()
	proc, err := lspproxy.StartServer(lsptest.FakeServerCommand(t, f))
	if err != nil {
		t.Fatal(err)
	}
	editor, proxyEditor := net.Pipe()
	pc := &processConnection{editor: lsptest.NewEndpoint("editor", editor), proc: proc, proxy: lspproxy.New(cfg), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { pc.done <- pc.proxy.ServeProcess(ctx, proxyEditor, proc) }()
	t.Cleanup(func() {
		cancel()
		editor.Close()
		select {
		case <-pc.done:
		case <-time.After(lsptest.Timeout):
			t.Errorf("proxy did not stop")
		}
	})
	return pc
}

func (pc *processConnection) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-pc.done:
		pc.done <- err
		return err
	case <-time.After(lsptest.Timeout):
		t.Fatal("proxy did not stop")
		return nil
	}
}

func TestProcessShutdown(t *testing.T) {
	pc := startProcess(t, testConfig(), lsptest.FakeServer{})
	pc.editor.Send(t, initializeRequest)
	if cmds := commands(t, pc.editor.Recv(t)); len(cmds) != 2 {
		t.Fatalf("commands = %q", cmds)
	}
	pc.editor.Send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	pc.editor.Send(t, `{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	expect(t, pc.editor.Recv(t), `{"jsonrpc":"2.0","id":2,"result":null}`)
	pc.editor.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	if err := pc.wait(t); err != nil {
		t.Fatalf("orderly exit: %v", err)
	}
	// Exit without shutdown: the server exits 1 and so does the proxy.
	pc = startProcess(t, testConfig(), lsptest.FakeServer{})
	pc.editor.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	if err := pc.wait(t); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("exit without shutdown: err = %v, want exit status 1", err)
	}
}

// TestServerDies: pending requests are answered with errors, the editor is
// told, and the proxy fails after the editor's exit.
func TestServerDies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		kill   bool
		orphan bool
		status string
	}{
		{"crash", false, false, "exit status 3"},
		{"killed", true, false, "signal: killed"},
		{"orphaned output", false, true, "exit status 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc := startProcess(t, testConfig(), lsptest.FakeServer{
				Hang:    []string{"textDocument/definition"},
				CrashOn: "textDocument/hover", CrashCode: 3,
				OrphanOutput: tc.orphan,
			})
			pc.editor.Send(t, initializeRequest)
			pc.editor.Recv(t)
			pc.editor.Send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
			pc.editor.Send(t, `{"jsonrpc":"2.0","id":2,"method":"textDocument/definition","params":{}}`)
			pc.editor.Send(t, `{"jsonrpc":"2.0","id":"three","method":"textDocument/definition","params":{}}`)
			if tc.kill {
				// The fake server reads in order; a hover after the
				// definitions tells us both reached it. Use a request it
				// answers (echo) as the marker.
				pc.editor.Send(t, `{"jsonrpc":"2.0","id":4,"method":"textDocument/foldingRange","params":{"marker":1}}`)
				expect(t, pc.editor.Recv(t), `{"jsonrpc":"2.0","id":4,"result":{"marker":1}}`)
				if err := syscall.Kill(pc.proc.Pid(), syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			} else {
				pc.editor.Send(t, `{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{}}`)
			}
			answered := map[string]bool{}
			var message string
			for len(answered) < 2 || message == "" || (!tc.kill && len(answered) < 3) {
				m := pc.editor.Recv(t)
				switch {
				case field(t, m, "method") == "window/showMessage":
					message = fmt.Sprint(field(t, m, "params", "message"))
					if field(t, m, "params", "type") != json.Number("1") {
						t.Errorf("showMessage type = %v, want 1 (Error)", field(t, m, "params", "type"))
					}
				case field(t, m, "error") != nil:
					answered[fmt.Sprint(field(t, m, "id"))] = true
					if msg := fmt.Sprint(field(t, m, "error", "message")); !strings.Contains(msg, tc.status) {
						t.Errorf("error %q does not name the exit status %q", msg, tc.status)
					}
				default:
					t.Fatalf("unexpected %s", m)
				}
			}
			if !answered["2"] || !answered["three"] {
				t.Errorf("answered %v, want 2 and three", answered)
			}
			if !strings.Contains(message, "fake (pid ") || !strings.Contains(message, tc.status) {
				t.Errorf("showMessage %q should name the server, its pid and %q", message, tc.status)
			}
			// Requests after the death are answered at once; shutdown
			// succeeds so the editor can leave; exit ends the proxy with
			// an error.
			pc.editor.Send(t, `{"jsonrpc":"2.0","id":5,"method":"textDocument/definition","params":{}}`)
			if field(t, pc.editor.Recv(t), "error", "code") != json.Number("-32803") {
				t.Error("request after the server died was not refused")
			}
			pc.editor.Send(t, `{"jsonrpc":"2.0","id":6,"method":"shutdown"}`)
			expect(t, pc.editor.Recv(t), `{"jsonrpc":"2.0","id":6,"result":null}`)
			pc.editor.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
			err := pc.wait(t)
			if !errors.Is(err, lspproxy.ErrServerExited) || !strings.Contains(err.Error(), tc.status) {
				t.Fatalf("Serve = %v, want ErrServerExited with %q", err, tc.status)
			}
		})
	}
}

// TestServerDiesEditorGone: with the server dead, the editor closing its
// end ends the proxy at once.
func TestServerDiesEditorGone(t *testing.T) {
	pc := startProcess(t, testConfig(), lsptest.FakeServer{CrashOn: "initialize", CrashCode: 2})
	pc.editor.Send(t, initializeRequest)
	if field(t, pc.editor.Recv(t), "error") == nil {
		t.Fatal("initialize should fail")
	}
	pc.editor.Recv(t) // showMessage
	pc.editor.Close()
	if err := pc.wait(t); !errors.Is(err, lspproxy.ErrServerExited) {
		t.Fatalf("Serve = %v, want ErrServerExited", err)
	}
}

// TestServerClosesConnection: a server connection (not a process) that
// ends fails every pending request, whatever its id, and the editor is
// told.
func TestServerClosesConnection(t *testing.T) {
	c := lsptest.Proxied(testConfig()).Connect(t)
	initialize(t, c, `{}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":2,"method":"textDocument/definition","params":{}}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":"three","method":"textDocument/references","params":{}}`)
	c.Server.Recv(t)
	c.Server.Recv(t)
	c.Server.Close()
	answered := map[string]bool{}
	message := ""
	for len(answered) < 2 || message == "" {
		m := c.Editor.Recv(t)
		switch {
		case field(t, m, "method") == "window/showMessage":
			message = fmt.Sprint(field(t, m, "params", "message"))
		case field(t, m, "error", "code") == json.Number("-32803"):
			answered[fmt.Sprint(field(t, m, "id"))] = true
		default:
			t.Fatalf("unexpected %s", m)
		}
	}
	if !answered["2"] || !answered["three"] {
		t.Errorf("answered %v, want 2 and three", answered)
	}
	if !strings.Contains(message, "closed its connection") {
		t.Errorf("showMessage %q does not say the server closed its connection", message)
	}
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	if err := c.Wait(t, lsptest.Timeout); !errors.Is(err, lspproxy.ErrServerExited) {
		t.Fatalf("Serve = %v, want ErrServerExited", err)
	}
}

func TestCancelUnansweredRequest(t *testing.T) {
	cfg := testConfig()
	cfg.CancelGrace = 50 * time.Millisecond
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":5,"method":"textDocument/references","params":{}}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":5}}`)
	c.Server.Recv(t)
	expect(t, c.Server.Recv(t), `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":5}}`)
	// The server never answers: the proxy does, once.
	got := c.Editor.Recv(t)
	if field(t, got, "id") != json.Number("5") || field(t, got, "error", "code") != json.Number("-32800") {
		t.Fatalf("got %s, want RequestCancelled for id 5", got)
	}
	// A late answer is dropped: the editor's next message is the next
	// request's answer.
	c.Server.Send(t, `{"jsonrpc":"2.0","id":5,"result":[]}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{}}`)
	c.Server.Recv(t)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":6,"result":null}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":6,"result":null}`)
	shutdown(t, c)
}

// TestSlowObserver: forwarding never waits for the observer; a document
// whose events were dropped is flagged on the next event delivered for it,
// and only then.
func TestSlowObserver(t *testing.T) {
	const n = 10000
	block := make(chan struct{})
	var (
		mu        sync.Mutex
		delivered []documentDelivery
	)
	cfg := testConfig()
	cfg.QueueSize = 16
	cfg.DrainTimeout = 10 * time.Second
	cfg.Observer.OnDocument = func(d lspproxy.DocumentEvent) {
		<-block
		var p struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int    `json:"version"`
			} `json:"textDocument"`
		}
		if err := json.Unmarshal(d.Params, &p); err != nil {
			t.Errorf("document event params %s: %v", d.Params, err)
		}
		mu.Lock()
		delivered = append(delivered, documentDelivery{p.TextDocument.URI, p.TextDocument.Version, d.Gap})
		mu.Unlock()
	}
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	change := func(uri string, version int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"text":"x"}]}}`, uri, version)
	}
	for i := 0; i < n; i++ {
		c.Editor.Send(t, change("file:///a.go", i))
	}
	for i := 0; i < n; i++ {
		m := c.Server.Recv(t)
		if v := field(t, m, "params", "textDocument", "version"); v != json.Number(fmt.Sprint(i)) {
			t.Fatalf("didChange %d arrived as version %v", i, v)
		}
	}
	st := c.Proxy.Stats()
	// One is held by the blocked observer, 16 wait in the queue.
	if st.Dropped < n-17 || st.Observed+st.Dropped+int64(st.Queued) != n+1 { // +1: the session
		t.Errorf("stats = %+v, want about %d dropped and every observation accounted for", st, n-17)
	}
	close(block)
	// Once the observer has worked through the queue: one more change
	// of a.go and one of another document, none of whose events was
	// dropped.
	for {
		st := c.Proxy.Stats()
		mu.Lock()
		done := st.Queued == 0 && int64(len(delivered)) == st.Observed-1 // -1: the session
		mu.Unlock()
		if done {
			break
		}
		time.Sleep(time.Millisecond)
	}
	c.Editor.Send(t, change("file:///a.go", n))
	c.Server.Recv(t)
	c.Editor.Send(t, change("file:///b.go", 0))
	c.Server.Recv(t)
	shutdown(t, c)

	mu.Lock()
	defer mu.Unlock()
	last := map[string]int{"file:///a.go": -1, "file:///b.go": -1}
	for _, d := range delivered {
		missed := d.version != last[d.uri]+1
		if d.gap != missed {
			t.Errorf("%s version %d delivered after version %d with Gap %v, want %v", d.uri, d.version, last[d.uri], d.gap, missed)
		}
		last[d.uri] = d.version
	}
	if last["file:///a.go"] != n || last["file:///b.go"] != 0 {
		t.Errorf("last versions delivered %v, want a.go %d and b.go 0 (queued after the flood)", last, n)
	}
}

// documentDelivery is one document event as the observer saw it.
type documentDelivery struct {
	uri     string
	version int
	gap     bool
}

func TestMalformedFromEditor(t *testing.T) {
	var logs logBuffer
	cfg := testConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	// A delimited frame with a broken body is skipped.
	broken := `{"id":1,"me`
	c.Editor.SendRaw(t, fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(broken), broken))
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"textDocument/didSave","params":{}}`)
	expect(t, c.Server.Recv(t), `{"jsonrpc":"2.0","method":"textDocument/didSave","params":{}}`)
	if st := c.Proxy.Stats(); st.Malformed != 1 {
		t.Errorf("malformed = %d, want 1", st.Malformed)
	}
	if !strings.Contains(logs.String(), "skipping a malformed message from the editor") {
		t.Errorf("log lacks the malformed message line:\n%s", logs.String())
	}
	// A header without a usable length ends the session with an error.
	c.Editor.SendRaw(t, "Content-Length: twelve\r\n\r\n{}")
	err := c.Wait(t, lsptest.Timeout)
	if err == nil || !strings.Contains(err.Error(), "Content-Length") {
		t.Fatalf("Serve = %v, want a malformed header error", err)
	}
	if !strings.Contains(logs.String(), "editor sent a malformed frame") {
		t.Errorf("log lacks the malformed frame line:\n%s", logs.String())
	}
	if c.Server.Ended(lsptest.Timeout) == nil {
		t.Error("server connection still open")
	}
}

// TestMalformedRequestForwarded: a request whose method and id are sound
// but whose params are not is forwarded as the editor sent it (it was
// forwarded before its params were read), counted, and the server's answer
// reaches the editor.
func TestMalformedRequestForwarded(t *testing.T) {
	var logs logBuffer
	cfg := testConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	broken := `{"jsonrpc":"2.0","id":5,"method":"textDocument/definition","params":{"a":"x}}`
	c.Editor.SendRaw(t, fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(broken), broken))
	if got, err := c.Server.RecvTimeout(lsptest.Timeout); err != nil || string(got) != broken {
		t.Fatalf("server got %q, %v; want the request as sent", got, err)
	}
	c.Server.Send(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32700,"message":"parse error"}}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":5,"error":{"code":-32700,"message":"parse error"}}`)
	if st := c.Proxy.Stats(); st.Malformed != 1 || st.PendingEditor != 0 {
		t.Errorf("malformed = %d, pending = %d; want 1, 0", st.Malformed, st.PendingEditor)
	}
	if !strings.Contains(logs.String(), "forwarded a malformed request from the editor") {
		t.Errorf("log lacks the malformed request line:\n%s", logs.String())
	}
	shutdown(t, c)
}

func TestMalformedFromServer(t *testing.T) {
	var logs logBuffer
	cfg := testConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":2,"method":"textDocument/definition","params":{}}`)
	c.Server.Recv(t)
	c.Server.SendRaw(t, "Content-Length: 3\r\n\r\n[1]")
	c.Server.Send(t, `{"jsonrpc":"2.0","id":2,"result":null}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":2,"result":null}`)
	if !strings.Contains(logs.String(), "skipping a malformed message from the language server") {
		t.Errorf("log lacks the malformed message line:\n%s", logs.String())
	}
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":3,"method":"textDocument/definition","params":{}}`)
	c.Server.Recv(t)
	c.Server.SendRaw(t, "Content-Type: x\r\n\r\n{}")
	if got := c.Editor.Recv(t); field(t, got, "id") != json.Number("3") || field(t, got, "error") == nil {
		t.Fatalf("pending request got %s, want an error", got)
	}
	if m := c.Editor.Recv(t); field(t, m, "method") != "window/showMessage" || !strings.Contains(fmt.Sprint(field(t, m, "params", "message")), "malformed frame") {
		t.Fatalf("got %s, want showMessage about the malformed frame", m)
	}
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	if err := c.Wait(t, lsptest.Timeout); !errors.Is(err, lspproxy.ErrServerExited) {
		t.Fatalf("Serve = %v, want ErrServerExited", err)
	}
}

// TestDuplicateAnswer: a server that answers a request twice, with an id
// that has a slot in the pending table and with one that has not: the
// editor gets the first answer only.
func TestDuplicateAnswer(t *testing.T) {
	c := lsptest.Proxied(testConfig()).Connect(t)
	initialize(t, c, `{}`)
	note := `{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"after"}}`
	for _, id := range []string{`5`, `"s"`, `5`} {
		req := `{"jsonrpc":"2.0","id":` + id + `,"method":"textDocument/hover","params":{}}`
		c.Editor.Send(t, req)
		expect(t, c.Server.Recv(t), req)
		answer := `{"jsonrpc":"2.0","result":null,"id":` + id + `}`
		c.Server.Send(t, answer)
		c.Server.Send(t, answer)
		c.Server.Send(t, note)
		// An answer that comes before its request is pending may reach
		// the editor after the note (see forwardCall): the order of the
		// two is not the point, that there are two is. A second answer
		// would be among the next round's messages, or shutdown's.
		got := []string{string(c.Editor.Recv(t)), string(c.Editor.Recv(t))}
		slices.Sort(got)
		want := []string{answer, note}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("editor got %q, want %q once each", got, want)
		}
	}
	shutdown(t, c)
}

// TestLostLastDocumentEvent: a document whose last event (its didClose)
// was dropped, and of which the editor sends nothing more, is reported
// with a MethodDocumentGap event once the observer has emptied the queue,
// after the editor's next message of any kind; a document none of whose
// events was dropped is not.
func TestLostLastDocumentEvent(t *testing.T) {
	block := make(chan struct{})
	var (
		mu        sync.Mutex
		delivered []lspproxy.DocumentEvent
	)
	cfg := testConfig()
	cfg.QueueSize = 2
	cfg.DrainTimeout = 10 * time.Second
	held := make(chan struct{}, 8)
	cfg.Observer.OnDocument = func(d lspproxy.DocumentEvent) {
		held <- struct{}{}
		<-block
		mu.Lock()
		delivered = append(delivered, d)
		mu.Unlock()
	}
	c := lsptest.Proxied(cfg).Connect(t)
	initialize(t, c, `{}`)
	send := func(msg string) {
		t.Helper()
		c.Editor.Send(t, msg)
		c.Server.Recv(t)
	}
	// The observer holds the first event, the queue the next two; the
	// didClose of a.go is dropped.
	send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.go","languageId":"go","version":1,"text":"x"}}}`)
	<-held
	send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///b.go","languageId":"go","version":1,"text":"x"}}}`)
	send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///c.go","languageId":"go","version":1,"text":"x"}}}`)
	send(`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"file:///a.go"}}}`)
	// The event is queued (or dropped) after it is forwarded.
	for deadline := time.Now().Add(5 * time.Second); c.Proxy.Stats().Dropped == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if st := c.Proxy.Stats(); st.Dropped != 1 {
		close(block)
		t.Fatalf("stats = %+v, want the didClose dropped", st)
	}
	close(block)
	for c.Proxy.Stats().Queued > 0 {
		time.Sleep(time.Millisecond)
	}
	// Any message of the editor: the queue has room, a.go is reported.
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{}}`)
	c.Server.Recv(t)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":7,"result":null}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":7,"result":null}`)
	for deadline := time.Now().Add(5 * time.Second); ; {
		mu.Lock()
		n := len(delivered)
		mu.Unlock()
		if n == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d document events delivered, want 4: a.go's lost didClose never reported", n)
		}
		time.Sleep(time.Millisecond)
	}
	shutdown(t, c)
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, d := range delivered {
		got = append(got, fmt.Sprintf("%s %s gap=%v", d.Method, d.Params, d.Gap))
	}
	want := []string{
		`textDocument/didOpen {"textDocument":{"uri":"file:///a.go","languageId":"go","version":1,"text":"x"}} gap=false`,
		`textDocument/didOpen {"textDocument":{"uri":"file:///b.go","languageId":"go","version":1,"text":"x"}} gap=false`,
		`textDocument/didOpen {"textDocument":{"uri":"file:///c.go","languageId":"go","version":1,"text":"x"}} gap=false`,
		`$/lspgraph/documentGap {"textDocument":{"uri":"file:///a.go"}} gap=true`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("delivered\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
