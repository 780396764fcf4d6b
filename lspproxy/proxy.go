package lspproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config is what a [Proxy] is built from. Only the zero value's defaults
// noted below apply; nothing is read from the environment.
type Config struct {
	// ServerName names the real server in messages to the editor and in
	// logs ("gopls").
	ServerName string
	// Commands are answered by the proxy when the editor sends
	// workspace/executeCommand with their name. Names must start with
	// [CommandPrefix]; lspgraph.status is built in (see Status).
	Commands map[string]CommandFunc
	// Status, when set, adds to lspgraph.status's answer (store state,
	// layers). Its error is reported in the answer, not as a failure.
	Status func(ctx context.Context) (any, error)
	// Lenses, when set, computes the proxy's code lenses for a document.
	// They are appended to the server's textDocument/codeLens answer when
	// ready within LensBudget, or at once the cached lenses of the same
	// text are (the editor is sent workspace/codeLens/refresh when the
	// new ones differ, if it supports it); a
	// server without codeLensProvider gets one advertised and the proxy
	// answers textDocument/codeLens itself. codeLens/resolve for the
	// proxy's lenses (data.lspgraph) is answered with the lens unchanged.
	// The editor turns them off with initializationOptions
	// {"lspgraph.lenses": false}.
	Lenses LensesFunc
	// LensBudget bounds how long the server's codeLens answer may wait
	// for the proxy's lenses, from the request (default 200ms).
	LensBudget time.Duration
	// Observer receives observations through a bounded queue.
	Observer Observer
	// QueueSize bounds the observation queue (default 4096).
	QueueSize int
	// Logger receives the proxy's log; nil discards it. Never stdout.
	Logger *slog.Logger
	// ExitTimeout bounds the wait for the server to exit after the
	// editor's exit notification or disconnection before it is killed
	// (default 5s).
	ExitTimeout time.Duration
	// ShutdownTimeout bounds the wait for the server's answer to the
	// editor's shutdown request (default 3s). Past it the proxy answers
	// shutdown itself with a null result, as a server would, and stops
	// the server: its input is closed and after ExitTimeout it is killed
	// (a connection is closed). The server's late answer is dropped; the
	// editor's exit then ends Serve as after an orderly shutdown.
	ShutdownTimeout time.Duration
	// CancelGrace is how long the server has to answer a request the
	// editor cancelled before the proxy answers it with RequestCancelled
	// itself (default 5s).
	CancelGrace time.Duration
	// StartGated says the server is known to answer from partial
	// knowledge until its project has loaded (typescript-language-server):
	// readiness gating starts with the session instead of at the server's
	// $/typescriptVersion, which arrives too late for requests the editor
	// sends right after initialize.
	StartGated bool
	// DrainTimeout bounds how long Serve waits, at the end, for the
	// Observer to work through the queue (default 2s); the rest is counted
	// as dropped.
	DrainTimeout time.Duration
}

// CommandPrefix starts the name of every command the proxy answers itself.
const CommandPrefix = "lspgraph."

// StatusCommand is the built-in status command.
const StatusCommand = "lspgraph.status"

// ownIDPrefix starts the raw id token of every request the proxy sends on
// its own behalf. Editor requests whose id falls in this namespace are
// refused, so responses can never be routed to the wrong side.
const ownIDPrefix = `"lspgraph-`

