package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
)

// MemberOptions configure Join.
type MemberOptions struct {
	Root     string // absolute workspace root
	StoreDir string // empty: the default store of Root
	Logger   *slog.Logger
	// ServerName names the proxy's language server (for status).
	ServerName string
	// Server is the proxy's live server; an owning member's session
	// verifies with it.
	Server Server
}

// maxPendingExchanges bounds the observations a member keeps while it has
// no session (between an owner's exit and the takeover); older ones are
// dropped first.
const maxPendingExchanges = 4096

// Member is one proxy's place in its workspace's session. The first proxy
// of a workspace owns the session: it opens the store and serves the
// session on its socket. Every later one attaches to that session: its
// observations and its editor's buffers go there, and its commands are
// answered there. When the owner exits or dies, each attached member
// takes the store over or attaches to whichever member did, and replays
// its editor's open buffers and the observations the old owner did not
// confirm, so nothing is lost. A store busy with something else (an
// import from the command line) is retried with backoff.
type Member struct {
	opts MemberOptions
	log  *slog.Logger
	// buffers is this member's own copy of its editor's open buffers,
	// replayed to each session it joins.
	buffers *buffers

	mu      sync.Mutex
	own     *Session
	ln      *Listener
	remote  *Client
	err     error // why there is no session right now
	pending []lspproxy.Exchange
	closed  bool

	wake chan struct{} // a lost connection or Close
	done chan struct{} // the join loop has ended
	// tried is closed after the first attempt to join, successful or not:
	// commands sent while the proxy starts wait for it.
	tried     chan struct{}
	triedOnce sync.Once
	// up is closed while the member is in a session; a new one replaces
	// it when the session is lost. Under mu.
	up chan struct{}
	// sendMu keeps events in order across reconnects.
	sendMu sync.Mutex
}

// errTakingOver marks a join that waits for a headless session to close,
// to take the store over.
var errTakingOver = errors.New("taking the session over")

// Join starts joining the workspace's session in the background and
// returns at once; commands say why while there is none.
func Join(opts MemberOptions) *Member {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.StoreDir == "" {
		if d, err := graph.DefaultDir(opts.Root); err == nil {
			opts.StoreDir = d
		}
	}
	m := &Member{
		opts:    opts,
		log:     opts.Logger,
		buffers: newBuffers(opts.Root),
		err:     errors.New("the graph store is opening"),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		tried:   make(chan struct{}),
		up:      make(chan struct{}),
	}
	go m.loop()
	return m
}

// loop keeps the member in a session until Close.
func (m *Member) loop() {
	defer close(m.done)
	backoff := 50 * time.Millisecond
	for {
		m.mu.Lock()
		closed, remote, own := m.closed, m.remote, m.own
		m.mu.Unlock()
		if closed {
			return
		}
		switch {
		case own != nil:
			<-m.wake // until Close
			continue
		case remote != nil:
			select {
			case <-remote.Done():
				m.log.Warn("the workspace session ended; taking over", "session_pid", remote.PID())
				m.mu.Lock()
				m.remote = nil
				m.err = errors.New("the workspace session ended; reconnecting")
				m.up = make(chan struct{})
				m.mu.Unlock()
				backoff = 50 * time.Millisecond
			case <-m.wake:
			}
			continue
		}
		err := m.join()
		m.triedOnce.Do(func() { close(m.tried) })
		if err != nil {
			m.mu.Lock()
			m.err = err
			m.mu.Unlock()
			if errors.Is(err, errTakingOver) {
				m.log.Info("taking the workspace session over", "reason", err, "in", backoff)
			} else {
				m.log.Warn("graph store unavailable; forwarding only until it is free (retrying)", "err", err, "in", backoff)
			}
			select {
			case <-time.After(backoff):
			case <-m.wake:
			}
			backoff = min(2*backoff, 2*time.Second)
			continue
		}
		backoff = 50 * time.Millisecond
	}
}

