package lspproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// editorLoop reads the editor's frames until the editor disconnects or
// sends a frame that cannot be delimited.
//
// A frame is read into the reader's buffer and forwarded from there (one
// write, no copy); what outlives the frame (a request's id, the params
// the observer gets) is copied. Requests the proxy itself works on
// (editorOwns) get a copy of the whole frame first.
func (p *Proxy) editorLoop(fr *frameReader) error {
	for {
		f, err := fr.next()
		if err != nil {
			if errors.Is(err, errFraming) {
				p.log.Error("editor sent a malformed frame; the stream cannot be resynchronised, shutting down", "err", err)
				return fmt.Errorf("lspproxy: from the editor: %w", err)
			}
			if !errors.Is(err, io.EOF) {
				p.log.Info("editor connection ended", "err", err)
			}
			return err
		}
		p.counters.fromEditor.Add(1)
		p.editorFrame(f)
		if len(p.lostDocs) > 0 && len(p.queue) == 0 {
			p.reportLostDocs()
		}
	}
}

// editorFrame routes one frame from the editor. A request the proxy only
// forwards is forwarded once its method and id are read (see
// forwardCall); anything else is read whole first.
func (p *Proxy) editorFrame(f frame) {
	es := startEnvelope(f.body)
	if !es.fastHead(f.body) {
		es.head()
	}
	if p.forwardCall(&es, f) {
		return
	}
	env, err := es.finish()
	if err != nil {
		p.malformed("the editor", err, f.body)
		return
	}
	if env.kind == kindCall && editorOwns(env.method) {
		f = cloneFrame(f)
		env, _ = scanEnvelope(f.body) // the same bytes: it scans again
	}
	switch env.kind {
	case kindCall:
		p.editorCall(&env, f, nil)
	case kindNotification:
		p.editorNotification(&env, f)
	case kindResponse:
		if isOwnID(env.id) {
			// The editor's answer to the proxy's own request
			// (workspace/codeLens/refresh): nothing waits for it.
			p.log.Debug("the editor answered a proxy request", "id", string(env.id))
			return
		}
		p.forwardToServer(f.wire)
	}
}

// forwardCall forwards an editor request whose method and id es has read
// before anything else of it, when it is one the proxy has no part in
// (see editorIntercepts), and then registers it as pending and copies what
// the observer wants; it reports whether it did. An answer that comes
// before the request is pending is left by the server loop to this one
// (see takePending).
//
// Reading the rest of a request, registering it and copying its params
// took its forwarding 2-3 µs per request on a 2-core machine (measured in
// the proxy process between a frame read and its write, caches cold from
// the editor's and the server's turns in between); forwarded first it
// waits 1.3 µs, for the head of the message only.
func (p *Proxy) forwardCall(es *envelopeScan, f frame) bool {
	if es.err != nil || es.e.method == "" || es.e.id == nil || !validID(es.e.id) || isOwnID(es.e.id) || editorIntercepts(es.e.method) {
		return false
	}
	p.registering.Store(true)
	premature := !p.readyNow.Load()
	p.forwardToServer(f.wire)
	env, err := es.finish()
	if err != nil {
		// Forwarded as the editor sent it: the server answers it, and
		// its answer is routed by the method and id read; nothing else
		// of it is taken (nor observed).
		p.counters.malformed.Add(1)
		p.log.Error("forwarded a malformed request from the editor; its answer is routed, nothing of it observed", "server", p.cfg.ServerName, "err", err, "body", truncate(f.body))
		env = envelope{kind: kindCall, method: es.e.method, id: es.e.id}
	}
	early := p.editorCall(&env, f, &premature)
	if p.registering.Load() { // editorCall answered it without the lock
		p.mu.Lock()
		p.registering.Store(false)
		early = append(early, p.early...)
		p.early = nil
		p.mu.Unlock()
	}
	// Answers that came while the request was being registered, routed
	// now as the server loop would have.
	for _, a := range early {
		p.serverFrame(a)
	}
	return true
}

// editorIntercepts reports whether the proxy has a part in an editor
// request or notification of this method beyond forwarding it, or in what
// follows from it, so that it is read whole before it is forwarded: the
// requests it works on (editorOwns), and the messages that change its
// state or a pending request's.
func editorIntercepts(method string) bool {
	switch method {
	case "initialized", "shutdown", "exit", "$/cancelRequest":
		return true
	}
	return editorOwns(method)
}

// malformed counts and logs a message from one side (from: "the editor"
// or "the language server") that is not a JSON-RPC message.
func (p *Proxy) malformed(from string, err error, body []byte) {
	p.counters.malformed.Add(1)
	p.log.Error("skipping a malformed message from "+from, "server", p.cfg.ServerName, "err", err, "body", truncate(body))
}

