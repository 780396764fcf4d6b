package lspproxy

import (
	"encoding/json"
)

// readiness tracks whether a gated server answers from complete knowledge;
// the rule is documented on [Proxy]. Guarded by Proxy.mu.
type readiness struct {
	gated bool
	// open holds server-created progress tokens not yet ended.
	open map[string]bool
	// settled is set once, after gating began, a server-created progress
	// ended or the server published diagnostics.
	settled bool
}

func (r *readiness) isReady() bool {
	return !r.gated || (r.settled && len(r.open) == 0)
}

// readinessChanged publishes p.ready.isReady() to readers without the
// lock (see forwardCall); called with p.mu held after each change.
func (p *Proxy) readinessChanged() { p.readyNow.Store(p.ready.isReady()) }

// serverCall notes what readiness needs from a server-to-editor request.
func (p *Proxy) serverCall(env *envelope) {
	if env.method != "window/workDoneProgress/create" {
		return
	}
	var params struct {
		Token json.RawMessage `json:"token"`
	}
	if json.Unmarshal(env.params, &params) != nil || len(params.Token) == 0 {
		return
	}
	p.mu.Lock()
	if p.ready.open == nil {
		p.ready.open = make(map[string]bool)
	}
	p.ready.open[string(params.Token)] = true
	p.readinessChanged()
	p.mu.Unlock()
}

// serverNotification notes what readiness needs from a server
// notification.
func (p *Proxy) serverNotification(env *envelope) {
	switch env.method {
	case "$/typescriptVersion":
		p.mu.Lock()
		if !p.ready.gated {
			p.ready.gated = true
			p.ready.settled = false
		}
		p.readinessChanged()
		p.mu.Unlock()
	case "textDocument/publishDiagnostics":
		p.mu.Lock()
		if p.ready.gated {
			p.ready.settled = true
		}
		p.readinessChanged()
		p.mu.Unlock()
	case "$/progress":
		p.mu.Lock()
		tracking := len(p.ready.open) > 0
		p.mu.Unlock()
		if !tracking {
			return
		}
		var params struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if json.Unmarshal(env.params, &params) != nil || params.Value.Kind != "end" {
			return
		}
		p.mu.Lock()
		if p.ready.open[string(params.Token)] {
			delete(p.ready.open, string(params.Token))
			if p.ready.gated {
				p.ready.settled = true
			}
		}
		p.readinessChanged()
		p.mu.Unlock()
	}
}
