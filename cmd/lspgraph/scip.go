package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/goconv"
	"github.com/lspgraph/lspgraph/internal/hugeheap"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/workspace"
)

// runSCIP dispatches `lspgraph scip SUBCOMMAND`.
func runSCIP(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(e.stderr, "Usage: lspgraph scip import [--store DIR] [--root DIR] [--commit SHA] [--allow-shrink] [--go-types] [--json] FILE|-\n")
		if len(args) == 0 {
			return fmt.Errorf("%w: missing subcommand (import)", errUsage)
		}
		return nil
	}
	switch args[0] {
	case "import":
		return runSCIPImport(ctx, e, args[1:])
	}
	return fmt.Errorf("%w: unknown subcommand %q (want import)", errUsage, args[0])
}

func runSCIPImport(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "scip import", "scip import [--store DIR] [--root DIR] [--commit SHA] [--allow-shrink] [--go-types] [--json] FILE|-")
	storeFlag := fs.String("store", "", "graph store directory (default: the user cache directory for the root)")
	rootFlag := fs.String("root", "", "workspace root the dump was built from (default: the git top level of the current directory, else the current directory)")
	commit := fs.String("commit", "", "source commit the dump was built from (default: git rev-parse HEAD in the root)")
	allowShrink := fs.Bool("allow-shrink", false, "accept a dump that keeps fewer than half the documents of the previous import of the same tool and root (refused by default: a dump cut short by a crashed indexer looks like that)")
	goTypes := fs.Bool("go-types", false, "type-check the Go module at the root (go/packages, tests included) and record every place a concrete type becomes an interface value, so that impact's satisfaction group is exact")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want exactly one dump file (or - for standard input)", errUsage)
	}
	root, err := workspaceRoot(ctx, *rootFlag)
	if err != nil {
		return err
	}
	if *commit == "" {
		*commit = gitHead(ctx, root)
	}
	dir, err := storeDir(*storeFlag, root)
	if err != nil {
		return err
	}

	if c, err := workspace.Dial(ctx, dir, "cli", ""); err == nil {
		// A session holds the store: it imports, and its clients switch
		// to the new generation when it commits.
		defer c.Close()
		return importThroughSession(ctx, e, c, fs.Arg(0), workspace.ImportRequest{Commit: *commit, AllowShrink: *allowShrink, GoTypes: *goTypes}, *asJSON)
	} else if !errors.Is(err, workspace.ErrNoSession) {
		return err
	}
	in, size, name, err := openDump(e, fs.Arg(0))
	if err != nil {
		return err
	}
	defer in.Close()
	_, _ = hugeheap.Reserve(importHeap) // only faster (see runIndex)

	store, err := workspace.OpenStore(dir, root, nil)
	if err != nil {
		return fmt.Errorf("opening store %s: %w", dir, err)
	}
	defer store.Close()

	opts := scip.Options{Root: root, Commit: *commit, Size: size, AllowShrink: *allowShrink}
	if *goTypes {
		conv, err := goconv.Collect(ctx, root)
		if err != nil {
			return err
		}
		conv.ImportOptions(&opts)
		fmt.Fprintf(e.stderr, "go types: %d packages type-checked, %d conversion sites\n", conv.Packages, conv.Count())
		for _, msg := range conv.Errors {
			fmt.Fprintf(e.stderr, "go types: %s\n", msg)
		}
	}
	prog := newImportProgress(e.stderr, name)
	opts.Progress = prog.update
	sum, err := scip.Import(ctx, store, in, opts)
	prog.finish()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if *asJSON {
		return writeJSON(e.stdout, struct {
			File  string `json:"file"`
			Store string `json:"store"`
			scip.Summary
		}{name, dir, sum})
	}
	fmt.Fprintf(e.stdout, "%s → %s\n", name, dir)
	return sum.WriteText(e.stdout)
}

// openDump opens FILE, or standard input for "-". size is 0 when unknown.
func openDump(e *env, arg string) (io.ReadCloser, int64, string, error) {
	if arg == "-" {
		return io.NopCloser(e.stdin), 0, "standard input", nil
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, 0, "", fmt.Errorf("opening the dump: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, "", fmt.Errorf("opening the dump: %w", err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, 0, "", fmt.Errorf("%s is a directory, not a SCIP dump (index.scip)", arg)
	}
	return f, fi.Size(), arg, nil
}

// gitHead returns HEAD's commit when root is a git work tree, else "".
func gitHead(ctx context.Context, root string) string {
	head, err := freshness.Head(ctx, root)
	if err != nil {
		return ""
	}
	return head
}

// importThroughSession has the session import a dump: a file by its
// absolute path, standard input through a temporary copy.
func importThroughSession(ctx context.Context, e *env, c *workspace.Client, arg string, req workspace.ImportRequest, asJSON bool) error {
	file := arg
	if arg == "-" {
		f, err := os.CreateTemp("", "lspgraph-*.scip")
		if err != nil {
			return fmt.Errorf("buffering standard input: %w", err)
		}
		defer os.Remove(f.Name())
		if _, err := io.Copy(f, e.stdin); err != nil {
			f.Close()
			return fmt.Errorf("buffering standard input: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("buffering standard input: %w", err)
		}
		file = f.Name()
	} else {
		abs, err := filepath.Abs(arg)
		if err != nil {
			return fmt.Errorf("resolving %s: %w", arg, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("opening the dump: %w", err)
		}
		file = abs
	}
	req.File = file
	var res workspace.ImportResult
	if err := c.Command(ctx, workspace.CommandImport, []json.RawMessage{mustJSON(req)}, 0, &res); err != nil {
		return fmt.Errorf("%s: %w", arg, err)
	}
	if asJSON {
		return writeJSON(e.stdout, struct {
			File  string `json:"file"`
			Store string `json:"store"`
			scip.Summary
		}{arg, res.Store, res.Summary})
	}
	fmt.Fprintf(e.stdout, "%s → %s (through the session of pid %d)\n", arg, res.Store, c.PID())
	return res.Summary.WriteText(e.stdout)
}

// importProgress shows how far an import got: bytes read of the dump,
// documents and throughput.
type importProgress struct {
	*progress
	name string
}

func newImportProgress(w io.Writer, name string) *importProgress {
	return &importProgress{progress: newProgress(w), name: name}
}

func (p *importProgress) update(pr scip.Progress) {
	p.show(false, func(elapsed time.Duration) (string, string) {
		mb := float64(pr.Bytes) / 1e6
		rate := mb / max(elapsed.Seconds(), 1e-9)
		if pr.Total <= 0 {
			return fmt.Sprintf("%s [%s] %.1f MB, %d documents, %.1f MB/s", p.name, progressBar(0, 0), mb, pr.Documents, rate),
				fmt.Sprintf("scip import: %.1f MB, %d documents, %.1f MB/s", mb, pr.Documents, rate)
		}
		pct := pr.Bytes * 100 / pr.Total
		return fmt.Sprintf("%s [%s] %3d%% %.1f MB, %d documents, %.1f MB/s", p.name, progressBar(pr.Bytes, pr.Total), pct, mb, pr.Documents, rate),
			fmt.Sprintf("scip import: %.1f of %.1f MB (%d%%), %d documents, %.1f MB/s", mb, float64(pr.Total)/1e6, pct, pr.Documents, rate)
	})
}

// importHeap is the heap an import advises for huge pages
// (hugeheap.Reserve): the pebble corpus's import peaks at 100 MB.
const importHeap = 256 << 20
