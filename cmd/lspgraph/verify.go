package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/lspgraph/lspgraph/crawl"
	"github.com/lspgraph/lspgraph/drift"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/workspace"
)

// errDrift is the failure of an audit over --max-drift (exit code 1).
var errDrift = errors.New("drift over the limit")

func runVerify(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "verify", "verify [--root DIR] [--store DIR] [--sample N] [--seed S] [--max-drift X] [--layer base|all] [--callers=false] [--json] -- SERVER ARGS...\n\n"+
		"Audits the graph against the real language server: starts SERVER in the root, samples N functions,\n"+
		"methods and types defined inside the root (stratified by layer and source: scip, lsp, syntax; the\n"+
		"same seed samples the same symbols), and compares each one's reference sites in the graph (file:line,\n"+
		"definition excluded) with the server's textDocument/references (declaration excluded). It reports\n"+
		"precision (graph sites the server confirms) and recall (server sites the graph has) per source, the\n"+
		"worst symbols with their missing and extra sites, and each layer's freshness. Beside them it compares\n"+
		"the callers of each function and method (the graph's incoming calls edges, and the calls through the\n"+
		"interface methods a method implements where the server reports them) with the server's\n"+
		"callHierarchy/incomingCalls, by the callers' definitions, where the server has a call hierarchy item.\n\n"+
		"drift = 1 - recall-weighted F1: the mean of the symbols' F1 scores, each weighted by the number of\n"+
		"sites the server reports for it (at least 1). 0 means the graph agrees with the server everywhere.\n"+
		"Callers are reported beside it and do not count in it.\n"+
		"Exit status: 0 when drift <= --max-drift, 1 when it is over (or the audit fails), 2 for usage errors.")
	root := fs.String("root", "", "workspace root `DIR` (default: the git top level of the current directory)")
	store := fs.String("store", "", "graph store `DIR` (default: the user cache directory for the root)")
	sample := fs.Int("sample", drift.DefaultSample, "number of symbols to compare (`N`)")
	seed := fs.Uint64("seed", 0, "seed `S` of the sample")
	maxDrift := fs.Float64("max-drift", drift.DefaultMaxDrift, "fail (exit 1) when drift is over `X` (0-1)")
	callers := fs.Bool("callers", true, "also compare the callers of functions and methods with the server's callHierarchy/incomingCalls, where it has one")
	layer := fs.String("layer", "all", "`LAYER` to audit: base (the base layer alone, as CI asks after an import) or all (base and live)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	server := fs.Args()
	if len(server) == 0 || !slices.Contains(args, "--") {
		return fmt.Errorf("%w: name the language server after -- (lspgraph verify -- gopls)", errUsage)
	}
	if *sample <= 0 {
		return fmt.Errorf("%w: --sample must be positive", errUsage)
	}
	q := workspace.VerifyRequest{Sample: *sample, Seed: *seed, MaxDrift: maxDrift, Layer: *layer, Callers: callers}
	if _, _, err := q.Options(""); err != nil {
		return fmt.Errorf("%w: --%v", errUsage, err)
	}
	r, dir, err := workspaceAndStore(ctx, *root, *store)
	if err != nil {
		return err
	}
	// Read-only: a missing store wraps graph.ErrNotFound, whose message
	// says how to build it.
	st, err := graph.Open(dir, graph.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	rd, err := st.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()

	srv, err := crawl.StartServer(ctx, crawl.Options{Root: r, Server: server, Stderr: e.stderr})
	if err != nil {
		return err
	}
	defer srv.Shutdown(context.WithoutCancel(ctx), 5*time.Second)
	if !srv.WaitReady(ctx) {
		return ctx.Err()
	}
	if err := openDocuments(ctx, srv, rd, r); err != nil {
		return err
	}
	o, _, _ := q.Options(r)
	if q.WithCallers() {
		o.Callers = workspace.ServerCallers(srv, r, srv.Encoding(), nil)
	}
	rep, err := drift.Audit(ctx, rd, workspace.ServerReferences(srv, r, srv.Encoding(), nil, false), o)
	if err != nil {
		return err
	}
	res := drift.NewResult(rep, srv.Name(), *maxDrift)
	if *asJSON {
		err = writeJSON(e.stdout, res)
	} else {
		err = drift.WriteText(e.stdout, res)
	}
	if err != nil {
		return err
	}
	if res.Over {
		return fmt.Errorf("%w: drift %.3f > --max-drift %.3f", errDrift, rep.Drift, *maxDrift)
	}
	return nil
}

// maxOpenDocuments caps the documents opened before an audit.
const maxOpenDocuments = 2000

// openDocuments opens the graph's documents in the server before the
// audit (a documentSymbol request each, which the client precedes with
// didOpen), so that a server that loads a project only when one of its
// files opens (tsserver, for each package of a TypeScript workspace)
// answers references from every project that holds them, and not only
// from those of the symbols asked so far. Documents the server cannot read
// are skipped; it only fails when ctx ends.
func openDocuments(ctx context.Context, srv *crawl.Server, rd *graph.Reader, root string) error {
	var paths []string
	err := rd.Documents(ctx, func(d graph.Document) error {
		if len(paths) < maxOpenDocuments {
			paths = append(paths, d.Path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range paths {
		uri := lspwire.FileURI(filepath.Join(root, filepath.FromSlash(p)))
		if _, err := srv.Request(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": uri}}); ctx.Err() != nil {
			return ctx.Err()
		} else if err != nil {
			continue
		}
	}
	return nil
}
