package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scope"
)

// scopeCache keeps the scope analysis between requests. Discovery reads
// the work tree's manifests and Go imports; the analysis maps the graph's
// documents to packages. So the analysis holds while the work tree's state
// (HEAD, and each changed or untracked file with its size and modification
// time, from the session's look) and the store's version are those it was
// computed for. Outside a git work tree nothing is kept.
type scopeCache struct {
	mu     sync.Mutex // held while an analysis is used: it is not safe for concurrent use
	key    scopeKey
	a      *scope.Analysis
	hits   int
	misses int
}

type scopeKey struct {
	version uint64
	tree    string
}

// treeKey describes the work tree state discovery depends on; ok is false
// when it cannot be told (no git).
func treeKey(w *freshness.WorkTree) (string, bool) {
	if w == nil || !w.Git || w.BaseErr != nil {
		return "", false
	}
	k := w.Head
	for _, c := range w.Changes {
		k += "\x00" + c.Status + " " + c.OldPath + " " + c.Path
		if fi, err := os.Lstat(filepath.Join(w.Root, filepath.FromSlash(c.Path))); err == nil {
			k += fmt.Sprintf("\x00%d %d", fi.ModTime().UnixNano(), fi.Size())
		}
	}
	return k, true
}

// with runs fn with the analysis for reader r and work tree w, computing
// it when the cached one does not hold.
func (c *scopeCache) with(ctx context.Context, root string, r *graph.Reader, w *freshness.WorkTree, fn func(*scope.Analysis) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tree, ok := treeKey(w)
	key := scopeKey{r.Version(), tree}
	if ok && c.a != nil && c.key == key {
		c.hits++
		c.a.UseReader(r)
		return fn(c.a)
	}
	c.misses++
	ws, err := scope.Discover(root)
	if err != nil {
		return err
	}
	a, err := scope.Analyze(ctx, ws, r)
	if err != nil {
		return err
	}
	c.a, c.key = nil, scopeKey{}
	if ok {
		c.a, c.key = a, key
	}
	return fn(a)
}
