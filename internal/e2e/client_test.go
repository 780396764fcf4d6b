package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"go.lsp.dev/jsonrpc2"
)

// callTimeout bounds one request to a server; loading a project is the
// slowest thing a first request may wait for.
const callTimeout = 60 * time.Second

// lspClient is a small LSP client over a process's stdio: the language
// server itself, or `lspgraph proxy -- SERVER`. Params and results are raw
// JSON. Requests the server sends to the client are answered at once
// (configuration items with null, the rest with null) and recorded.
type lspClient struct {
	t    testing.TB
	name string
	root string // the workspace folder
	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	logs *lockedBuffer // the process's stderr

	waited chan struct{} // closed when the process has ended
	werr   error

	// lenses declares code lens support in initialize
	// (textDocument.codeLens, workspace.codeLens.refreshSupport).
	lenses bool

	mu             sync.Mutex
	serverRequests []string       // methods of server→client requests
	notifications  []notification // the server's notifications
	notified       chan struct{}  // closed and replaced on each notification
}

// notification is one notification the server sent.
type notification struct {
	method string
	params json.RawMessage
}

// lockedBuffer collects a process's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stdio joins a process's stdout (read) and stdin (write).
type stdio struct {
	io.ReadCloser
	w io.WriteCloser
}

func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }

func (s stdio) Close() error {
	return errors.Join(s.w.Close(), s.ReadCloser.Close())
}

// startClient starts argv in root and connects to its stdio. The process is
// killed at cleanup if it is still running; when the test failed, its
// stderr is logged.
func startClient(t testing.TB, name, root string, argv ...string) *lspClient {
	t.Helper()
	return startClientEnv(t, name, root, nil, argv...)
}

// startClientEnv is startClient with the process's environment (nil: the
// test's).
func startClientEnv(t testing.TB, name, root string, env []string, argv ...string) *lspClient {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = root
	cmd.Env = env
	c := &lspClient{t: t, name: name, root: root, cmd: cmd, logs: &lockedBuffer{}, waited: make(chan struct{}), notified: make(chan struct{})}
	cmd.Stderr = c.logs
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: starting %v: %v", name, argv, err)
	}
	go func() {
		c.werr = cmd.Wait()
		close(c.waited)
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(stdio{ReadCloser: out, w: in}))
	c.conn.Go(context.Background(), c.handle)
	t.Cleanup(func() {
		select {
		case <-c.waited:
		default:
			cmd.Process.Kill()
			<-c.waited
		}
		if t.Failed() {
			t.Logf("%s stderr (last 4000 bytes):\n%s", name, tail(c.logs.String(), 4000))
		}
	})
	return c
}

// head returns the first n bytes of s, marked when cut.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// handle answers the server's requests and records its notifications.
func (c *lspClient) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := req.(*jsonrpc2.Call); !ok {
		c.notifications = append(c.notifications, notification{req.Method(), append(json.RawMessage(nil), req.Params()...)})
		close(c.notified)
		c.notified = make(chan struct{})
		return nil
	}
	c.serverRequests = append(c.serverRequests, req.Method())
	switch req.Method() {
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "workspace/configuration: %v", err))
		}
		return reply(ctx, make([]any, len(p.Items)), nil)
	case "workspace/workspaceFolders":
		return reply(ctx, []any{map[string]string{"uri": fileURI(c.root), "name": filepath.Base(c.root)}}, nil)
	default:
		// client/registerCapability, window/workDoneProgress/create,
		// window/showMessageRequest, …: null is a valid answer.
		return reply(ctx, nil, nil)
	}
}

// call sends a request and returns its raw result ("null" for a null or
// missing result).
func (c *lspClient) call(method string, params any) (json.RawMessage, error) {
	return c.callTimeout(method, params, callTimeout)
}

func (c *lspClient) callTimeout(method string, params any, d time.Duration) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var result json.RawMessage
	start := time.Now()
	defer func() {
		if d := time.Since(start); d > 3*time.Second {
			c.t.Logf("%s: %s took %s", c.name, method, d.Round(time.Millisecond))
		}
	}()
	if _, err := c.conn.Call(ctx, method, params, &result); err != nil {
		select {
		case <-c.waited:
			return nil, fmt.Errorf("%s: %s: %w (process ended: %v)", c.name, method, err, c.werr)
		default:
		}
		return nil, fmt.Errorf("%s: %s: %w", c.name, method, err)
	}
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	return result, nil
}

// mustCall is call that fails the test on error.
func (c *lspClient) mustCall(method string, params any) json.RawMessage {
	c.t.Helper()
	r, err := c.call(method, params)
	if err != nil {
		c.t.Fatal(err)
	}
	return r
}

func (c *lspClient) notify(method string, params any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.conn.Notify(ctx, method, params); err != nil {
		c.t.Fatalf("%s: %s: %v", c.name, method, err)
	}
}

