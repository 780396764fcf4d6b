package workspace

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
	"sync"

	"github.com/lspgraph/lspgraph/freshness"
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
	mu           sync.Mutex
	entries      map[string]cachedAnswer
	hits, misses int
}

type cachedAnswer struct {
	state string // the state the answer holds for (cacheState)
	raw   json.RawMessage
}

// get returns the answer cached for key in state.
func (c *answerCache) get(key, state string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || e.state != state {
		c.misses++
		return nil, false
	}
	c.hits++
	return e.raw, true
}

// put caches an answer for key in state.
func (c *answerCache) put(key, state string, raw json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= maxCachedAnswers {
		c.entries = map[string]cachedAnswer{}
	}
	c.entries[key] = cachedAnswer{state: state, raw: raw}
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
