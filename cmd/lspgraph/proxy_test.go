package main

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

// proxyServer returns a language server binary, skipping when it is
// missing (failing under LSPGRAPH_E2E=1).
func proxyServer(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if p := filepath.Join("/root/go/bin", name); fileExists(p) {
		return p
	}
	if os.Getenv("LSPGRAPH_E2E") == "1" {
		t.Fatalf("%s not found (LSPGRAPH_E2E=1)", name)
	}
	t.Skipf("%s not found", name)
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type pipeEnd struct {
	io.Reader
	io.WriteCloser
}

// startProxy runs `lspgraph proxy` in process with pipes for stdio and
// returns the editor's end and the command's exit code channel.
func startProxy(t *testing.T, args ...string) (*lsptest.Endpoint, func() int, *syncBuffer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	logs := &syncBuffer{}
	e := &env{stdin: inR, stdout: outW, stderr: logs, getenv: func(string) string { return "" }}
	code := make(chan int, 1)
	go func() {
		code <- run(context.Background(), e, append([]string{"proxy"}, args...))
		outW.Close()
	}()
	editor := lsptest.NewEndpoint("editor", pipeEnd{outR, inW})
	exit := -1
	wait := func() int {
		if exit >= 0 {
			return exit
		}
		select {
		case exit = <-code:
		case <-time.After(lsptest.Timeout):
			t.Fatal("proxy did not stop")
		}
		return exit
	}
	t.Cleanup(func() {
		inW.Close()
		wait()
		if t.Failed() {
			t.Logf("proxy log:\n%s", logs.String())
		}
	})
	return editor, wait, logs
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

// call sends a request and returns its answer, skipping anything else.
func call(t *testing.T, ed *lsptest.Endpoint, id int, method, params string) map[string]any {
	t.Helper()
	return callWithin(t, ed, lsptest.Timeout, id, method, params)
}

// serverWait bounds a wait on a real language server's work (starting,
// loading a project), which a loaded machine can stretch far past
// lsptest.Timeout.
const serverWait = 60 * time.Second

// callServer is call for a request a real language server answers.
func callServer(t *testing.T, ed *lsptest.Endpoint, id int, method, params string) map[string]any {
	t.Helper()
	return callWithin(t, ed, serverWait, id, method, params)
}

// callWithin is call with a bound on each wait for a message.
func callWithin(t *testing.T, ed *lsptest.Endpoint, d time.Duration, id int, method, params string) map[string]any {
	t.Helper()
	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	for {
		raw, err := ed.RecvTimeout(d)
		if err != nil {
			t.Fatalf("waiting for the answer to %s: %v", method, err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if _, isReq := m["method"]; isReq {
			if rid, ok := m["id"]; ok { // a server request: answer null
				b, _ := json.Marshal(rid)
				ed.Send(t, `{"jsonrpc":"2.0","id":`+string(b)+`,"result":null}`)
			}
			continue
		}
		if m["id"] == float64(id) {
			return m
		}
	}
}

func TestProxyGopls(t *testing.T) {
	gopls := proxyServer(t, "gopls")
	root, err := filepath.Abs("../../testdata/goapp")
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	ed, code, _ := startProxy(t, "--store", store, "--root", root, "--", gopls)

	init := callServer(t, ed, 1, "initialize", fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{}}`, fileURI(root)))
	cmds := fmt.Sprint(init["result"].(map[string]any)["capabilities"].(map[string]any)["executeCommandProvider"].(map[string]any)["commands"])
	for _, c := range []string{"lspgraph.status", "lspgraph.impact", "lspgraph.context", "gopls."} {
		if !strings.Contains(cmds, c) {
			t.Errorf("advertised commands %s lack %s", cmds, c)
		}
	}
	ed.Send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	file := filepath.Join(root, "service", "catalog.go")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tj, _ := json.Marshal(string(text))
	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"go","version":1,"text":%s}}}`, fileURI(file), tj))
	doc := fmt.Sprintf(`{"textDocument":{"uri":%q}}`, fileURI(file))
	callServer(t, ed, 2, "textDocument/documentSymbol", doc)
	// c.st.Put on line 30: Put is at character 16.
	def := callServer(t, ed, 3, "textDocument/definition", fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":29,"character":16}}`, fileURI(file)))
	if !strings.Contains(fmt.Sprint(def["result"]), "store/store.go") {
		t.Fatalf("definition of Put = %v, want store/store.go", def["result"])
	}
	// The observer writes within a tick or two; status reports it.
	var status map[string]any
	for i := 0; ; i++ {
		status = call(t, ed, 10+i, "workspace/executeCommand", `{"command":"lspgraph.status"}`)
		obs, _ := status["result"].(map[string]any)["store"].(map[string]any)["observations"].(map[string]any)
		if obs != nil && obs["exchanges"] == float64(2) {
			break
		}
		if i == 100 {
			t.Fatalf("observations not recorded: %v", status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	proxy := status["result"].(map[string]any)["proxy"].(map[string]any)
	if proxy["server"] != "gopls" || proxy["pid"] == nil {
		t.Errorf("status proxy part = %v", proxy)
	}
	// Impact of Catalog.Save, asked at its name (line 29, "func (c *Catalog) Save").
	imp := call(t, ed, 200, "workspace/executeCommand", fmt.Sprintf(`{"command":"lspgraph.impact","arguments":[{"textDocument":{"uri":%q},"position":{"line":28,"character":19}}]}`, fileURI(file)))
	if imp["error"] != nil {
		t.Errorf("lspgraph.impact: %v", imp["error"])
	} else if target := fmt.Sprint(imp["result"].(map[string]any)["target"]); !strings.Contains(target, "Save") {
		t.Errorf("lspgraph.impact target = %s, want Catalog.Save", target)
	}
	call(t, ed, 300, "shutdown", "null")
	ed.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	if c := code(); c != 0 {
		t.Errorf("proxy exit code %d after shutdown and exit", c)
	}

	r := readStore(t, store)
	if live := fmt.Sprint(r.LiveDocuments()); !strings.Contains(live, "service/catalog.go") || !strings.Contains(live, "store/store.go") {
		t.Errorf("live documents = %s, want service/catalog.go and store/store.go", live)
	}
	occs, err := r.Occurrences(context.Background(), "service/catalog.go")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range occs {
		if o.Range.Start.Line == 29 && o.Range.Start.Col == 16 && strings.HasPrefix(o.Symbol, "lsp store/store.go:") && o.Enclosing == "lsp service/catalog.go:29:19" {
			found = true
		}
	}
	if !found {
		t.Errorf("no reference to Put with an enclosing definition at 30:17 in %v", occs)
	}
}

// TestProxyStoreLocked: another process holds the store; the proxy still
// forwards and its commands say why they cannot answer.
func TestProxyStoreLocked(t *testing.T) {
	t.Parallel()
	gopls := proxyServer(t, "gopls")
	root, err := filepath.Abs("../../testdata/goapp")
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	held, err := graph.Open(store, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	ed, code, logs := startProxy(t, "--store", store, "--root", root, "--", gopls)
	callServer(t, ed, 1, "initialize", fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{}}`, fileURI(root)))
	ed.Send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	status := call(t, ed, 2, "workspace/executeCommand", `{"command":"lspgraph.status"}`)
	if msg := fmt.Sprint(status["result"].(map[string]any)["storeError"]); !strings.Contains(msg, "in use") {
		t.Errorf("status storeError = %q, want it to say the store is in use", msg)
	}
	imp := call(t, ed, 3, "workspace/executeCommand", `{"command":"lspgraph.impact","arguments":["Save"]}`)
	if msg := fmt.Sprint(imp["error"]); !strings.Contains(msg, "in use") {
		t.Errorf("impact error = %q, want it to say the store is in use", msg)
	}
	// Forwarding is unaffected: a gopls command goes through.
	sym := call(t, ed, 4, "workspace/symbol", `{"query":"Catalog"}`)
	if sym["error"] != nil || !strings.Contains(fmt.Sprint(sym["result"]), "Catalog") {
		t.Errorf("workspace/symbol through a proxy without a store = %v", sym)
	}
	// Once the holder lets go, the proxy takes the store (it retries with
	// backoff) and its commands answer.
	held.Close()
	deadline := time.Now().Add(10 * time.Second)
	for id := 10; ; id++ {
		st := call(t, ed, id, "workspace/executeCommand", `{"command":"lspgraph.status"}`)
		res := st["result"].(map[string]any)
		if _, ok := res["store"].(map[string]any); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy did not take the freed store over: %v", res)
		}
		time.Sleep(100 * time.Millisecond)
	}
	call(t, ed, 5, "shutdown", "null")
	ed.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	if c := code(); c != 0 {
		t.Errorf("exit code %d", c)
	}
	if !strings.Contains(logs.String(), "graph store unavailable") {
		t.Errorf("log lacks the store line:\n%s", logs.String())
	}
}

// TestProxyTypeScriptPremature: typescript-language-server answers a
// definition sent right after didOpen from its syntax server (the import
// binding); the proxy marks that answer premature and the graph never
// records it, while the answer after the project loaded is recorded.
func TestProxyTypeScriptPremature(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("loads a TypeScript project (several seconds)")
	}
	tsls := proxyServer(t, "typescript-language-server")
	root, err := filepath.Abs("../../testdata/tsworkspace")
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	ed, code, _ := startProxy(t, "--store", store, "--root", root, "--", tsls, "--stdio")
	// Node and the TypeScript server start slowly on a loaded machine:
	// every wait until the project answers shares one generous deadline.
	deadline := time.Now().Add(90 * time.Second)
	callWithin(t, ed, time.Until(deadline), 1, "initialize", fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{"window":{"workDoneProgress":true}}}`, fileURI(root)))
	ed.Send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	file := filepath.Join(root, "packages", "order", "src", "index.ts")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tj, _ := json.Marshal(string(text))
	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"typescript","version":1,"text":%s}}}`, fileURI(file), tj))
	// "return quote(" on line 29: quote is at character 11.
	params := fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":28,"character":11}}`, fileURI(file))
	first := callWithin(t, ed, time.Until(deadline), 2, "textDocument/definition", params)
	id := 3
	for answer := first; !strings.Contains(fmt.Sprint(answer["result"]), "pricing"); id++ {
		if time.Now().After(deadline) {
			t.Fatalf("definition never left the importing file: %v", answer)
		}
		time.Sleep(200 * time.Millisecond)
		// While the projects load, the server holds the request.
		answer = callWithin(t, ed, time.Until(deadline), id, "textDocument/definition", params)
	}
	var obs map[string]any
	for i := 0; ; i++ {
		status := call(t, ed, 100+i, "workspace/executeCommand", `{"command":"lspgraph.status"}`)
		obs, _ = status["result"].(map[string]any)["store"].(map[string]any)["observations"].(map[string]any)
		if obs != nil && obs["exchanges"].(float64) >= 1 {
			break
		}
		if i == 100 {
			t.Fatalf("no observation recorded: %v", status)
		}
		time.Sleep(20 * time.Millisecond)
		// The server can give the loaded project's answer before it
		// reports the load over (its progress ended, diagnostics
		// published); that answer is premature too, and an answer asked
		// for afterwards is the one recorded.
		if i%10 == 9 {
			callWithin(t, ed, time.Until(deadline)+30*time.Second, 1000+i, "textDocument/definition", params)
		}
	}
	firstWasImport := strings.Contains(fmt.Sprint(first["result"]), "order/src/index.ts")
	if firstWasImport && obs["premature"].(float64) < 1 {
		t.Errorf("the first answer pointed at the import but nothing was marked premature: %v", obs)
	}
	call(t, ed, 300, "shutdown", "null")
	ed.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	if c := code(); c != 0 {
		t.Errorf("exit code %d", c)
	}
	r := readStore(t, store)
	occs, err := r.Occurrences(context.Background(), "packages/order/src/index.ts")
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, o := range occs {
		if o.Range.Start.Line == 28 && o.Range.Start.Col == 11 {
			at = append(at, o.Symbol)
		}
	}
	if len(at) != 1 || !strings.HasPrefix(at[0], "lsp packages/pricing/src/index.ts:") {
		t.Errorf("occurrences at 29:12 = %q, want one reference into packages/pricing", at)
	}
	t.Logf("first answer was the import binding: %v; observations %v", firstWasImport, obs)
}

// TestProxyPyright: pyright advertises an empty command list; the proxy's
// commands are added to it, and pyright's answers pass through.
func TestProxyPyright(t *testing.T) {
	pyright := proxyServer(t, "pyright-langserver")
	root, err := filepath.Abs("../../testdata/pyproject")
	if err != nil {
		t.Fatal(err)
	}
	ed, code, _ := startProxy(t, "--store", t.TempDir(), "--root", root, "--", pyright, "--stdio")
	init := callServer(t, ed, 1, "initialize", fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{}}`, fileURI(root)))
	provider, _ := init["result"].(map[string]any)["capabilities"].(map[string]any)["executeCommandProvider"].(map[string]any)
	cmds := fmt.Sprint(provider["commands"])
	for _, c := range []string{"lspgraph.status", "lspgraph.impact", "lspgraph.context"} {
		if !strings.Contains(cmds, c) {
			t.Errorf("advertised commands %s lack %s", cmds, c)
		}
	}
	ed.Send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	status := call(t, ed, 2, "workspace/executeCommand", `{"command":"lspgraph.status"}`)
	if status["error"] != nil || status["result"].(map[string]any)["proxy"].(map[string]any)["server"] != "pyright-langserver" {
		t.Errorf("status = %v", status)
	}
	call(t, ed, 3, "shutdown", "null")
	ed.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	if c := code(); c != 0 {
		t.Errorf("exit code %d", c)
	}
}
