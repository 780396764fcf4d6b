package lspproxy

// watchShutdown bounds the server's answer to the editor's shutdown by
// Config.ShutdownTimeout.
func (p *Proxy) watchShutdown(pc *pendingCall) {
	p.deadlines.after(p.cfg.ShutdownTimeout, func() { p.shutdownOverdue(pc) })
}

// shutdownOverdue answers a shutdown the server still holds with a null
// result, as a server would, so the editor can go on to exit, and stops
// the server in the background. The server's late answer finds nothing
// pending and is dropped; later requests are refused (see editorCall).
func (p *Proxy) shutdownOverdue(pc *pendingCall) {
	p.mu.Lock()
	if p.stopping || !p.pending.remove(pc) {
		p.mu.Unlock()
		return
	}
	p.shutdownLapsed = true
	p.stopping = true
	stopped := make(chan struct{})
	p.stopped = stopped
	server, proc := p.server, p.proc
	p.mu.Unlock()
	p.log.Warn("language server did not answer shutdown in time; answering it and stopping the server",
		"server", p.cfg.ServerName, "id", pc.id, "timeout", p.cfg.ShutdownTimeout)
	p.replyResult([]byte(pc.id), []byte("null"))
	go func() {
		defer close(stopped)
		if err := p.stopServer(server, proc); err != nil {
			p.log.Info("language server stopped after shutdown lapsed", "server", p.cfg.ServerName, "status", err)
		}
	}()
}
