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

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/ingest"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/resolve"
)

// runProxy runs in front of a language server: stdio towards the editor,
// the server as a child process. Logs go to --log or stderr; stdout is the
// LSP channel.
func runProxy(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "proxy", "proxy [--store DIR] [--root DIR] [--log FILE] -- SERVER [ARGS...]")
	storeFlag := fs.String("store", "", "graph store `DIR` (default: the workspace's store in the user cache)")
	rootFlag := fs.String("root", "", "workspace root `DIR` (default: the editor's root, else the git top level of the current directory)")
	logFile := fs.String("log", "", "append the proxy's log and the server's stderr to `FILE` (default: stderr)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	server := fs.Args()
	if len(server) == 0 {
		fs.Usage()
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
	log := slog.New(slog.NewTextHandler(logw, nil)).With("pid", os.Getpid())

	st := &proxyState{log: log, storeFlag: *storeFlag}
	if *rootFlag != "" {
		root, err := filepath.Abs(*rootFlag)
		if err != nil {
			return fmt.Errorf("resolving --root %s: %w", *rootFlag, err)
		}
		st.open(root)
	}
	defer st.close()

	cmd := exec.Command(server[0], server[1:]...)
	cmd.Stderr = logw
	if st.root != "" {
		cmd.Dir = st.root
	}
	proc, err := lspproxy.StartServer(cmd)
	if err != nil {
		return err
	}
	p := lspproxy.New(lspproxy.Config{
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

// proxyState is the graph side of a proxy session: the store (or why it
// could not be opened) and the adapter writing observations into it.
type proxyState struct {
	log       *slog.Logger
	storeFlag string

	mu       sync.Mutex
	root     string
	store    *graph.Store
	storeErr error
	live     *ingest.Live
	proxy    *lspproxy.Proxy
}

// open opens the store of root. A store that cannot be opened leaves the
// proxy forwarding normally; its commands then say why.
func (st *proxyState) open(root string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.root != "" {
		return
	}
	st.root = root
	dir, err := storeDir(st.storeFlag, root)
	if err == nil {
		st.store, err = graph.Open(dir, graph.Options{})
	}
	switch {
	case errors.Is(err, graph.ErrLocked):
		st.storeErr = fmt.Errorf("%w; lspgraph commands are off in this window (close the other one or start this proxy with --store)", err)
	case errors.Is(err, graph.ErrSchema):
		st.storeErr = fmt.Errorf("%w; rebuild it with `lspgraph scip import` or `lspgraph index`", err)
	case err != nil:
		st.storeErr = fmt.Errorf("opening the graph store %s: %w", dir, err)
	}
	if st.storeErr != nil {
		st.log.Error("graph store unavailable; forwarding only", "err", st.storeErr)
		return
	}
	st.live = ingest.New(st.store, ingest.Options{Root: root, HashContent: freshness.HashContent, Logger: st.log})
	st.log.Info("graph store open", "store", st.store.Dir(), "root", root)
}

func (st *proxyState) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.store != nil {
		if err := st.store.Close(); err != nil {
			st.log.Error("closing the graph store", "err", err)
		}
		st.store, st.live = nil, nil
	}
}

// ready returns the store and adapter, or why there are none.
func (st *proxyState) ready() (*graph.Store, *ingest.Live, string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case st.storeErr != nil:
		return nil, nil, "", st.storeErr
	case st.store == nil:
		return nil, nil, "", errors.New("the graph store is not open yet (it opens when the editor initializes the workspace)")
	}
	return st.store, st.live, st.root, nil
}

// storeStatus is the graph part of lspgraph.status.
type storeStatus struct {
	Store         string        `json:"store"`
	Root          string        `json:"root"`
	Schema        int           `json:"schema"`
	Layers        []layerStatus `json:"layers"`
	LiveDocuments int           `json:"liveDocuments"`
	Observations  ingest.Stats  `json:"observations"`
}

func (st *proxyState) status(ctx context.Context) (any, error) {
	s, live, root, err := st.ready()
	if err != nil {
		return nil, err
	}
	r, err := s.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading the graph store %s: %w", s.Dir(), err)
	}
	defer r.Close()
	out := storeStatus{Store: s.Dir(), Root: root, Schema: graph.SchemaVersion, LiveDocuments: len(r.LiveDocuments()), Observations: live.Stats()}
	for _, l := range []graph.Layer{graph.Base, graph.Live} {
		m, ok, err := r.Manifest(l)
		if err != nil {
			return nil, err
		}
		if ok {
			out.Layers = append(out.Layers, toLayerStatus(m))
		}
	}
	return out, nil
}

// commands is the lspgraph.* table the proxy answers (lspgraph.status is
// built into the proxy). Each takes one argument: a target string (symbol
// name, FILE:LINE:COL, or a symbol string) or an editor position
// {"textDocument":{"uri":…},"position":{…}}.
func (st *proxyState) commands() map[string]lspproxy.CommandFunc {
	return map[string]lspproxy.CommandFunc{
		"lspgraph.impact": func(ctx context.Context, args []json.RawMessage, _ lspproxy.Requester) (any, error) {
			r, root, target, done, err := st.query(ctx, args)
			if err != nil {
				return nil, err
			}
			defer done()
			o := impact.DefaultOptions()
			fb, err := freshness.Compute(ctx, r, root)
			if err != nil {
				return nil, err
			}
			o.Freshness = &fb
			return impact.Compute(ctx, r, target, o)
		},
		"lspgraph.context": func(ctx context.Context, args []json.RawMessage, _ lspproxy.Requester) (any, error) {
			r, root, target, done, err := st.query(ctx, args)
			if err != nil {
				return nil, err
			}
			defer done()
			return buildContext(ctx, r, root, target.ID, contextpack.DefaultBudget, "closure")
		},
	}
}

// query opens a reader and resolves the command's target.
func (st *proxyState) query(ctx context.Context, args []json.RawMessage) (*graph.Reader, string, graph.Symbol, func(), error) {
	s, _, root, err := st.ready()
	if err != nil {
		return nil, "", graph.Symbol{}, nil, err
	}
	if len(args) != 1 {
		return nil, "", graph.Symbol{}, nil, fmt.Errorf("want one argument (a target or an editor position), got %d", len(args))
	}
	spec, err := st.targetSpec(args[0])
	if err != nil {
		return nil, "", graph.Symbol{}, nil, err
	}
	r, err := s.Reader()
	if err != nil {
		return nil, "", graph.Symbol{}, nil, fmt.Errorf("reading the graph store %s: %w", s.Dir(), err)
	}
	target, err := resolve.ResolveIn(ctx, r, root, spec)
	if err != nil {
		r.Close()
		return nil, "", graph.Symbol{}, nil, err
	}
	return r, root, target, func() { r.Close() }, nil
}

// targetSpec turns a command argument into a resolve spec: strings pass
// through; an editor position becomes ABSPATH:LINE:COL (1-based, UTF-8 bytes)
// converted from the negotiated encoding.
func (st *proxyState) targetSpec(arg json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(arg, &s) == nil {
		return s, nil
	}
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Position *struct {
			Line      uint32 `json:"line"`
			Character uint32 `json:"character"`
		} `json:"position"`
	}
	if err := json.Unmarshal(arg, &p); err != nil || p.Position == nil || p.TextDocument.URI == "" {
		return "", fmt.Errorf("argument %s is neither a target string nor {textDocument, position}", arg)
	}
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return "", err
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	enc := textpos.UTF16
	st.mu.Lock()
	if st.proxy != nil {
		enc = st.proxy.Session().Encoding
	}
	st.mu.Unlock()
	pos, err := textpos.NewMapper(text).FromColumn(p.Position.Line, p.Position.Character, enc)
	if err != nil {
		return "", err
	}
	return path + ":" + pos.String(), nil
}