// envelopeOf scans a frame's envelope; a body that is not a JSON-RPC
// message is counted as malformed, logged, and false returned.
func (p *Proxy) envelopeOf(f frame) (envelope, bool) {
	env, err := scanEnvelope(f.body)
	if err != nil {
		p.malformed("the language server", err, f.body)
		return env, false
	}
	return env, true
}

// editorOwns reports whether the proxy works on an editor request of this
// method beyond forwarding it (answers it, keeps parts of it for later
// goroutines): such a request is copied out of the read buffer whole.
func editorOwns(method string) bool {
	switch method {
	case "workspace/executeCommand", "initialize", "codeLens/resolve", "textDocument/codeLens":
		return true
	}
	return false
}

// cloneFrame copies a frame out of its reader's buffer.
func cloneFrame(f frame) frame {
	wire := bytes.Clone(f.wire)
	return frame{wire: wire, body: wire[len(wire)-len(f.body):]}
}

// editorCall routes one editor request. forwarded is nil unless the
// request was already forwarded (see forwardCall), and then says whether
// the server was not ready when it was; such a request ends its
// registration (see Proxy.registering) under the lock it is made pending
// with, and the server frames that came meanwhile are returned for the
// caller to route. Unless editorOwns its method, f is borrowed from the
// reader: what is kept is copied.
func (p *Proxy) editorCall(env *envelope, f frame, forwarded *bool) (early []frame) {
	if isOwnID(env.id) {
		p.replyError(env.id, codeInvalidRequest, fmt.Sprintf("request id %s is reserved for the lspgraph proxy", env.id))
		return
	}
	switch env.method {
	case "workspace/executeCommand":
		if p.interceptCommand(env) {
			return
		}
	case "initialize":
		p.noteInitializeParams(env.params)
		p.noteLensOption(env.params)
		p.noteLensRefresh(env.params)
	case "codeLens/resolve":
		if p.cfg.Lenses != nil && ownLens(env.params) {
			p.replyResult(env.id, env.params)
			return
		}
	}
	key := env.idKey()
	pc := p.newCall(env.method, key)
	if env.method == "textDocument/codeLens" && p.lensesOn() {
		if uri, ok := textDocumentURI(env.params); ok {
			p.mu.Lock()
			own := p.ownLenses
			p.mu.Unlock()
			if own {
				p.answerLenses(env, uri)
				return
			}
			pc.lens = p.startLenses(uri, p.cfg.LensBudget)
		}
	}
	observed := observedRequest(env.method) && p.cfg.Observer.OnExchange != nil && env.params != nil
	p.mu.Lock()
	if forwarded != nil {
		p.registering.Store(false)
		early, p.early = p.early, nil
		// An answer among them is this request's, taken by the editor
		// loop when it routes them: see pendingTable.claimSlot.
		pc.routedEarly = len(early) > 0
	}
	if p.serverErr != nil {
		err := p.serverErr
		p.mu.Unlock()
		if env.method == "shutdown" {
			p.replyResult(env.id, []byte("null"))
		} else {
			p.replyError(env.id, codeRequestFailed, err.Error())
		}
		return
	}
	if p.shutdownLapsed {
		p.mu.Unlock()
		if env.method == "shutdown" {
			p.replyResult(env.id, []byte("null"))
		} else {
			p.replyError(env.id, codeInvalidRequest, fmt.Sprintf("%s is shut down", p.cfg.ServerName))
		}
		return
	}
	if forwarded != nil {
		pc.premature = *forwarded
	} else {
		pc.premature = !p.ready.isReady()
	}
	if observed {
		pc.observed.begin()
	}
	p.pending.put(pc)
	p.mu.Unlock()
	if env.method == "shutdown" {
		p.watchShutdown(pc)
	}
	if forwarded == nil {
		p.forwardToServer(f.wire)
	}
	if observed {
		// After forwarding: the observer's copy costs the request
		// nothing on its way. f is the reader's until the next frame.
		pc.observed.copyParams(env.params)
	}
	return early
}

// editorNotification routes one editor notification; f is borrowed from
// the reader.
func (p *Proxy) editorNotification(env *envelope, f frame) {
	switch env.method {
	case "$/cancelRequest":
		if p.editorCancel(env.params) {
			return
		}
	case "initialized":
		p.mu.Lock()
		p.initDone = true
		p.mu.Unlock()
	case "exit":
		p.mu.Lock()
		first := !p.exitSent
		p.exitSent = true
		p.mu.Unlock()
		p.forwardToServer(f.wire)
		if first {
			close(p.exitSeen)
		}
		return
	case "textDocument/didOpen", "textDocument/didChange", "textDocument/didSave", "textDocument/didClose":
		p.forwardToServer(f.wire)
		if p.cfg.Lenses != nil && env.method != "textDocument/didSave" {
			p.noteDocumentEdit(env.method, env.params)
		}
		if p.cfg.Observer.OnDocument != nil {
			p.observeDocument(&DocumentEvent{
				Method:   env.method,
				Params:   bytes.Clone(env.params),
				Encoding: p.encoding(),
				Time:     time.Now(),
			})
		}
		return
	}
	p.forwardToServer(f.wire)
}

