package workspace

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"golang.org/x/sys/unix"

	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
)

// The session socket's methods. Every client says hello first.
const (
	methodHello    = "session/hello"
	methodCommand  = "session/command"
	methodExchange = "session/exchange"
	methodDocument = "session/document"
	methodYield    = "session/yield"
)

// maxSocketPath is the longest socket path every Unix accepts (sun_path
// holds 104 bytes on the BSDs, 108 on Linux).
const maxSocketPath = 100

// SocketPath returns the session socket of a store: session.sock in the
// store's directory, or, when that path is too long for a socket, a file
// named by the directory's hash in a per-user directory under the
// temporary directory.
func SocketPath(storeDir string) string {
	p := filepath.Join(storeDir, "session.sock")
	if len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(filepath.Clean(storeDir)))
	return filepath.Join(os.TempDir(), "lspgraph-"+strconv.Itoa(os.Geteuid()), hex.EncodeToString(sum[:8])+".sock")
}

// ClientInfo describes a client attached to a session.
type ClientInfo struct {
	ID string `json:"id"`
	// Kind is what the client is: proxy, cli or mcp.
	Kind string `json:"kind"`
	PID  int    `json:"pid"`
	// Server is a proxy's language server command.
	Server string    `json:"server,omitempty"`
	Since  time.Time `json:"since"`
}

func sortClients(cs []ClientInfo) {
	slices.SortFunc(cs, func(a, b ClientInfo) int { return a.Since.Compare(b.Since) })
}

// hello is a client's first message, and the session's answer.
type hello struct {
	Client  ClientInfo `json:"client"`
	PID     int        `json:"pid"`
	Root    string     `json:"root"`
	Store   string     `json:"store"`
	Version string     `json:"version,omitempty"`
	// Yields says the session gives way to a proxy with a language
	// server (Options.Yield).
	Yields bool `json:"yields,omitempty"`
}

// commandParams is a command sent over the socket.
type commandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments,omitempty"`
	Encoding  textpos.Encoding  `json:"encoding,omitempty"`
}

// Listener serves a session on its socket.
type Listener struct {
	s    *Session
	path string
	ln   *net.UnixListener
	wg   sync.WaitGroup
	ids  atomic.Int64

	mu    sync.Mutex
	conns map[jsonrpc2.Conn]struct{}
	// running counts the commands under way on the connections: Close
	// lets them answer before it closes the connections. closing is set
	// first; a command asked after it is refused (codeClosing).
	running sync.WaitGroup
	closing bool
}

// codeClosing is the JSON-RPC error code of a command refused because the
// session is closing: the client reads it as ErrSessionGone.
const codeClosing jsonrpc2.Code = -32090

// Listen serves the session on its socket (SocketPath of its store) until
// Close. Only the process holding the store listens, so a socket file
// already there is a stale one from a process that died, and is replaced.
// The socket is mode 0600 in a 0700 directory, and every connection's peer
// must run as this user (SO_PEERCRED).
func (s *Session) Listen() (*Listener, error) {
	path := SocketPath(s.store.Dir())
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the socket directory: %w", err)
	}
	if err := os.Chmod(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("securing the socket directory: %w", err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing the stale session socket %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("securing the session socket: %w", err)
	}
	l := &Listener{s: s, path: path, ln: ln, conns: map[jsonrpc2.Conn]struct{}{}}
	l.wg.Add(1)
	go l.accept()
	s.log.Info("session listening", "socket", path)
	return l, nil
}

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

// Close stops accepting and removes the socket, cancels the session's
// commands under way and waits for them to answer (new ones are
// refused), then closes every connection (attached clients see the
// session end): the session is closing for good (its owner exits).
func (l *Listener) Close() error {
	l.s.cancelCommands()
	return l.drain()
}

// drain is Close letting the commands under way finish instead: a
// session giving way to an editor's proxy answers what it began (a
// command line's index through it commits).
func (l *Listener) drain() error {
	l.mu.Lock()
	l.closing = true
	l.mu.Unlock()
	err := l.ln.Close()
	l.running.Wait()
	l.mu.Lock()
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
	return err
}

func (l *Listener) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			return // closed
		}
		uid, pid, err := peerCred(c)
		if err != nil || uid != os.Geteuid() {
			l.s.log.Warn("refused a session client of another user", "uid", uid, "pid", pid, "err", err)
			c.Close()
			continue
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.serve(c, pid)
		}()
	}
}

