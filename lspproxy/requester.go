package lspproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Requester sends requests to a live language server. [Proxy] implements
// it for the server it fronts; a command run without a live server gets nil.
type Requester interface {
	// Request sends method with params (encoded as JSON; a
	// json.RawMessage passes as is) and returns the raw result. It
	// returns a *[ResponseError] when the server answers with an error,
	// and ctx's error when ctx ends first (the server is then sent
	// $/cancelRequest).
	Request(ctx context.Context, method string, params any) (json.RawMessage, error)
}

var _ Requester = (*Proxy)(nil)

// ownResponse is the server's answer to one of the proxy's requests.
type ownResponse struct {
	result json.RawMessage
	err    *ResponseError
}

// ErrNotInitialized is returned by [Proxy.Request] before the editor and
// the server completed initialize.
var ErrNotInitialized = errors.New("lspproxy: the language server is not initialized yet")

// Request implements [Requester]. Its ids are strings ("lspgraph-1", …) in
// a namespace the proxy refuses to editors, and its responses are consumed,
// never forwarded.
func (p *Proxy) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("lspproxy: encoding %s params: %w", method, err)
	}
	ch := make(chan ownResponse, 1)
	p.mu.Lock()
	switch {
	case p.serverErr != nil:
		err = p.serverErr
	case p.exitSent:
		err = fmt.Errorf("lspproxy: %s is shutting down", p.cfg.ServerName)
	case !p.haveInit || !p.initDone:
		err = ErrNotInitialized
	}
	if err != nil {
		p.mu.Unlock()
		return nil, fmt.Errorf("lspproxy: %s: %w", method, err)
	}
	p.nextID++
	id := ownIDPrefix + strconv.FormatInt(p.nextID, 10) + `"`
	p.own[id] = ch
	p.mu.Unlock()

	m, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	body := make([]byte, 0, len(raw)+len(m)+len(id)+48)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, id...)
	body = append(body, `,"method":`...)
	body = append(body, m...)
	body = append(body, `,"params":`...)
	body = append(body, raw...)
	body = append(body, '}')
	if err := p.writeServer(body); err != nil {
		p.dropOwn(id)
		return nil, fmt.Errorf("lspproxy: sending %s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return r.result, nil
	case <-ctx.Done():
		p.dropOwn(id)
		cancel := `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`
		p.writeServer([]byte(cancel))
		return nil, fmt.Errorf("lspproxy: %s: %w", method, ctx.Err())
	case <-p.serverGone:
		p.dropOwn(id)
		p.mu.Lock()
		err := p.serverErr
		p.mu.Unlock()
		if err == nil {
			err = fmt.Errorf("lspproxy: %s exited", p.cfg.ServerName)
		}
		return nil, fmt.Errorf("lspproxy: %s: %w", method, err)
	}
}

func (p *Proxy) dropOwn(id string) {
	p.mu.Lock()
	delete(p.own, id)
	p.mu.Unlock()
}

// ownResponse delivers the server's answer to one of the proxy's requests.
// Late answers (after a cancel) are dropped.
func (p *Proxy) ownResponse(key string, env *envelope) {
	p.mu.Lock()
	ch := p.own[key]
	delete(p.own, key)
	p.mu.Unlock()
	if ch == nil {
		p.log.Debug("dropping a late response to a proxy request", "id", key)
		return
	}
	var r ownResponse
	if env.err != nil {
		r.err = &ResponseError{}
		if err := json.Unmarshal(env.err, r.err); err != nil {
			r.err = &ResponseError{Code: codeInternalError, Message: "malformed error from the language server: " + truncate(env.err)}
		}
	} else {
		r.result = append(json.RawMessage(nil), env.result...)
		if r.result == nil {
			r.result = json.RawMessage("null")
		}
	}
	ch <- r
}
