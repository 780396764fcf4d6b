package lspproxy

import (
	"encoding/json"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Observer receives what the proxy saw pass by. Each func may be nil. The
// funcs run on one goroutine of their own, in the order the messages passed,
// never on the forwarding path: a slow observer costs observations (dropped
// and counted in [Stats]), never latency.
type Observer struct {
	// OnInitialize is called once the server answered initialize.
	OnInitialize func(Session)
	// OnExchange is called for each completed request of an observed
	// method (see [ObservedRequest]). The Exchange's raw JSON is valid
	// only during the call (the proxy reuses its memory): an observer
	// that keeps it copies it.
	OnExchange func(Exchange)
	// OnDocument is called for textDocument/didOpen, didChange, didSave
	// and didClose, and with a MethodDocumentGap event for a document
	// whose last events were dropped.
	OnDocument func(DocumentEvent)
}

// Session is what initialize negotiated.
type Session struct {
	// RootURI is the initialize params' rootUri, else the first workspace
	// folder, else a file URI made from rootPath; "" when none was given.
	RootURI string
	// WorkspaceFolders lists the workspace folders' URIs.
	WorkspaceFolders []string
	// Encoding is the negotiated capabilities.positionEncoding (UTF-16
	// when the server named none).
	Encoding textpos.Encoding
	// ServerName and ServerVersion come from the result's serverInfo.
	ServerName, ServerVersion string
}

// Exchange is one observed request and its answer, as raw JSON.
type Exchange struct {
	Method string
	Params json.RawMessage
	// Result is the raw result ("null" included); nil when the server
	// answered with an error.
	Result json.RawMessage
	// Error is the raw error object when the server answered with one.
	Error json.RawMessage
	// Encoding is the position encoding the positions in Params and
	// Result are counted in.
	Encoding textpos.Encoding
	// Premature is set when the server may have answered from incomplete
	// knowledge (see [Proxy] readiness): such answers must not become
	// precise facts.
	Premature bool
}

// DocumentEvent is one text document notification from the editor.
type DocumentEvent struct {
	Method   string // textDocument/didOpen, didChange, didSave, didClose
	Params   json.RawMessage
	Encoding textpos.Encoding
	Time     time.Time
	// Gap is set on the first event delivered for a document after one or
	// more of its events were dropped (the queue was full): whoever
	// follows the document's text through incremental changes is out of
	// step and must not apply them to the copy it has.
	Gap bool
}

// ObservedRequest reports whether the exchanges of a request method go to
// [Observer.OnExchange]: textDocument/definition, declaration,
// typeDefinition, implementation, references, documentSymbol,
// prepareCallHierarchy, callHierarchy/incomingCalls and outgoingCalls, and
// workspace/symbol.
func ObservedRequest(method string) bool { return observedRequest(method) }

func observedRequest(method string) bool {
	switch method {
	case protocol.MethodTextDocumentDefinition,
		protocol.MethodTextDocumentDeclaration,
		protocol.MethodTextDocumentTypeDefinition,
		protocol.MethodTextDocumentImplementation,
		protocol.MethodTextDocumentReferences,
		protocol.MethodTextDocumentDocumentSymbol,
		protocol.MethodTextDocumentPrepareCallHierarchy,
		protocol.MethodCallHierarchyIncomingCalls,
		protocol.MethodCallHierarchyOutgoingCalls,
		protocol.MethodWorkspaceSymbol:
		return true
	}
	return false
}

// observedNotification reports whether an editor notification is observed.
func observedNotification(method string) bool {
	switch method {
	case protocol.MethodTextDocumentDidOpen, protocol.MethodTextDocumentDidChange,
		protocol.MethodTextDocumentDidSave, protocol.MethodTextDocumentDidClose:
		return true
	}
	return false
}

// observation is one queue entry; exactly one pointer is set. An
// exchange is its request's pendingCall, whose observed part holds it.
type observation struct {
	session  *Session
	call     *pendingCall
	document *DocumentEvent
}

// Stats are the proxy's counters at one moment.
type Stats struct {
	FromEditor int64 `json:"fromEditor"` // frames read from the editor
	FromServer int64 `json:"fromServer"` // frames read from the server
	Malformed  int64 `json:"malformed"`  // frames skipped because their body was not a JSON-RPC message
	Observed   int64 `json:"observed"`   // observations handed to the Observer
	Dropped    int64 `json:"dropped"`    // observations dropped because the queue was full
	Queued     int   `json:"queued"`     // observations waiting in the queue
	// PendingEditor counts editor requests the server has not answered;
	// PendingProxy the proxy's own requests in flight; PendingCommands the
	// lspgraph.* commands running.
	PendingEditor   int `json:"pendingEditor"`
	PendingProxy    int `json:"pendingProxy"`
	PendingCommands int `json:"pendingCommands"`
}

// counters are updated on the forwarding path without locks.
type counters struct {
	fromEditor, fromServer, malformed, observed, dropped atomic.Int64
}

// observe queues o without waiting; when the queue is full o is dropped and
// counted. Anything but an exchange, or a queue a quarter full, hurries
// the observer (see drainUntil).
func (p *Proxy) observe(o observation) {
	select {
	case p.queue <- o:
		if o.call == nil || len(p.queue) >= cap(p.queue)/4 {
			p.hurryObserver()
		}
	default:
		p.counters.dropped.Add(1)
		if o.call != nil {
			p.recycle(o.call)
		}
	}
}

// observeDocument queues a text document event without waiting. A dropped
// event marks its document as lost; the next event of that document that
// is queued carries Gap. Only the editor loop calls it, so p.lostDocs needs
// no lock; the document's URI is read only on a drop and while some
// document is lost.
func (p *Proxy) observeDocument(ev *DocumentEvent) {
	uri := ""
	if len(p.lostDocs) > 0 {
		uri, _ = textDocumentURI(ev.Params)
		_, ev.Gap = p.lostDocs[uri]
	}
	select {
	case p.queue <- observation{document: ev}:
		p.hurryObserver()
		if ev.Gap {
			delete(p.lostDocs, uri)
		}
	default:
		p.counters.dropped.Add(1)
		if uri == "" {
			uri, _ = textDocumentURI(ev.Params)
		}
		p.lostDocs[uri] = struct{}{}
	}
}

// MethodDocumentGap is the Method of a DocumentEvent that stands for
// events of a document that were dropped with no later one queued since:
// the proxy queues it once the observer has emptied the queue (checked
// after each editor message), so that whoever follows the document's
// text does not keep the
// text of the last event it was given. A dropped didClose, the last
// event of a document, left a buffer open that the editor had closed, and
// answers came from its text instead of the file's. Its Params name the
// document ({"textDocument":{"uri":…}}); Gap is set.
const MethodDocumentGap = "$/lspgraph/documentGap"

// reportLostDocs queues a MethodDocumentGap event for each lost document
// while the queue has room. Only the editor loop calls it (see
// observeDocument).
func (p *Proxy) reportLostDocs() {
	queued := false
	for uri := range p.lostDocs {
		params, err := json.Marshal(map[string]any{"textDocument": map[string]string{"uri": uri}})
		if err != nil {
			delete(p.lostDocs, uri)
			continue
		}
		ev := &DocumentEvent{Method: MethodDocumentGap, Params: params, Encoding: p.encoding(), Time: time.Now(), Gap: true}
		select {
		case p.queue <- observation{document: ev}:
			delete(p.lostDocs, uri)
			queued = true
			continue
		default:
		}
		break // the queue is full again: the next editor message tries
	}
	if queued {
		p.hurryObserver()
	}
}

// deliver hands one observation to the Observer; after abandon is closed it
// counts it as dropped instead.
func (p *Proxy) deliver(o observation, abandon <-chan struct{}) {
	if o.call != nil {
		defer p.recycle(o.call)
	}
	select {
	case <-abandon:
		p.counters.dropped.Add(1)
		return
	default:
	}
	obs := p.cfg.Observer
	var x Exchange
	if o.call != nil && obs.OnExchange != nil {
		var err error
		if x, err = o.call.observed.exchange(o.call.method); err != nil {
			p.counters.malformed.Add(1)
			p.log.Error("not observing a malformed answer from the language server", "server", p.cfg.ServerName, "method", o.call.method, "err", err, "body", truncate(o.call.observed.data[o.call.observed.nParams:]))
			return
		}
	}
	p.counters.observed.Add(1)
	switch {
	case o.session != nil && obs.OnInitialize != nil:
		obs.OnInitialize(*o.session)
	case o.call != nil && obs.OnExchange != nil:
		obs.OnExchange(x)
	case o.document != nil && obs.OnDocument != nil:
		obs.OnDocument(*o.document)
	}
}
