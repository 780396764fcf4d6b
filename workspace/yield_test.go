package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// idleServer is a language server that is ready and answers nothing.
type idleServer struct{}

func (idleServer) Request(context.Context, string, any) (json.RawMessage, error) {
	return nil, errors.New("not asked in this test")
}
func (idleServer) Ready() bool                { return true }
func (idleServer) Encoding() textpos.Encoding { return textpos.UTF16 }

// TestHeadlessSessionYields: a session opened with Yield tells its
// clients so and calls Yield once, however many ask; one without refuses;
// a proxy's member with a language server takes a yielding session over
// (its owner closes on Yield) and owns the store, its server the
// session's; a member without a server attaches instead.
func TestHeadlessSessionYields(t *testing.T) {
	ctx := context.Background()
	dir, root := importFixture(t, "goapp", "goapp.scip")

	plain := openSession(t, root, dir)
	ln, err := plain.Listen()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(ctx, dir, "cli", "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Yields() {
		t.Error("a session without Yield says it yields")
	}
	if err := c.Yield(ctx); err == nil || !strings.Contains(err.Error(), "serves its own language server") {
		t.Errorf("Yield of a session without Yield: %v", err)
	}
	c.Close()
	ln.Close()
	plain.Close()

	var yields atomic.Int32
	var headless *Session
	var hln *Listener
	closed := make(chan struct{})
	headless, err = Open(Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler), Yield: func(int) {
		yields.Add(1)
		hln.Close()
		headless.Close()
		close(closed)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer headless.Close()
	if hln, err = headless.Listen(); err != nil {
		t.Fatal(err)
	}
	// A member with no server (a proxy whose server did not start) and
	// the command line attach: neither asks it to yield.
	attached := Join(MemberOptions{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler)})
	if st := memberStatus(t, attached); st.Role != "attached" {
		t.Errorf("a member without a server: role %q; want attached", st.Role)
	}
	if yields.Load() != 0 {
		t.Fatal("a member without a server made the session yield")
	}
	// Gone before the next one joins: it would take the store over too
	// once the headless session closes, and might get there first.
	attached.Close()

	m := Join(MemberOptions{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler), Server: idleServer{}, ServerName: "idle"})
	defer m.Close()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("the headless session did not yield to a member with a server")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := memberStatus(t, m)
		if st.Role == "owner" && st.Session.Server {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the member did not take the session over: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := yields.Load(); n != 1 {
		t.Errorf("Yield called %d times; want once", n)
	}
}

// memberStatus returns a member's status once it has tried to join.
func memberStatus(t *testing.T, m *Member) MemberStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := res.(MemberStatus)
	if !ok {
		t.Fatalf("member status %T", res)
	}
	return st
}
