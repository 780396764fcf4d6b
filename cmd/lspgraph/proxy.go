package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/workspace"
)

// runProxy runs in front of a language server: stdio towards the editor,
// the server as a child process. Logs go to --log or stderr; stdout is the
// LSP channel.
func runProxy(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "proxy", "proxy [--store DIR] [--root DIR] [--log FILE] -- SERVER [ARGS...]")
	storeFlag := fs.String("store", "", "graph store `DIR` (default: the workspace's store in the user cache)")
	rootFlag := fs.String("root", "", "workspace root `DIR` (default: the editor's root, else the git top level of the current directory)")
	lensesFlag := fs.Bool("lenses", true, "add blast-radius code lenses (callers, tests, risk) to the server's")
	logFile := fs.String("log", "", "append the proxy's log and the server's stderr to `FILE` (default: stderr)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	server := fs.Args()
	if len(server) == 0 {
		return fmt.Errorf("%w: name the language server after --, e.g. lspgraph proxy -- gopls", errUsage)
	}
	logw := e.stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("opening the log: %w", err)
		}
		defer f.Close()
		logw = f
	}
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: proxyLogLevel(e)})).With("pid", os.Getpid())

	st := &proxyHost{log: log, storeFlag: *storeFlag, server: filepath.Base(server[0]), joined: make(chan struct{})}
	if *rootFlag != "" {
		root, err := filepath.Abs(*rootFlag)
		if err != nil {
			return fmt.Errorf("resolving --root %s: %w", *rootFlag, err)
		}
		st.join(root)
	}
	defer st.close()

	cmd := exec.Command(server[0], server[1:]...)
	cmd.Stderr = logw
	if *rootFlag != "" {
		cmd.Dir = *rootFlag
	}
	proc, err := lspproxy.StartServer(cmd)
	if err != nil {
		return err
	}
	var lenses lspproxy.LensesFunc
	if *lensesFlag {
		lenses = st.lenses
	}
	p := lspproxy.New(lspproxy.Config{
		Lenses:     lenses,
		ServerName: filepath.Base(server[0]),
		Commands:   st.commands(),
		Status:     st.status,
		Observer:   st.observer(),
		Logger:     log,
		StartGated: answersBeforeLoad(server),
	})
	st.mu.Lock()
	st.proxy = p
	st.mu.Unlock()
	log.Info("proxy started", "server", strings.Join(server, " "), "server_pid", proc.Pid())
	err = p.ServeProcess(ctx, stdio{e.stdin, e.stdout}, proc)
	if err != nil {
		log.Error("proxy ended", "err", err)
	} else {
		log.Info("proxy ended")
	}
	return err
}

// answersBeforeLoad reports whether the server command is one known to
// answer from a syntax-only view until its project has loaded
// (typescript-language-server, also when started through node or npx).
func answersBeforeLoad(server []string) bool {
	for _, a := range server {
		if strings.Contains(filepath.Base(a), "typescript-language-server") {
			return true
		}
	}
	return false
}

// stdio is the editor's end: our stdin and stdout.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// proxyLogLevel is the proxy's log level: warnings and errors by default
// (editors show the server's stderr lines as errors), more with
// LSPGRAPH_LOG=info or debug.
func proxyLogLevel(e *env) slog.Level {
	switch strings.ToLower(e.getenv("LSPGRAPH_LOG")) {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	case "error":
		return slog.LevelError
	}
	return slog.LevelWarn
}

// proxyHost connects a proxy to its workspace's session: it joins the
// session once the root is known (from --root, else the editor's
// initialize) and routes the proxy's observations and commands to it.
type proxyHost struct {
	log       *slog.Logger
	storeFlag string
	server    string

	mu     sync.Mutex
	member *workspace.Member
	proxy  *lspproxy.Proxy
	// joined is closed once member is set: the observer sets it when the
	// editor's initialize passes, which may be just after the editor's
	// first command.
	joined     chan struct{}
	joinedOnce sync.Once
}

// join joins the session of root; later calls do nothing.
func (h *proxyHost) join(root string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.member != nil {
		return
	}
	dir := ""
	if h.storeFlag != "" {
		dir, _ = filepath.Abs(h.storeFlag)
	}
	h.member = workspace.Join(workspace.MemberOptions{
		Root: root, StoreDir: dir, Logger: h.log, ServerName: h.server, Server: editorServer{h},
	})
	h.joinedOnce.Do(func() { close(h.joined) })
}

