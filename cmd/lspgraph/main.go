// Command lspgraph is a language-server sidecar that keeps a code graph of a
// workspace and answers blast-radius and context questions from it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/lspgraph/lspgraph/internal/selfexec"
)

// command is one subcommand. run receives the arguments after its name.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

// env carries what every command needs; nothing global.
type env struct {
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	getenv   func(string) string
	relaunch func(setting string) error // selfexec.WithGODEBUG; nil in tests
}

// commands lists every subcommand, in the order --help shows them.
func commands() []command {
	return []command{
		{"status", "show the store's layers, generations, commits and counts", runStatus},
		{"impact", "show what breaks if a symbol changes: dependents by depth, tests, packages, risk", runImpact},
		{"changes", "show the symbols a git diff touches and their combined impact", runChanges},
		{"proxy", "run in front of a language server (proxy -- SERVER ARGS...): forward, observe, answer lspgraph.* commands", runProxy},
		{"index", "build a syntax-only base index of a repository with tree-sitter (no server, no SCIP)", runIndex},
		{"scip", "import a SCIP dump (scip import FILE) as the new base index", runSCIP},
		{"bench", "measure throughput (bench scip FILE: decode-only vs full import)", runBench},
		{"scope", "show a file's or package's dependency closure and why each package is in it", runScope},
		{"context", "build a ranked, budgeted context pack for a symbol", runContext},
		{"search", "find the files about some words: BM25 over names, paths, comments and strings, fused with the graph", runSearch},
		{"verify", "audit the graph against a language server (verify -- SERVER ARGS...): precision, recall and drift per source; exit 1 over --max-drift", runVerify},
		{"shim", "stand in for gopls where an editor starts it (VS Code's go.alternateTools): shim gopls [GOPLS ARGS...], or run as a link named gopls", runShim},
		{"serve", "keep the workspace's session warm with no language server, for the command line and agents", runServe},
		{"mcp", "serve the Model Context Protocol on stdio for AI agents: status, search, symbols, impact, context, changes", runMCP},
		{"version", "print the version (also --version)", nil},
	}
}

// errUsage marks an error caused by wrong arguments (exit code 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, relaunch: selfexec.WithGODEBUG}
	code := run(ctx, e, commandLine(os.Args))
	stop()
	os.Exit(code)
}

func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "lspgraph: usage: name a command (see lspgraph --help)")
		return 2
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		usage(e.stdout)
		return 0
	case "--version", "-version", "version":
		fmt.Fprintln(e.stdout, version())
		return 0
	}
	name := args[0]
	var status exitStatus
	for _, c := range commands() {
		if c.name != name || c.run == nil {
			continue
		}
		err := c.run(ctx, e, args[1:])
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &status):
			return int(status) // the exit code of a program run in our place
		case errors.Is(err, errUsage):
			fmt.Fprintf(e.stderr, "lspgraph %s: %v\n", name, err)
			return 2
		default:
			fmt.Fprintf(e.stderr, "lspgraph %s: %v\n", name, err)
			return 1
		}
	}
	fmt.Fprintf(e.stderr, "lspgraph: unknown command %q (see lspgraph --help)\n", name)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `lspgraph keeps a code graph of a workspace (from SCIP indexes, a language
server it sits in front of, and syntax) and answers what breaks if a symbol
changes and what to read to work on it.

Usage: lspgraph COMMAND [flags] [args]

Commands:
`)
	cs := commands()
	width := 0
	for _, c := range cs {
		width = max(width, len(c.name))
	}
	for _, c := range cs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'lspgraph COMMAND --help' for a command's flags.
`)
}

// flagSet is a command's flags. Its Parse reports wrong flags as usage
// errors (exit 2, one line); --help prints the flags on standard output.
type flagSet struct {
	*flag.FlagSet
	help func()
}

// newFlagSet returns a flag set whose help names the command and its
// synopsis.
func newFlagSet(e *env, name, synopsis string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned; help is printed by Parse
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, help: func() {
		fs.SetOutput(e.stdout)
		fmt.Fprintf(e.stdout, "Usage: lspgraph %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}}
}

// Parse parses args; a wrong flag is a usage error.
func (fs *flagSet) Parse(args []string) error {
	err := fs.FlagSet.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.help()
		return err
	}
	if err != nil {
		return fmt.Errorf("%w: %v (see lspgraph %s --help)", errUsage, err, fs.Name())
	}
	return err
}

// writeRawJSON writes an answer already encoded as JSON the way writeJSON
// writes values: indented, with a final newline.
func writeRawJSON(w io.Writer, raw json.RawMessage) error {
	if bytes.HasPrefix(raw, []byte("{\n  \"")) {
		// Indented by the session already.
		if _, err := w.Write(raw); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return fmt.Errorf("formatting the answer: %w", err)
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// mustJSON encodes a value of ours that always encodes.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// writeJSON writes v to w as indented JSON, the --json output of every
// command.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// version names the build: the module version (or "devel" for a build
// from a checkout), the commit it was built from and the Go toolchain.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "lspgraph (unknown build)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	out := "lspgraph " + v
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" {
		out += " " + shortCommit(rev) + modified
	}
	return out + " " + bi.GoVersion
}
