package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/ingest"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/internal/treewatch"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/overlay"
	"github.com/lspgraph/lspgraph/ranking"
	"github.com/lspgraph/lspgraph/resolve"
	"github.com/lspgraph/lspgraph/search"
)

// Options configure Open.
type Options struct {
	// Root is the workspace root (made absolute).
	Root string
	// StoreDir is the graph store's directory; empty means the default
	// store of Root (graph.DefaultDir).
	StoreDir string
	// Logger receives the session's log; nil discards it.
	Logger *slog.Logger
	// Background keeps the live layer in step between answers: the
	// overlay's syncs run on their own goroutine after buffer saves and
	// imports (a proxy's session). A one-shot session (a command line run
	// without a running session) leaves it false: each answer syncs first
	// anyway.
	Background bool
	// Watch follows the work tree with a watcher (internal/treewatch), so
	// that an answer reuses the last look at it while nothing changed
	// instead of running git (a long-lived session). Without it, or when
	// the tree cannot be watched, every answer runs git.
	Watch bool
	// Yield, when set, makes the session one that gives way to an
	// editor's proxy (a headless session, with no language server of its
	// own): its clients are told so, and a proxy that attaches with a
	// language server asks it to (Client.Yield), which calls Yield once,
	// after answering, with the asking process's pid; the owner then
	// closes the session, and the proxy takes the store over and serves
	// the session with its server.
	Yield func(pid int)
}

// Server is the live language server a session verifies answers with: a
// proxy's view of the server it fronts.
type Server interface {
	lspproxy.Requester
	// Ready reports whether the server answers from complete knowledge
	// (a server that answers from a syntax-only view until its project
	// has loaded is not ready before then).
	Ready() bool
	// Encoding is the position encoding the editor and the server
	// negotiated.
	Encoding() textpos.Encoding
}

// Session is one workspace's live state: the store, the live-layer adapter
// that records what the language server answered, the overlay that keeps
// the live layer in step with the work tree and the editor's buffers, those
// buffers' text, the live server to verify with and the command table.
// Its methods are safe for concurrent use.
type Session struct {
	root    string
	log     *slog.Logger
	store   *graph.Store
	live    *ingest.Live
	ov      *overlay.Overlay // nil when the overlay could not start
	buffers *buffers
	started time.Time
	cache   answerCache           // encoded answers of a warm session
	history histories             // history logs read for context packs, by commit
	scopes  scopeCache            // the scope analysis while the work tree and store hold
	texts   contextpack.TextCache // the work tree's documents read for context packs, while unchanged
	reads   ranking.Cache         // the graph reads of context packs' rankings, while the store's version holds
	// searches keeps what searches of the store read again (each base
	// document's reference links and package, the term statistics).
	searches *search.Cache
	// diffs keeps lspgraph.changes's git diff while the look is the same.
	diffs keptDiff
	// looks takes the looks at the work tree, reusing the last while a
	// watcher says nothing changed.
	looks *looks

	// liveMu serializes the adapter's calls: the observer's, and the
	// commands' that add what the live server told them.
	liveMu sync.Mutex

	mu      sync.Mutex
	server  Server
	clients map[string]ClientInfo // attached clients by id (socket.go)
	// yield is Options.Yield; yielded is set once it was called.
	yield   func(pid int)
	yielded atomic.Bool
	// lastCommand is when the last command began, in Unix nanoseconds (0:
	// none yet).
	lastCommand atomic.Int64
	// fg counts the commands under way: Close waits for them, so that
	// none finds the store closed under it, and the warm-ups wait while
	// one runs. closed is set first, and a command begun after it is
	// refused (errClosing). Ending life cancels the commands under way:
	// Close does; a session giving way to a proxy lets them finish first.
	fg      *foreground
	closed  bool
	life    context.Context
	endLife context.CancelFunc

	lastSync syncReport

	// The overlay's background syncs: requests coalesce in syncReq; the
	// loop ends when syncStop is called and closes syncDone.
	syncReq  chan struct{}
	syncStop context.CancelFunc
	syncDone chan struct{}
	warmDone chan struct{} // closed when the search cache and the scope analysis are warm (or warming stopped)
	// blocks warms the store's block cache (a long-lived session's only).
	blocks *blockWarmer
	// baseWrite is held by the command writing the base layer (an index,
	// an import): a second one asked meanwhile waits for it.
	baseWrite chan struct{}
}

