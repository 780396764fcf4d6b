package ingest

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/rootfs"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Options configure a [Live].
type Options struct {
	// Root is the absolute workspace root; when empty, [Live.SetRoot]
	// sets it from the editor's initialize.
	Root string
	// Logger receives one line per observation that could not be used;
	// nil discards them.
	Logger *slog.Logger
}

// Exchange is one answered request, as the proxy observed it.
type Exchange struct {
	Method         string
	Params, Result json.RawMessage
	Encoding       textpos.Encoding
	// Premature answers are skipped.
	Premature bool
}

// Stats count what the adapter did.
type Stats struct {
	Exchanges int64 `json:"exchanges"` // exchanges turned into facts
	Premature int64 `json:"premature"` // exchanges skipped as premature
	Documents int64 `json:"documents"` // live documents written
	Failed    int64 `json:"failed"`    // exchanges that could not be used
}

// Live writes observations into the live layer. Its methods must be called
// from one goroutine (the proxy's observer); Stats and Close may be called
// from any.
type Live struct {
	store   *graph.Store
	opts    Options
	log     *slog.Logger
	buffers map[string][]byte // open editor buffers by workspace path

	fsMu sync.Mutex
	fs   *rootfs.Root // reads the files under opts.Root; nil until there is one

	exchanges, premature, documents, failed atomic.Int64
}

// New returns an adapter writing to store.
func New(store *graph.Store, opts Options) *Live {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l := &Live{store: store, opts: opts, log: log, buffers: map[string][]byte{}}
	l.openRoot()
	return l
}

// openRoot opens opts.Root for reading; files cannot be read without it.
func (l *Live) openRoot() {
	if l.opts.Root == "" {
		return
	}
	fsys, err := rootfs.Open(l.opts.Root)
	if err != nil {
		l.log.Warn("workspace root unavailable: observations about files without an open buffer are not used", "err", err)
	}
	l.fsMu.Lock()
	defer l.fsMu.Unlock()
	_ = l.fs.Close()
	l.fs = fsys
}

// Close releases the workspace root. Observations after it cannot read
// files.
func (l *Live) Close() error {
	l.fsMu.Lock()
	defer l.fsMu.Unlock()
	err := l.fs.Close()
	l.fs = nil
	return err
}

// SetRoot sets the workspace root from the editor's root URI unless
// Options.Root was given.
func (l *Live) SetRoot(rootURI string) {
	if l.opts.Root != "" {
		return
	}
	if p, ok := lspwire.URIPath(rootURI); ok {
		l.opts.Root = p
		l.openRoot()
	}
}

// Stats returns the adapter's counters.
func (l *Live) Stats() Stats {
	return Stats{
		Exchanges: l.exchanges.Load(), Premature: l.premature.Load(),
		Documents: l.documents.Load(), Failed: l.failed.Load(),
	}
}

// path returns a file URI's path relative to the root, with forward
// slashes; false outside the workspace.
func (l *Live) path(uri string) (string, bool) {
	if l.opts.Root == "" {
		return "", false
	}
	return lspwire.WorkspacePath(uri, l.opts.Root)
}

// Document follows a text document notification (didOpen, didChange,
// didSave, didClose), keeping the text of open buffers.
func (l *Live) Document(method string, params json.RawMessage, enc textpos.Encoding) error {
	var p struct {
		TextDocument struct {
			URI  string  `json:"uri"`
			Text *string `json:"text"`
		} `json:"textDocument"`
		Text           *string `json:"text"`
		ContentChanges []struct {
			Range *lspwire.Range `json:"range"`
			Text  string         `json:"text"`
		} `json:"contentChanges"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return errorf("%s params: %w", method, err)
	}
	path, ok := l.path(p.TextDocument.URI)
	if !ok {
		return nil
	}
	switch method {
	case "textDocument/didOpen":
		if p.TextDocument.Text != nil {
			l.buffers[path] = []byte(*p.TextDocument.Text)
		}
	case "textDocument/didSave":
		if p.Text != nil {
			l.buffers[path] = []byte(*p.Text)
		}
	case "textDocument/didClose":
		delete(l.buffers, path)
	case "textDocument/didChange":
		text, ok := l.buffers[path]
		if !ok {
			return nil // never opened: nothing to apply the change to
		}
		for _, c := range p.ContentChanges {
			if c.Range == nil {
				text = []byte(c.Text)
				continue
			}
			m := textpos.NewMapper(text)
			r, err := m.FromRange(c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character, enc)
			if err != nil {
				delete(l.buffers, path) // out of step: fall back to the file
				return errorf("applying a change to %s: %w", path, err)
			}
			from, err1 := m.Offset(r.Start)
			to, err2 := m.Offset(r.End)
			if err := cmp.Or(err1, err2); err != nil || from > to {
				delete(l.buffers, path)
				return errorf("applying a change to %s: bad range %s", path, r)
			}
			text = slices.Concat(text[:from], []byte(c.Text), text[to:])
		}
		l.buffers[path] = text
	}
	return nil
}

// Exchange turns one answered request into live facts.
func (l *Live) Exchange(ctx context.Context, e Exchange) error {
	if e.Premature {
		l.premature.Add(1)
		return nil
	}
	if e.Result == nil {
		return nil // an error answer says nothing
	}
	r, err := l.store.Reader()
	if err != nil {
		return errorf("reading the graph: %w", err)
	}
	defer r.Close()
	b := &batch{l: l, r: r, ctx: ctx, enc: e.Encoding, docs: map[string]*docFacts{}}
	if err := b.add(e.Method, e.Params, e.Result); err != nil {
		l.failed.Add(1)
		l.log.Debug("observation not used", "method", e.Method, "err", err)
		return err
	}
	if err := b.commit(); err != nil {
		l.failed.Add(1)
		return err
	}
	l.exchanges.Add(1)
	return nil
}

// text returns the text the server saw for path: the open buffer, else
// the file, read through the workspace root (never through a symbolic
// link leading out of it).
func (l *Live) text(path string) ([]byte, error) {
	if t, ok := l.buffers[path]; ok {
		return t, nil
	}
	l.fsMu.Lock()
	fsys := l.fs
	l.fsMu.Unlock()
	return fsys.ReadFile(path)
}
