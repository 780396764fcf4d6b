package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// serveLog is the file in the store's directory that a session started by
// StartServing writes its log to.
const serveLog = "serve.log"

// StartServing starts `EXE serve` for the workspace at root (store dir) in
// the background, unless a session serves the store already, detached
// from this process (its own session id, no terminal, its log in the
// store's serve.log), to end after idle with no command; and waits, until
// ctx ends or for a few seconds, for its session to listen. A command line
// run with LSPGRAPH_SERVE=auto calls it, so that this question and the
// next answer warm.
func StartServing(ctx context.Context, exe, root, dir string, idle time.Duration) error {
	if listening(ctx, dir) {
		return nil
	}
	log, err := os.OpenFile(filepath.Join(dir, serveLog), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("starting a session: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(exe, "serve", "--root", root, "--store", dir, "--idle", idle.String())
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting a session: %w", err)
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	wait, stop := context.WithTimeout(ctx, spawnWait)
	defer stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if listening(wait, dir) {
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("the session started (pid %d) exited: %v; see %s", pid, err, filepath.Join(dir, serveLog))
		case <-wait.Done():
			return fmt.Errorf("the session started (pid %d) is not listening after %v; see %s", pid, spawnWait, filepath.Join(dir, serveLog))
		case <-tick.C:
		}
	}
}

// spawnWait bounds how long StartServing waits for the session it started.
const spawnWait = 5 * time.Second

// ServeIdle is how long a session started by StartServing serves with no
// command before it ends.
const ServeIdle = 15 * time.Minute