// Proxy forwards LSP messages between one editor and one language server.
// A Proxy serves one session: call [Proxy.Serve] or [Proxy.ServeProcess]
// once.
//
// # Readiness
//
// Some servers answer early requests from partial knowledge:
// typescript-language-server routes definition and references to a
// syntax-only tsserver while the project loads, so a definition then points
// at the import line. The proxy treats a server as gated from the start
// when [Config.StartGated] says so, and otherwise once it sends
// $/typescriptVersion. A gated server is ready when no progress it created
// with window/workDoneProgress/create is open (created or begun, not yet
// ended) and, since gating began, either such a progress has ended or the
// server published diagnostics (which tsserver's semantic server produces
// only once the project is loaded; this covers clients without work-done
// progress support). An exchange with a gated server is [Exchange.Premature]
// when the server was not ready when the request was forwarded or when its
// answer arrived. Servers that never gate are always ready.
type Proxy struct {
	// The fields the forwarding loops use for every message come first,
	// side by side: on a machine where the editor and the server run
	// between two messages, each cache line the proxy touches to forward
	// one is likely cold.
	editorMu sync.Mutex
	editorW  frameWriter
	serverMu sync.Mutex
	serverW  frameWriter
	// registering is set while the editor loop registers a request it
	// already forwarded (see forwardCall, takePending).
	registering atomic.Bool
	// readyNow is ready.isReady(), read without mu (see readinessChanged).
	readyNow atomic.Bool
	// serverDown is set when serverGone is closed.
	serverDown atomic.Bool
	counters   counters

	cfg   Config
	log   *slog.Logger
	start time.Time
	queue chan observation
	// hurry shortens the observer's wait (see drainUntil): a document
	// event was queued, or the queue is filling up.
	hurry chan struct{}
	calls sync.Pool // recycled *pendingCall (see Proxy.recycle)
	// early holds server frames that came while registering (see
	// takePending). Guarded by mu.
	early []frame
	pacer pacer // the observer's clock, from Serve on
	// deadlines runs the cancels' grace and the shutdown's timeout, from
	// Serve on.
	deadlines *deadlines
	// lostDocs holds the URIs of documents whose events were dropped since
	// the last one queued (editor loop only; see observeDocument).
	lostDocs map[string]struct{}

	// serverGone is closed when the server connection has ended, for
	// whatever reason; serverErr (under mu) then says why, unless the
	// editor had asked it to exit.
	serverGone chan struct{}
	// exitSeen is closed when the editor sent exit.
	exitSeen chan struct{}

	mu       sync.Mutex
	pending  pendingTable                  // editor requests awaiting the server
	own      map[string]chan ownResponse   // the proxy's requests awaiting the server
	running  map[string]context.CancelFunc // lspgraph.* commands by editor id
	ready    readiness
	session  Session
	haveInit bool // the server answered initialize
	initDone bool // the editor sent initialized
	exitSent bool
	// lensesOff: the editor turned the proxy's lenses off. ownLenses:
	// the server has no codeLensProvider, so the proxy answers codeLens.
	lensesOff bool
	ownLenses bool
	// lensRefresh: the editor supports workspace/codeLens/refresh.
	lensRefresh bool
	lenses      lensCache
	stopping    bool // Serve is ending the server; its end is expected
	serverErr   error
	proc        *ServerProcess
	nextID      int64

	// server is the server connection (under mu). shutdownLapsed says the
	// proxy answered the editor's shutdown itself because the server did
	// not; stopped is closed once the server it then stopped has ended.
	server         io.ReadWriteCloser
	shutdownLapsed bool
	stopped        chan struct{}
}

// pendingCall is an editor request forwarded to the server.
type pendingCall struct {
	method string
	// id is the raw id token, also the request's key in pending.
	id string
	// observed is active for observed methods when there is an Observer
	// for exchanges.
	observed  observedCall
	premature bool
	cancelled bool
	// reusable is set with the answer (under mu) when nothing else can
	// hold the request: see Proxy.recycle.
	reusable bool
	// routedEarly is set (under mu) when answers came while the request
	// was registered (see forwardCall): the editor loop routes them.
	routedEarly bool
	lens        *lensJob // the proxy's lenses for a textDocument/codeLens
}

// New returns a proxy for one session.
func New(cfg Config) *Proxy {
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 4096
	}
	if cfg.ExitTimeout <= 0 {
		cfg.ExitTimeout = 5 * time.Second
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 3 * time.Second
	}
	if cfg.CancelGrace <= 0 {
		cfg.CancelGrace = 5 * time.Second
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = 2 * time.Second
	}
	if cfg.LensBudget <= 0 {
		cfg.LensBudget = 200 * time.Millisecond
	}
	if cfg.ServerName == "" {
		cfg.ServerName = "language server"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Proxy{
		cfg:        cfg,
		log:        log,
		start:      time.Now(),
		queue:      make(chan observation, cfg.QueueSize),
		hurry:      make(chan struct{}, 1),
		lostDocs:   make(map[string]struct{}),
		serverGone: make(chan struct{}),
		exitSeen:   make(chan struct{}),
		own:        make(map[string]chan ownResponse),
		running:    make(map[string]context.CancelFunc),
		lenses:     lensCache{edits: make(map[string]uint64), entries: make(map[string]lensEntry), running: make(map[string]*lensRun)},
	}
	p.ready.gated = cfg.StartGated
	p.readinessChanged()
	return p
}

// ErrServerExited is wrapped by the error Serve returns when the server
// ended before the editor asked it to exit.
var ErrServerExited = errors.New("language server exited unexpectedly")

// errEditorGone is returned when the editor disconnected without exit.
var errEditorGone = errors.New("lspproxy: editor closed the connection without sending exit")