// peerCred returns the uid and pid of a Unix socket's peer.
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if credErr != nil {
		return -1, 0, fmt.Errorf("reading the peer's credentials: %w", credErr)
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// serve answers one client until it disconnects. What a proxy client's
// editor had open is closed with it: its unsaved buffers go with it.
func (l *Listener) serve(nc net.Conn, pid int) {
	br := bufio.NewReader(nc)
	if prefix, err := br.Peek(len(askPrefix)); err == nil && string(prefix) == askPrefix {
		l.servePlain(nc, br, pid)
		nc.Close()
		return
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(bufferedConn{Conn: nc, r: br}))
	l.mu.Lock()
	l.conns[conn] = struct{}{}
	l.mu.Unlock()
	cl := &socketClient{l: l, id: "c" + strconv.FormatInt(l.ids.Add(1), 10), pid: pid, open: map[string]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	conn.Go(ctx, jsonrpc2.AsyncHandler(cl.handle))
	<-conn.Done()
	cancel()
	l.mu.Lock()
	delete(l.conns, conn)
	l.mu.Unlock()
	cl.gone()
}

// begin counts a command as under way on a connection, unless the
// listener is closing.
func (l *Listener) begin() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing {
		return false
	}
	l.running.Add(1)
	return true
}

// socketClient is one connection's state on the session side.
type socketClient struct {
	l   *Listener
	id  string
	pid int

	// documentMu keeps the client's document events in order, and open
	// its open documents' URIs.
	documentMu sync.Mutex
	open       map[string]bool
}

func (cl *socketClient) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	s := cl.l.s
	switch req.Method() {
	case methodHello:
		var h hello
		if err := json.Unmarshal(req.Params(), &h); err != nil {
			return reply(ctx, nil, fmt.Errorf("decoding hello: %w", err))
		}
		info := h.Client
		info.ID, info.PID, info.Since = cl.id, cl.pid, time.Now()
		s.mu.Lock()
		s.clients[cl.id] = info
		s.mu.Unlock()
		s.log.Info("session client attached", "kind", info.Kind, "pid", info.PID, "server", info.Server)
		return reply(ctx, hello{Client: info, PID: os.Getpid(), Root: s.root, Store: s.store.Dir(), Yields: s.yield != nil}, nil)
	case methodYield:
		if s.yield == nil {
			return reply(ctx, nil, errors.New("this session serves its own language server: attach to it"))
		}
		err := reply(ctx, nil, nil)
		if s.yielded.CompareAndSwap(false, true) {
			s.log.Info("session giving way to a proxy with a language server", "pid", cl.pid)
			go s.yield(cl.pid)
		}
		return err
	case methodCommand:
		if !cl.l.begin() {
			return reply(ctx, nil, jsonrpc2.NewError(codeClosing, errClosing.Error()))
		}
		defer cl.l.running.Done()
		var p commandParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, fmt.Errorf("decoding a command: %w", err))
		}
		res, err := s.Command(ctx, p.Command, Call{Args: p.Arguments, Encoding: p.Encoding})
		if err != nil {
			return reply(ctx, nil, err)
		}
		// Encoded here with encoding/json, as every command-line answer
		// is: the transport's encoder writes some types differently.
		raw, ok := res.(json.RawMessage)
		if !ok {
			if raw, err = json.Marshal(res); err != nil {
				return reply(ctx, nil, fmt.Errorf("encoding the answer to %s: %w", p.Command, err))
			}
		}
		return reply(ctx, raw, nil)
	case methodExchange:
		var x lspproxy.Exchange
		if err := json.Unmarshal(req.Params(), &x); err != nil {
			return reply(ctx, nil, fmt.Errorf("decoding an observation: %w", err))
		}
		s.Exchange(ctx, x)
		return reply(ctx, nil, nil)
	case methodDocument:
		var d lspproxy.DocumentEvent
		if err := json.Unmarshal(req.Params(), &d); err != nil {
			return reply(ctx, nil, fmt.Errorf("decoding a document event: %w", err))
		}
		cl.document(d)
		return reply(ctx, nil, nil)
	}
	return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
}

// document follows a client's document event and notes what it has open.
func (cl *socketClient) document(d lspproxy.DocumentEvent) {
	cl.documentMu.Lock()
	defer cl.documentMu.Unlock()
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(d.Params, &p) == nil && p.TextDocument.URI != "" {
		switch d.Method {
		case "textDocument/didOpen":
			cl.open[p.TextDocument.URI] = true
		case "textDocument/didClose":
			delete(cl.open, p.TextDocument.URI)
		}
	}
	cl.l.s.Document(d)
}

// gone forgets a disconnected client: its documents are closed.
func (cl *socketClient) gone() {
	s := cl.l.s
	s.mu.Lock()
	info, ok := s.clients[cl.id]
	delete(s.clients, cl.id)
	s.mu.Unlock()
	cl.documentMu.Lock()
	uris := make([]string, 0, len(cl.open))
	for u := range cl.open {
		uris = append(uris, u)
	}
	cl.open = map[string]bool{}
	cl.documentMu.Unlock()
	slices.Sort(uris)
	for _, u := range uris {
		params, _ := json.Marshal(map[string]any{"textDocument": map[string]string{"uri": u}})
		s.Document(lspproxy.DocumentEvent{Method: "textDocument/didClose", Params: params, Time: time.Now()})
	}
	if ok {
		s.log.Info("session client left", "kind", info.Kind, "pid", info.PID, "closed", len(uris))
	}
}
