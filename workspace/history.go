package workspace

import (
	"context"
	"sync"

	"github.com/lspgraph/lspgraph/history"
	"github.com/lspgraph/lspgraph/ranking"
)

// histories keeps the history logs a session read, by commit: a log
// depends only on its commit, so it never goes stale.
type histories struct {
	mu   sync.Mutex
	logs map[string]*history.Log
	lru  []string
}

// maxHistories bounds the logs kept (an evaluation asks at many commits).
const maxHistories = 4

// get returns the log of the commits reachable from rev ("" is HEAD) of
// the work tree at root.
func (h *histories) get(ctx context.Context, root, rev string) (ranking.History, error) {
	hash, err := history.Resolve(ctx, root, rev)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if l, ok := h.logs[hash]; ok {
		h.mu.Unlock()
		return l, nil
	}
	h.mu.Unlock()
	l, err := history.Load(ctx, root, hash, history.Options{})
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.logs == nil {
		h.logs = map[string]*history.Log{}
	}
	if _, ok := h.logs[hash]; !ok {
		h.logs[hash] = l
		h.lru = append(h.lru, hash)
		if len(h.lru) > maxHistories {
			delete(h.logs, h.lru[0])
			h.lru = h.lru[1:]
		}
	}
	return l, nil
}
