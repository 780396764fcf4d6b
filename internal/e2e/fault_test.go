package e2e

import (
	"encoding/json"
	"os/exec"
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
	t.Parallel()
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
	t.Parallel()
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
// first proxy owns the session, the second attaches to it (its own gopls
// still answers its editor) and both answer lspgraph.impact from the one
// store. When the owner is killed (SIGKILL, no cleanup), the second takes
// the store over within 2 s and keeps answering, and the command line
// works after that.
func TestTwoProxiesOneStore(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	importSCIP(t, store, root, "goapp.scip")
	logA, logB := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	logOnFailure(t, "first proxy log", logA)
	logOnFailure(t, "second proxy log", logB)

	const cat = "service/catalog.go"
	type memberStatus struct {
		Role    string `json:"role"`
		Session struct {
			PID int `json:"pid"`
		} `json:"session"`
	}
	status := func(c *lspClient) (proxyStatus, memberStatus) {
		raw := c.mustCall("workspace/executeCommand", map[string]any{"command": "lspgraph.status"})
		var st proxyStatus
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		var ms memberStatus
		if len(st.Store) > 0 {
			_ = json.Unmarshal(st.Store, &ms)
		}
		return st, ms
	}
	waitRole := func(c *lspClient, role string, within time.Duration) memberStatus {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			st, ms := status(c)
			if st.StoreError == "" && ms.Role == role {
				return ms
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no %s session within %s: %q %+v", c.name, role, within, st.StoreError, ms)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	impactOf := func(c *lspClient) impactAnswer {
		t.Helper()
		raw, err := c.call("workspace/executeCommand", map[string]any{"command": "lspgraph.impact", "arguments": []any{map[string]any{"target": "Catalog.Save", "verify": false}}})
		if err != nil {
			t.Fatalf("lspgraph.impact through %s: %v", c.name, err)
		}
		var a impactAnswer
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := startClient(t, "first lspgraph proxy -- gopls", root, proxyArgv(t, store, logA, []string{gopls})...)
	a.initialize(nil)
	owner := waitRole(a, "owner", 15*time.Second)

	b := startClient(t, "second lspgraph proxy -- gopls", root, proxyArgv(t, store, logB, []string{gopls})...)
	b.initialize(nil)
	b.open(cat, "go")
	def := b.mustCall("textDocument/definition", b.docPos(cat, posOf(t, root, cat, 30, "Put")))
	wantSites(t, "definition through the second proxy", sites(root, locations(t, def)), "store/store.go:17")
	if ms := waitRole(b, "attached", 15*time.Second); ms.Session.PID != owner.Session.PID {
		t.Errorf("second proxy attached to pid %d; want the owner %d", ms.Session.PID, owner.Session.PID)
	}
	for _, c := range []*lspClient{a, b} {
		if got := impactOf(c); got.Target == nil || len(got.Depths) == 0 || len(got.Depths[0].Dependents) == 0 {
			t.Errorf("lspgraph.impact Catalog.Save through %s: %+v; want its d=1 dependents", c.name, got)
		}
	}

	// Kill the owner outright; the second takes over.
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-a.waited
	killed := time.Now()
	waitRole(b, "owner", 5*time.Second)
	if took := time.Since(killed); took > 2*time.Second {
		t.Errorf("the second proxy took %s to take the store over; want at most 2s", took)
	}
	if got := impactOf(b); got.Target == nil || len(got.Depths) == 0 || len(got.Depths[0].Dependents) == 0 {
		t.Errorf("lspgraph.impact after the takeover: %+v", got)
	}
	out, err := exec.Command(lspgraphBin(t), "impact", "--store", store, "--root", root, "--json", "Catalog.Save").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Catalog.Import") {
		t.Errorf("lspgraph impact from the command line after the takeover: %v\n%s", err, out)
	}
	b.shutdown()
}
