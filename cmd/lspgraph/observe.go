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
			_, live, _, err := st.ready()
			if err != nil {
				return
			}
			if err := live.Exchange(context.Background(), ingest.Exchange{
				Method: x.Method, Params: x.Params, Result: x.Result, Encoding: x.Encoding, Premature: x.Premature,
			}); err != nil {
				st.log.Debug("observation not recorded", "method", x.Method, "err", err)
			}
		},
		OnDocument: func(d lspproxy.DocumentEvent) {
			_, live, _, err := st.ready()
			if err != nil {
				return
			}
			if err := live.Document(d.Method, d.Params, d.Encoding); err != nil {
				st.log.Debug("document notification not applied", "method", d.Method, "err", err)
			}
		},
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