// join attaches to the running session, or opens the store and becomes
// the session, then replays what this member holds.
func (m *Member) join() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, m.opts.StoreDir, "proxy", m.opts.ServerName)
	if err == nil && c.Yields() && m.opts.Server != nil {
		// A headless session (an agent's lspgraph mcp): this editor's
		// language server should verify its answers, so the store is
		// taken over once its owner has closed it.
		err := c.Yield(ctx)
		c.Close()
		if err != nil {
			return fmt.Errorf("asking the headless session of pid %d to give way: %w", c.PID(), err)
		}
		return fmt.Errorf("%w: the headless session of pid %d gives way to this editor's language server", errTakingOver, c.PID())
	}
	if err == nil {
		if err := m.replay(ctx, func(x lspproxy.Exchange) error { return c.Exchange(ctx, x) }, func(d lspproxy.DocumentEvent) error { return c.Document(ctx, d) }); err != nil {
			c.Close()
			return fmt.Errorf("replaying to the session: %w", err)
		}
		m.mu.Lock()
		m.remote, m.err = c, nil
		close(m.up)
		m.mu.Unlock()
		m.log.Info("attached to the workspace session", "session_pid", c.PID())
		return nil
	}
	if !errors.Is(err, ErrNoSession) {
		return err
	}
	s, err := Open(Options{Root: m.opts.Root, StoreDir: m.opts.StoreDir, Logger: m.log, Background: true, Watch: true})
	if err != nil {
		if errors.Is(err, graph.ErrLocked) {
			return fmt.Errorf("%w; lspgraph commands answer once it is free (retrying)", err)
		}
		return err
	}
	if m.opts.Server != nil {
		s.SetServer(m.opts.Server)
	}
	ln, err := s.Listen()
	if err != nil {
		// Still a session for this editor; other clients cannot reach it.
		m.log.Error("serving the session to other clients", "err", err)
	}
	_ = m.replay(ctx, func(x lspproxy.Exchange) error { s.Exchange(ctx, x); return nil }, func(d lspproxy.DocumentEvent) error { s.Document(d); return nil })
	m.mu.Lock()
	m.own, m.ln, m.err = s, ln, nil
	close(m.up)
	m.mu.Unlock()
	return nil
}

// replay sends a new session the observations not yet confirmed and the
// member's open buffers, each as a didOpen with its whole text.
func (m *Member) replay(ctx context.Context, exchange func(lspproxy.Exchange) error, document func(lspproxy.DocumentEvent) error) error {
	m.sendMu.Lock()
	defer m.sendMu.Unlock()
	m.mu.Lock()
	pending := m.pending
	m.mu.Unlock()
	for i, x := range pending {
		if err := exchange(x); err != nil {
			m.mu.Lock()
			m.pending = pending[i:]
			m.mu.Unlock()
			return err
		}
	}
	m.mu.Lock()
	m.pending = m.pending[len(pending):]
	m.mu.Unlock()
	for _, b := range m.buffers.open() {
		params, _ := json.Marshal(map[string]any{"textDocument": map[string]any{
			"uri": lspwire.FileURI(filepath.Join(m.opts.Root, filepath.FromSlash(b.path))), "text": string(b.text),
		}})
		if err := document(lspproxy.DocumentEvent{Method: "textDocument/didOpen", Params: params, Time: time.Now()}); err != nil {
			return err
		}
	}
	return nil
}

// Exchange hands an observation to the session; without one it is kept
// for the next.
func (m *Member) Exchange(ctx context.Context, x lspproxy.Exchange) {
	m.sendMu.Lock()
	defer m.sendMu.Unlock()
	m.mu.Lock()
	own, remote := m.own, m.remote
	m.mu.Unlock()
	switch {
	case own != nil:
		own.Exchange(ctx, x)
		return
	case remote != nil:
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := remote.Exchange(cctx, x)
		cancel()
		if err == nil {
			return
		}
		m.lost(remote, err)
	}
	// x's raw JSON is the proxy's until this returns (see
	// lspproxy.Observer): what waits for a session is a copy.
	x.Params, x.Result, x.Error = bytes.Clone(x.Params), bytes.Clone(x.Result), bytes.Clone(x.Error)
	m.mu.Lock()
	m.pending = append(m.pending, x)
	if n := len(m.pending) - maxPendingExchanges; n > 0 {
		m.pending = m.pending[n:]
	}
	m.mu.Unlock()
}

