package lspproxy

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// observedCall is what a pending request of an observed method keeps for
// the Observer: its params, and once answered its result and error,
// copied one after the other into one buffer.
//
// A pending request and its buffer are used again for a later request
// once its answer was forwarded and, when observed, delivered or dropped
// (see Proxy.newCall, Proxy.recycle). A proxy that allocated the request
// and its copies afresh each time kept its small heap turning over: the
// runtime gave freed pages back to the system and faulted them in again,
// about 160 page faults in 3 s of definition round trips against gopls
// (`perf record -e page-faults`), on a virtual machine where a fault
// costs several microseconds.
//
// A request's params are copied after the request is forwarded, off the
// forwarding path. copying is held from before the request is pending
// until its params are copied, so that an answer that comes back first
// waits for them (see begin, copyParams, wait).
type observedCall struct {
	copying   sync.Mutex
	active    bool   // the request is observed
	data      []byte // params, then the answer
	nParams   int
	encoding  textpos.Encoding // set with the answer
	premature bool             // set with the answer
}

// maxKeptObs is the largest buffer kept with a recycled request; one grown
// past it by a large answer (workspace/symbol, references of a common
// name) is let go.
const maxKeptObs = 64 << 10

// begin makes oc observed, before the request is pending: its answer
// waits (see wait) until copyParams.
func (oc *observedCall) begin() {
	oc.active = true
	oc.copying.Lock()
}

// copyParams copies the request's params, in the buffer oc kept from an
// earlier request if any, once the request was forwarded; its answer may
// proceed.
func (oc *observedCall) copyParams(params []byte) {
	oc.data = append(oc.data[:0], params...)
	oc.nParams = len(params)
	oc.copying.Unlock()
}

// wait returns once the request's params are copied.
func (oc *observedCall) wait() {
	oc.copying.Lock()
	oc.copying.Unlock()
}

// answer appends the answer, the whole message, after the params: where
// its result and error lie is found on the observer's goroutine (see
// exchange), not on the forwarding path.
func (oc *observedCall) answer(msg []byte) {
	oc.data = append(oc.data, msg...)
}

// exchange is the Exchange to deliver, its raw JSON in oc's buffer; an
// error when the answer kept is not a JSON-RPC response.
func (oc *observedCall) exchange(method string) (Exchange, error) {
	env, err := scanEnvelope(oc.data[oc.nParams:])
	if err == nil && env.kind != kindResponse {
		err = errors.New("a message with a method is not an answer")
	}
	if err != nil {
		return Exchange{}, err
	}
	return Exchange{
		Method:    method,
		Params:    json.RawMessage(oc.data[:oc.nParams:oc.nParams]),
		Result:    json.RawMessage(env.result),
		Error:     json.RawMessage(env.err),
		Encoding:  oc.encoding,
		Premature: oc.premature,
	}, nil
}

// newCall returns a pending request for method and its id (the pending
// map's key), reusing a recycled one and its buffer when there is one.
func (p *Proxy) newCall(method, id string) *pendingCall {
	pc, _ := p.calls.Get().(*pendingCall)
	if pc == nil {
		return &pendingCall{method: method, id: id}
	}
	*pc = pendingCall{method: method, id: id, observed: observedCall{data: pc.observed.data[:0]}}
	return pc
}

// recycle offers pc for a later request. Only a request nothing else
// holds may be recycled: answered (out of pending), delivered or dropped
// when observed, and with no timer of its own (see pendingCall.reusable).
func (p *Proxy) recycle(pc *pendingCall) {
	if !pc.reusable {
		return
	}
	data := pc.observed.data
	if cap(data) > maxKeptObs {
		data = nil
	}
	*pc = pendingCall{observed: observedCall{data: data[:0]}}
	p.calls.Put(pc)
}
