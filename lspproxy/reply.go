package lspproxy

import (
	"encoding/json"
	"fmt"
)

// JSON-RPC and LSP error codes the proxy answers with.
const (
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeRequestFailed    = -32803 // LSP: the request was valid but failed
	codeRequestCancelled = -32800 // LSP: the request was cancelled
)

// ResponseError is a JSON-RPC error object: what a failed response carries,
// and what [Proxy.Request] returns when the server answers with an error.
// A [CommandFunc] may return one to choose the code the editor sees.
type ResponseError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// message type of window/showMessage.
const msgError = 1

// replyResult answers an editor request with a raw result.
func (p *Proxy) replyResult(id, result []byte) {
	body := make([]byte, 0, len(id)+len(result)+32)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, id...)
	body = append(body, `,"result":`...)
	body = append(body, result...)
	body = append(body, '}')
	p.writeEditor(body)
}

// replyError answers an editor request with an error.
func (p *Proxy) replyError(id []byte, code int64, message string) {
	p.replyErr(id, &ResponseError{Code: code, Message: message})
}

func (p *Proxy) replyErr(id []byte, rerr *ResponseError) {
	e, err := json.Marshal(rerr)
	if err != nil {
		p.log.Error("encoding an error response", "err", err)
		return
	}
	body := make([]byte, 0, len(id)+len(e)+32)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, id...)
	body = append(body, `,"error":`...)
	body = append(body, e...)
	body = append(body, '}')
	p.writeEditor(body)
}

// showMessage sends window/showMessage to the editor.
func (p *Proxy) showMessage(typ int, message string) {
	params, err := json.Marshal(struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	}{typ, message})
	if err != nil {
		return
	}
	p.writeEditor(append(append([]byte(`{"jsonrpc":"2.0","method":"window/showMessage","params":`), params...), '}'))
}