// Serve forwards between editor and server until the editor sends exit
// (and the server has ended, or been closed after ExitTimeout), the editor
// disconnects, or ctx is done. It closes both connections before
// returning. The error is nil only after an orderly shutdown and exit.
func (p *Proxy) Serve(ctx context.Context, editor, server io.ReadWriteCloser) error {
	return p.serve(ctx, editor, server, nil)
}

func (p *Proxy) serve(ctx context.Context, editor, server io.ReadWriteCloser, proc *ServerProcess) error {
	p.mu.Lock()
	p.server, p.proc = server, proc
	p.mu.Unlock()
	p.editorW = frameWriter{w: editor}
	p.serverW = frameWriter{w: server}

	abandon := make(chan struct{})
	stopDrain := make(chan struct{})
	drained := make(chan struct{})
	p.pacer = newPacer()
	defer p.pacer.close()
	p.deadlines = newDeadlines()
	defer p.deadlines.close()
	go func() {
		defer close(drained)
		observerThread()
		p.drainUntil(stopDrain, abandon)
	}()

	editorEnded := make(chan error, 1)
	go func() { editorEnded <- p.editorLoop(newFrameReader(editor)) }()
	go p.serverLoop(newFrameReader(server))

	var editorErr error
	editorDone := false
	select {
	case <-ctx.Done():
	case <-p.exitSeen:
	case editorErr = <-editorEnded:
		editorDone = true
	case <-p.serverGone:
		// The server ended first. Wait for the editor to exit or leave.
		select {
		case <-ctx.Done():
		case <-p.exitSeen:
		case editorErr = <-editorEnded:
			editorDone = true
		}
	}

	p.mu.Lock()
	p.stopping = true
	stopped := p.stopped
	p.mu.Unlock()
	var status error
	if stopped != nil {
		// The proxy is already stopping a server that did not answer
		// shutdown; how that server ends is no failure of the session.
		<-stopped
	} else {
		status = p.stopServer(server, proc)
	}
	editor.Close()

	close(stopDrain)
	p.pacer.arm(0) // a wait under way ends now
	select {
	case <-drained:
	case <-time.After(p.cfg.DrainTimeout):
		p.log.Warn("observer did not finish in time; dropping the rest of its queue", "queued", len(p.queue))
		close(abandon)
		<-drained
	}

	p.mu.Lock()
	serverErr := p.serverErr
	exited := p.exitSent
	p.mu.Unlock()
	switch {
	case serverErr != nil:
		return serverErr
	case ctx.Err() != nil:
		return ctx.Err()
	case editorDone && editorErr != nil && !errors.Is(editorErr, io.EOF):
		return editorErr
	case !exited:
		return errEditorGone
	case status != nil:
		return fmt.Errorf("lspproxy: %s after exit: %w", p.cfg.ServerName, status)
	}
	return nil
}

// The observer goroutine is paced rather than woken per message, and never
// in the moment right after an answer went to the editor, when the editor
// and the server need the CPU. A document event waits documentTick (the
// overlay follows the editor's text closely); answers to requests wait
// exchangeTick while no document event hurries them: each wake of an idle
// thread costs a process far more than the delivery it makes (over 1,800
// definition round trips against gopls, the proxy used 1.6× a frame
// copier's CPU when woken every 10 ms, 1.4× every 50 ms and 1.2× without
// an observer; `perf stat`, `lspgraph bench proxy`).
//
// The wait is on a kernel timer the runtime's poller waits for (see
// newPacer), not on a runtime timer: while a runtime timer is
// pending, every wait of the process's threads for input arms a kernel
// timer, and the proxy waits for input after every message. Under a burst
// of requests the observer's timer was always pending: the proxy's CPU per
// round trip went from 1.13-1.15× a bare copier's without an observer to
// 1.28-1.33× with one that did nothing.
const (
	documentTick = 10 * time.Millisecond
	exchangeTick = 100 * time.Millisecond
)

// hurryObserver shortens the observer's wait to documentTick; it never
// blocks.
func (p *Proxy) hurryObserver() {
	select {
	case p.hurry <- struct{}{}:
		if p.pacer != nil { // nil before Serve
			p.pacer.arm(documentTick)
		}
	default:
	}
}

