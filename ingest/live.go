package ingest

import (
	"context"
	"encoding/json"
	"log/slog"
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
	// Buffer returns the text of an open editor buffer by root-relative
	// path (forward slashes): positions in the server's answers about it
	// are read against that text. The editor's buffers are followed by
	// their owner (the workspace session), not here; nil means none.
	Buffer func(path string) ([]byte, bool)
	// BufferVersion returns a number that changes whenever an open
	// buffer's text does (or a buffer opens or closes). With it, an
	// exchange that changed nothing is not worked out again while the
	// graph, the buffers and the files it read are unchanged (see
	// Stats.Repeated). Without it, and with Buffer set, every exchange is.
	BufferVersion func() uint64
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
	// Repeated counts exchanges not worked out again: the same exchange
	// changed nothing before, and neither the graph, nor the buffers, nor
	// the files it read changed since.
	Repeated int64 `json:"repeated"`
}

// Live writes observations into the live layer. Its methods must be called
// from one goroutine (the proxy's observer); Stats and Close may be called
// from any.
type Live struct {
	store *graph.Store
	opts  Options
	log   *slog.Logger

	fsMu sync.Mutex
	fs   *rootfs.Root // reads the files under opts.Root; nil until there is one

	// repeats remembers exchanges that changed nothing; nil when buffer
	// changes cannot be told (Buffer without BufferVersion).
	repeats *repeats

	exchanges, premature, documents, failed, repeated atomic.Int64
}

// New returns an adapter writing to store.
func New(store *graph.Store, opts Options) *Live {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l := &Live{store: store, opts: opts, log: log}
	if opts.Buffer == nil || opts.BufferVersion != nil {
		l.repeats = newRepeats()
	}
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
		if l.repeats != nil {
			l.repeats.forget()
		}
	}
}

// Stats returns the adapter's counters.
func (l *Live) Stats() Stats {
	return Stats{
		Exchanges: l.exchanges.Load(), Premature: l.premature.Load(),
		Documents: l.documents.Load(), Failed: l.failed.Load(),
		Repeated: l.repeated.Load(),
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

// Exchange turns one answered request into live facts.
func (l *Live) Exchange(ctx context.Context, e Exchange) error {
	if e.Premature {
		l.premature.Add(1)
		return nil
	}
	if e.Result == nil {
		return nil // an error answer says nothing
	}
	// The versions are read before the reader opens and the files are
	// stamped before they are read, so a change racing with this exchange
	// makes its memory stale rather than wrong.
	var key, storeVersion, bufferVersion uint64
	if l.repeats != nil {
		key, storeVersion, bufferVersion = l.repeats.key(&e), l.store.Version(), l.bufferVersion()
		if l.repeats.holds(key, storeVersion, bufferVersion) {
			l.repeated.Add(1)
			return nil
		}
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
	if l.repeats != nil && b.written == 0 && !b.unsure {
		l.repeats.note(key, storeVersion, bufferVersion, b.stamps)
	}
	return nil
}

// bufferVersion returns the buffers' version (0 without buffers).
func (l *Live) bufferVersion() uint64 {
	if l.opts.BufferVersion == nil {
		return 0
	}
	return l.opts.BufferVersion()
}

// text returns the text the server saw for path: the open buffer, else
// the file, read through the workspace root (never through a symbolic
// link leading out of it).
// A file's stamp (abs set) is taken before it is read; its fi is nil
// when the file could not be stamped. A buffer has no stamp.
func (l *Live) text(path string) ([]byte, fileStamp, error) {
	if l.opts.Buffer != nil {
		if t, ok := l.opts.Buffer(path); ok {
			return t, fileStamp{}, nil
		}
	}
	l.fsMu.Lock()
	fsys := l.fs
	l.fsMu.Unlock()
	var st fileStamp
	if l.repeats != nil {
		st = stamp(l.opts.Root, path)
	}
	text, err := fsys.ReadFile(path)
	return text, st, err
}
