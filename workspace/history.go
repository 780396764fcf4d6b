package workspace

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/history"
	"github.com/lspgraph/lspgraph/ranking"
)

// historyFile names the file in the store's directory that keeps the last
// history log a context question read (history.Log.Encode), for the next
// process at the same commit.
const historyFile = "history-log"

// histories keeps the history logs a session read, by commit: a log
// depends only on its commit, so it never goes stale. The last one read
// is kept in file too, with the hunks read of it, when the session
// closes: a command line asking at the commit the last one asked at reads
// it from there instead of running git log over thousands of commits
// again (0.5 s of a 0.6 s context question on etcd-io/etcd).
type histories struct {
	mu   sync.Mutex
	logs map[string]*history.Log
	lru  []string
	file string       // "": nothing kept on disk
	log  *slog.Logger // set with file
	// last is the log asked for last; saved the commit and hunk count
	// the file holds of it.
	last       *history.Log
	savedHunks int
	savedAt    string
	// fromGit and fromFile count the logs read from git and from file.
	fromGit, fromFile int
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
		h.last = l
		h.mu.Unlock()
		return l, nil
	}
	l := h.read(hash, root)
	h.mu.Unlock()
	if l == nil {
		if l, err = history.Load(ctx, root, hash, history.Options{}); err != nil {
			return nil, err
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if l.Commit == hash && h.savedAt == hash {
		h.fromFile++
	} else {
		h.fromGit++
	}
	if h.logs == nil {
		h.logs = map[string]*history.Log{}
	}
	if kept, ok := h.logs[hash]; ok {
		l = kept
	} else {
		h.logs[hash] = l
		h.lru = append(h.lru, hash)
		if len(h.lru) > maxHistories {
			delete(h.logs, h.lru[0])
			h.lru = h.lru[1:]
		}
	}
	h.last = l
	return l, nil
}

// read returns the log file holds if it is the log of commit hash for
// root, else nil. The caller holds h.mu.
func (h *histories) read(hash, root string) *history.Log {
	if h.file == "" {
		return nil
	}
	b, err := os.ReadFile(h.file)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			h.log.Warn("the history is read from git again", "err", err)
		}
		return nil
	}
	l, err := history.Decode(b)
	if err != nil {
		h.log.Log(context.Background(), cacheLevel(err), "the history is read from git again", "err", err)
		return nil
	}
	if !l.Holds(hash, root, history.Options{}) {
		return nil
	}
	h.savedAt, h.savedHunks = hash, l.HunkCommits()
	return l
}

// save writes the log asked for last to file, unless the file holds it
// with every hunk read of it already.
func (h *histories) save() {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.last
	if h.file == "" || l == nil {
		return
	}
	n := l.HunkCommits()
	if h.savedAt == l.Commit && h.savedHunks >= n {
		return
	}
	if err := graph.WritePrivateFile(h.file, l.Encode()); err != nil {
		h.log.Debug("the history stays in memory", "err", err)
		return
	}
	h.savedAt, h.savedHunks = l.Commit, n
}
