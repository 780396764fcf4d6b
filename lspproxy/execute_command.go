package lspproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CommandFunc answers one lspgraph.* command. args are the command's
// arguments as raw JSON; srv reaches the live language server (nil when the
// command runs without one). The result is encoded as JSON. Returning a
// *[ResponseError] chooses the error code; other errors are reported as
// request failures. Command functions know nothing of the transport, so the
// same table can serve the editor and other clients.
type CommandFunc func(ctx context.Context, args []json.RawMessage, srv Requester) (any, error)

// interceptCommand answers workspace/executeCommand for lspgraph.* commands
// and reports whether it did; every other command goes to the server.
func (p *Proxy) interceptCommand(env *envelope) bool {
	var params struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(env.params, &params); err != nil {
		return false // the server will say what is wrong with it
	}
	if !strings.HasPrefix(params.Command, CommandPrefix) {
		return false
	}
	var fn CommandFunc
	if params.Command == StatusCommand {
		fn = p.statusCommand
	} else if fn = p.cfg.Commands[params.Command]; fn == nil {
		p.replyError(env.id, codeInvalidParams, fmt.Sprintf("unknown command %q (this proxy answers %s)", params.Command, strings.Join(p.commandNames(), ", ")))
		return true
	}
	ctx, cancel := context.WithCancel(context.Background())
	key := env.idKey()
	id := env.id // the goroutine keeps the id, not the envelope
	p.mu.Lock()
	p.running[key] = cancel
	p.mu.Unlock()
	go func() {
		defer cancel()
		result, err := runCommand(ctx, fn, params.Arguments, p)
		p.mu.Lock()
		delete(p.running, key)
		p.mu.Unlock()
		if err != nil {
			p.replyErr(id, commandError(ctx, params.Command, err))
			return
		}
		p.replyResult(id, result)
	}()
	return true
}

// runCommand runs fn and encodes its result, turning a panic into an error
// so a faulty command cannot take the editor's session down.
func runCommand(ctx context.Context, fn CommandFunc, args []json.RawMessage, srv Requester) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("command panicked: %v", r)
		}
	}()
	result, err := fn(ctx, args, srv)
	if err != nil {
		return nil, err
	}
	if raw, ok := result.(json.RawMessage); ok && raw != nil {
		return raw, nil
	}
	return json.Marshal(result)
}

func commandError(ctx context.Context, command string, err error) *ResponseError {
	var rerr *ResponseError
	switch {
	case errors.As(err, &rerr):
		return rerr
	case ctx.Err() != nil:
		return &ResponseError{Code: codeRequestCancelled, Message: fmt.Sprintf("%s cancelled", command)}
	}
	return &ResponseError{Code: codeRequestFailed, Message: fmt.Sprintf("%s: %v", command, err)}
}

// ProxyStatus is the proxy's part of lspgraph.status.
type ProxyStatus struct {
	Server        string   `json:"server"`
	ServerArgs    []string `json:"serverArgs,omitempty"`
	PID           int      `json:"pid,omitempty"`
	ServerVersion string   `json:"serverVersion,omitempty"`
	RootURI       string   `json:"rootUri,omitempty"`
	Encoding      string   `json:"positionEncoding"`
	UptimeSeconds float64  `json:"uptimeSeconds"`
	ServerReady   bool     `json:"serverReady"`
	// Initialized is set once the editor and the server completed
	// initialize: before that the proxy's own requests are refused.
	Initialized bool     `json:"initialized"`
	ServerError string   `json:"serverError,omitempty"`
	Commands    []string `json:"commands"`
	Stats       Stats    `json:"stats"`
}

// Status reports the proxy's state.
func (p *Proxy) Status() ProxyStatus {
	p.mu.Lock()
	st := ProxyStatus{
		Server:        p.cfg.ServerName,
		ServerVersion: p.session.ServerVersion,
		RootURI:       p.session.RootURI,
		Encoding:      p.session.Encoding.String(),
		UptimeSeconds: time.Since(p.start).Round(time.Millisecond).Seconds(),
		ServerReady:   p.ready.isReady(),
		Initialized:   p.haveInit && p.initDone,
	}
	if p.proc != nil {
		st.PID = p.proc.Pid()
		st.ServerArgs = p.proc.Args()
	}
	if p.serverErr != nil {
		st.ServerError = p.serverErr.Error()
	}
	p.mu.Unlock()
	st.Commands = p.commandNames()
	st.Stats = p.Stats()
	return st
}

// statusCommand answers lspgraph.status: the proxy's state plus whatever
// Config.Status adds.
func (p *Proxy) statusCommand(ctx context.Context, _ []json.RawMessage, _ Requester) (any, error) {
	out := struct {
		Proxy      ProxyStatus `json:"proxy"`
		Store      any         `json:"store,omitempty"`
		StoreError string      `json:"storeError,omitempty"`
	}{Proxy: p.Status()}
	if p.cfg.Status != nil {
		s, err := p.cfg.Status(ctx)
		if err != nil {
			out.StoreError = err.Error()
		} else {
			out.Store = s
		}
	}
	return out, nil
}
