package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
)

// ErrNoSession is returned by Dial when no session serves the store.
var ErrNoSession = errors.New("no running lspgraph session for this store")

// Client is a connection to a running session.
type Client struct {
	conn   jsonrpc2.Conn
	remote hello
}

// Dial connects to the session serving the store in storeDir, as a client
// of the given kind ("cli", "proxy", "mcp"; server names a proxy's
// language server). It returns an error wrapping ErrNoSession when nothing
// listens there (no socket, or a stale one), and refuses a socket whose
// owner runs as another user.
func Dial(ctx context.Context, storeDir, kind, server string) (*Client, error) {
	path := SocketPath(storeDir)
	d := net.Dialer{Timeout: 2 * time.Second}
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
			return nil, fmt.Errorf("%w (%s)", ErrNoSession, path)
		}
		return nil, fmt.Errorf("connecting to the session at %s: %w", path, err)
	}
	uc := nc.(*net.UnixConn)
	if uid, pid, err := peerCred(uc); err != nil || uid != os.Geteuid() {
		nc.Close()
		return nil, fmt.Errorf("the session socket %s belongs to another user (uid %d, pid %d): refusing it", path, uid, pid)
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(nc))
	conn.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
	c := &Client{conn: conn}
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	hctx, stop := whileOpen(hctx, conn)
	defer stop()
	if _, err := conn.Call(hctx, methodHello, hello{Client: ClientInfo{Kind: kind, Server: server}, PID: os.Getpid()}, &c.remote); err != nil {
		conn.Close()
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("the session at %s did not answer: %w", path, err)
		}
		return nil, fmt.Errorf("%w: %s answered hello with %v", ErrNoSession, path, err)
	}
	return c, nil
}

// Root is the session's workspace root.
func (c *Client) Root() string { return c.remote.Root }

// PID is the session's process id.
func (c *Client) PID() int { return c.remote.PID }

// Command runs a command in the session and decodes its result into out
// (a pointer; nil discards it). enc counts the columns of editor positions
// in args.
func (c *Client) Command(ctx context.Context, name string, args []json.RawMessage, enc textpos.Encoding, out any) error {
	cctx, stop := whileOpen(ctx, c.conn)
	defer stop()
	if rawOut, ok := out.(*json.RawMessage); ok {
		// The answer as the session encoded it, decoded once.
		if _, err := c.conn.Call(cctx, methodCommand, commandParams{Command: name, Arguments: args, Encoding: enc}, rawOut); err != nil {
			return c.callError(ctx, err)
		}
		return nil
	}
	var raw json.RawMessage
	if _, err := c.conn.Call(cctx, methodCommand, commandParams{Command: name, Arguments: args, Encoding: enc}, &raw); err != nil {
		return c.callError(ctx, err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decoding the session's answer to %s: %w", name, err)
	}
	return nil
}

// Exchange sends an observed request/response pair to the session and
// waits until it is recorded.
func (c *Client) Exchange(ctx context.Context, x lspproxy.Exchange) error {
	cctx, stop := whileOpen(ctx, c.conn)
	defer stop()
	_, err := c.conn.Call(cctx, methodExchange, x, nil)
	return c.callError(ctx, err)
}

// Document sends an editor's text document notification to the session
// and waits until it is followed.
func (c *Client) Document(ctx context.Context, d lspproxy.DocumentEvent) error {
	cctx, stop := whileOpen(ctx, c.conn)
	defer stop()
	_, err := c.conn.Call(cctx, methodDocument, d, nil)
	return c.callError(ctx, err)
}

// Yields reports whether the session gives way to a proxy with a language
// server (a headless session: Options.Yield).
func (c *Client) Yields() bool { return c.remote.Yields }

// Yield asks a session that Yields to give way: its owner closes it, and
// the caller can take the store over.
func (c *Client) Yield(ctx context.Context) error {
	cctx, stop := whileOpen(ctx, c.conn)
	defer stop()
	_, err := c.conn.Call(cctx, methodYield, nil, nil)
	return c.callError(ctx, err)
}

// Done is closed when the connection ends (the session's process exited).
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// ErrSessionGone marks a call that failed because the session went away.
var ErrSessionGone = errors.New("the lspgraph session ended")

// callError tells a session's error answer (its message is the command's
// error) from a failed transport: any other error of a call on a
// connection whose caller has not given up means the session is gone (a
// write to a peer that died fails before the read side notices).
func (c *Client) callError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		if je.Code == codeClosing {
			return fmt.Errorf("%w: %s", ErrSessionGone, je.Message)
		}
		return errors.New(je.Message)
	}
	if ctx.Err() != nil {
		select {
		case <-c.conn.Done():
		default:
			return err // the caller gave up, the session is still there
		}
	}
	return fmt.Errorf("%w: %v", ErrSessionGone, err)
}

// whileOpen returns a context that ends with ctx or when conn closes: a
// call on a connection that died (its peer exited while accepting it)
// must not wait for an answer that cannot come.
func whileOpen(ctx context.Context, conn jsonrpc2.Conn) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-conn.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
