package workspace

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/resolve"
)

// goplsConn is a minimal LSP client over a gopls process: enough to be the
// lspproxy.Requester the verifier needs, without the proxy in between.
type goplsConn struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex
	nextID  int
	pending map[int]chan json.RawMessage
}

func startGopls(t *testing.T, root string) *goplsConn {
	t.Helper()
	bin, err := exec.LookPath("gopls")
	if err != nil {
		if p := "/root/go/bin/gopls"; goplsAt(p) {
			bin = p
		} else if os.Getenv("LSPGRAPH_E2E") == "1" {
			t.Fatal("gopls not found")
		} else {
			t.Skip("gopls not found")
		}
	}
	cmd := exec.Command(bin)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &goplsConn{cmd: cmd, in: in, pending: map[int]chan json.RawMessage{}}
	go c.read(bufio.NewReader(out))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c.Request(ctx, "shutdown", nil)
		c.notify("exit", nil)
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	uri := fileURI(root)
	if _, err := c.Request(ctx, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": uri,
		"workspaceFolders": []map[string]string{{"uri": uri, "name": "goapp"}},
		"capabilities":     map[string]any{"textDocument": map[string]any{"callHierarchy": map[string]any{}}},
	}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	c.notify("initialized", map[string]any{})
	return c
}

func goplsAt(p string) bool { _, err := os.Stat(p); return err == nil }

func (c *goplsConn) write(msg map[string]any) {
	b, _ := json.Marshal(msg)
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

func (c *goplsConn) notify(method string, params any) {
	c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// Request implements lspproxy.Requester.
func (c *goplsConn) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan json.RawMessage, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case raw := <-ch:
		var r struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, err
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// read dispatches responses and answers the server's own requests with null.
func (c *goplsConn) read(r *bufio.Reader) {
	for {
		n := 0
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &m)
		switch {
		case m.Method != "" && len(m.ID) > 0: // a server request
			c.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
		case m.Method == "" && len(m.ID) > 0:
			id, _ := strconv.Atoi(string(m.ID))
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- body
			}
		}
	}
}

// TestLiveVerifierGopls checks the verifier against a real gopls on the
// goapp fixture: over the precise SCIP graph the d=1 set is verified; when
// the graph lacks a reference (cmd/goapp/main.go replaced in the live layer
// by facts without its references), the call gopls reports is live-only
// and returned for the live layer.
func TestLiveVerifierGopls(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(repoRoot(t), "testdata", "goapp")
	conn := startGopls(t, root)
	verify := liveVerifier(conn, root, textpos.UTF16, nil)

	st := openFixtureStore(t, "goapp", "goapp.scip")
	run := func(target string) *impact.Answer {
		t.Helper()
		r, err := st.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		sym, err := resolve.ResolveIn(ctx, r, root, target)
		if err != nil {
			t.Fatal(err)
		}
		o := impact.DefaultOptions()
		o.Verify, o.VerifyTimeout = verify, 60*time.Second
		a, err := impact.Compute(ctx, r, sym, o)
		if err != nil {
			t.Fatal(err)
		}
		if a.Verification == nil || !a.Verification.Ran || a.Verification.Error != "" {
			t.Fatalf("verification did not run: %+v", a.Verification)
		}
		return a
	}
	marks := func(a *impact.Answer) map[string]string {
		m := map[string]string{}
		for _, d := range a.Depths[0].Dependents {
			m[d.Name] = d.Verification
		}
		return m
	}

	a := run("Catalog.Save")
	if got := marks(a); len(got) != 1 || got["Catalog.Import"] != impact.Verified {
		t.Errorf("Catalog.Save: marks %v; want Catalog.Import verified", got)
	}
	// gopls also counts m.Put on a *memstore.Mem as a reference of
	// Store.Put; the graph has that call under Mem.Put, so it is not
	// live-only.
	a = run("store.Store.Put")
	if got := marks(a); len(got) != 1 || got["Catalog.Save"] != impact.Verified {
		t.Errorf("Store.Put: marks %v; want only Catalog.Save, verified", got)
	}
	a = run("Catalog.Import")
	if got := marks(a); len(got) != 2 || got["run"] != impact.Verified || got["TestImport"] != impact.Verified {
		t.Errorf("Catalog.Import: marks %v; want run and TestImport verified", got)
	}

	// The graph loses main.go's references (its definitions stay).
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := r.Document(ctx, "cmd/goapp/main.go")
	if err != nil {
		t.Fatal(err)
	}
	syms, err := r.DocumentSymbols(ctx, doc.Path)
	if err != nil {
		t.Fatal(err)
	}
	occs, err := r.Occurrences(ctx, doc.Path)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	facts := graph.DocumentFacts{Document: doc, Symbols: syms}
	for _, o := range occs {
		if o.Roles&graph.RoleDefinition != 0 {
			facts.Occurrences = append(facts.Occurrences, o)
		}
	}
	facts.Document.Source = graph.SourceLSP
	if err := st.PutDocument(ctx, graph.Live, facts); err != nil {
		t.Fatal(err)
	}
	a = run("Catalog.Import")
	if got := marks(a); got["run"] != impact.LiveOnly || got["TestImport"] != impact.Verified {
		t.Errorf("Catalog.Import without main.go's references: marks %v; want run live-only, TestImport verified", got)
	}
	found := false
	for _, l := range a.LiveOnly {
		// n, err := c.Import(args): line 21, column 14 (1-based).
		if l.Location.Path == "cmd/goapp/main.go" && l.Location.Range.Start == (textpos.Position{Line: 20, Col: 13}) && strings.HasSuffix(l.Enclosing, "/run().") {
			found = true
		}
	}
	if !found {
		t.Errorf("live-only sites %+v lack cmd/goapp/main.go:21:14 in run", a.LiveOnly)
	}
}

