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

// StartServing starts `EXE serve --unless-served` for the workspace at
// root (store dir) in the background, unless a session serves the store
// already, detached from this process (its own session id, no terminal,
// its log in the store's serve.log), to end after idle with no command,
// and returns without waiting for it to serve. A command line run with
// LSPGRAPH_SERVE=auto calls it once it has answered its question itself,
// so that the next ones answer warm: waiting for the session to start and
// asking through it made the first question cost three times what a
// command line alone costs. A session another command line started
// meanwhile makes this one exit at once; a store a command line holds is
// waited for.
func StartServing(ctx context.Context, exe, root, dir string, idle time.Duration) error {
	if listening(ctx, dir) {
		return nil
	}
	log, err := os.OpenFile(filepath.Join(dir, serveLog), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("starting a session: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(exe, "serve", "--root", root, "--store", dir, "--idle", idle.String(), "--unless-served")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting a session: %w", err)
	}
	return cmd.Process.Release()
}

// ServeIdle is how long a session started by StartServing serves with no
// command before it ends.
const ServeIdle = 15 * time.Minute
