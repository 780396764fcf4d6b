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
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/ingest"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/overlay"
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
// could not be opened), the adapter writing observations into it, the
// overlay keeping its live layer in step with the work tree and the
// editor's buffers, and those buffers' text.
type proxyState struct {
	log       *slog.Logger
	storeFlag string

	mu       sync.Mutex
	root     string
	store    *graph.Store
	storeErr error
	live     *ingest.Live
	ov       *overlay.Overlay
	buffers  *editorBuffers
	proxy    *lspproxy.Proxy

	// liveMu serializes the adapter's calls: the observer's, and the
	// commands' that add what the live server told them.
	liveMu sync.Mutex

	// The overlay's background syncs: requests coalesce in syncReq; the
	// loop ends when syncStop is called and closes syncDone.
	syncReq  chan struct{}
	syncStop context.CancelFunc
	syncDone chan struct{}
	lastSync syncReport
}

// syncReport is the outcome of the overlay's last background sync.
type syncReport struct {
	At    time.Time         `json:"at"`
	Stats overlay.SyncStats `json:"stats"`
	Error string            `json:"error,omitempty"`
}

// open opens the store of root and starts the overlay, whose first sync
// runs in the background. A store that cannot be opened leaves the proxy
// forwarding normally; its commands then say why.
func (st *proxyState) open(root string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.root != "" {
		return
	}
	st.root = root
	st.buffers = newEditorBuffers(root)
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
	ov, err := overlay.New(st.store, overlay.Options{
		Root:      root,
		StatePath: filepath.Join(st.store.Dir(), overlay.StateFile),
		Logf:      func(format string, args ...any) { st.log.Warn(fmt.Sprintf(format, args...)) },
	})
	if err != nil {
		// The observations still go in; answers say what is stale.
		st.log.Error("overlay unavailable: the live layer follows the language server only", "err", err)
	} else {
		st.ov = ov
		ctx, stop := context.WithCancel(context.Background())
		st.syncReq, st.syncStop, st.syncDone = make(chan struct{}, 1), stop, make(chan struct{})
		go st.syncLoop(ctx, ov, st.syncReq, st.syncDone)
		st.syncReq <- struct{}{} // the first sync: the work tree since the base commit
	}
	st.log.Info("graph store open", "store", st.store.Dir(), "root", root)
}

// syncLoop runs the overlay's full syncs (work tree and buffers) off the
// forwarding path, one at a time, coalescing requests made meanwhile.
func (st *proxyState) syncLoop(ctx context.Context, ov *overlay.Overlay, req <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-req:
		}
		start := time.Now()
		stats, err := ov.Sync(ctx)
		rep := syncReport{At: start, Stats: stats}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			rep.Error = err.Error()
			st.log.Warn("overlay sync failed; answers may be stale (see their freshness)", "err", err)
		} else {
			st.log.Info("overlay synced", "changed", stats.Changed, "extracted", stats.Extracted, "live", stats.Live, "took", time.Since(start).Round(time.Millisecond))
		}
		st.mu.Lock()
		st.lastSync = rep
		st.mu.Unlock()
	}
}

// requestSync asks for a background overlay sync (after a save, whose file
// now differs from the base without being a dirty buffer).
func (st *proxyState) requestSync() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.syncReq == nil {
		return
	}
	select {
	case st.syncReq <- struct{}{}:
	default: // one is already due
	}
}

// close stops the overlay (a running sync is cancelled) and closes the
// store.
func (st *proxyState) close() {
	st.mu.Lock()
	s, live, ov, stop, done := st.store, st.live, st.ov, st.syncStop, st.syncDone
	st.store, st.live, st.ov, st.syncReq, st.syncStop = nil, nil, nil, nil, nil
	st.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	if live != nil {
		_ = live.Close()
	}
	if ov != nil {
		if err := ov.Close(); err != nil {
			st.log.Error("closing the overlay", "err", err)
		}
	}
	if s != nil {
		if err := s.Close(); err != nil {
			st.log.Error("closing the graph store", "err", err)
		}
	}
}

