package workspace

import (
	"context"
	"log/slog"
	"sync"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/internal/treewatch"
	"github.com/lspgraph/lspgraph/scope"
	"github.com/lspgraph/lspgraph/syntax"
)

// unreadDir reports whether neither the syntax index nor package discovery
// enters a directory of this name (node_modules, vendor, hidden ones): a
// tree outside git is watched without them (treewatch.Options.SkipDir),
// since no answer reads what changes there.
func unreadDir(name string) bool { return syntax.SkipDir(name) && scope.SkipDir(name) }

// looks takes the session's looks at the work tree. While a watcher
// follows the tree, the last look is reused as long as nothing under the
// root nor in git's state changed since it was taken (a cookie sync makes
// sure every change made before the answer began has been seen) and the
// base it was taken against is still the base; otherwise, and whenever
// watching is impossible, every answer takes a full look.
type looks struct {
	root string
	log  *slog.Logger
	opts treewatch.Options
	// base returns the base layer's commit, for the look a new watcher
	// takes first (nil: none is taken).
	base func() string

	mu       sync.Mutex
	watcher  *treewatch.Watcher // nil while none runs
	starting bool               // a start is under way
	started  chan struct{}      // closed when the first start ended
	off      bool               // watching is impossible: full looks only
	offWhy   string             // why
	closed   bool
	last     *freshness.WorkTree
	lastBase string
	lastGen  uint64
	lastW    *treewatch.Watcher // the watcher lastGen belongs to
	full     int                // looks that ran git
	again    int                // of those, looks at the changed paths alone (lookAgain)
	reused   int                // looks reused
	wg       sync.WaitGroup     // starts under way
}

func newLooks(root string, log *slog.Logger, opts treewatch.Options, base func() string) *looks {
	return &looks{root: root, log: log, opts: opts, base: base, started: make(chan struct{})}
}

// watch starts the watcher in the background; answers take full looks
// until it runs.
func (l *looks) watch() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.startLocked()
}

// startLocked starts a watcher unless one runs, is starting, or watching
// is off. Under l.mu.
func (l *looks) startLocked() {
	if l.closed || l.off || l.starting || l.watcher != nil {
		return
	}
	l.starting = true
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		w, err := treewatch.Start(context.Background(), l.root, l.opts)
		l.mu.Lock()
		l.starting = false
		switch {
		case err != nil:
			l.off, l.offWhy = true, err.Error()
			l.log.Warn("the work tree cannot be watched: every answer looks at it anew", "err", err)
		case l.closed:
			w.Close()
		default:
			l.watcher = w
			l.log.Info("watching the work tree", "directories", w.Dirs())
		}
		running := err == nil && l.watcher == w
		l.mu.Unlock()
		if running && l.base != nil {
			// The first look, so that no answer waits for it.
			if _, err := l.look(context.Background(), l.base()); err != nil {
				l.log.Debug("the first look at the watched work tree", "err", err)
			}
		}
		l.mu.Lock()
		select {
		case <-l.started:
		default:
			close(l.started)
		}
		l.mu.Unlock()
	}()
}

// waitStarted waits until the first start of the watcher ended (with its
// first look); it reports whether a watcher runs (false at once when none
// was asked for).
func (l *looks) waitStarted(ctx context.Context) bool {
	l.mu.Lock()
	asked := l.starting || l.watcher != nil || l.off
	l.mu.Unlock()
	if !asked {
		return false
	}
	select {
	case <-l.started:
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.watcher != nil
}

// look returns a look at the work tree against base: the last one while
// nothing changed, else a new one.
func (l *looks) look(ctx context.Context, base string) (*freshness.WorkTree, error) {
	l.mu.Lock()
	w := l.watcher
	l.mu.Unlock()
	if w == nil {
		return l.fullLook(ctx, base)
	}
	gen, err := w.Sync(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if w.Err() != nil {
			l.restart(w)
		} else {
			l.log.Warn("the work tree's watcher did not answer: looking at it with git", "err", err)
		}
		return l.fullLook(ctx, base)
	}
	l.mu.Lock()
	if l.last != nil && l.lastW == w && l.lastGen == gen && l.lastBase == base {
		l.reused++
		wt := l.last
		l.mu.Unlock()
		return wt, nil
	}
	var prev *freshness.WorkTree
	var changed []string
	if l.last != nil && l.lastW == w && l.lastBase == base && gen > l.lastGen {
		var ok bool
		if changed, ok = w.ChangedSince(l.lastGen); ok && len(changed) <= maxLookAgain {
			prev = l.last
		}
	}
	l.mu.Unlock()
	var wt *freshness.WorkTree
	if prev != nil {
		wt, err = l.lookAgain(ctx, prev, changed)
	}
	if wt == nil && err == nil {
		wt, err = l.fullLook(ctx, base)
	}
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	if l.watcher == w && (l.lastW != w || gen >= l.lastGen) {
		l.last, l.lastBase, l.lastGen, l.lastW = wt, base, gen, w
	}
	l.mu.Unlock()
	return wt, nil
}

// maxLookAgain bounds the paths a look asks git about alone (see
// freshness.LookAgain); past it, a full look costs less.
const maxLookAgain = 512

// lookAgain brings prev up to date at the paths the watcher saw change
// (freshness.LookAgain) and numbers the look; nil when it cannot.
func (l *looks) lookAgain(ctx context.Context, prev *freshness.WorkTree, changed []string) (*freshness.WorkTree, error) {
	w, ok, err := freshness.LookAgain(ctx, prev, changed)
	if err != nil || !ok {
		return nil, err
	}
	l.mu.Lock()
	l.full++
	l.again++
	w.Look = uint64(l.full)
	l.mu.Unlock()
	return w, nil
}

// fullLook runs git (outside git, nothing) and numbers the look.
func (l *looks) fullLook(ctx context.Context, base string) (*freshness.WorkTree, error) {
	l.mu.Lock()
	l.full++
	n := uint64(l.full)
	l.mu.Unlock()
	w, err := freshness.Look(ctx, l.root, base)
	if w != nil {
		w.Look = n
	}
	return w, err
}

// restart replaces a broken watcher with a new one, started in the
// background.
func (l *looks) restart(w *treewatch.Watcher) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.watcher != w {
		return // replaced already
	}
	l.log.Info("the work tree's watcher stopped; starting another", "reason", w.Err())
	l.watcher, l.last, l.lastW = nil, nil, nil
	w.Close()
	l.startLocked()
}

// counts returns how many looks ran git and how many were reused.
func (l *looks) counts() (full, reused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.full, l.reused
}

// state says whether the work tree is watched, or why not.
func (l *looks) state() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.watcher != nil:
		return "watched"
	case l.off:
		return l.offWhy
	case l.starting:
		return "starting"
	}
	return "not watched"
}

// close stops watching.
func (l *looks) close() {
	l.mu.Lock()
	l.closed = true
	w := l.watcher
	l.watcher, l.last, l.lastW = nil, nil, nil
	l.mu.Unlock()
	l.wg.Wait()
	if w != nil {
		w.Close()
	}
}