// forwardToServer writes a frame as read (header and body) to the server
// unless it is gone; a failed write is noticed by the server loop, which
// fails pending requests.
func (p *Proxy) forwardToServer(wire []byte) {
	if p.serverDown.Load() {
		return
	}
	if err := p.writeServerWire(wire); err != nil {
		p.log.Debug("writing to the server", "err", err)
	}
}

// serverLoop reads the server's frames until the connection ends, then
// settles everything that waited for the server. Frames are borrowed from
// the reader as in editorLoop: forwarded from its buffer, and only what is
// kept (an observed answer's result, a late codeLens answer) copied.
func (p *Proxy) serverLoop(fr *frameReader) {
	var endErr error
	for {
		f, err := fr.next()
		if err != nil {
			endErr = err
			break
		}
		p.counters.fromServer.Add(1)
		p.serverFrame(f)
	}
	p.serverEnded(endErr)
}

// serverFrame routes one frame from the server. An answer that is
// plainly one (see answerID) to an editor request the proxy only forwards
// is forwarded before anything else of it is read.
func (p *Proxy) serverFrame(f frame) {
	if id, ok := answerID(f.body); ok && p.forwardAnswer(id, f) {
		return
	}
	env, ok := p.envelopeOf(f)
	if !ok {
		return
	}
	switch env.kind {
	case kindResponse:
		p.serverResponse(&env, f)
	case kindCall:
		p.serverCall(&env)
		p.writeEditorWire(f.wire)
	case kindNotification:
		p.serverNotification(&env)
		p.writeEditorWire(f.wire)
	}
}

// serverResponse routes one response from the server; f is borrowed from
// the reader.
func (p *Proxy) serverResponse(env *envelope, f frame) {
	if isOwnID(env.id) {
		p.ownResponse(env.idKey(), env)
		return
	}
	pc, early := p.takePending(env.id, f, false)
	if early {
		return
	}
	if pc == nil {
		// An answer to a request the proxy already answered (cancelled
		// past its grace) or that was never forwarded: the editor must
		// not see two answers.
		p.log.Debug("dropping a response to an unknown request", "id", string(env.id))
		return
	}
	if pc.method == "initialize" {
		p.writeEditor(p.rewriteInitialize(env, f.body))
		return
	}
	if pc.lens != nil {
		p.mergeLenses(env, f.body, pc.lens)
		return
	}
	// The editor first, the observer after: its goroutine must not be
	// woken ahead of the answer, and only what it wants is copied.
	p.writeEditorWire(f.wire)
	p.answered(pc, f.body)
}

// forwardAnswer forwards the server's answer with the given id when it
// answers a pending editor request the proxy only forwards (neither
// initialize nor a codeLens it adds to) and reports whether it did. Its
// result is not read here: an observed answer is copied after forwarding
// and read on the observer's goroutine, where one whose body turns out to
// be malformed is counted and logged (it was forwarded, as the editor's
// request was).
func (p *Proxy) forwardAnswer(id []byte, f frame) bool {
	if isOwnID(id) {
		return false
	}
	if pc := p.pending.claimSlot(id); pc != nil {
		// Whether the server was ready is read before the editor has
		// the answer: what the editor does next may change it.
		ready := p.readyNow.Load()
		p.writeEditorWire(f.wire)
		p.mu.Lock()
		p.answerTaken(pc, ready)
		p.mu.Unlock()
		p.answered(pc, f.body)
		return true
	}
	pc, early := p.takePending(id, f, true)
	if early {
		return true
	}
	if pc == nil {
		return false
	}
	p.writeEditorWire(f.wire)
	p.answered(pc, f.body)
	return true
}

// takePending removes and returns the pending editor request with the
// given id; nil when there is none or, with onlyForwarded, when the proxy
// works on its answer (initialize, or a codeLens it adds to), which is
// then left pending (see answerTaken).
//
// While the editor loop registers a request it forwarded first (see
// forwardCall), an answer to an id not pending may be that request's:
// takePending then keeps a copy of its frame f for the editor loop to
// route once it has registered, and reports early. (Such an answer may
// then reach the editor after a server message that followed it.)
func (p *Proxy) takePending(id []byte, f frame, onlyForwarded bool) (pc *pendingCall, early bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pc = p.pending.get(id)
	if pc == nil && p.registering.Load() {
		p.early = append(p.early, cloneFrame(f))
		return nil, true
	}
	if pc == nil || onlyForwarded && !pc.forwardsAnswer() {
		return nil, false
	}
	if !p.pending.remove(pc) {
		return nil, false // claimed from its slot meanwhile, for another answer with its id
	}
	p.answerTaken(pc, p.ready.isReady())
	return pc, false
}

