package lspproxy

import (
	"bytes"
	"encoding/json"
)

// editorCancel handles the editor's $/cancelRequest and reports whether it
// was consumed. A cancel for an lspgraph.* command stops the command (its
// answer becomes RequestCancelled) and is not forwarded. A cancel for a
// request the server holds is forwarded with the same id; if the server
// has not answered after Config.CancelGrace, the proxy answers it with
// RequestCancelled so the editor is never left waiting, and drops the
// server's late answer.
//
// Ids are compared as raw tokens: a numeric id stays a number (never
// decoded through float64 or int32), a string id a string.
func (p *Proxy) editorCancel(params []byte) bool {
	var cp struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &cp); err != nil || len(cp.ID) == 0 {
		return false // forward as it is; the server decides
	}
	key := string(bytes.TrimSpace(cp.ID))
	p.mu.Lock()
	if cancel, ok := p.running[key]; ok {
		p.mu.Unlock()
		cancel()
		return true
	}
	pc := p.pending.get([]byte(key))
	if pc != nil && !pc.cancelled {
		pc.cancelled = true
		p.deadlines.after(p.cfg.CancelGrace, func() { p.cancelGraceOver(pc) })
	}
	p.mu.Unlock()
	return false
}

// cancelGraceOver answers a cancelled request the server still holds.
func (p *Proxy) cancelGraceOver(pc *pendingCall) {
	p.mu.Lock()
	taken := p.pending.remove(pc)
	p.mu.Unlock()
	if !taken {
		return // answered meanwhile
	}
	p.log.Warn("language server did not answer a cancelled request in time; answering it as cancelled", "method", pc.method, "id", pc.id, "grace", p.cfg.CancelGrace)
	p.replyError([]byte(pc.id), codeRequestCancelled, pc.method+" cancelled")
}