// graphSession is what the commands and the observer work with.
type graphSession struct {
	store   *graph.Store
	live    *ingest.Live
	ov      *overlay.Overlay // nil when the overlay could not start
	buffers *editorBuffers
	root    string
}

// ready returns the open store and its companions, or why there are none.
func (st *proxyState) ready() (graphSession, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case st.storeErr != nil:
		return graphSession{}, st.storeErr
	case st.store == nil && st.root != "":
		return graphSession{}, errors.New("the graph store is closed (the proxy is shutting down)")
	case st.store == nil:
		return graphSession{}, errors.New("the graph store is not open yet (it opens when the editor initializes the workspace)")
	}
	return graphSession{store: st.store, live: st.live, ov: st.ov, buffers: st.buffers, root: st.root}, nil
}

// storeStatus is the graph part of lspgraph.status.
type storeStatus struct {
	Store         string           `json:"store"`
	Root          string           `json:"root"`
	Schema        int              `json:"schema"`
	Layers        []layerStatus    `json:"layers"`
	LiveDocuments int              `json:"liveDocuments"`
	Observations  ingest.Stats     `json:"observations"`
	Overlay       *syncReport      `json:"overlay,omitempty"` // the last background sync
	Freshness     *freshness.Block `json:"freshness,omitempty"`
}

func (st *proxyState) status(ctx context.Context) (any, error) {
	g, err := st.ready()
	if err != nil {
		return nil, err
	}
	r, err := g.store.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading the graph store %s: %w", g.store.Dir(), err)
	}
	defer r.Close()
	out := storeStatus{Store: g.store.Dir(), Root: g.root, Schema: graph.SchemaVersion, LiveDocuments: len(r.LiveDocuments()), Observations: g.live.Stats()}
	for _, l := range []graph.Layer{graph.Base, graph.Live} {
		m, ok, err := r.Manifest(l)
		if err != nil {
			return nil, err
		}
		if ok {
			out.Layers = append(out.Layers, toLayerStatus(m))
		}
	}
	st.mu.Lock()
	if !st.lastSync.At.IsZero() {
		rep := st.lastSync
		out.Overlay = &rep
	}
	st.mu.Unlock()
	fb, err := g.freshness(ctx, r)
	if err != nil {
		return nil, err
	}
	out.Freshness = &fb
	return out, nil
}

// commands is the lspgraph.* table the proxy answers (lspgraph.status is
// built into the proxy). Before reading, each syncs the overlay (the work
// tree, and the buffer edits still waiting for the debounce), so answers
// describe what the editor shows; each answer's freshness block lists the
// dirty buffers.
//
//   - lspgraph.impact takes a target string (symbol name, FILE:LINE:COL or
//     a symbol string) or an editor position {"textDocument":{"uri":…},
//     "position":{…}} counted in the negotiated encoding. Before answering,
//     the d=1 set (also an empty one) is checked against the live server,
//     bounded in time (impact.Options.VerifyTimeout; on timeout the answer
//     says so and its d=1 is unverified, as it is while a server that
//     answers from a syntax-only view still loads); what the server knows and the
//     graph lacks is then written into the live layer. "verify": false
//     skips the check;
//   - lspgraph.context takes {symbol | textDocument+position, budget,
//     scope, format} (contextpack.Request), or a target string;
//   - lspgraph.changes takes nothing or {"base": REV}: the symbols touched
//     by `git diff REV` (default: the base layer's commit) and by the
//     unsaved buffers, with their combined impact.
func (st *proxyState) commands() map[string]lspproxy.CommandFunc {
	return map[string]lspproxy.CommandFunc{
		"lspgraph.impact": func(ctx context.Context, args []json.RawMessage, srv lspproxy.Requester) (any, error) {
			g, r, target, err := st.query(ctx, args)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			o := impact.DefaultOptions()
			fb, err := g.freshness(ctx, r)
			if err != nil {
				return nil, err
			}
			o.Freshness = &fb
			var rec *recordingRequester
			if srv != nil && wantsVerify(args[0]) {
				// Cross-check d=1 with the live server; what it knows and
				// the graph lacks is learned like any observed answer.
				rec = &recordingRequester{srv: srv, enc: st.encoding()}
				o.Verify = liveVerifier(rec, g.root, rec.enc, g.buffers.get)
				if !st.serverReady() {
					// Answers from a server still loading its project
					// (a syntax-only view) would mark real dependents
					// graph-only and imports live-only.
					o.Verify = func(context.Context, graph.Location) ([]graph.Location, error) {
						return nil, errors.New("the language server is still loading its project; ask again once it has loaded to check d=1 against it")
					}
				}
			}
			a, err := impact.Compute(ctx, r, target, o)
			if err == nil && rec != nil && len(a.LiveOnly) > 0 {
				st.learn(ctx, g, rec.answered())
			}
			return a, err
		},
		"lspgraph.context": func(ctx context.Context, args []json.RawMessage, _ lspproxy.Requester) (any, error) {
			return st.contextPack(ctx, args)
		},
		"lspgraph.changes": func(ctx context.Context, args []json.RawMessage, _ lspproxy.Requester) (any, error) {
			return st.changes(ctx, args)
		},
	}
}

