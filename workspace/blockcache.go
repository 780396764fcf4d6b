package workspace

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/graph"
)

// WarmBudget bounds what a long-lived session's warm-up of the store's
// block cache reads (graph.Store.Warm): half the cache, so that the other
// half keeps the blocks answers loaded themselves.
const WarmBudget = graph.CacheSize / 2

// blockWarmer warms the store's block cache with the base generation that
// answers read: when a long-lived session opens, and again after each new
// base generation (an import or an index run). One goroutine reads, a
// chunk at a time; a warm-up still running when a new generation is
// committed stops, and the next one starts. A one-shot session does not
// warm: its one answer would wait for the reads it does not need.
type blockWarmer struct {
	store *graph.Store
	log   *slog.Logger
	pause func(context.Context) error // between chunks: see graph.Store.Warm
	req   chan struct{}               // a warm-up is due
	done  chan struct{}               // closed when the loop ends

	mu   sync.Mutex
	last *WarmReport
}

// WarmReport is the outcome of the last warm-up of the block cache.
type WarmReport struct {
	At         time.Time `json:"at"`
	Seconds    float64   `json:"seconds"`
	Generation uint64    `json:"generation"`
	Bytes      int64     `json:"bytes"`      // the records' bytes read; at most WarmBudget and a record
	BlockBytes uint64    `json:"blockBytes"` // the blocks loaded, as stored
	End        string    `json:"end"`        // why it stopped
	Error      string    `json:"error,omitempty"`
}

// startBlockWarmer starts the warm-up loop with a first warm-up due; it
// ends when ctx is done. Each warm-up calls pause between chunks.
func startBlockWarmer(ctx context.Context, store *graph.Store, log *slog.Logger, pause func(context.Context) error) *blockWarmer {
	w := &blockWarmer{store: store, log: log, pause: pause, req: make(chan struct{}, 1), done: make(chan struct{})}
	w.req <- struct{}{}
	go w.loop(ctx)
	return w
}

// request asks for a warm-up (after a new base generation); requests made
// while one is due coalesce.
func (w *blockWarmer) request() {
	select {
	case w.req <- struct{}{}:
	default:
	}
}

func (w *blockWarmer) loop(ctx context.Context) {
	defer close(w.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.req:
		}
		start := time.Now()
		st, err := w.store.Warm(ctx, WarmBudget, w.pause)
		if ctx.Err() != nil {
			return
		}
		rep := &WarmReport{At: start, Seconds: time.Since(start).Seconds(), Generation: st.Generation,
			Bytes: st.Bytes, BlockBytes: st.BlockBytes, End: st.End.String()}
		if err != nil {
			rep.Error = err.Error()
			w.log.Warn("warming the block cache", "err", err)
		} else {
			w.log.Info("block cache warmed", "generation", st.Generation, "bytes", st.Bytes, "end", st.End, "took", time.Since(start).Round(time.Millisecond))
		}
		w.mu.Lock()
		w.last = rep
		w.mu.Unlock()
	}
}

// report returns the last warm-up's outcome, nil before the first ends.
func (w *blockWarmer) report() *WarmReport {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil {
		return nil
	}
	rep := *w.last
	return &rep
}