// ready returns the member, or why there is none yet.
func (h *proxyHost) ready() (*workspace.Member, error) {
	t := time.NewTimer(2 * time.Second)
	select {
	case <-h.joined:
	case <-t.C:
	}
	t.Stop()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.member == nil {
		return nil, errors.New("the graph store is not open yet (it opens when the editor initializes the workspace)")
	}
	return h.member, nil
}

func (h *proxyHost) close() {
	h.mu.Lock()
	m := h.member
	h.mu.Unlock()
	if m != nil {
		if err := m.Close(); err != nil {
			h.log.Error("leaving the workspace session", "err", err)
		}
	}
}

func (h *proxyHost) status(ctx context.Context) (any, error) {
	m, err := h.ready()
	if err != nil {
		return nil, err
	}
	return m.Status(ctx)
}

// commands is the lspgraph.* table the proxy answers (lspgraph.status is
// built into the proxy); the session answers each (workspace.Session.Command).
func (h *proxyHost) commands() map[string]lspproxy.CommandFunc {
	out := map[string]lspproxy.CommandFunc{}
	for _, name := range workspace.CommandNames() {
		if name == workspace.CommandStatus {
			continue
		}
		out[name] = func(ctx context.Context, args []json.RawMessage, srv lspproxy.Requester) (any, error) {
			m, err := h.ready()
			if err != nil {
				return nil, err
			}
			res, err := m.Command(ctx, name, args, srv, h.encoding())
			h.log.Debug("command answered", "command", name, "err", err)
			return res, err
		}
	}
	return out
}

// lenses computes a document's code lenses in the session.
func (h *proxyHost) lenses(ctx context.Context, uri string) ([]json.RawMessage, error) {
	m, err := h.ready()
	if err != nil {
		return nil, err
	}
	arg, err := json.Marshal(workspace.LensesRequest{URI: uri})
	if err != nil {
		return nil, err
	}
	res, err := m.Command(ctx, workspace.CommandLenses, []json.RawMessage{arg}, nil, h.encoding())
	if err != nil {
		return nil, err
	}
	raw, ok := res.(json.RawMessage)
	if !ok {
		if raw, err = json.Marshal(res); err != nil {
			return nil, err
		}
	}
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("lenses answer: %w", err)
	}
	return out, nil
}

// encoding is the negotiated position encoding (UTF-16 until initialize).
func (h *proxyHost) encoding() textpos.Encoding {
	h.mu.Lock()
	p := h.proxy
	h.mu.Unlock()
	if p == nil {
		return textpos.UTF16
	}
	return p.Session().Encoding
}

// editorServer is the proxy's live server as a session sees it.
type editorServer struct{ h *proxyHost }

func (s editorServer) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s.h.mu.Lock()
	p := s.h.proxy
	s.h.mu.Unlock()
	if p == nil {
		return nil, lspproxy.ErrNotInitialized
	}
	return p.Request(ctx, method, params)
}

// Ready reports whether the server has been initialized by the editor and
// answers from complete knowledge (see lspproxy.Proxy readiness).
func (s editorServer) Ready() bool {
	s.h.mu.Lock()
	p := s.h.proxy
	s.h.mu.Unlock()
	if p == nil {
		return false
	}
	st := p.Status()
	return st.Initialized && st.ServerReady
}

func (s editorServer) Encoding() textpos.Encoding { return s.h.encoding() }

// observer connects the proxy's observations to the session. It runs on
// the proxy's observer goroutine, never on the forwarding path.
func (h *proxyHost) observer() lspproxy.Observer {
	return lspproxy.Observer{
		OnInitialize: func(s lspproxy.Session) {
			root, ok := lspwire.URIPath(s.RootURI)
			if !ok || root == "" {
				root = defaultRoot()
			}
			h.join(root) // no-op when --root was given
			h.log.Info("session", "root", s.RootURI, "encoding", s.Encoding.String(), "server", s.ServerName)
		},
		OnExchange: func(x lspproxy.Exchange) {
			if m, err := h.ready(); err == nil {
				m.Exchange(context.Background(), x)
			}
		},
		OnDocument: func(d lspproxy.DocumentEvent) {
			if m, err := h.ready(); err == nil {
				m.Document(context.Background(), d)
			}
		},
	}
}
