package lspproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
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

// lateLensTimeout bounds a computation that goes on past its answer's
// budget, for the cache and, when the editor supports it, a refresh.
const lateLensTimeout = 30 * time.Second

// lensRun is one computation of the proxy's lenses for one text of a
// document; requests for the same text while it runs share it.
type lensRun struct {
	uri    string
	edits  uint64        // the document's edit count when it started
	done   chan struct{} // closed once lenses is set
	lenses []json.RawMessage
	// refreshed: the editor was asked to refresh for these lenses
	// (under Proxy.mu).
	refreshed bool
}

// lensJob is one request's wait for a run.
type lensJob struct {
	run      *lensRun
	deadline time.Time // the answer waits for it no later than this
}

// lensCache keeps, per document, the proxy's last lenses and the edit
// count of the text they were computed for (under Proxy.mu). A lens
// answer that misses its budget carries the cached ones while the
// document is unchanged; a computation that finishes late and finds
// something new asks the editor to refresh (workspace/codeLens/refresh).
type lensCache struct {
	edits   map[string]uint64 // didOpen, didChange and didClose per URI
	entries map[string]lensEntry
	running map[string]*lensRun
}

type lensEntry struct {
	edits  uint64
	lenses []json.RawMessage
}

// noteDocumentEdit counts an edit of a document, so cached lenses of an
// older text are not used.
func (p *Proxy) noteDocumentEdit(method string, params []byte) {
	uri, ok := textDocumentURI(params)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// The count only grows, so a computation started before a close and
	// reopen never matches the new text.
	p.lenses.edits[uri]++
	if method == "textDocument/didClose" {
		delete(p.lenses.entries, uri)
	}
}

// cachedLenses returns the lenses kept for uri if its text is the one
// they were computed for.
func (p *Proxy) cachedLenses(uri string) []json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.lenses.entries[uri]
	if !ok || e.edits != p.lenses.edits[uri] {
		return nil
	}
	return e.lenses
}

// finishRun records a run's lenses, caching them unless the document
// changed since it started, and releases its waiters.
func (p *Proxy) finishRun(r *lensRun, lenses []json.RawMessage) {
	p.mu.Lock()
	if p.lenses.running[r.uri] == r {
		delete(p.lenses.running, r.uri)
	}
	if lenses != nil && p.lenses.edits[r.uri] == r.edits {
		p.lenses.entries[r.uri] = lensEntry{edits: r.edits, lenses: lenses}
	}
	r.lenses = lenses
	p.mu.Unlock()
	close(r.done)
}

// canRefreshLenses reports whether the editor advertised
// workspace.codeLens.refreshSupport.
func (p *Proxy) canRefreshLenses() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lensRefresh
}