// initialize sends initialize with c.root as the only workspace folder and
// then initialized; it returns the initialize result.
func (c *lspClient) initialize(initOptions any) json.RawMessage {
	c.t.Helper()
	params := map[string]any{
		"processId":             os.Getpid(),
		"clientInfo":            map[string]string{"name": "lspgraph-e2e"},
		"rootUri":               fileURI(c.root),
		"workspaceFolders":      []any{map[string]string{"uri": fileURI(c.root), "name": filepath.Base(c.root)}},
		"initializationOptions": initOptions,
		"capabilities": map[string]any{
			"workspace": map[string]any{
				"configuration":    true,
				"workspaceFolders": true,
				"executeCommand":   map[string]any{"dynamicRegistration": false},
			},
			"textDocument": map[string]any{
				"synchronization": map[string]any{"didSave": true},
				"definition":      map[string]any{"linkSupport": false},
				"references":      map[string]any{},
				"documentSymbol":  map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"callHierarchy":   map[string]any{},
				"publishDiagnostics": map[string]any{
					"relatedInformation": true,
				},
			},
			"window": map[string]any{"workDoneProgress": true},
		},
	}
	if c.lenses {
		caps := params["capabilities"].(map[string]any)
		caps["workspace"].(map[string]any)["codeLens"] = map[string]any{"refreshSupport": true}
		caps["textDocument"].(map[string]any)["codeLens"] = map[string]any{}
	}
	res := c.mustCall("initialize", params)
	c.notify("initialized", map[string]any{})
	return res
}

// open sends didOpen for a file of the workspace (path relative to root).
func (c *lspClient) open(rel, languageID string) {
	c.t.Helper()
	text, err := os.ReadFile(filepath.Join(c.root, rel))
	if err != nil {
		c.t.Fatal(err)
	}
	c.notify("textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{
			"uri": c.uri(rel), "languageId": languageID, "version": 1, "text": string(text),
		},
	})
}

// shutdown sends shutdown and exit and waits for the process to end.
func (c *lspClient) shutdown() {
	c.t.Helper()
	if _, err := c.callTimeout("shutdown", nil, 20*time.Second); err != nil {
		c.t.Errorf("%v", err)
	}
	c.notify("exit", nil)
	start := time.Now()
	defer func() {
		if d := time.Since(start); d > 3*time.Second {
			c.t.Logf("%s: exiting took %s", c.name, d.Round(time.Millisecond))
		}
	}()
	select {
	case <-c.waited:
		if c.werr != nil {
			c.t.Errorf("%s exited with %v", c.name, c.werr)
		}
	case <-time.After(20 * time.Second):
		c.t.Errorf("%s did not exit within 20s of exit", c.name)
		c.cmd.Process.Kill()
		<-c.waited
	}
	c.conn.Close()
}

// requestsFromServer returns the methods of the requests the server sent.
func (c *lspClient) requestsFromServer() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.serverRequests...)
}

// waitNotification returns the params of the first notification of a
// method that satisfies ok, waiting for it at most d.
func (c *lspClient) waitNotification(method string, d time.Duration, ok func(json.RawMessage) bool) (json.RawMessage, bool) {
	deadline := time.After(d)
	for {
		c.mu.Lock()
		for _, n := range c.notifications {
			if n.method == method && ok(n.params) {
				c.mu.Unlock()
				return n.params, true
			}
		}
		wake := c.notified
		c.mu.Unlock()
		select {
		case <-wake:
		case <-deadline:
			return nil, false
		}
	}
}

func (c *lspClient) uri(rel string) string { return fileURI(filepath.Join(c.root, rel)) }

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// pos is an LSP position (0-based line, UTF-16 character).
type pos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// posOf finds the first occurrence of needle on 1-based line of the file
// rel under root and returns its LSP position.
func posOf(t testing.TB, root, rel string, line int, needle string) pos {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		t.Fatalf("%s has no line %d", rel, line)
	}
	text := lines[line-1]
	i := strings.Index(text, needle)
	if i < 0 {
		t.Fatalf("%s:%d: %q not found in %q", rel, line, needle, text)
	}
	return pos{Line: line - 1, Character: len(utf16.Encode([]rune(text[:i])))}
}

// docPos is TextDocumentPositionParams.
func (c *lspClient) docPos(rel string, p pos) map[string]any {
	return map[string]any{"textDocument": map[string]string{"uri": c.uri(rel)}, "position": p}
}

// location is an LSP Location.
type location struct {
	URI   string `json:"uri"`
	Range struct {
		Start pos `json:"start"`
		End   pos `json:"end"`
	} `json:"range"`
}

// site is a location as "rel/path.go:LINE" (1-based), relative to root.
func (l location) site(root string) string {
	return fmt.Sprintf("%s:%d", relPath(root, l.URI), l.Range.Start.Line+1)
}

// relPath turns a file URI under root into a slash path relative to root;
// other URIs are returned unchanged.
func relPath(root, uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	rel, err := filepath.Rel(root, filepath.FromSlash(u.Path))
	if err != nil || strings.HasPrefix(rel, "..") {
		return uri
	}
	return filepath.ToSlash(rel)
}

// locations decodes a definition or references result (Location,
// []Location or []LocationLink; null is empty).
func locations(t testing.TB, raw json.RawMessage) []location {
	t.Helper()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '{' {
		var l location
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("decoding location %s: %v", raw, err)
		}
		return []location{l}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatalf("decoding locations %s: %v", raw, err)
	}
	var out []location
	for _, it := range items {
		var l struct {
			location
			TargetURI            string          `json:"targetUri"`
			TargetSelectionRange json.RawMessage `json:"targetSelectionRange"`
		}
		if err := json.Unmarshal(it, &l); err != nil {
			t.Fatalf("decoding location %s: %v", it, err)
		}
		if l.TargetURI != "" {
			l.URI = l.TargetURI
			if err := json.Unmarshal(l.TargetSelectionRange, &l.location.Range); err != nil {
				t.Fatalf("decoding location link %s: %v", it, err)
			}
		}
		out = append(out, l.location)
	}
	return out
}

// sites returns the locations as sorted "path:line" strings.
func sites(root string, locs []location) []string {
	var out []string
	for _, l := range locs {
		out = append(out, l.site(root))
	}
	sortStrings(out)
	return out
}