// Document follows an editor notification in the member's copy of the
// buffers and hands it to the session; a session joined later gets the
// buffers' whole text instead.
func (m *Member) Document(ctx context.Context, d lspproxy.DocumentEvent) {
	m.sendMu.Lock()
	defer m.sendMu.Unlock()
	for _, e := range m.buffers.resync(d) {
		_ = m.buffers.follow(e.Method, e.Params, e.Encoding, func(string, bufferEvent, []byte) {})
	}
	m.mu.Lock()
	own, remote := m.own, m.remote
	m.mu.Unlock()
	switch {
	case own != nil:
		own.Document(d)
	case remote != nil:
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := remote.Document(cctx, d)
		cancel()
		if err != nil {
			m.lost(remote, err)
		}
	}
}

// lost notes that the connection to a session failed.
func (m *Member) lost(c *Client, err error) {
	m.log.Warn("lost the workspace session", "err", err)
	c.Close()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// Command runs a command in the session. srv is the asking editor's live
// server and enc its encoding.
func (m *Member) Command(ctx context.Context, name string, args []json.RawMessage, srv lspproxy.Requester, enc textpos.Encoding) (any, error) {
	return m.command(ctx, name, args, srv, enc, true)
}

// command runs a command; retry asks the next session once when the
// current one goes away during the call.
func (m *Member) command(ctx context.Context, name string, args []json.RawMessage, srv lspproxy.Requester, enc textpos.Encoding, retry bool) (any, error) {
	m.waitTried(ctx)
	m.mu.Lock()
	own, remote, err := m.own, m.remote, m.err
	m.mu.Unlock()
	switch {
	case own != nil:
		return own.Command(ctx, name, Call{Args: args, Encoding: enc, Server: srv})
	case remote != nil:
		var raw json.RawMessage
		err := remote.Command(ctx, name, args, enc, &raw)
		if errors.Is(err, ErrSessionGone) && retry {
			// The owner went away under the call: ask whoever takes over.
			m.lost(remote, err)
			m.waitDown(ctx, remote)
			return m.command(ctx, name, args, srv, enc, false)
		}
		if err != nil {
			return nil, err
		}
		return raw, nil
	}
	if err == nil {
		err = errors.New("no workspace session right now (reconnecting)")
	}
	return nil, err
}

// waitDown waits until the member has let go of a lost session.
func (m *Member) waitDown(ctx context.Context, c *Client) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		m.mu.Lock()
		still := m.remote == c
		m.mu.Unlock()
		if !still {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitTried waits, up to a few seconds, until the member has tried to join
// its session once: a command sent right after initialize is answered
// rather than told the store is still opening.
func (m *Member) waitTried(ctx context.Context) {
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-m.tried:
	case <-ctx.Done():
		return
	case <-t.C:
		return
	}
	// Between sessions (the owner just exited), wait for the takeover.
	m.mu.Lock()
	up := m.up
	m.mu.Unlock()
	select {
	case <-up:
	case <-ctx.Done():
	case <-t.C:
	}
}

// MemberStatus is the session part of a proxy's lspgraph.status: the
// session's status, and whether this process owns it.
type MemberStatus struct {
	// Role is owner (this process holds the store and serves the
	// session) or attached (another process does).
	Role   string `json:"role"`
	Socket string `json:"socket,omitempty"`
	Status
}

// Status answers the session part of lspgraph.status.
func (m *Member) Status(ctx context.Context) (any, error) {
	m.waitTried(ctx)
	m.mu.Lock()
	own, remote, ln, err := m.own, m.remote, m.ln, m.err
	m.mu.Unlock()
	var out MemberStatus
	switch {
	case own != nil:
		out.Role = "owner"
		if ln != nil {
			out.Socket = ln.Path()
		}
		res, err := own.Command(ctx, CommandStatus, Call{})
		if err != nil {
			return nil, err
		}
		out.Status = res.(Status)
	case remote != nil:
		out.Role = "attached"
		if err := remote.Command(ctx, CommandStatus, nil, 0, &out.Status); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	return out, nil
}

// Close leaves the session: an owner stops serving it (attached members
// take over) and closes the store.
func (m *Member) Close() error {
	m.mu.Lock()
	m.closed = true
	own, ln, remote := m.own, m.ln, m.remote
	m.own, m.ln, m.remote = nil, nil, nil
	m.err = errors.New("the proxy is shutting down")
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
	<-m.done
	defer m.buffers.close()
	var errs []error
	if ln != nil {
		errs = append(errs, ln.Close())
	}
	if own != nil {
		errs = append(errs, own.Close())
	}
	if remote != nil {
		remote.Close()
	}
	return errors.Join(errs...)
}