// TestLiveVerifierBuffer: inside an unsaved buffer the server's positions
// count in the buffer's text, not the file's. cmd/goapp/main.go is open in
// gopls with three lines more at the top and a comment of non-ASCII
// characters before the call to Import: the verifier finds the call where
// the buffer has it only when it is given the buffer.
func TestLiveVerifierBuffer(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(repoRoot(t), "testdata", "goapp")
	const main = "cmd/goapp/main.go"
	disk, err := os.ReadFile(filepath.Join(root, main))
	if err != nil {
		t.Fatal(err)
	}
	const call = "\tn, err := c.Import(args)\n"
	if !strings.Contains(string(disk), call) {
		t.Fatalf("%s lacks %q", main, call)
	}
	buf := "// édition\n// en cours\n// 𝄞\n" + strings.Replace(string(disk), call, "\tn, err := /* é𝄞 */ c.Import(args)\n", 1)
	// Where Import is in the buffer, in bytes.
	line := strings.Count(buf[:strings.Index(buf, "c.Import(")], "\n")
	lineStart := strings.LastIndex(buf[:strings.Index(buf, "c.Import(")], "\n") + 1
	want := textpos.Position{Line: uint32(line), Col: uint32(strings.Index(buf, "c.Import(") + 2 - lineStart)}

	conn := startGopls(t, root)
	conn.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": fileURI(filepath.Join(root, main)), "languageId": "go", "version": 1, "text": buf}})

	st := openFixtureStore(t, "goapp", "goapp.scip")
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sym, err := resolve.ResolveIn(ctx, r, root, "Catalog.Import")
	if err != nil {
		t.Fatal(err)
	}
	ask := func(buffer func(string) ([]byte, bool)) []graph.Location {
		t.Helper()
		vctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		locs, err := liveVerifier(conn, root, textpos.UTF16, buffer)(vctx, sym.Def)
		if err != nil {
			t.Fatal(err)
		}
		return locs
	}
	at := func(locs []graph.Location) bool {
		for _, l := range locs {
			if l.Path == main && l.Range.Start == want {
				return true
			}
		}
		return false
	}
	withBuffer := ask(func(rel string) ([]byte, bool) {
		if rel == main {
			return []byte(buf), true
		}
		return nil, false
	})
	if !at(withBuffer) {
		t.Errorf("with the buffer the verifier reports %v; want %s:%s (the call in the buffer)", withBuffer, main, want)
	}
	if fromDisk := ask(nil); at(fromDisk) {
		t.Errorf("reading the file for a position in the buffer found %s:%s all the same: the test does not tell the two apart (%v)", main, want, fromDisk)
	}
}

// openFixtureStore imports a fixture and opens its store, closed when the
// test ends.
func openFixtureStore(t *testing.T, project, dump string) *graph.Store {
	t.Helper()
	dir, _ := importFixture(t, project, dump)
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
