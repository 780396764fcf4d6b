package workspace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

// TestObserverDroppedEdits: a flood of incremental didChange for one
// document against a slow observer. The proxy drops most of them; the
// buffer copy is at every moment either exactly the editor's text for the
// version last followed or discarded, never an edit applied to a stale
// copy. After the gap the document is listed as partial until the editor
// sends its whole text again.
func TestObserverDroppedEdits(t *testing.T) {
	const n = 2000
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := fileURI(filepath.Join(root, "a.go"))
	g := openSession(t, root, t.TempDir())

	// The editor's text after each version.
	want := func(v int) string {
		switch {
		case v <= n+1:
			return strings.Repeat("x", v)
		case v == n+2:
			return "full"
		default:
			return "yfull"
		}
	}
	block := make(chan struct{})
	var (
		mu       sync.Mutex
		followed int // document events the observer finished
		gaps     int
		exact    int // events after which the buffer held the editor's text
	)
	obs := (&proxied{s: g}).observer()
	follow := obs.OnDocument
	obs.OnDocument = func(d lspproxy.DocumentEvent) {
		<-block
		follow(d)
		var p struct {
			TextDocument struct{ Version int } `json:"textDocument"`
		}
		if err := json.Unmarshal(d.Params, &p); err != nil {
			t.Errorf("params %s: %v", d.Params, err)
		}
		text, ok := g.buffers.get("a.go")
		if ok && string(text) != want(p.TextDocument.Version) {
			t.Errorf("after version %d (gap %v) the buffer copy is %.40q, want %.40q or none", p.TextDocument.Version, d.Gap, text, want(p.TextDocument.Version))
		}
		mu.Lock()
		followed++
		if d.Gap {
			gaps++
		}
		if ok {
			exact++
		}
		mu.Unlock()
	}
	c := lsptest.Proxied(lspproxy.Config{QueueSize: 16, DrainTimeout: 10 * time.Second, Observer: obs}).Connect(t)
	var sent int64 // document events the editor sent
	send := func(method string, params string) {
		c.Editor.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params))
		c.Server.Recv(t)
		sent++
	}
	insert := func(v int, text string) {
		send("textDocument/didChange", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":%q}]}`, uri, v, text))
	}
	// drained waits until every event sent was queued or dropped (the
	// server may receive a message before the proxy queues its event),
	// the queue is empty and the observer has followed what it was given.
	drained := func() {
		for {
			s := c.Proxy.Stats()
			mu.Lock()
			done := s.Observed+s.Dropped >= sent && s.Queued == 0 && int64(followed) == s.Observed
			mu.Unlock()
			if done {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}

	send("textDocument/didOpen", fmt.Sprintf(`{"textDocument":{"uri":%q,"languageId":"go","version":0,"text":""}}`, uri))
	for v := 1; v <= n; v++ {
		insert(v, "x")
	}
	if s := c.Proxy.Stats(); s.Dropped == 0 {
		t.Fatalf("stats %+v: nothing dropped, the test does not test a gap", s)
	}
	close(block)
	drained()

	// The next change after the drops arrives flagged: the copy is
	// discarded and the document is partial.
	insert(n+1, "x")
	drained()
	if text, ok := g.buffers.get("a.go"); ok {
		t.Errorf("after the gap the buffer copy is %.40q, want it discarded", text)
	}
	var fb freshness.Block
	g.buffers.lostReasons(&fb)
	if !fb.Partial || len(fb.Reasons) != 1 || !strings.Contains(fb.Reasons[0], "edits to a.go were dropped under load") {
		t.Errorf("freshness with a lost buffer: %+v, want partial naming a.go", fb)
	}
	// Incremental changes are not applied to nothing; the whole text
	// brings the buffer back, and later changes apply to it.
	send("textDocument/didChange", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"text":"full"}]}`, uri, n+2))
	insert(n+3, "y")
	drained()
	if text, ok := g.buffers.get("a.go"); !ok || string(text) != "yfull" {
		t.Errorf("after the whole text and one more change the buffer copy is %q (%v), want \"yfull\"", text, ok)
	}
	if lost := g.buffers.lostPaths(); len(lost) != 0 {
		t.Errorf("lost buffers after the whole text came: %v", lost)
	}
	mu.Lock()
	defer mu.Unlock()
	if gaps < 1 || exact < 3 {
		t.Errorf("%d events followed, %d flagged as gaps, %d left the exact text; want a gap and at least the open, the whole text and the last change exact", followed, gaps, exact)
	}
}

// TestResync: what the adapter and the buffers follow after a gap.
func TestResync(t *testing.T) {
	root := t.TempDir()
	uri := fileURI(filepath.Join(root, "a.go"))
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := func(method, params string, gap bool) lspproxy.DocumentEvent {
		return lspproxy.DocumentEvent{Method: method, Params: json.RawMessage(params), Encoding: textpos.UTF16, Gap: gap, Time: time.Now()}
	}
	methods := func(evs []lspproxy.DocumentEvent) string {
		var out []string
		for _, e := range evs {
			out = append(out, strings.TrimPrefix(e.Method, "textDocument/")+" "+string(e.Params))
		}
		return strings.Join(out, "\n")
	}
	b := newBuffers(root)
	change := fmt.Sprintf(`{"textDocument":{"uri":%q,"version":3},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"a"},{"text":"whole"},{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"b"}]}`, uri)
	for _, tc := range []struct {
		name string
		in   lspproxy.DocumentEvent
		want string
		lost bool
	}{
		{"no gap", ev("textDocument/didChange", change, false), "didChange " + change, false},
		{"gap, whole text inside", ev("textDocument/didChange", change, true), fmt.Sprintf(`didClose {"textDocument":{"uri":%q}}
