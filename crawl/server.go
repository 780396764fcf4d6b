package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/rootfs"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Server is a language server started headlessly for live questions (the
// verification of answers when no editor's server is at hand): the same
// client and handshake as a crawl, kept running until Shutdown. Before a
// request about a document of the workspace it opens that document with
// its text on disk, and tells the server when that text has changed since,
// so the server answers about the work tree. Its methods are safe for
// concurrent use.
type Server struct {
	c     *client
	root  string
	fs    *rootfs.Root
	enc   textpos.Encoding
	name  string
	ready chan struct{} // closed once the server has finished loading

	mu   sync.Mutex
	docs map[string]*openDoc // by URI
}

// openDoc is a document the server was given, with the text it has.
type openDoc struct {
	version int
	text    []byte
}

// StartServer starts opts.Server in opts.Root, initializes it and returns
// without waiting for it to load its project: Ready says when it has.
// Only Root, Server, PositionEncodings, ReadyQuiet, ReadyTimeout,
// RequestTimeout and Stderr apply.
func StartServer(ctx context.Context, opts Options) (*Server, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("crawl: root %s: %w", opts.Root, err)
	}
	opts.Root = root
	opts.defaults()
	if len(opts.Server) == 0 {
		return nil, errors.New("crawl: no language server command")
	}
	fsys, err := rootfs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	c, err := startClient(ctx, opts.Server, root, opts.Stderr)
	if err != nil {
		fsys.Close()
		return nil, err
	}
	// The crawl's handshake, on a crawler that asks nothing else.
	cr := &crawler{opts: opts, root: root, c: c}
	if err := cr.initialize(ctx); err != nil {
		c.kill()
		fsys.Close()
		return nil, err
	}
	s := &Server{c: c, root: root, fs: fsys, enc: cr.enc, name: cr.res.ServerName, ready: make(chan struct{}), docs: map[string]*openDoc{}}
	go func() {
		// Past the limit the server counts as ready anyway, as a crawl
		// starts anyway.
		_, _ = c.waitReady(context.WithoutCancel(ctx), opts.ReadyQuiet, opts.ReadyTimeout)
		close(s.ready)
	}()
	return s, nil
}

// Name is the server's name from its initialize result (else its command).
func (s *Server) Name() string { return s.name }

// Encoding is the position encoding the server negotiated.
func (s *Server) Encoding() textpos.Encoding { return s.enc }

// Ready reports whether the server has finished loading its project.
func (s *Server) Ready() bool {
	select {
	case <-s.ready:
		return true
	default:
		return false
	}
}

// WaitReady waits until the server has finished loading its project, or
// ctx ends, and reports whether it has.
func (s *Server) WaitReady(ctx context.Context) bool {
	select {
	case <-s.ready:
		return true
	case <-ctx.Done():
		return false
	}
}

// Request sends method with params and returns the raw result. A request
// naming a textDocument of the workspace first brings the server's copy of
// that document in step with the file.
func (s *Server) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, ok := params.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("%s: encoding the parameters: %w", method, err)
		}
		raw = b
	}
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(raw, &p) == nil && p.TextDocument.URI != "" {
		if err := s.sync(ctx, p.TextDocument.URI); err != nil {
			return nil, err
		}
	}
	var out json.RawMessage
	if err := s.c.call(ctx, method, raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// sync opens the document at uri, or sends its whole text again when the
// file changed since; a document outside the root is left alone.
func (s *Server) sync(ctx context.Context, uri string) error {
	rel, ok := lspwire.WorkspacePath(uri, s.root)
	if !ok {
		return nil
	}
	text, err := s.fs.ReadFile(rel)
	if err != nil {
		return nil // the server will say what it makes of it
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[uri]
	switch {
	case d == nil:
		s.docs[uri] = &openDoc{version: 1, text: text}
		return s.c.notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": lang.LanguageID(rel), "version": 1, "text": string(text),
		}})
	case string(d.text) != string(text):
		d.version++
		d.text = text
		return s.c.notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": d.version},
			"contentChanges": []map[string]string{{"text": string(text)}},
		})
	}
	return nil
}

// Shutdown asks the server to shut down and exit, and waits for it
// (killing it after grace).
func (s *Server) Shutdown(ctx context.Context, grace time.Duration) error {
	defer s.fs.Close()
	return s.c.shutdown(ctx, grace)
}
