package lspproxy

import (
	"encoding/json"
	"time"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// observedCall is what a pending request of an observed method keeps for
// the Observer: its params, and once answered its result and error, copied
// one after the other into one buffer from the proxy's pool, which goes
// back to the pool once the exchange was delivered (or dropped). A proxy
// that allocated these copies afresh for every exchange kept its small
// heap turning over: the runtime gave freed pages back to the system and
// faulted them in again, about 160 page faults in 3 s of definition
// round trips against gopls (`perf record -e page-faults`), on a virtual
// machine where a fault costs several microseconds.
type observedCall struct {
	buf              *[]byte // from Proxy.obsBufs; (*buf)[:0] once released
	data             []byte  // params, result, error
	nParams, nResult int
	hasResult        bool // the answer had a result ("null" included)
	hasError         bool
	sent, received   time.Time
	encoding         textpos.Encoding
	premature        bool
}

// maxPooledObs is the largest buffer returned to the pool; one grown past
// it by a large answer (workspace/symbol, references of a common name) is
// let go.
const maxPooledObs = 64 << 10

// startObserved starts oc with a copy of an observed request's params in
// a pooled buffer.
func (p *Proxy) startObserved(oc *observedCall, params []byte) {
	bp, _ := p.obsBufs.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 0, 4<<10)
		bp = &b
	}
	*oc = observedCall{buf: bp, data: append((*bp)[:0], params...), nParams: len(params), sent: time.Now()}
}

// answer appends the answer's result and error after the params.
func (oc *observedCall) answer(result, rpcErr []byte) {
	oc.data = append(oc.data, result...)
	oc.data = append(oc.data, rpcErr...)
	oc.nResult = len(result)
	oc.hasResult, oc.hasError = result != nil, rpcErr != nil
	oc.received = time.Now()
}

// exchange is the Exchange to deliver, its raw JSON in oc's buffer.
func (oc *observedCall) exchange(method string) Exchange {
	x := Exchange{
		Method:    method,
		Params:    json.RawMessage(oc.data[:oc.nParams:oc.nParams]),
		Encoding:  oc.encoding,
		Sent:      oc.sent,
		Received:  oc.received,
		Premature: oc.premature,
	}
	end := oc.nParams + oc.nResult
	if oc.hasResult {
		x.Result = json.RawMessage(oc.data[oc.nParams:end:end])
	}
	if oc.hasError {
		x.Error = json.RawMessage(oc.data[end:len(oc.data):len(oc.data)])
	}
	return x
}

// releaseObserved returns oc's buffer to the pool; oc's data must not be
// read afterwards.
func (p *Proxy) releaseObserved(oc *observedCall) {
	bp, data := oc.buf, oc.data
	oc.buf, oc.data = nil, nil
	if bp == nil || cap(data) > maxPooledObs {
		return
	}
	*bp = data[:0]
	p.obsBufs.Put(bp)
}