didOpen {"textDocument":{"text":"whole","uri":%q,"version":3}}
didChange {"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"b"}],"textDocument":{"uri":%q,"version":3}}`, uri, uri, uri), false},
		{"gap, incremental only", ev("textDocument/didChange", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":4},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"a"}]}`, uri), true),
			fmt.Sprintf(`didClose {"textDocument":{"uri":%q}}`, uri), true},
		{"lost, incremental", ev("textDocument/didChange", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":5},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"a"}]}`, uri), false),
			"", true},
		{"lost, saved before the file was written again", lspproxy.DocumentEvent{Method: "textDocument/didSave", Params: json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%q}}`, uri)), Time: time.Now().Add(-time.Hour)},
			fmt.Sprintf(`didSave {"textDocument":{"uri":%q}}`, uri), true},
		{"lost, saved", ev("textDocument/didSave", fmt.Sprintf(`{"textDocument":{"uri":%q}}`, uri), false),
			fmt.Sprintf(`didClose {"textDocument":{"uri":%q}}
didOpen {"textDocument":{"text":"package a\n","uri":%q}}
didSave {"textDocument":{"uri":%[1]q}}`, uri, uri), false},
		{"gap again", ev("textDocument/didChange", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":6},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"a"}]}`, uri), true),
			fmt.Sprintf(`didClose {"textDocument":{"uri":%q}}`, uri), true},
		{"lost, saved with text", ev("textDocument/didSave", fmt.Sprintf(`{"textDocument":{"uri":%q},"text":"saved"}`, uri), false),
			fmt.Sprintf(`didClose {"textDocument":{"uri":%q}}
didOpen {"textDocument":{"text":"saved","uri":%q}}
didSave {"textDocument":{"uri":%[1]q},"text":"saved"}`, uri, uri), false},
		// The proxy's report of events lost with none after them (a
		// dropped didClose): the buffer is closed, the file answers.
		{"lost last events", ev(lspproxy.MethodDocumentGap, fmt.Sprintf(`{"textDocument":{"uri":%q}}`, uri), true),
			fmt.Sprintf(`didClose {"textDocument":{"uri":%q}}`, uri), true},
	} {
		if got := methods(b.resync(tc.in)); got != tc.want {
			t.Errorf("%s: resync gives\n%s\nwant\n%s", tc.name, got, tc.want)
		}
		if got := b.isLost(uri); got != tc.lost {
			t.Errorf("%s: lost = %v, want %v", tc.name, got, tc.lost)
		}
	}
}
