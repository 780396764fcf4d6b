package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/internal/rootfs"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// buffers follows the editor's text document notifications and keeps
// the text of every open buffer by root-relative path (forward slashes).
// The observer goroutine writes; commands read from their own goroutines.
type buffers struct {
	root string
	// fs reads the files under root, one open root for every read; nil
	// when root could not be opened (every read then fails).
	fs *rootfs.Root

	mu   sync.Mutex
	text map[string][]byte
	// version counts the notifications followed and the buffers lost or
	// found again: answers computed at one version saw the same buffers.
	version uint64
	// lost holds the open buffers whose notifications were dropped: their
	// text is unknown until the editor sends it whole again (see resync).
	lost map[string]bool
}

func newBuffers(root string) *buffers {
	b := &buffers{root: root, text: map[string][]byte{}, lost: map[string]bool{}}
	if root != "" {
		b.fs, _ = rootfs.Open(root)
	}
	return b
}

// close releases the open root.
func (b *buffers) close() {
	if b.fs != nil {
		b.fs.Close()
	}
}

// isLost reports whether the buffer of a document URI is lost.
func (b *buffers) isLost(uri string) bool {
	path, ok := b.rel(uri)
	if !ok {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lost[path]
}

// setLost marks the buffer of a document URI lost, or found again.
func (b *buffers) setLost(uri string, lost bool) {
	path, ok := b.rel(uri)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.version++
	if lost {
		b.lost[path] = true
	} else {
		delete(b.lost, path)
	}
}

// lostPaths returns the lost buffers' paths, sorted.
func (b *buffers) lostPaths() []string {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]string, 0, len(b.lost))
	for p := range b.lost {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// lostReasons adds the lost buffers to a freshness block: the answer is
// partial, its facts for them come from the files.
func (b *buffers) lostReasons(fb *freshness.Block) {
	for _, p := range b.lostPaths() {
		fb.Partial = true
		fb.Reasons = append(fb.Reasons, fmt.Sprintf("edits to %s were dropped under load; facts come from disk until the editor sends its whole text again (save or reopen it)", p))
	}
}

// bufferEvent is what one notification did to a buffer.
type bufferEvent int

const (
	bufferNone    bufferEvent = iota // outside the workspace, or nothing to apply
	bufferEdited                     // opened or changed: the text is new
	bufferSaved                      // written to disk
	bufferClosed                     // closed, or out of step with the editor (fall back to the file)
	bufferUnknown                    // a change to a buffer never opened
)

// follow applies one textDocument/did* notification and calls handOff with
// the path it concerns, what happened and the buffer's text after it, under
// the lock readers take: whoever reads the buffers afterwards knows that
// handOff has seen the same state (the overlay has been told).
func (b *buffers) follow(method string, params json.RawMessage, enc textpos.Encoding, handOff func(path string, ev bufferEvent, text []byte)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.version++
	path, ev, text, err := b.apply(method, params, enc)
	if ev != bufferNone {
		handOff(path, ev, text)
	}
	return err
}

// apply follows one notification; the caller holds b.mu.
func (b *buffers) apply(method string, params json.RawMessage, enc textpos.Encoding) (string, bufferEvent, []byte, error) {
	var p struct {
		TextDocument struct {
			URI  string  `json:"uri"`
			Text *string `json:"text"`
		} `json:"textDocument"`
		Text           *string `json:"text"`
		ContentChanges []struct {
			Range *struct {
				Start struct{ Line, Character uint32 } `json:"start"`
				End   struct{ Line, Character uint32 } `json:"end"`
			} `json:"range"`
			Text string `json:"text"`
		} `json:"contentChanges"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return "", bufferNone, nil, fmt.Errorf("decoding %s: %w", method, err)
	}
	path, ok := b.rel(p.TextDocument.URI)
	if !ok {
		return "", bufferNone, nil, nil
	}
	switch method {
	case "textDocument/didOpen":
		if p.TextDocument.Text == nil {
			return path, bufferNone, nil, nil
		}
		b.text[path] = []byte(*p.TextDocument.Text)
		return path, bufferEdited, b.text[path], nil
	case "textDocument/didSave":
		if p.Text != nil {
			b.text[path] = []byte(*p.Text)
		}
		return path, bufferSaved, b.text[path], nil
	case "textDocument/didClose":
		delete(b.text, path)
		return path, bufferClosed, nil, nil
	case "textDocument/didChange":
		text, ok := b.text[path]
		if !ok {
			return path, bufferUnknown, nil, nil
		}
		// The text held is handed off (and kept) with each event: the
		// first change makes a new one, which later changes of the same
		// notification edit in place.
		owned := false
		for _, c := range p.ContentChanges {
			if c.Range == nil {
				text, owned = []byte(c.Text), true
				continue
			}
			from, to, err := textpos.RangeOffsets(text, c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character, enc)
			if err != nil {
				// Out of step (a notification was dropped): the file is
				// the better guess from now on.
				delete(b.text, path)
				return path, bufferClosed, nil, fmt.Errorf("applying a change to %s: %w", path, err)
			}
			if owned {
				text = splice(text, from, to, c.Text)
			} else {
				text, owned = slices.Concat(text[:from], []byte(c.Text), text[to:]), true
			}
		}
		b.text[path] = text
		return path, bufferEdited, text, nil
	}
	return path, bufferNone, nil, nil
}

// splice replaces b[from:to] with s, in place when b has the room.
func splice(b []byte, from, to int, s string) []byte {
	n := len(b) + len(s) - (to - from)
	if n > cap(b) {
		nb := make([]byte, n, n+n/8)
		copy(nb, b[:from])
		copy(nb[from:], s)
		copy(nb[from+len(s):], b[to:])
		return nb
	}
	old := len(b)
	b = b[:n]
	copy(b[from+len(s):], b[to:old])
	copy(b[from:], s)
	return b
}

// get returns an open buffer's text (contextpack's Overlay source).
func (b *buffers) get(path string) ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.text[path]
	return t, ok
}

// rel returns a file URI's path relative to the root; false outside it.
func (b *buffers) rel(uri string) (string, bool) {
	abs, err := uriToPath(uri)
	if err != nil {
		return "", false
	}
	return b.relPath(abs)
}

// relPath returns an absolute path relative to the root (forward
// slashes); false outside it, also when the path is a symlink (or lies
// under one) that leads out of the root. A path that does not exist yet
// (a new, unsaved buffer) is inside when its name is.
func (b *buffers) relPath(abs string) (string, bool) {
	if b.root == "" || !filepath.IsAbs(abs) {
		return "", false
	}
	r, err := filepath.Rel(b.root, filepath.Clean(abs))
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	rel := filepath.ToSlash(r)
	if _, err := b.fs.RealPath(rel); errors.Is(err, rootfs.ErrOutside) {
		return "", false
	}
	return rel, true
}

// readFile reads a root-relative file, never through a symlink that
// leaves the root.
func (b *buffers) readFile(rel string) ([]byte, error) {
	return b.fs.ReadFile(rel)
}

// maxDiffCells bounds the table of the line diff (lines of the old middle
// times lines of the new middle, after the common prefix and suffix); a
// larger middle is reported as one changed block.
const maxDiffCells = 1 << 20

// changedLines compares two texts line by line and returns the new text's
// added or changed lines and the old text's removed or changed lines, as a
// `git diff -U0` would report them (an insertion or a deletion leaves an
// empty range on the other side).
func changedLines(old, cur []byte) (added, removed []impact.LineRange) {
	a, b := splitLines(old), splitLines(cur)
	pre := 0
	for pre < len(a) && pre < len(b) && bytes.Equal(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && bytes.Equal(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	hunk := func(i0, i1, j0, j1 int) { // 0-based half-open spans of the middles
		if i0 == i1 && j0 == j1 {
			return
		}
		// 1-based; an empty span is the insertion point after line x.
		removed = append(removed, impact.LineRange{Start: pre + i0 + 1, End: pre + i1})
		added = append(added, impact.LineRange{Start: pre + j0 + 1, End: pre + j1})
	}
	if len(am)*len(bm) > maxDiffCells {
		hunk(0, len(am), 0, len(bm))
		return added, removed
	}
	// Longest common subsequence of the middles, then walk it.
	n, m := len(am), len(bm)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if bytes.Equal(am[i], bm[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j, i0, j0 := 0, 0, 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && bytes.Equal(am[i], bm[j]):
			hunk(i0, i, j0, j)
			i++
			j++
			i0, j0 = i, j
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			j++
		default:
			i++
		}
	}
	hunk(i0, n, j0, m)
	return added, removed
}

// splitLines splits a text into lines, each with its newline; a final line
// without one counts.
func splitLines(text []byte) [][]byte {
	var out [][]byte
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// openBuffer is an open buffer's path and text.
type openBuffer struct {
	path string
	text []byte
}

// dirtyTexts returns the open buffers whose text differs from the file
// (or whose file is gone), sorted by path.
func (b *buffers) dirtyTexts() []openBuffer {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	open := make([]openBuffer, 0, len(b.text))
	for p, t := range b.text {
		open = append(open, openBuffer{p, t})
	}
	b.mu.Unlock()
	var out []openBuffer
	for _, o := range open {
		disk, err := b.readFile(o.path)
		if err != nil || !bytes.Equal(disk, o.text) {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(x, y openBuffer) int { return strings.Compare(x.path, y.path) })
	return out
}

// dirty returns the paths of the dirty buffers, sorted.
func (b *buffers) dirty() []string {
	var out []string
	for _, o := range b.dirtyTexts() {
		out = append(out, o.path)
	}
	return out
}

// open returns every open buffer's path and text, sorted by path.
func (b *buffers) open() []openBuffer {
	b.mu.Lock()
	out := make([]openBuffer, 0, len(b.text))
	for p, t := range b.text {
		out = append(out, openBuffer{p, t})
	}
	b.mu.Unlock()
	slices.SortFunc(out, func(x, y openBuffer) int { return strings.Compare(x.path, y.path) })
	return out
}

// currentVersion returns the buffers' version.
func (b *buffers) currentVersion() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.version
}

// none reports whether no buffer is open and none is lost.
func (b *buffers) none() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.text) == 0 && len(b.lost) == 0
}
