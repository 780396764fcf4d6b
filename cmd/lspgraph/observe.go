package main

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/lspgraph/lspgraph/ingest"
	"github.com/lspgraph/lspgraph/lspproxy"
)

// observer connects the proxy's observations to the live layer. It runs on
// the proxy's observer goroutine, never on the forwarding path.
func (st *proxyState) observer() lspproxy.Observer {
	return lspproxy.Observer{
		OnInitialize: func(s lspproxy.Session) {
			root := ""
			if p, err := uriToPath(s.RootURI); err == nil {
				root = p
			} else {
				root = defaultRoot()
			}
			st.open(root) // no-op when --root was given
			st.log.Info("session", "root", s.RootURI, "encoding", s.Encoding.String(), "server", s.ServerName)
		},
		OnExchange: func(x lspproxy.Exchange) {
			g, err := st.ready()
			if err != nil {
				return
			}
			st.liveMu.Lock()
			defer st.liveMu.Unlock()
			if err := g.live.Exchange(context.Background(), ingest.Exchange{
				Method: x.Method, Params: x.Params, Result: x.Result, Encoding: x.Encoding, Premature: x.Premature,
			}); err != nil {
				st.log.Debug("observation not recorded", "method", x.Method, "err", err)
			}
		},
		OnDocument: func(d lspproxy.DocumentEvent) {
			g, err := st.ready()
			if err != nil {
				return
			}
			// The adapter keeps the text the server saw, for positions
			// and for the content hash of the facts it writes.
			st.liveMu.Lock()
			err = g.live.Document(d.Method, d.Params, d.Encoding)
			st.liveMu.Unlock()
			if err != nil {
				st.log.Debug("document notification not applied", "method", d.Method, "err", err)
			}
			st.bufferEvent(g, d)
		},
	}
}

// bufferEvent hands a text document notification to the overlay. The
// buffer's text is the same the adapter follows, so the overlay's content
// hash of a buffer equals the one the adapter stamps on the language
// server's facts for it: while they are equal the overlay leaves those
// facts alone (they describe this very text), and once the buffer moves on
// its syntax extraction replaces them.
func (st *proxyState) bufferEvent(g graphSession, d lspproxy.DocumentEvent) {
	err := g.buffers.follow(d.Method, d.Params, d.Encoding, func(path string, ev bufferEvent, text []byte) {
		if g.ov == nil {
			return
		}
		switch ev {
		case bufferEdited:
			g.ov.BufferChanged(path, text)
		case bufferSaved:
			if text != nil {
				g.ov.BufferChanged(path, text)
			}
			// The saved file now differs from the base as a file, not
			// a buffer: a full sync lists it among the work tree's
			// changes.
			st.requestSync()
		case bufferClosed:
			g.ov.BufferClosed(path)
		}
	})
	if err != nil {
		st.log.Warn("editor buffer out of step; answering from the file until it is reopened", "method", d.Method, "err", err)
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
