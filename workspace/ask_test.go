package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/graph"
)

// TestAsk: a plain request on the session socket answers like the
// JSON-RPC one; a command's error comes back as its message; with no
// session, Ask says so.
func TestAsk(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	ctx := context.Background()
	if _, _, err := Ask(ctx, dir, "cli", CommandStatus, nil, 0); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Ask with no session: %v; want ErrNoSession", err)
	}
	s := openSession(t, root, dir)
	ln, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	raw, _, err := Ask(ctx, dir, "cli", CommandImpact, []json.RawMessage{json.RawMessage(`"Catalog.Save"`)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(ctx, dir, "cli", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var viaRPC json.RawMessage
	if err := c.Command(ctx, CommandImpact, []json.RawMessage{json.RawMessage(`"Catalog.Save"`)}, 0, &viaRPC); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := json.Compact(&a, raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&b, viaRPC); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() || !strings.Contains(a.String(), "Catalog.Import") {
		t.Errorf("plain and JSON-RPC answers differ or lack Catalog.Import:\n%.300s\n%.300s", raw, viaRPC)
	}
	_, pid, err := Ask(ctx, dir, "cli", CommandImpact, []json.RawMessage{json.RawMessage(`"NoSuchSymbolAnywhere"`)}, 0)
	if err == nil || !strings.Contains(err.Error(), "NoSuchSymbolAnywhere") || pid == 0 {
		t.Errorf("Ask for an unknown symbol: %v (pid %d); want the command's error naming it", err, pid)
	}
}

// TestStatusOfHeldStore: a store held by a session that does not serve yet
// (as one a command line with LSPGRAPH_SERVE=auto started does, for a
// moment) is waited for, and the status is the session's once it serves;
// a store held by a process that never serves it is an error saying so,
// after a while.
func TestStatusOfHeldStore(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(t.TempDir(), "store")
	holder := openSession(t, root, dir)
	listening := make(chan *Listener, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		ln, err := holder.Listen()
		if err != nil {
			t.Error(err)
		}
		listening <- ln
	}()
	st, served, err := StatusOf(ctx, dir, root)
	if ln := <-listening; ln != nil {
		defer ln.Close()
	}
	if err != nil || !served || st.Session.PID != os.Getpid() {
		t.Errorf("status of a store whose session serves after 300 ms: served %v, pid %d, %v; want the session's (pid %d)", served, st.Session.PID, err, os.Getpid())
	}

	other := filepath.Join(t.TempDir(), "store")
	s, err := graph.Open(other, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	if _, _, err := StatusOf(ctx, other, root); !errors.Is(err, graph.ErrLocked) || !strings.Contains(err.Error(), "serves no session") {
		t.Errorf("status of a store held and never served: %v; want graph.ErrLocked, saying it serves no session", err)
	}
	if waited := time.Since(start); waited < holderWait {
		t.Errorf("gave up on a held store after %v, want %v", waited, holderWait)
	}
}
