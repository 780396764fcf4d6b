package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"github.com/lspgraph/lspgraph/ingest"
	"github.com/lspgraph/lspgraph/lspproxy"
)

// Exchange records one request/response pair the language server answered
// (an editor's, observed by a proxy) into the live layer.
func (s *Session) Exchange(ctx context.Context, x lspproxy.Exchange) {
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	if err := s.live.Exchange(ctx, ingest.Exchange{
		Method: x.Method, Params: x.Params, Result: x.Result, Encoding: x.Encoding, Premature: x.Premature,
	}); err != nil {
		s.log.Debug("observation not recorded", "method", x.Method, "err", err)
	}
}

// Document follows one text document notification of an editor: the
// buffers keep the text the editor shows, which is the text the server saw
// (the live adapter reads positions and content hashes against it), and the
// overlay re-extracts it.
func (s *Session) Document(d lspproxy.DocumentEvent) {
	for _, d := range s.buffers.resync(d) {
		s.bufferEvent(d)
	}
}

// bufferEvent hands a text document notification to the overlay. The
// buffer's text is the same the adapter follows, so the overlay's content
// hash of a buffer equals the one the adapter stamps on the language
// server's facts for it: while they are equal the overlay leaves those
// facts alone (they describe this very text), and once the buffer moves on
// its syntax extraction replaces them.
func (s *Session) bufferEvent(d lspproxy.DocumentEvent) {
	err := s.buffers.follow(d.Method, d.Params, d.Encoding, func(path string, ev bufferEvent, text []byte) {
		if s.ov == nil {
			return
		}
		switch ev {
		case bufferEdited:
			s.ov.BufferChanged(path, text)
		case bufferSaved:
			if text != nil {
				s.ov.BufferChanged(path, text)
			}
			// The saved file now differs from the base as a file, not
			// a buffer: a full sync lists it among the work tree's
			// changes.
			s.requestSync()
		case bufferClosed:
			s.ov.BufferClosed(path)
		}
	})
	if err != nil {
		s.log.Warn("editor buffer out of step; answering from the file until it is reopened", "method", d.Method, "err", err)
	}
}

// uriToPath returns the absolute path of a file URI.
func uriToPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", fmt.Errorf("%q is not a file URI", uri)
	}
	return filepath.FromSlash(u.Path), nil
}

// resync returns the notifications the adapter and the buffers follow for
// one the editor sent. Normally that is the notification itself. After a
// gap (some of the document's notifications were dropped because the
// observer fell behind) the copies of the buffer are stale and an
// incremental change must not be applied to them: both are discarded (a
// didClose: facts come from the file, and the freshness block lists the
// document as partial) until the editor sends the whole text again, in a
// didOpen, a didChange without a range or a didSave (whose text is the
// one sent along, else the file's), which is then followed as a reopening.
// The proxy's report of events lost with none after them
// (lspproxy.MethodDocumentGap: a dropped didClose) closes them the same
// way, so that no buffer the editor closed stays open here.
func (b *buffers) resync(d lspproxy.DocumentEvent) []lspproxy.DocumentEvent {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version *int   `json:"version,omitempty"`
		} `json:"textDocument"`
		Text           *string           `json:"text"`
		ContentChanges []json.RawMessage `json:"contentChanges"`
	}
	if json.Unmarshal(d.Params, &p) != nil {
		return []lspproxy.DocumentEvent{d}
	}
	uri := p.TextDocument.URI
	lost := b.isLost(uri)
	if !d.Gap && !lost {
		return []lspproxy.DocumentEvent{d}
	}
	event := func(method string, params any) lspproxy.DocumentEvent {
		raw, _ := json.Marshal(params)
		return lspproxy.DocumentEvent{Method: method, Params: raw, Encoding: d.Encoding, Time: d.Time}
	}
	doc := map[string]any{"uri": uri}
	closed := event("textDocument/didClose", map[string]any{"textDocument": doc})
	reopen := func(text string) lspproxy.DocumentEvent {
		open := map[string]any{"uri": uri, "text": text}
		if p.TextDocument.Version != nil {
			open["version"] = *p.TextDocument.Version
		}
		return event("textDocument/didOpen", map[string]any{"textDocument": open})
	}
	switch d.Method {
	case "textDocument/didOpen", "textDocument/didClose":
		b.setLost(uri, false)
		return []lspproxy.DocumentEvent{d}
	case "textDocument/didSave":
		// The file holds the buffer's text as saved: sent along, else
		// read back, unless the file was written again since the save
		// was forwarded (then the edits in between would be applied to
		// a later text).
		text := p.Text
		if text == nil {
			if saved, ok := b.savedText(uri, d.Time); ok {
				text = &saved
			}
		}
		if text != nil {
			b.setLost(uri, false)
			return []lspproxy.DocumentEvent{closed, reopen(*text), d}
		}
		if d.Gap {
			b.setLost(uri, true)
			return []lspproxy.DocumentEvent{closed, d}
		}
		return []lspproxy.DocumentEvent{d}
	case "textDocument/didChange":
		full := -1
		var text string
		for i, c := range p.ContentChanges {
			var ch struct {
				Range *json.RawMessage `json:"range"`
				Text  string           `json:"text"`
			}
			if json.Unmarshal(c, &ch) == nil && ch.Range == nil {
				full, text = i, ch.Text
			}
		}
		if full >= 0 {
			b.setLost(uri, false)
			out := []lspproxy.DocumentEvent{closed, reopen(text)}
			if rest := p.ContentChanges[full+1:]; len(rest) > 0 {
				out = append(out, event(d.Method, map[string]any{"textDocument": p.TextDocument, "contentChanges": rest}))
			}
			return out
		}
	}
	if !d.Gap {
		return nil // still lost: nothing to apply the change to
	}
	b.setLost(uri, true)
	return []lspproxy.DocumentEvent{closed}
}

// savedText reads the file of a document URI saved at the time at, unless
// it was modified after that or lies outside the root.
func (b *buffers) savedText(uri string, at time.Time) (string, bool) {
	rel, ok := b.rel(uri)
	if !ok {
		return "", false
	}
	fi, err := b.fs.Stat(rel)
	if err != nil || !fi.Mode().IsRegular() || fi.ModTime().After(at) {
		return "", false
	}
	text, err := b.fs.ReadFile(rel)
	if err != nil {
		return "", false
	}
	return string(text), true
}
