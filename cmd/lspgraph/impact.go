package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/workspace"
)

// impactFlags are the flags `impact` and `changes` share.
type impactFlags struct {
	store, root   string
	direction     string
	depth         int
	minConfidence float64
	kinds         string
	noTests       bool
	limit         int
	maxDependents int
	json          bool
	format        string
}

func (f *impactFlags) register(fs interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
	Float64Var(*float64, string, float64, string)
	BoolVar(*bool, string, bool, string)
}, direction bool) {
	fs.StringVar(&f.store, "store", "", "graph store `DIR` (default: the user cache directory for the root)")
	fs.StringVar(&f.root, "root", "", "workspace root `DIR` (default: the git top level of the current directory, else the current directory)")
	if direction {
		fs.StringVar(&f.direction, "direction", "up", "up: who depends on the target; down: what it depends on")
	}
	fs.IntVar(&f.depth, "depth", 3, "maximum depth `N`")
	fs.Float64Var(&f.minConfidence, "min-confidence", 0.7, "ignore edges below confidence `X` (syntax edges: 0.02-0.99 by rule, see syntax/CALIBRATION.md)")
	fs.StringVar(&f.kinds, "kinds", "references,calls,implements,type-of", "edge kinds to follow, comma-separated")
	fs.BoolVar(&f.noTests, "no-tests", false, "leave out dependents in test files")
	fs.IntVar(&f.limit, "limit", 0, "at most `N` dependents per depth (0: no limit)")
	fs.IntVar(&f.maxDependents, "max-dependents", impact.DefaultMaxDependents, "stop the walk after `N` dependents, reporting what it skipped (0: no bound)")
	fs.BoolVar(&f.json, "json", false, "print JSON")
	fs.StringVar(&f.format, "format", "text", "output format: text or markdown")
}

// request turns the flags into an impact request for target; the error is
// a usage error.
func (f *impactFlags) request(target string) (workspace.ImpactRequest, error) {
	if f.format != "text" && f.format != "markdown" {
		return workspace.ImpactRequest{}, fmt.Errorf("%w: --format must be text or markdown, not %q", errUsage, f.format)
	}
	if f.depth < 1 {
		return workspace.ImpactRequest{}, fmt.Errorf("%w: --depth must be at least 1", errUsage)
	}
	mc, md := f.minConfidence, f.maxDependents
	q := workspace.ImpactRequest{
		Target: target, Direction: f.direction, Depth: f.depth, MinConfidence: &mc,
		Kinds: strings.Split(f.kinds, ","), NoTests: f.noTests, Limit: f.limit, MaxDependents: &md,
	}
	if _, err := q.Options(); err != nil {
		return q, fmt.Errorf("%w: %v", errUsage, err)
	}
	return q, nil
}

// parseInterspersed parses flags that may follow positional arguments.
func parseInterspersed(fs interface {
	Parse([]string) error
	Args() []string
}, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func runImpact(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "impact", "impact [--store DIR] [--root DIR] [--direction up|down] [--depth N] [--min-confidence X] [--kinds a,b] [--no-tests] [--limit N] [--json] [--format text|markdown] TARGET\n\n"+
		"TARGET is a symbol name (Save, Catalog.Save, service.Catalog.Save), FILE:LINE:COL (1-based, column in bytes)\nor a SCIP symbol string.")
	var f impactFlags
	f.register(fs, true)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want exactly one TARGET, got %d", errUsage, len(pos))
	}
	root, err := workspaceRoot(ctx, f.root)
	if err != nil {
		return err
	}
	q, err := f.request(absTarget(pos[0]))
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := askSession(ctx, e, "cli", root, f.store, workspace.CommandImpact, q, &raw, true); err != nil {
		return err
	}
	if f.json {
		return writeRawJSON(e.stdout, raw) // as the session wrote it
	}
	var a impact.Answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("decoding the answer: %w", err)
	}
	return writeImpactAnswer(e.stdout, &a, false, f.format)
}

// writeImpactAnswer prints an answer as JSON, text or markdown.
func writeImpactAnswer(w io.Writer, a *impact.Answer, asJSON bool, format string) error {
	if asJSON {
		return writeJSON(w, a)
	}
	if format == "markdown" {
		return impact.WriteMarkdown(w, a)
	}
	return impact.WriteText(w, a)
}

// workspaceRoot returns the --root flag made absolute, else the git top
// level of the current directory, else the current directory.
func workspaceRoot(ctx context.Context, flagRoot string) (string, error) {
	if flagRoot != "" {
		abs, err := filepath.Abs(flagRoot)
		if err != nil {
			return "", fmt.Errorf("resolving --root %s: %w", flagRoot, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%w: --root %s is not a directory", errUsage, flagRoot)
		}
		return abs, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("reading the current directory: %w", err)
	}
	return gitTopLevel(cwd), nil
}
