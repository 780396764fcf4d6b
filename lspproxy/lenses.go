package lspproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
)

// LensesFunc computes the proxy's code lenses for one document. Each lens
// is an LSP CodeLens object; the proxy tags its data with
// {"lspgraph": true} so codeLens/resolve can be routed back to it.
type LensesFunc func(ctx context.Context, uri string) ([]json.RawMessage, error)

// LensesOption is the initializationOptions key that, set to false, turns
// the proxy's lenses off for a session.
const LensesOption = "lspgraph.lenses"

// ownLensTimeout bounds the proxy's lenses when it answers
// textDocument/codeLens itself (the server advertised no provider).
const ownLensTimeout = 2 * time.Second

// lensJob is one computation of the proxy's lenses for a request.
type lensJob struct {
	deadline time.Time
	done     chan []json.RawMessage // receives once; nil lenses on failure
}

// lensesOn reports whether the proxy adds lenses in this session.
func (p *Proxy) lensesOn() bool {
	if p.cfg.Lenses == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.lensesOff
}

// noteLensOption reads the lenses switch from the editor's
// initializationOptions: {"lspgraph.lenses": false} or
// {"lspgraph": {"lenses": false}}.
func (p *Proxy) noteLensOption(params []byte) {
	var ip struct {
		Options map[string]json.RawMessage `json:"initializationOptions"`
	}
	if json.Unmarshal(params, &ip) != nil || ip.Options == nil {
		return
	}
	off := string(bytes.TrimSpace(ip.Options[LensesOption])) == "false"
	if raw, ok := ip.Options["lspgraph"]; ok {
		var nested struct {
			Lenses *bool `json:"lenses"`
		}
		if json.Unmarshal(raw, &nested) == nil && nested.Lenses != nil && !*nested.Lenses {
			off = true
		}
	}
	if off {
		p.mu.Lock()
		p.lensesOff = true
		p.mu.Unlock()
	}
}

// lensURI reads textDocument.uri from codeLens params.
func lensURI(params []byte) (string, bool) {
	var cp struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(params, &cp) != nil || cp.TextDocument.URI == "" {
		return "", false
	}
	return cp.TextDocument.URI, true
}

// startLenses begins computing the proxy's lenses for uri within timeout.
func (p *Proxy) startLenses(ctx context.Context, uri string, timeout time.Duration) *lensJob {
	job := &lensJob{deadline: time.Now().Add(timeout), done: make(chan []json.RawMessage, 1)}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	go func() {
		defer cancel()
		job.done <- p.computeLenses(ctx, uri)
	}()
	return job
}

// computeLenses runs Config.Lenses and tags the lenses; failures are
// logged and yield none.
func (p *Proxy) computeLenses(ctx context.Context, uri string) (out []json.RawMessage) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("lenses panicked", "uri", uri, "panic", r)
			out = nil
		}
	}()
	lenses, err := p.cfg.Lenses(ctx, uri)
	if err != nil {
		p.log.Debug("computing lenses", "uri", uri, "err", err)
		return nil
	}
	out = make([]json.RawMessage, 0, len(lenses))
	for _, l := range lenses {
		if t, ok := tagLens(l); ok {
			out = append(out, t)
		}
	}
	return out
}

// tagLens sets data.lspgraph = true on a CodeLens object.
func tagLens(lens json.RawMessage) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(lens, &m) != nil || m == nil {
		return nil, false
	}
	data := map[string]json.RawMessage{}
	if raw, ok := m["data"]; ok {
		if json.Unmarshal(raw, &data) != nil || data == nil {
			data = map[string]json.RawMessage{"value": raw}
		}
	}
	data["lspgraph"] = json.RawMessage("true")
	var err error
	if m["data"], err = json.Marshal(data); err != nil {
		return nil, false
	}
	out, err := json.Marshal(m)
	return out, err == nil
}

// ownLens reports whether codeLens/resolve params are one of the proxy's
// lenses.
func ownLens(params []byte) bool {
	var cl struct {
		Data struct {
			Lspgraph bool `json:"lspgraph"`
		} `json:"data"`
	}
	return json.Unmarshal(params, &cl) == nil && cl.Data.Lspgraph
}

// answerLenses answers textDocument/codeLens itself, for a server without
// a codeLensProvider. A cancel from the editor stops it.
func (p *Proxy) answerLenses(env *envelope, uri string) {
	ctx, cancel := context.WithCancel(context.Background())
	key := env.idKey()
	p.mu.Lock()
	p.running[key] = cancel
	p.mu.Unlock()
	id := env.id
	go func() {
		defer cancel()
		lenses := <-p.startLenses(ctx, uri, ownLensTimeout).done
		p.mu.Lock()
		delete(p.running, key)
		p.mu.Unlock()
		if ctx.Err() != nil {
			p.replyError(id, codeRequestCancelled, "textDocument/codeLens cancelled")
			return
		}
		p.replyResult(id, appendLenses([]byte("null"), lenses))
	}()
}

// mergeLenses writes the server's codeLens answer to the editor with the
// proxy's lenses appended, waiting for them no later than the job's
// deadline; past it the server's answer goes as it came.
func (p *Proxy) mergeLenses(env *envelope, body []byte, job *lensJob) {
	if env.err != nil || env.result == nil {
		p.writeEditor(body)
		return
	}
	select {
	case lenses := <-job.done:
		p.sendMerged(env.id, env.result, body, lenses)
		return
	default:
	}
	// Not ready: wait aside so the server loop goes on. The envelope's
	// slices point into body, which is kept whole.
	id := append([]byte(nil), env.id...)
	result := append([]byte(nil), env.result...)
	body = append([]byte(nil), body...)
	go func() {
		t := time.NewTimer(time.Until(job.deadline))
		defer t.Stop()
		select {
		case lenses := <-job.done:
			p.sendMerged(id, result, body, lenses)
		case <-t.C:
			p.log.Debug("lenses not ready within the budget; sending the server's alone", "id", string(id))
			p.writeEditor(body)
		}
	}()
}

// sendMerged writes the server's answer with lenses appended, or as it
// came when there are none or its result is not an array.
func (p *Proxy) sendMerged(id, result, body []byte, lenses []json.RawMessage) {
	if len(lenses) == 0 {
		p.writeEditor(body)
		return
	}
	merged := appendLenses(result, lenses)
	if merged == nil {
		p.writeEditor(body)
		return
	}
	p.replyResult(id, merged)
}

// appendLenses appends lenses to a raw result array (null counts as
// empty), keeping the server's bytes. It returns nil when result is not
// an array.
func appendLenses(result []byte, lenses []json.RawMessage) []byte {
	r := bytes.TrimSpace(result)
	if string(r) == "null" {
		r = []byte("[]")
	}
	if len(r) < 2 || r[0] != '[' || r[len(r)-1] != ']' {
		return nil
	}
	inner := bytes.TrimSpace(r[1 : len(r)-1])
	out := make([]byte, 0, len(r)+64*len(lenses))
	out = append(out, '[')
	out = append(out, inner...)
	for i, l := range lenses {
		if i > 0 || len(inner) > 0 {
			out = append(out, ',')
		}
		out = append(out, l...)
	}
	return append(out, ']')
}
