package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/workspace"
)

// elsewhere is the Asker of calls that do not go to the headless session:
// it counts them and answers nothing.
type elsewhere struct{ calls atomic.Int32 }

func (e *elsewhere) Ask(context.Context, string, string, any, any) error {
	e.calls.Add(1)
	return errors.New("asked elsewhere")
}

// TestHeadlessGivesWayAndComesBack: a headless session tells its clients
// it yields; asked to, it closes, and calls go elsewhere while another
// session (a proxy's) serves the store; once that one is gone the next
// call serves the session headless again; after Close, calls go
// elsewhere for good.
func TestHeadlessGivesWayAndComesBack(t *testing.T) {
	ctx := context.Background()
	root, dir := goappStore(t)
	var others elsewhere
	h, err := Headless(ctx, root, dir, &others, t.Logf)
	if err != nil || h == nil {
		t.Fatalf("Headless = %v, %v", h, err)
	}
	defer h.Close()
	var st workspace.Status
	ask := func(what string, want int32) {
		t.Helper()
		err := h.Ask(ctx, root, workspace.CommandStatus, nil, &st)
		if n := others.calls.Load(); n != want {
			t.Errorf("%s: %d calls elsewhere (%v); want %d", what, n, err, want)
		}
	}
	ask("headless", 0)
	c, err := workspace.Dial(ctx, dir, "proxy", "gopls")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Yields() {
		t.Fatal("the headless session does not say it yields")
	}
	if err := c.Yield(ctx); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// Given way, before the proxy has the store: a call goes elsewhere and
	// does not take the store back.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if !h.h.Serving() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the headless session did not close when asked to give way")
		}
	}
	ask("given way, no owner yet", 1)
	// The proxy takes the store once the headless session closed it.
	var proxy *workspace.Session
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if proxy, err = workspace.Open(workspace.Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler)}); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store stayed held after the headless session gave way: %v", err)
		}
	}
	ln, err := proxy.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ask("while the proxy serves the session", 2)
	ln.Close()
	proxy.Close()
	ask("the proxy gone", 2)
	if c, err := workspace.Dial(ctx, dir, "cli", ""); err != nil || !c.Yields() {
		t.Errorf("after the proxy: Dial = %v; want the headless session again", err)
	} else {
		c.Close()
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	ask("closed", 3)
}
