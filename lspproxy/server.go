package lspproxy

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// ServerProcess is a language server running as a child process, spoken
// to over its stdin and stdout. It implements io.ReadWriteCloser.
type ServerProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	done   chan struct{} // closed when the process has been waited for
	err    error         // exit error, set before done is closed

	closeOnce sync.Once
}

// StartServer starts cmd as a language server, connecting its stdin and
// stdout to the returned ServerProcess. The caller sets cmd's Dir, Env and
// Stderr (the proxy's log or its own stderr; never the editor's channel);
// cmd's Stdin and Stdout must be unset.
func StartServer(cmd *exec.Cmd) (*ServerProcess, error) {
	name := cmd.Path
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, fmt.Errorf("lspproxy: starting %s: Stdin and Stdout must be unset", name)
	}
	// Our own pipes rather than StdinPipe/StdoutPipe: Wait closes those as
	// soon as the process exits, which would race with reading its last
	// messages.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("lspproxy: starting %s: %w", name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("lspproxy: starting %s: %w", name, err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("lspproxy: starting %s: %w", name, err)
	}
	s := &ServerProcess{cmd: cmd, stdin: inW, stdout: outR, done: make(chan struct{})}
	// os.Pipe's ends are non-blocking and polled: read and written with
	// raw calls where the platform allows (see pipeIO).
	if p, ok := newPipeIO(inW); ok {
		s.stdin = p
	}
	if p, ok := newPipeIO(outR); ok {
		s.stdout = p
	}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// Pid returns the server's process id.
func (s *ServerProcess) Pid() int { return s.cmd.Process.Pid }

// Args returns the server's command line.
func (s *ServerProcess) Args() []string { return append([]string(nil), s.cmd.Args...) }

// Read reads the server's stdout.
func (s *ServerProcess) Read(b []byte) (int, error) { return s.stdout.Read(b) }

// Write writes to the server's stdin.
func (s *ServerProcess) Write(b []byte) (int, error) { return s.stdin.Write(b) }

// Close closes the server's stdin and stdout. It neither waits for nor
// kills the process; see [ServerProcess.Wait].
func (s *ServerProcess) Close() error {
	s.CloseInput()
	return s.stdout.Close()
}

// CloseInput closes the server's stdin, which tells a server that reads
// to the end that its client is gone.
func (s *ServerProcess) CloseInput() {
	s.closeOnce.Do(func() { s.stdin.Close() })
}

// Wait waits for the process to exit (or ctx to end) and returns its exit
// error.
func (s *ServerProcess) Wait(ctx context.Context) error {
	select {
	case <-s.done:
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitTimeout waits up to d for the process to exit.
func (s *ServerProcess) waitTimeout(d time.Duration) (error, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.done:
		return s.err, true
	case <-t.C:
		return nil, false
	}
}

// kill kills the process; killing one that already exited is harmless.
func (s *ServerProcess) kill() { s.cmd.Process.Kill() }

// ServeProcess forwards between editor and the server process like
// [Proxy.Serve], and also owns the process: after the editor's exit it
// waits up to Config.ExitTimeout for the server to exit and then kills it;
// if the server dies, the error names it and its exit status.
func (p *Proxy) ServeProcess(ctx context.Context, editor io.ReadWriteCloser, s *ServerProcess) error {
	// A process that exited while a child of its own still holds its
	// stdout would never give the server loop an end of file: once the
	// process is gone and its last output had a moment to arrive, close
	// our end.
	go func() {
		select {
		case <-s.done:
		case <-p.serverGone:
			return
		}
		select {
		case <-p.serverGone:
		case <-time.After(outputGrace):
			p.log.Warn("language server exited but its output stays open (a child process holds it); closing it", "pid", s.Pid())
			s.stdout.Close()
		}
	}()
	return p.serve(ctx, editor, s, s)
}

// outputGrace is how long the server's output may stay open after the
// process exited.
const outputGrace = time.Second
