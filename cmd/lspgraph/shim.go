package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/lspgraph/lspgraph/internal/goplsshim"
)

// exitStatus is the exit code of a program the shim ran in our place: the
// process exits with it and prints nothing more.
type exitStatus int

func (s exitStatus) Error() string { return "exit status " + strconv.Itoa(int(s)) }

// commandLine returns the arguments run sees: ours, or, when lspgraph runs
// as a link named gopls, "shim gopls" and gopls's arguments.
func commandLine(argv []string) []string {
	if len(argv) > 0 && filepath.Base(argv[0]) == "gopls" {
		return append([]string{"shim", "gopls"}, argv[1:]...)
	}
	return argv[1:]
}

const shimUsage = `Usage: lspgraph shim gopls [GOPLS ARGS...]

Stands in for gopls where an editor extension starts gopls itself (VS Code's
Go extension: "go.alternateTools": {"gopls": PATH}). A link named gopls that
points at lspgraph does the same without the "shim gopls" words, and keeps the
name the extension expects.

Command lines that serve LSP on stdio (no subcommand or "serve", with flags
such as -rpc.trace, -logfile, -mode=stdio or -remote) run lspgraph proxy in
front of the real gopls with the same arguments. Every other command line
(version, help, -h, stats, vulncheck, api-json, -listen, ...) runs the real
gopls unchanged: same arguments, standard input, output and error, and exit
status.

The real gopls is $LSPGRAPH_GOPLS, else the first gopls on PATH, in $GOBIN or
in GOPATH/bin that is not lspgraph itself.
`

func runShim(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprint(e.stdout, shimUsage)
		return flag.ErrHelp
	}
	if len(args) == 0 || args[0] != "gopls" {
		return fmt.Errorf("%w: name the server the shim stands in for: lspgraph shim gopls [GOPLS ARGS...] (gopls is the only one)", errUsage)
	}
	return shimGopls(ctx, e, args[1:])
}

// shimGopls runs a gopls command line: the proxy in front of the real gopls
// when it serves LSP on stdio, else the real gopls alone.
func shimGopls(ctx context.Context, e *env, args []string) error {
	if by := e.getenv(goplsshim.EnvShimmed); by != "" {
		return fmt.Errorf("started as gopls by the lspgraph shim %s: the gopls it found is another lspgraph; set %s to the real gopls", by, goplsshim.EnvGopls)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding lspgraph's own executable: %w", err)
	}
	real, err := goplsshim.Finder{Getenv: e.getenv, Self: self}.Find()
	if err != nil {
		return err
	}
	env := append(os.Environ(), goplsshim.EnvShimmed+"="+self)
	v := goplsshim.Classify(args, goplsshim.KnownFlags)
	if v.Unknown != "" {
		// A flag of a newer gopls: learn from its help whether it takes
		// a value, which decides what the subcommand is.
		help, _ := exec.CommandContext(ctx, real, "help").CombinedOutput()
		v = goplsshim.Classify(args, goplsshim.KnownFlags.Merge(goplsshim.ParseHelpFlags(help)))
	}
	if v.Kind == goplsshim.Serve {
		err := serveProxy(ctx, e, proxyOptions{lenses: true, env: env}, append([]string{real}, args...))
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			// Logged by the proxy; exit as gopls did (gopls -remote exits
			// 2 after a clean shutdown and exit).
			return exitStatus(ee.ExitCode())
		}
		return err
	}
	slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: proxyLogLevel(e)})).
		Debug("shim: running gopls unchanged", "gopls", real, "args", args, "why", v.Reason)
	return runUnchanged(ctx, e, env, real, args)
}

// runUnchanged runs prog with args on our standard streams and returns
// its exit status; a signal that ends us is passed on to it.
func runUnchanged(ctx context.Context, e *env, environ []string, prog string, args []string) error {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	cmd.Env = environ
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return exitStatus(128 + int(ws.Signal())) // as a shell reports it
		}
		return exitStatus(ee.ExitCode())
	}
	return fmt.Errorf("running %s: %w", prog, err)
}