// drainUntil runs the Observer until stop is closed and the queue is empty.
// Idle, it blocks on the queue. Woken, it waits a tick (documentTick when
// hurried or woken by anything but an exchange, else exchangeTick) before
// delivering, then delivers everything queued, and keeps going tick by
// tick until a tick brings nothing new.
func (p *Proxy) drainUntil(stop, abandon <-chan struct{}) {
	flush := func() int {
		n := 0
		for {
			select {
			case o := <-p.queue:
				p.deliver(o, abandon)
				n++
			default:
				return n
			}
		}
	}
	// wait waits d, or documentTick from a hurry (hurryObserver arms the
	// pacer too); true when stop closed.
	wait := func(d time.Duration) bool {
		p.pacer.arm(d)
		select {
		case <-p.hurry:
			if d > documentTick {
				p.pacer.arm(documentTick)
			}
		default:
		}
		p.pacer.wait()
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	for {
		var first observation
		select {
		case first = <-p.queue:
		case <-stop:
			flush()
			return
		}
		d := exchangeTick
		if first.call == nil {
			d = documentTick
		}
		for busy := true; busy; d = exchangeTick {
			stopped := wait(d)
			if first != (observation{}) {
				p.deliver(first, abandon)
				first = observation{}
			}
			busy = flush() > 0 // more came meanwhile: keep pacing
			if stopped {
				return
			}
		}
	}
}

// stopServer ends the server: after exit it waits for the server to leave
// on its own; otherwise it closes the server's input first. After
// ExitTimeout the process is killed (or the connection closed; at once
// unless exit was sent or shutdown lapsed). It returns the process's exit
// error, if any.
func (p *Proxy) stopServer(server io.ReadWriteCloser, proc *ServerProcess) error {
	p.mu.Lock()
	exited := p.exitSent
	lapsed := p.shutdownLapsed
	p.mu.Unlock()
	if proc != nil {
		if !exited {
			proc.CloseInput()
		}
		err, ok := proc.waitTimeout(p.cfg.ExitTimeout)
		if !ok {
			p.log.Warn("language server did not exit in time; killing it", "server", p.cfg.ServerName, "pid", proc.Pid(), "timeout", p.cfg.ExitTimeout)
			proc.kill()
			err, _ = proc.waitTimeout(p.cfg.ExitTimeout)
		}
		server.Close()
		<-p.serverGone
		return err
	}
	if exited || lapsed {
		select {
		case <-p.serverGone:
		case <-time.After(p.cfg.ExitTimeout):
		}
	}
	server.Close()
	<-p.serverGone
	return nil
}

// writeEditor sends one frame to the editor.
func (p *Proxy) writeEditor(body []byte) { p.toEditor(body, false) }

// writeEditorWire forwards one frame as read (header and body) to the
// editor.
func (p *Proxy) writeEditorWire(wire []byte) { p.toEditor(wire, true) }

func (p *Proxy) toEditor(b []byte, wire bool) {
	p.editorMu.Lock()
	err := p.editorW.write(b, wire)
	p.editorMu.Unlock()
	if err != nil {
		p.log.Debug("writing to the editor", "err", err)
	}
}

// writeServer sends one frame to the server.
func (p *Proxy) writeServer(body []byte) error { return p.toServer(body, false) }

// writeServerWire forwards one frame as read (header and body) to the
// server.
func (p *Proxy) writeServerWire(wire []byte) error { return p.toServer(wire, true) }

func (p *Proxy) toServer(b []byte, wire bool) error {
	p.serverMu.Lock()
	err := p.serverW.write(b, wire)
	p.serverMu.Unlock()
	return err
}

// commandNames lists the commands the proxy answers, sorted.
func (p *Proxy) commandNames() []string {
	names := []string{StatusCommand}
	for name := range p.cfg.Commands {
		if name != StatusCommand {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// Stats returns the proxy's counters.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	s := Stats{
		PendingEditor:   p.pending.len(),
		PendingProxy:    len(p.own),
		PendingCommands: len(p.running),
	}
	p.mu.Unlock()
	s.FromEditor = p.counters.fromEditor.Load()
	s.FromServer = p.counters.fromServer.Load()
	s.Malformed = p.counters.malformed.Load()
	s.Observed = p.counters.observed.Load()
	s.Dropped = p.counters.dropped.Load()
	s.Queued = len(p.queue)
	return s
}

// Session returns what initialize negotiated so far.
func (p *Proxy) Session() Session {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.session
	s.WorkspaceFolders = append([]string(nil), s.WorkspaceFolders...)
	return s
}

// isOwnID reports whether a raw id lies in the proxy's namespace.
func isOwnID(id []byte) bool { return strings.HasPrefix(string(id), ownIDPrefix) }

// closeServerGone marks the server connection ended.
func (p *Proxy) closeServerGone() {
	p.serverDown.Store(true)
	close(p.serverGone)
}