// wantsVerify reports whether an lspgraph.impact argument asks for the d=1
// set to be checked against the live server: always, unless an argument
// object says "verify": false.
func wantsVerify(arg json.RawMessage) bool {
	var v struct {
		Verify *bool `json:"verify"`
	}
	if json.Unmarshal(arg, &v) != nil || v.Verify == nil {
		return true
	}
	return *v.Verify
}

// serverReady reports whether the language server answers from complete
// knowledge (see lspproxy.Proxy readiness); true before the proxy is set.
func (st *proxyState) serverReady() bool {
	st.mu.Lock()
	p := st.proxy
	st.mu.Unlock()
	return p == nil || p.Status().ServerReady
}

// encoding is the negotiated position encoding (UTF-16 until initialize).
func (st *proxyState) encoding() textpos.Encoding {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.proxy != nil {
		return st.proxy.Session().Encoding
	}
	return textpos.UTF16
}

// sync brings the live layer up to date before an answer: the work
// tree's changes since the base (a file changed outside the editor, a
// branch switched) and the buffer edits still waiting for the overlay's
// debounce. A failure leaves the answer to the facts as they are; the
// freshness block then names what is stale.
func (g graphSession) sync(ctx context.Context, log *slog.Logger) {
	if g.ov == nil {
		return
	}
	if _, err := g.ov.Sync(ctx); err != nil {
		log.Warn("bringing the live layer up to date before an answer", "err", err)
	}
}

// freshness computes the freshness block of r and lists the dirty buffers:
// those the live layer holds as buffers, those the overlay holds as
// buffers (also where the language server's facts answer for them), and
// open buffers whose text differs from the file.
func (g graphSession) freshness(ctx context.Context, r *graph.Reader) (freshness.Block, error) {
	fb, err := freshness.Compute(ctx, r, g.root)
	if err != nil {
		return fb, err
	}
	fb.Dirty = g.dirty(fb.Dirty)
	g.buffers.lostReasons(&fb)
	return fb, nil
}

// dirty adds to the buffers a freshness block lists as dirty those the
// overlay and the editor hold, sorted.
func (g graphSession) dirty(listed []string) []string {
	all := append([]string{}, listed...)
	if g.ov != nil {
		all = append(all, g.ov.Dirty()...)
	}
	all = append(all, g.buffers.dirty()...)
	slices.Sort(all)
	return slices.Compact(all)
}

