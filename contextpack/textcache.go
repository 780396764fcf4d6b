package contextpack

import (
	"sync"
	"time"
)

// TextCache keeps work-tree documents' text, split in lines, across packs:
// a host that answers many packs (a session, a benchmark) reads and splits
// a file once while its size and modification time stay the same (checked
// on every use, through the same root-confined lookup as a read), and
// prices a snippet's text once. Unsaved buffers (Source.Overlay) are never
// cached. Safe for concurrent use.
type TextCache struct {
	mu    sync.Mutex
	docs  map[string]cachedText
	bytes int
	// costs keeps what snippet texts cost in JSON, for pricing.
	costs textCosts
}

// maxCachedBytes bounds the text a TextCache holds; past it, it starts
// over (the documents a workspace's packs read are far fewer).
const maxCachedBytes = 64 << 20

type cachedText struct {
	size  int64
	mod   time.Time
	bytes int // of the text the lines were cut from
	lines []string
}

func (c *TextCache) get(path string, size int64, mod time.Time) (cachedText, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.docs[path]
	if !ok || t.size != size || !t.mod.Equal(mod) {
		return cachedText{}, false
	}
	return t, true
}

func (c *TextCache) put(path string, t cachedText) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.docs == nil || c.bytes+t.bytes > maxCachedBytes {
		c.docs, c.bytes = map[string]cachedText{}, 0
	}
	if old, ok := c.docs[path]; ok {
		c.bytes -= old.bytes
	}
	c.docs[path] = t
	c.bytes += t.bytes
}
