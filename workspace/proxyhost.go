package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
)

// NewProxyHost returns the host of a proxy fronting the server named
// server: its store is storeDir ("" for the workspace's default), and
// defaultRoot gives the root when the editor names none. Join it with the
// root, give it the proxy (SetProxy), and wire its Commands, Status,
// Observer and Lenses into the proxy's configuration.
func NewProxyHost(log *slog.Logger, storeDir, server string, defaultRoot func() string) *ProxyHost {
	return &ProxyHost{log: log, storeFlag: storeDir, server: server, defaultRoot: defaultRoot, joined: make(chan struct{})}
}

// SetProxy gives the host the proxy it serves.
func (h *ProxyHost) SetProxy(p *lspproxy.Proxy) {
	h.mu.Lock()
	h.proxy = p
	h.mu.Unlock()
}

// ProxyHost connects a proxy (lspproxy) to its workspace's session: it joins the
// session once the root is known (from --root, else the editor's
// initialize) and routes the proxy's observations and commands to it.
type ProxyHost struct {
	log         *slog.Logger
	storeFlag   string
	server      string
	defaultRoot func() string

	mu     sync.Mutex
	member *Member
	proxy  *lspproxy.Proxy
	// joined is closed once member is set: the observer sets it when the
	// editor's initialize passes, which may be just after the editor's
	// first command.
	joined     chan struct{}
	joinedOnce sync.Once
}

// join joins the session of root; later calls do nothing.
func (h *ProxyHost) Join(root string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.member != nil {
		return
	}
	dir := ""
	if h.storeFlag != "" {
		dir, _ = filepath.Abs(h.storeFlag)
	}
	h.member = Join(MemberOptions{
		Root: root, StoreDir: dir, Logger: h.log, ServerName: h.server, Server: editorServer{h},
	})
	h.joinedOnce.Do(func() { close(h.joined) })
}

// ready returns the member, or why there is none yet.
func (h *ProxyHost) ready() (*Member, error) {
	select {
	case <-h.joined: // once joined, every observation: no timer
	default:
		t := time.NewTimer(2 * time.Second)
		select {
		case <-h.joined:
		case <-t.C:
		}
		t.Stop()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.member == nil {
		return nil, errors.New("the graph store is not open yet (it opens when the editor initializes the workspace)")
	}
	return h.member, nil
}

func (h *ProxyHost) Close() {
	h.mu.Lock()
	m := h.member
	h.mu.Unlock()
	if m != nil {
		if err := m.Close(); err != nil {
			h.log.Error("leaving the workspace session", "err", err)
		}
	}
}

func (h *ProxyHost) Status(ctx context.Context) (any, error) {
	m, err := h.ready()
	if err != nil {
		return nil, err
	}
	return m.Status(ctx)
}

// commands is the lspgraph.* table the proxy answers (lspgraph.status is
// built into the proxy); the session answers each (Session.Command).
func (h *ProxyHost) Commands() map[string]lspproxy.CommandFunc {
	out := map[string]lspproxy.CommandFunc{}
	for _, name := range CommandNames() {
		if name == CommandStatus {
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
func (h *ProxyHost) Lenses(ctx context.Context, uri string) ([]json.RawMessage, error) {
	m, err := h.ready()
	if err != nil {
		return nil, err
	}
	arg, err := json.Marshal(LensesRequest{URI: uri})
	if err != nil {
		return nil, err
	}
	res, err := m.Command(ctx, CommandLenses, []json.RawMessage{arg}, nil, h.encoding())
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
func (h *ProxyHost) encoding() textpos.Encoding {
	h.mu.Lock()
	p := h.proxy
	h.mu.Unlock()
	if p == nil {
		return textpos.UTF16
	}
	return p.Session().Encoding
}

// editorServer is the proxy's live server as a session sees it.
type editorServer struct{ h *ProxyHost }

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

// Name is the server's command name (for reports).
func (s editorServer) Name() string { return s.h.server }

// observer connects the proxy's observations to the session. It runs on
// the proxy's observer goroutine, never on the forwarding path.
func (h *ProxyHost) Observer() lspproxy.Observer {
	return lspproxy.Observer{
		OnInitialize: func(s lspproxy.Session) {
			root, ok := lspwire.URIPath(s.RootURI)
			if !ok || root == "" {
				root = h.defaultRoot()
			}
			h.Join(root) // no-op when --root was given
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