// answerTaken notes, with mu held, what the answer to pc, just taken out
// of pending, needs: whether pc can be recycled once answered (nothing
// but this answer holds a request that was neither cancelled — a grace
// timer holds it — nor a shutdown — its timeout does — nor answered
// before it was pending; see pendingTable.claimSlot) and, when it is
// observed, what its answer is read with (the position encoding, whether
// the answer may be premature: ready is whether the server was ready
// when the answer came).
func (p *Proxy) answerTaken(pc *pendingCall, ready bool) {
	pc.reusable = !pc.cancelled && pc.method != "shutdown" && !pc.routedEarly
	if oc := &pc.observed; oc.active {
		oc.premature = pc.premature || !ready
		oc.encoding = p.session.Encoding
	}
}

// answered finishes pc once its answer msg was forwarded: msg is copied
// for the observer when pc is observed, and pc is recycled.
func (p *Proxy) answered(pc *pendingCall, msg []byte) {
	if oc := &pc.observed; oc.active {
		oc.wait()
		oc.answer(msg)
		p.observe(observation{call: pc}) // recycled once delivered or dropped
		return
	}
	p.recycle(pc)
}

// serverEnded runs once the server connection is over. Unless the editor
// asked the server to exit, every pending request gets an error, the
// editor is told, and Serve will fail. A server the proxy stopped because
// it did not answer shutdown fails its pending requests too, but quietly.
func (p *Proxy) serverEnded(readErr error) {
	p.mu.Lock()
	expected := p.exitSent || p.stopping
	lapsed := p.shutdownLapsed && !p.exitSent
	proc := p.proc
	p.mu.Unlock()
	if expected {
		p.closeServerGone()
		if lapsed {
			p.failPending(fmt.Errorf("lspproxy: %s was stopped after it did not answer shutdown", p.cfg.ServerName), true)
		} else {
			p.failPending(fmt.Errorf("lspproxy: %s exited", p.cfg.ServerName), false)
		}
		return
	}
	var reason string
	switch {
	case errors.Is(readErr, errFraming):
		p.log.Error("language server sent a malformed frame; the stream cannot be resynchronised, stopping it", "server", p.cfg.ServerName, "err", readErr)
		reason = fmt.Sprintf("sent a malformed frame (%v) and was stopped", readErr)
		if proc != nil {
			proc.kill()
		}
	case proc != nil:
		status, ok := proc.waitTimeout(2 * time.Second)
		switch {
		case !ok:
			reason = fmt.Sprintf("closed its output (%v) and was stopped", readErr)
			proc.kill()
		case status == nil:
			reason = "exited with status 0"
		default:
			reason = fmt.Sprintf("exited: %v", status)
		}
	default:
		reason = fmt.Sprintf("closed its connection (%v)", readErr)
	}
	name := p.cfg.ServerName
	if proc != nil {
		name = fmt.Sprintf("%s (pid %d)", name, proc.Pid())
	}
	err := fmt.Errorf("%w: %s %s", ErrServerExited, name, reason)
	p.log.Error("language server ended", "err", err)
	p.mu.Lock()
	p.serverErr = err
	p.mu.Unlock()
	p.closeServerGone()
	p.failPending(err, true)
	p.showMessage(msgError, fmt.Sprintf("lspgraph: %v. Restart the language server to continue.", err))
}

// failPending answers every pending editor request with err and releases
// the proxy's own requests.
func (p *Proxy) failPending(err error, reply bool) {
	// A request forwarded but not yet registered (see forwardCall) is
	// either registered, and failed here, or answered by the editor loop,
	// which sees the server gone: give it the moment it takes, so that
	// either comes before what the caller says next. (Bounded: the editor
	// loop may be held by anything.)
	for wait := time.Now().Add(100 * time.Millisecond); reply && p.registering.Load() && time.Now().Before(wait); {
		time.Sleep(50 * time.Microsecond)
	}
	p.mu.Lock()
	calls := p.pending.all()
	p.mu.Unlock()
	if !reply {
		return
	}
	for _, pc := range calls {
		p.replyError([]byte(pc.id), codeRequestFailed, fmt.Sprintf("%v before answering %s", err, pc.method))
	}
}
