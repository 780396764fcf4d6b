package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/graph"
)

// TestProxyStoreInUse runs the proxy on a store another process holds: gopls
// answers through it as usual, lspgraph.status says why there is no store,
// and lspgraph.impact fails with that reason instead of an empty answer.
func TestProxyStoreInUse(t *testing.T) {
	gopls := goplsPath(t)
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	held, err := graph.Open(store, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	const cat = "service/catalog.go"
	c := startClient(t, "lspgraph proxy -- gopls", root, proxyArgv(t, store, logFile, []string{gopls})...)
	c.initialize(nil)
	c.open(cat, "go")
	def := c.mustCall("textDocument/definition", c.docPos(cat, posOf(t, root, cat, 30, "Put")))
	wantSites(t, "definition of c.st.Put through a proxy without its store", sites(root, locations(t, def)), "store/store.go:17")

	var st proxyStatus
	if err := json.Unmarshal(c.mustCall("workspace/executeCommand", map[string]any{"command": "lspgraph.status"}), &st); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.StoreError, "in use") || st.Proxy.Stats.FromServer == 0 {
		t.Errorf("lspgraph.status with the store held elsewhere: storeError %q, %d frames from gopls; want the store named in use and forwarding",
			st.StoreError, st.Proxy.Stats.FromServer)
	}
	_, err = c.call("workspace/executeCommand", map[string]any{
		"command": "lspgraph.impact", "arguments": []any{c.docPos(cat, posOf(t, root, cat, 29, "Save"))},
	})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("lspgraph.impact without the store: error %v; want one saying the store is in use", err)
	}
	c.shutdown()
}

// TestProxyServerDies kills gopls under the proxy: the editor is told in a
// window/showMessage, and requests get errors instead of hanging.
func TestProxyServerDies(t *testing.T) {
	gopls := goplsPath(t)
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)

	const cat = "service/catalog.go"
	c := startClient(t, "lspgraph proxy -- gopls", root, proxyArgv(t, store, logFile, []string{gopls})...)
	c.initialize(nil)
	c.open(cat, "go")
	put := c.docPos(cat, posOf(t, root, cat, 30, "Put"))
	c.mustCall("textDocument/definition", put)
	var st proxyStatus
	if err := json.Unmarshal(c.mustCall("workspace/executeCommand", map[string]any{"command": "lspgraph.status"}), &st); err != nil {
		t.Fatal(err)
	}
	if st.Proxy.PID == 0 {
		t.Fatalf("lspgraph.status names no server pid")
	}
	if err := syscall.Kill(st.Proxy.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("killing gopls (pid %d): %v", st.Proxy.PID, err)
	}

	msg, ok := c.waitNotification("window/showMessage", 20*time.Second, func(p json.RawMessage) bool {
		return strings.Contains(string(p), "gopls")
	})
	if !ok {
		t.Fatalf("no window/showMessage naming gopls within 20s of its death")
	}
	t.Logf("showMessage: %s", msg)
	if _, err := c.callTimeout("textDocument/definition", put, 20*time.Second); err == nil {
		t.Errorf("definition after gopls died succeeded")
	} else if strings.Contains(err.Error(), "deadline") {
		t.Errorf("definition after gopls died hung: %v", err)
	}
	// The editor still ends the session in order; the proxy exits with
	// an error, since its server died first.
	c.callTimeout("shutdown", nil, 10*time.Second)
	c.notify("exit", nil)
	select {
	case <-c.waited:
		if c.werr == nil {
			t.Errorf("the proxy exited with status 0 after its server died")
		}
	case <-time.After(20 * time.Second):
		t.Errorf("the proxy did not exit within 20s of exit after its server died")
	}
}

// TestTwoProxiesOneStore opens two editor windows on one workspace: the
// first proxy holds the store; the second forwards to its own gopls as usual
// and its commands say the store is in use by another process.
func TestTwoProxiesOneStore(t *testing.T) {
	gopls := goplsPath(t)
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	logA, logB := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	logOnFailure(t, "first proxy log", logA)
	logOnFailure(t, "second proxy log", logB)

	const cat = "service/catalog.go"
	status := func(c *lspClient) proxyStatus {
		var st proxyStatus
		if err := json.Unmarshal(c.mustCall("workspace/executeCommand", map[string]any{"command": "lspgraph.status"}), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	a := startClient(t, "first lspgraph proxy -- gopls", root, proxyArgv(t, store, logA, []string{gopls})...)
	a.initialize(nil)
	// The proxy opens the store once the editor has initialized the workspace.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		st := status(a)
		if st.StoreError == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("first proxy has no store: %s", st.StoreError)
		}
	}

	b := startClient(t, "second lspgraph proxy -- gopls", root, proxyArgv(t, store, logB, []string{gopls})...)
	b.initialize(nil)
	b.open(cat, "go")
	def := b.mustCall("textDocument/definition", b.docPos(cat, posOf(t, root, cat, 30, "Put")))
	wantSites(t, "definition through the second proxy", sites(root, locations(t, def)), "store/store.go:17")
	st := status(b)
	if !strings.Contains(st.StoreError, "in use by process") {
		t.Errorf("second proxy's storeError = %q; want it to name the process holding the store", st.StoreError)
	}
	if _, err := b.call("workspace/executeCommand", map[string]any{"command": "lspgraph.impact", "arguments": []any{"Catalog.Save"}}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("lspgraph.impact in the second proxy: error %v; want one saying the store is in use", err)
	}
	b.shutdown()

	// The first window is unaffected.
	if st := status(a); st.StoreError != "" || st.Proxy.Stats.FromServer == 0 {
		t.Errorf("first proxy after the second came and went: storeError %q, %d frames from gopls", st.StoreError, st.Proxy.Stats.FromServer)
	}
	a.shutdown()
}
