package lsptest

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/lspproxy"
)

// Connection is a fake editor and a fake server, joined directly or
// through a proxy.
type Connection struct {
	Editor *Endpoint
	Server *Endpoint
	// Proxy is nil for a direct connection.
	Proxy *lspproxy.Proxy
	// done receives Serve's result (proxied connections only).
	done chan error
}

// Connector makes a Connection; cleanup is registered on t.
type Connector struct {
	Name    string
	Connect func(t testing.TB) *Connection
}

// Direct joins editor and server with one in-memory pipe.
func Direct() Connector {
	return Connector{Name: "direct", Connect: func(t testing.TB) *Connection {
		a, b := net.Pipe()
		c := &Connection{Editor: NewEndpoint("editor", a), Server: NewEndpoint("server", b)}
		t.Cleanup(func() { a.Close(); b.Close() })
		return c
	}}
}

// Proxied joins editor and server through a proxy built from cfg.
func Proxied(cfg lspproxy.Config) Connector {
	return Connector{Name: "proxied", Connect: func(t testing.TB) *Connection {
		editor, proxyEditor := net.Pipe()
		proxyServer, server := net.Pipe()
		p := lspproxy.New(cfg)
		c := &Connection{
			Editor: NewEndpoint("editor", editor),
			Server: NewEndpoint("server", server),
			Proxy:  p,
			done:   make(chan error, 1),
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { c.done <- p.Serve(ctx, proxyEditor, proxyServer) }()
		t.Cleanup(func() {
			cancel()
			editor.Close()
			server.Close()
			select {
			case <-c.done:
			case <-time.After(Timeout):
				t.Errorf("proxy did not stop within %v of its context being cancelled", Timeout)
			}
		})
		return c
	}}
}

// Both returns the direct and the proxied connector, in that order.
func Both(cfg lspproxy.Config) []Connector { return []Connector{Direct(), Proxied(cfg)} }

// Wait returns Serve's result, failing the test if the proxy does not stop
// within d. For a direct connection it returns nil at once.
func (c *Connection) Wait(t testing.TB, d time.Duration) error {
	t.Helper()
	if c.done == nil {
		return nil
	}
	select {
	case err := <-c.done:
		c.done <- err // keep it for cleanup
		return err
	case <-time.After(d):
		t.Fatalf("proxy did not stop within %v", d)
		return nil
	}
}