// syncReport is the outcome of the overlay's last background sync.
type syncReport struct {
	At    time.Time         `json:"at"`
	Stats overlay.SyncStats `json:"stats"`
	Error string            `json:"error,omitempty"`
}

// Open opens the store of a workspace for writing and starts its overlay.
// A store another process holds yields an error wrapping graph.ErrLocked
// that names the holder; the caller decides whether to wait, attach to the
// holder's session (Dial) or give up.
func Open(opts Options) (*Session, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("resolving the workspace root %s: %w", opts.Root, err)
	}
	dir := opts.StoreDir
	if dir == "" {
		if dir, err = graph.DefaultDir(root); err != nil {
			return nil, fmt.Errorf("locating the store of %s: %w (pass --store)", root, err)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	store, err := OpenStore(dir, root, log)
	switch {
	case errors.Is(err, graph.ErrSchema):
		return nil, err
	case err != nil && !errors.Is(err, graph.ErrLocked):
		return nil, fmt.Errorf("opening the graph store %s: %w", dir, err)
	case err != nil:
		return nil, err
	}
	s := &Session{
		root:     root,
		log:      log,
		store:    store,
		buffers:  newBuffers(root),
		started:  time.Now(),
		clients:  map[string]ClientInfo{},
		yield:    opts.Yield,
		cache:    answerCache{dir: filepath.Join(store.Dir(), "answers")},
		scopes:   scopeCache{sourcesFile: filepath.Join(store.Dir(), sourcesFile), observationsFile: filepath.Join(store.Dir(), observationsFile), log: log},
		history:  histories{file: filepath.Join(store.Dir(), historyFile), log: log},
		searches: search.NewCache(),
		fg:       newForeground(),
	}
	s.life, s.endLife = context.WithCancel(context.Background())
	s.baseWrite = make(chan struct{}, 1)
	s.looks = newLooks(root, log, treewatch.Options{SkipDir: unreadDir}, s.baseCommit)
	if opts.Watch {
		s.looks.watch()
	}
	// The live adapter reads the editor's text from the session's buffers:
	// one copy, followed in one place.
	s.live = ingest.New(store, ingest.Options{Root: root, Logger: log, Buffer: s.buffers.get, BufferVersion: s.buffers.currentVersion})
	ov, err := overlay.New(store, overlay.Options{
		Root:      root,
		StatePath: filepath.Join(store.Dir(), overlay.StateFile),
		Logf:      func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) },
	})
	if err != nil {
		// The observations still go in; answers say what is stale.
		log.Error("overlay unavailable: the live layer follows the language server only", "err", err)
	} else {
		s.ov = ov
	}
	if s.ov != nil && opts.Background {
		ctx, stop := context.WithCancel(context.Background())
		s.syncReq, s.syncStop, s.syncDone = make(chan struct{}, 1), stop, make(chan struct{})
		go s.syncLoop(ctx, s.syncReq, s.syncDone)
		s.syncReq <- struct{}{} // the first sync: the work tree since the base commit
		s.blocks = startBlockWarmer(ctx, store, log, s.fg.wait)
		s.warmDone = make(chan struct{})
		go func() {
			defer close(s.warmDone)
			if err := s.WarmSearch(ctx); err != nil && ctx.Err() == nil {
				log.Warn("warming the search cache", "err", err)
			}
			if err := s.WarmScope(ctx); err != nil && ctx.Err() == nil {
				log.Warn("preparing the scope analysis", "err", err)
			}
		}()
	}
	log.Info("graph store open", "store", store.Dir(), "root", root)
	return s, nil
}

// Root is the workspace root.
func (s *Session) Root() string { return s.root }

// StoreDir is the store's directory.
func (s *Session) StoreDir() string { return s.store.Dir() }

// SetServer sets the live server commands verify with (nil: none).
func (s *Session) SetServer(srv Server) {
	s.mu.Lock()
	s.server = srv
	s.mu.Unlock()
}

// liveServer returns the session's live server, or nil.
func (s *Session) liveServer() Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.server
}

