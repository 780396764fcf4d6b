package lspproxy

import (
	"encoding/json"
	"net/url"
	"path/filepath"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// noteInitializeParams records the workspace root from the editor's
// initialize params. The params are forwarded unchanged.
func (p *Proxy) noteInitializeParams(params []byte) {
	var ip struct {
		RootURI          *string `json:"rootUri"`
		RootPath         *string `json:"rootPath"`
		WorkspaceFolders []struct {
			URI string `json:"uri"`
		} `json:"workspaceFolders"`
	}
	if err := json.Unmarshal(params, &ip); err != nil {
		p.log.Warn("initialize params not understood; workspace root unknown", "err", err)
		return
	}
	var s Session
	for _, f := range ip.WorkspaceFolders {
		s.WorkspaceFolders = append(s.WorkspaceFolders, f.URI)
	}
	switch {
	case ip.RootURI != nil && *ip.RootURI != "":
		s.RootURI = *ip.RootURI
	case len(s.WorkspaceFolders) > 0:
		s.RootURI = s.WorkspaceFolders[0]
	case ip.RootPath != nil && *ip.RootPath != "":
		s.RootURI = (&url.URL{Scheme: "file", Path: filepath.ToSlash(*ip.RootPath)}).String()
	}
	p.mu.Lock()
	p.session.RootURI = s.RootURI
	p.session.WorkspaceFolders = s.WorkspaceFolders
	p.mu.Unlock()
}

// rewriteInitialize adds the proxy's commands to the server's initialize
// result and records the negotiated position encoding. Everything else in
// the result is passed on; an error response passes unchanged.
func (p *Proxy) rewriteInitialize(env *envelope, body []byte) []byte {
	if env.result == nil {
		return body
	}
	addLens := p.lensesOn()
	result, enc, info, lensAdded, err := extendInitializeResult(env.result, p.commandNames(), addLens)
	if err != nil {
		p.log.Warn("initialize result not understood; forwarding it unchanged (lspgraph commands will not be advertised)", "err", err)
	}
	p.mu.Lock()
	p.session.Encoding = enc
	p.session.ServerName, p.session.ServerVersion = info.Name, info.Version
	p.haveInit = true
	p.ownLenses = err == nil && lensAdded
	s := p.session
	s.WorkspaceFolders = append([]string(nil), s.WorkspaceFolders...)
	p.mu.Unlock()
	p.observe(observation{session: &s})
	if err != nil {
		return body
	}
	out := make([]byte, 0, len(result)+len(env.id)+32)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, env.id...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	return append(out, '}')
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// extendInitializeResult merges commands into
// capabilities.executeCommandProvider.commands (creating the provider when
// absent, keeping the server's names first and each name once) and, when
// addLens is set and the server has none, adds codeLensProvider
// {"resolveProvider": false}, reporting whether it did. Members are
// decoded only down to the list they change; all other values stay raw.
func extendInitializeResult(result []byte, commands []string, addLens bool) ([]byte, textpos.Encoding, serverInfo, bool, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(result, &top); err != nil {
		return nil, textpos.UTF16, serverInfo{}, false, err
	}
	var info serverInfo
	if raw, ok := top["serverInfo"]; ok {
		json.Unmarshal(raw, &info) // optional; absent or odd is fine
	}
	if top == nil {
		top = map[string]json.RawMessage{}
	}
	caps := map[string]json.RawMessage{}
	if raw, ok := top["capabilities"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &caps); err != nil {
			return nil, textpos.UTF16, info, false, err
		}
	}
	enc := textpos.UTF16
	if raw, ok := caps["positionEncoding"]; ok {
		var name string
		if err := json.Unmarshal(raw, &name); err == nil {
			if e, err := textpos.ParseEncoding(name); err == nil {
				enc = e
			}
		}
	}
	provider := map[string]json.RawMessage{}
	if raw, ok := caps["executeCommandProvider"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &provider); err != nil {
			return nil, enc, info, false, err
		}
	}
	var names []string
	if raw, ok := provider["commands"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &names); err != nil {
			return nil, enc, info, false, err
		}
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		seen[n] = true
	}
	if names == nil {
		names = []string{}
	}
	for _, c := range commands {
		if !seen[c] {
			names = append(names, c)
		}
	}
	var err error
	if provider["commands"], err = json.Marshal(names); err != nil {
		return nil, enc, info, false, err
	}
	if caps["executeCommandProvider"], err = json.Marshal(provider); err != nil {
		return nil, enc, info, false, err
	}
	lensAdded := false
	if raw, ok := caps["codeLensProvider"]; addLens && (!ok || string(raw) == "null") {
		caps["codeLensProvider"] = json.RawMessage(`{"resolveProvider":false}`)
		lensAdded = true
	}
	if top["capabilities"], err = json.Marshal(caps); err != nil {
		return nil, enc, info, false, err
	}
	out, err := json.Marshal(top)
	return out, enc, info, lensAdded, err
}

// encoding returns the negotiated position encoding.
func (p *Proxy) encoding() textpos.Encoding {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.session.Encoding
}
