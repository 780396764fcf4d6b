package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/workspace"
)

// runProxy runs in front of a language server: stdio towards the editor,
// the server as a child process. Logs go to --log or stderr; stdout is the
// LSP channel.
func runProxy(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "proxy", "proxy [--store DIR] [--root DIR] [--log FILE] [--cpuprofile FILE] -- SERVER [ARGS...]")
	storeFlag := fs.String("store", "", "graph store `DIR` (default: the workspace's store in the user cache)")
	rootFlag := fs.String("root", "", "workspace root `DIR` (default: the editor's root, else the git top level of the current directory)")
	lensesFlag := fs.Bool("lenses", true, "add blast-radius code lenses (callers, tests, risk) to the server's")
	logFile := fs.String("log", "", "append the proxy's log and the server's stderr to `FILE` (default: stderr)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole proxy process to `FILE` (go tool pprof)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	server := fs.Args()
	if len(server) == 0 {
		return fmt.Errorf("%w: name the language server after --, e.g. lspgraph proxy -- gopls", errUsage)
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	return serveProxy(ctx, e, proxyOptions{store: *storeFlag, root: *rootFlag, log: *logFile, lenses: *lensesFlag}, server)
}

// startCPUProfile profiles the process's CPU into file until the returned
// func is called.
func startCPUProfile(file string) (stop func(), err error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("creating the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting the CPU profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// proxyOptions are the proxy's own flags.
type proxyOptions struct {
	store, root, log string
	lenses           bool
	// env is the server's environment (nil: the proxy's own).
	env []string
}

// serveProxy runs the proxy in front of the server command line server
// until the editor or the server ends it.
func serveProxy(ctx context.Context, e *env, o proxyOptions, server []string) error {
	logw := e.stderr
	if o.log != "" {
		f, err := os.OpenFile(o.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("opening the log: %w", err)
		}
		defer f.Close()
		logw = f
	}
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: proxyLogLevel(e)})).With("pid", os.Getpid())

	st := workspace.NewProxyHost(log, o.store, filepath.Base(server[0]), defaultRoot)
	if o.root != "" {
		root, err := filepath.Abs(o.root)
		if err != nil {
			return fmt.Errorf("resolving --root %s: %w", o.root, err)
		}
		st.Join(root)
	}
	defer st.Close()

	cmd := exec.Command(server[0], server[1:]...)
	cmd.Stderr = logw
	cmd.Env = o.env
	if o.root != "" {
		cmd.Dir = o.root
	}
	proc, err := lspproxy.StartServer(cmd)
	if err != nil {
		return err
	}
	var lenses lspproxy.LensesFunc
	if o.lenses {
		lenses = st.Lenses
	}
	p := lspproxy.New(lspproxy.Config{
		Lenses:     lenses,
		ServerName: filepath.Base(server[0]),
		Commands:   st.Commands(),
		Status:     st.Status,
		Observer:   st.Observer(),
		Logger:     log,
		StartGated: answersBeforeLoad(server),
	})
	st.SetProxy(p)
	log.Info("proxy started", "server", strings.Join(server, " "), "server_pid", proc.Pid())
	in, restoreIn := lspproxy.PollableInput(e.stdin)
	defer restoreIn()
	out, restoreOut := lspproxy.PollableOutput(e.stdout)
	defer restoreOut()
	err = p.ServeProcess(ctx, stdio{in, out}, proc)
	if err != nil {
		log.Error("proxy ended", "err", err)
	} else {
		log.Info("proxy ended")
	}
	return err
}

// answersBeforeLoad reports whether the server command is one known to
// answer from a syntax-only view until its project has loaded
// (typescript-language-server, also when started through node or npx).
func answersBeforeLoad(server []string) bool {
	for _, a := range server {
		if strings.Contains(filepath.Base(a), "typescript-language-server") {
			return true
		}
	}
	return false
}

// stdio is the editor's end: our stdin and stdout.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// proxyLogLevel is the proxy's log level: warnings and errors by default
// (editors show the server's stderr lines as errors), more with
// LSPGRAPH_LOG=info or debug.
func proxyLogLevel(e *env) slog.Level {
	switch strings.ToLower(e.getenv("LSPGRAPH_LOG")) {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	case "error":
		return slog.LevelError
	}
	return slog.LevelWarn
}