// noteLensRefresh reads workspace.codeLens.refreshSupport from the
// editor's initialize params.
func (p *Proxy) noteLensRefresh(params []byte) {
	var ip struct {
		Capabilities struct {
			Workspace struct {
				CodeLens struct {
					RefreshSupport bool `json:"refreshSupport"`
				} `json:"codeLens"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(params, &ip) != nil {
		return
	}
	p.mu.Lock()
	p.lensRefresh = ip.Capabilities.Workspace.CodeLens.RefreshSupport
	p.mu.Unlock()
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

// startLenses begins computing the proxy's lenses for uri, or joins the
// computation running for the document's current text; the answer waits
// for them up to budget, the computation goes on up to lateLensTimeout.
// Lenses computed for the document's current text are cached.
func (p *Proxy) startLenses(uri string, budget time.Duration) *lensJob {
	job := &lensJob{deadline: time.Now().Add(budget)}
	p.mu.Lock()
	edits := p.lenses.edits[uri]
	if r := p.lenses.running[uri]; r != nil && r.edits == edits {
		job.run = r
		p.mu.Unlock()
		return job
	}
	job.run = &lensRun{uri: uri, edits: edits, done: make(chan struct{})}
	p.lenses.running[uri] = job.run
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), max(budget, lateLensTimeout))
	go func() {
		defer cancel()
		p.finishRun(job.run, p.computeLenses(ctx, uri))
	}()
	return job
}

// lateLenses runs after an answer went without the job's lenses (sent
// stands for what it carried instead): once they are computed, if they
// differ from what was sent and the document is unchanged, the editor is
// asked to refresh its lenses, and its next codeLens request gets them
// from the cache.
func (p *Proxy) lateLenses(job *lensJob, sent []json.RawMessage) {
	if !p.canRefreshLenses() {
		return
	}
	r := job.run
	go func() {
		<-r.done
		if r.lenses == nil || sameLenses(r.lenses, sent) || p.cachedLenses(r.uri) == nil {
			return
		}
		p.mu.Lock()
		first := !r.refreshed
		r.refreshed = true
		p.mu.Unlock()
		if first {
			p.requestEditor("workspace/codeLens/refresh")
		}
	}()
}

func sameLenses(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// requestEditor sends a request without params to the editor in the
// proxy's id space; the editor's answer is dropped when it comes back.
func (p *Proxy) requestEditor(method string) {
	p.mu.Lock()
	p.nextID++
	id := ownIDPrefix + strconv.FormatInt(p.nextID, 10) + `"`
	p.mu.Unlock()
	p.writeEditor([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`))
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
// a codeLensProvider, within ownLensTimeout, or at once with the lenses
// cached for the same text (then, when new ones differ, a refresh). A
// cancel from the editor ends the wait.
func (p *Proxy) answerLenses(env *envelope, uri string) {
	ctx, cancel := context.WithCancel(context.Background())
	key := env.idKey()
	p.mu.Lock()
	p.running[key] = cancel
	p.mu.Unlock()
	id := env.id
	// The computation outlives a cancelled or late answer (bounded by its
	// own timeout), so that its lenses can be cached.
	job := p.startLenses(uri, ownLensTimeout)
	go func() {
		defer cancel()
		deadline := job.deadline
		if p.cachedLenses(uri) != nil {
			deadline = time.Now() // no wait for what is known
		}
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		var lenses []json.RawMessage
		late := false
		select {
		case <-job.run.done:
			lenses = job.run.lenses
		case <-t.C:
			lenses, late = p.cachedLenses(uri), true
		case <-ctx.Done():
		}
		p.mu.Lock()
		delete(p.running, key)
		p.mu.Unlock()
		if ctx.Err() != nil {
			p.replyError(id, codeRequestCancelled, "textDocument/codeLens cancelled")
			return
		}
		p.replyResult(id, appendLenses([]byte("null"), lenses))
		if late {
			p.lateLenses(job, lenses)
		}
	}()
}

// mergeLenses writes the server's codeLens answer to the editor with the
// proxy's lenses appended: those of the job if it is done, else those
// cached for the same text, else the job's once done but no later than
// its deadline; past it the server's answer goes as it came.
func (p *Proxy) mergeLenses(env *envelope, body []byte, job *lensJob) {
	if env.err != nil || env.result == nil {
		p.writeEditor(body)
		return
	}
	select {
	case <-job.run.done:
		p.sendMerged(env.id, env.result, body, job.run.lenses)
		return
	default:
	}
	if cached := p.cachedLenses(job.run.uri); cached != nil {
		// The lenses of this very text are known: no wait; new ones,
		// if they differ, come with a refresh or the next request.
		p.sendMerged(env.id, env.result, body, cached)
		p.lateLenses(job, cached)
		return
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
		case <-job.run.done:
			p.sendMerged(id, result, body, job.run.lenses)
		case <-t.C:
			cached := p.cachedLenses(job.run.uri)
			p.log.Debug("lenses not ready within the budget; sending the server's with the cached ones", "id", string(id), "cached", len(cached))
			p.sendMerged(id, result, body, cached)
			p.lateLenses(job, cached)
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