// query syncs the overlay, opens a reader and resolves the command's
// target. The caller closes the reader.
func (st *proxyState) query(ctx context.Context, args []json.RawMessage) (graphSession, *graph.Reader, graph.Symbol, error) {
	g, err := st.ready()
	if err != nil {
		return g, nil, graph.Symbol{}, err
	}
	if len(args) != 1 {
		return g, nil, graph.Symbol{}, fmt.Errorf("want one argument (a target or an editor position), got %d", len(args))
	}
	spec, err := st.targetSpec(g, args[0])
	if err != nil {
		return g, nil, graph.Symbol{}, err
	}
	g.sync(ctx, st.log)
	r, err := g.store.Reader()
	if err != nil {
		return g, nil, graph.Symbol{}, fmt.Errorf("reading the graph store %s: %w", g.store.Dir(), err)
	}
	target, err := resolve.ResolveIn(ctx, r, g.root, spec)
	if err != nil {
		r.Close()
		return g, nil, graph.Symbol{}, err
	}
	return g, r, target, nil
}

// targetSpec turns a command argument into a resolve spec: strings pass
// through; an editor position becomes ABSPATH:LINE:COL (1-based, UTF-8 bytes)
// converted from the negotiated encoding against the text the editor
// shows (its unsaved buffer, else the file).
func (st *proxyState) targetSpec(g graphSession, arg json.RawMessage) (string, error) {
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
	text, ok := []byte(nil), false
	if rel, in := g.buffers.rel(p.TextDocument.URI); in {
		text, ok = g.buffers.get(rel)
	}
	if !ok {
		if text, err = os.ReadFile(path); err != nil {
			return "", fmt.Errorf("reading %s: %w", path, err)
		}
	}
	pos, err := textpos.NewMapper(text).FromColumn(p.Position.Line, p.Position.Character, st.encoding())
	if err != nil {
		return "", fmt.Errorf("position in %s: %w", path, err)
	}
	return path + ":" + pos.String(), nil
}

// contextPack answers lspgraph.context with contextpack.Handle: the
// editor's arguments as given, positions in the negotiated encoding, and
// the unsaved buffers as the source of snippets and positions.
func (st *proxyState) contextPack(ctx context.Context, args []json.RawMessage) (*contextpack.Answer, error) {
	g, err := st.ready()
	if err != nil {
		return nil, err
	}
	if len(args) != 1 {
		return nil, fmt.Errorf("want one argument {symbol | textDocument+position, budget, scope}, got %d", len(args))
	}
	arg := args[0]
	var s string
	if json.Unmarshal(arg, &s) == nil {
		// A bare target, as lspgraph.impact takes.
		arg, _ = json.Marshal(contextpack.Request{Symbol: s})
	}
	g.sync(ctx, st.log)
	r, err := g.store.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading the graph store %s: %w", g.store.Dir(), err)
	}
	defer r.Close()
	ans, err := contextpack.Handle(ctx, contextpack.Env{Reader: r, Root: g.root, Overlay: g.buffers.get, Encoding: st.encoding()}, arg)
	if err != nil {
		return nil, err
	}
	if ans.Freshness != nil {
		ans.Freshness.Dirty = g.dirty(ans.Freshness.Dirty)
		g.buffers.lostReasons(ans.Freshness)
	}
	return ans, nil
}

// recordingRequester passes a command's requests to the live server and
// keeps the answered ones as exchanges for the adapter.
type recordingRequester struct {
	srv lspproxy.Requester
	enc textpos.Encoding

	mu  sync.Mutex
	got []ingest.Exchange
}

func (q *recordingRequester) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	res, err := q.srv.Request(ctx, method, params)
	if err != nil {
		return res, err
	}
	p, merr := json.Marshal(params)
	if merr == nil {
		q.mu.Lock()
		q.got = append(q.got, ingest.Exchange{Method: method, Params: p, Result: res, Encoding: q.enc})
		q.mu.Unlock()
	}
	return res, nil
}

func (q *recordingRequester) answered() []ingest.Exchange {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.got)
}

// learn writes answers a command obtained from the live server into the
// live layer, as the observer does for the editor's requests.
func (st *proxyState) learn(ctx context.Context, g graphSession, xs []ingest.Exchange) {
	st.liveMu.Lock()
	defer st.liveMu.Unlock()
	for _, x := range xs {
		if err := g.live.Exchange(ctx, x); err != nil {
			st.log.Debug("live server answer not recorded", "method", x.Method, "err", err)
		}
	}
}