// syncLoop runs the overlay's full syncs (work tree and buffers) off the
// forwarding path, one at a time, coalescing requests made meanwhile.
func (s *Session) syncLoop(ctx context.Context, req <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-req:
		}
		// The first sync waits for the watcher's start, whose first look
		// it then reuses: looking with git meanwhile ran one more walk of
		// the tree beside the watcher's and a first answer's.
		s.looks.waitStarted(ctx)
		start := time.Now()
		// The session's look: reused while the tree is unchanged, and
		// left for the next answer to reuse.
		stats, err := s.ov.SyncWith(ctx, s.look(ctx))
		rep := syncReport{At: start, Stats: stats}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			rep.Error = err.Error()
			s.log.Warn("overlay sync failed; answers may be stale (see their freshness)", "err", err)
		} else {
			s.log.Info("overlay synced", "changed", stats.Changed, "extracted", stats.Extracted, "live", stats.Live, "took", time.Since(start).Round(time.Millisecond))
		}
		s.mu.Lock()
		s.lastSync = rep
		s.mu.Unlock()
	}
}

// requestSync asks for a background overlay sync (after a save, whose file
// now differs from the base without being a dirty buffer, or a new base).
func (s *Session) requestSync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.syncReq == nil || s.closed {
		return
	}
	select {
	case s.syncReq <- struct{}{}:
	default: // one is already due
	}
}

// Close stops the overlay (a running sync is cancelled) and closes the
// store.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	stop, done, warm := s.syncStop, s.syncDone, s.warmDone
	s.mu.Unlock()
	s.endLife()
	_ = s.fg.wait(context.Background()) // no command begins once closed
	if stop != nil {
		stop()
		<-done
	}
	if s.blocks != nil {
		<-s.blocks.done
	}
	if warm != nil {
		<-warm
	}
	s.looks.close()
	s.scopes.close()
	s.history.save()
	var errs []error
	if err := s.live.Close(); err != nil {
		errs = append(errs, fmt.Errorf("closing the live adapter: %w", err))
	}
	if s.ov != nil {
		if err := s.ov.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the overlay: %w", err))
		}
	}
	if err := s.store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("closing the graph store: %w", err))
	}
	s.buffers.close()
	return errors.Join(errs...)
}

// sync brings the live layer up to date before an answer: the work
// tree's changes since the base (a file changed outside the editor, a
// branch switched) and the buffer edits still waiting for the overlay's
// debounce. It returns the look at the work tree it took, for the answer's
// freshness block: one look (three git processes, or none while a watcher
// says the tree is unchanged since the last) serves the whole answer. A
// failure leaves the answer to the facts as they are; the freshness block
// then names what is stale.
func (s *Session) sync(ctx context.Context) *freshness.WorkTree {
	w := s.look(ctx)
	if s.ov == nil {
		return w
	}
	if _, err := s.ov.SyncWith(ctx, w); err != nil {
		s.log.Warn("bringing the live layer up to date before an answer", "err", err)
	}
	return w
}

// look takes a look at the work tree against the base layer's commit; nil
// when git fails (freshness then takes its own look and says what failed).
func (s *Session) look(ctx context.Context) *freshness.WorkTree {
	w, err := s.looks.look(ctx, s.baseCommit())
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		s.log.Warn("reading the work tree's state before an answer", "err", err)
		return nil
	}
	return w
}

// baseCommit is the base layer's commit ("" when there is none).
func (s *Session) baseCommit() string {
	r, err := s.store.Reader()
	if err != nil {
		return ""
	}
	defer r.Close()
	if m, ok, err := r.Manifest(graph.Base); err == nil && ok {
		return m.Commit
	}
	return ""
}

// Watching waits until the work tree's watcher (Options.Watch) has
// started and reports whether it runs: whether answers reuse their look at
// the work tree while nothing changed.
func (s *Session) Watching(ctx context.Context) bool { return s.looks.waitStarted(ctx) }

// reader opens a reader of the store.
func (s *Session) reader() (*graph.Reader, error) {
	r, err := s.store.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading the graph store %s: %w", s.store.Dir(), err)
	}
	return r, nil
}

// freshness computes the freshness block of r and lists the dirty buffers:
// those the live layer holds as buffers, those the overlay holds as
// buffers (also where the language server's facts answer for them), and
// open buffers whose text differs from the file.
func (s *Session) freshness(ctx context.Context, r *graph.Reader, w *freshness.WorkTree) (freshness.Block, error) {
	fb, err := freshness.ComputeWith(ctx, r, s.root, w)
	if err != nil {
		return fb, err
	}
	s.completeFreshness(&fb)
	return fb, nil
}

// completeFreshness adds what the session knows and the store does not to
// a freshness block: the dirty buffers, and those whose edits were lost.
func (s *Session) completeFreshness(fb *freshness.Block) {
	fb.Dirty = s.dirty(fb.Dirty)
	s.buffers.lostReasons(fb)
}

