package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/resolve"
)

// maxCachedAnswers bounds the answer cache; a full cache starts again.
const maxCachedAnswers = 256

// answerCache keeps encoded answers of a warm session. An answer is reused
// only while everything it was computed from is the same: the store's
// version (every write moves it: imports, the overlay's syncs, what the
// live server taught), the look at the work tree (HEAD and the changed
// documents), and the editor's buffers (every notification moves their
// version). Answers that asked the live server are never cached: what it
// knows changes without the store noticing.
type answerCache struct {
	// dir, when set, keeps answers on disk as well (in the store's
	// directory), so that a later process finds them: a command line run
	// without a session answers from there while nothing changed.
	dir string

	mu           sync.Mutex
	entries      map[string]cachedAnswer
	hits, misses int
}

type cachedAnswer struct {
	state string // the state the answer holds for (cacheState)
	raw   json.RawMessage
}

// get returns the answer cached for key in state; durable allows the
// answers kept on disk.
func (c *answerCache) get(key, state string, durable bool) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok && e.state == state {
		c.hits++
		return e.raw, true
	}
	if durable && c.dir != "" {
		if raw, ok := c.read(key, state); ok {
			c.hits++
			return raw, true
		}
	}
	c.misses++
	return nil, false
}

// put caches an answer for key in state; durable keeps it on disk too.
func (c *answerCache) put(key, state string, raw json.RawMessage, durable bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= maxCachedAnswers {
		c.entries = map[string]cachedAnswer{}
	}
	c.entries[key] = cachedAnswer{state: state, raw: raw}
	if durable && c.dir != "" {
		c.write(key, state, raw)
	}
}

// file is where an answer's key is kept on disk.
func (c *answerCache) file(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:16]))
}

// read returns the answer kept on disk for key in state.
func (c *answerCache) read(key, state string) (json.RawMessage, bool) {
	b, err := os.ReadFile(c.file(key))
	if err != nil {
		return nil, false
	}
	head, body, ok := bytes.Cut(b, []byte("\n"))
	if !ok || string(head) != state+"\x00"+strconv.Itoa(len(key)) {
		return nil, false
	}
	return body, true
}

// write keeps an answer on disk, best effort: the directory is emptied
// when it holds more than maxCachedAnswers files.
func (c *answerCache) write(key, state string, raw json.RawMessage) {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return
	}
	if ents, err := os.ReadDir(c.dir); err == nil && len(ents) > maxCachedAnswers {
		for _, e := range ents {
			os.Remove(filepath.Join(c.dir, e.Name()))
		}
	}
	head := state + "\x00" + strconv.Itoa(len(key)) + "\n"
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append([]byte(head), raw...))
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), c.file(key)) != nil {
		os.Remove(tmp.Name())
	}
}

// cacheState names the state an answer is computed from: the reader's
// store version, the buffers' version and a digest of the work tree look
// (nil: no look, so nothing is cached).
func cacheState(storeVersion, bufferVersion uint64, w *freshness.WorkTree) (string, bool) {
	if w == nil {
		return "", false
	}
	h := fnv.New64a()
	h.Write([]byte(w.Head))
	h.Write([]byte{0})
	h.Write([]byte(w.Base))
	if w.Git {
		h.Write([]byte{1})
	}
	if w.BaseErr != nil {
		h.Write([]byte(w.BaseErr.Error()))
	}
	for _, c := range w.Changes {
		h.Write([]byte(c.Status + "\x00" + c.Path + "\x00" + c.OldPath + "\x00"))
	}
	return strconv.FormatUint(storeVersion, 10) + "/" + strconv.FormatUint(bufferVersion, 10) + "/" + strconv.FormatUint(h.Sum64(), 16), true
}

// cacheKey names a command call: its name, its arguments and the
// encoding their positions are counted in.
func cacheKey(name string, c Call) string {
	key := name + "\x00" + strconv.Itoa(int(c.Encoding))
	for _, a := range c.Args {
		key += "\x00" + string(a)
	}
	return key
}

// stats returns how often an answer was reused and how often not.
func (c *answerCache) stats() (hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// impactCacheKey names an impact call on a resolved target.
func impactCacheKey(c Call, targetID string) string {
	return cacheKey(CommandImpact, c) + "\x00" + targetID
}

// Cached returns the impact answer a session kept on disk for this call
// (args as Command takes them) in the store's current state, opening the
// store read-only and taking a look at the work tree, or false. It is the
// command line's way to answer without opening the store for writing: an
// answer is kept only when it was computed after a sync with the same
// look over the same store version, so a sync now would change nothing.
func Cached(ctx context.Context, root, storeDir string, args []json.RawMessage) (json.RawMessage, bool) {
	if len(args) != 1 {
		return nil, false
	}
	q, err := decodeImpactRequest(args[0])
	if err != nil || q.Target == "" {
		return nil, false // editor positions need the editor's buffers
	}
	if _, err := os.Stat(filepath.Join(storeDir, "answers")); err != nil {
		return nil, false // nothing kept yet
	}
	st, err := graph.Open(storeDir, graph.Options{ReadOnly: true})
	if err != nil {
		return nil, false
	}
	defer st.Close()
	r, err := st.Reader()
	if err != nil {
		return nil, false
	}
	defer r.Close()
	base := ""
	if m, ok, err := r.Manifest(graph.Base); err == nil && ok {
		base = m.Commit
	}
	w, err := freshness.Look(ctx, root, base)
	if err != nil {
		return nil, false
	}
	target, err := resolve.ResolveIn(ctx, r, root, q.Target)
	if err != nil {
		return nil, false
	}
	state, ok := cacheState(r.Version(), 0, w)
	if !ok {
		return nil, false
	}
	c := answerCache{dir: filepath.Join(st.Dir(), "answers")}
	return c.read(impactCacheKey(Call{Args: args, Encoding: textpos.UTF16}, target.ID), state)
}