// dirty adds to the buffers a freshness block lists as dirty those the
// overlay and the editor hold, sorted.
func (s *Session) dirty(listed []string) []string {
	all := append([]string{}, listed...)
	if s.ov != nil {
		all = append(all, s.ov.Dirty()...)
	}
	all = append(all, s.buffers.dirty()...)
	slices.Sort(all)
	return slices.Compact(all)
}

// query syncs the overlay, opens a reader and resolves a target spec; it
// returns the look at the work tree the sync took. The caller closes the
// reader.
func (s *Session) query(ctx context.Context, spec string) (*graph.Reader, graph.Symbol, *freshness.WorkTree, error) {
	w := s.sync(ctx)
	r, err := s.reader()
	if err != nil {
		return nil, graph.Symbol{}, nil, err
	}
	target, err := resolve.ResolveIn(ctx, r, s.root, spec)
	if err != nil {
		r.Close()
		return nil, graph.Symbol{}, nil, err
	}
	return r, target, w, nil
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
func (s *Session) learn(ctx context.Context, xs []ingest.Exchange) {
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	for _, x := range xs {
		if err := s.live.Exchange(ctx, x); err != nil {
			s.log.Debug("live server answer not recorded", "method", x.Method, "err", err)
		}
	}
}

// verifier returns the d=1 verifier of an impact answer asked with srv
// (the requesting editor's server, else the session's), and the recorder
// whose answers are learned afterwards; nil when there is no server.
func (s *Session) verifier(srv lspproxy.Requester, enc textpos.Encoding) (impact.Verifier, *recordingRequester) {
	ready := true
	if srv == nil {
		ls := s.liveServer()
		if ls == nil {
			return nil, nil
		}
		srv, enc, ready = ls, ls.Encoding(), ls.Ready()
	} else if ls := s.liveServer(); ls != nil {
		ready = ls.Ready()
	}
	rec := &recordingRequester{srv: srv, enc: enc}
	if !ready {
		// Answers from a server still loading its project (a syntax-only
		// view) would mark real dependents graph-only and imports
		// live-only.
		return func(context.Context, graph.Location) ([]graph.Location, error) {
			return nil, errors.New("the language server is not ready (still initializing, or still loading its project); ask again once it has loaded to check d=1 against it")
		}, nil
	}
	return liveVerifier(rec, s.root, enc, s.buffers.get), rec
}

// readWorkspaceFile reads a file the editor named by absolute path: an
// open buffer's text, else the file, and only inside the root.
func (s *Session) readWorkspaceFile(abs string) ([]byte, error) {
	rel, ok := s.buffers.relPath(abs)
	if !ok {
		return nil, fmt.Errorf("%s is outside the workspace root %s", abs, s.root)
	}
	if text, ok := s.buffers.get(rel); ok {
		return text, nil
	}
	return s.buffers.readFile(rel)
}

// OpenStore opens the store in dir for writing, as graph.Open does, except
// that the workspace's default store (graph.DefaultDir of root), a cache of
// lspgraph's own, is set aside and started anew when another version of
// lspgraph wrote it. A store the user named is never removed: its schema
// error says how to rebuild it.
func OpenStore(dir, root string, log *slog.Logger) (*graph.Store, error) {
	store, err := graph.Open(dir, graph.Options{})
	if !errors.Is(err, graph.ErrSchema) || !isDefaultStore(dir, root) {
		return store, err
	}
	if log != nil {
		log.Warn("the workspace's store has another schema version: starting a new one", "store", dir)
	}
	if derr := discardStore(dir); derr != nil {
		return nil, fmt.Errorf("%w; setting it aside failed: %v", err, derr)
	}
	return graph.Open(dir, graph.Options{})
}

// isDefaultStore reports whether dir is the store graph.DefaultDir gives
// the workspace root: a cache of lspgraph's own, never a directory a user
// named.
func isDefaultStore(dir, root string) bool {
	def, err := graph.DefaultDir(root)
	return err == nil && filepath.Clean(def) == filepath.Clean(dir)
}

// discardStore removes a store directory: it is renamed first, so that a
// process opening the same path meanwhile finds either the old store whole
// or none.
func discardStore(dir string) error {
	aside := fmt.Sprintf("%s.discarded-%d", dir, os.Getpid())
	if err := os.Rename(dir, aside); err != nil {
		return fmt.Errorf("moving %s aside: %w", dir, err)
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("removing %s: %w", aside, err)
	}
	return nil
}
