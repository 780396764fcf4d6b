package graph_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
)

// TestDataDriven runs the scripts in testdata/ (regenerate with -rewrite).
// Each file starts with an empty in-memory store.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		h := &harness{t: t, store: graphtest.Open(t), readers: map[string]*graph.Reader{}}
		defer h.closeReaders()
		datadriven.RunTest(t, path, h.run)
	})
}

// harness holds one script's state.
type harness struct {
	t       *testing.T
	store   *graph.Store
	gen     *graph.GenerationWriter
	readers map[string]*graph.Reader
}

// fixedTime keeps manifests deterministic.
var fixedTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func (h *harness) run(t *testing.T, td *datadriven.TestData) string {
	out, err := h.dispatch(context.Background(), td)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	if out == "" {
		return "ok\n"
	}
	return out
}

func (h *harness) dispatch(ctx context.Context, td *datadriven.TestData) (string, error) {
	switch td.Cmd {
	case "put-doc", "delete-doc", "rename-doc", "clear-live", "set-manifest":
		return "", h.write(ctx, td)
	case "begin-gen", "gen-put", "gen-reuse", "gen-digest", "commit-gen", "abort-gen":
		return h.generation(ctx, td)
	case "reader-open":
		r, err := h.store.Reader()
		h.readers[arg(td, "name", "")] = r
		return "", err
	case "reader-close":
		name := arg(td, "name", "")
		err := h.readers[name].Close()
		delete(h.readers, name)
		return "", err
	}
	return h.query(ctx, td)
}

func (h *harness) write(ctx context.Context, td *datadriven.TestData) error {
	layer := parseLayer(arg(td, "layer", "base"))
	switch td.Cmd {
	case "put-doc":
		f, err := h.facts(td)
		if err != nil {
			return err
		}
		return h.store.PutDocument(ctx, layer, f)
	case "delete-doc":
		return h.store.DeleteDocument(ctx, layer, arg(td, "path", ""))
	case "rename-doc":
		return h.store.RenameDocument(ctx, layer, arg(td, "from", ""), arg(td, "to", ""))
	case "clear-live":
		return h.store.ClearLayer(ctx, graph.Live)
	case "set-manifest":
		return h.store.SetManifest(ctx, graph.Manifest{Layer: layer, Commit: arg(td, "commit", ""),
			Tool: arg(td, "tool", ""), State: graph.State(arg(td, "state", "partial"))})
	}
	return nil
}

func (h *harness) generation(ctx context.Context, td *datadriven.TestData) (string, error) {
	switch td.Cmd {
	case "begin-gen":
		g, err := h.store.BeginGeneration(ctx)
		if err != nil {
			return "", err
		}
		h.gen = g
		return fmt.Sprintf("generation %d\n", g.Generation()), nil
	case "gen-put":
		f, err := h.facts(td)
		if err != nil {
			return "", err
		}
		return "", h.gen.PutDocument(ctx, f)
	case "gen-reuse":
		return "", h.gen.ReuseDocument(ctx, arg(td, "path", ""))
	case "gen-digest":
		d, ok := h.gen.PreviousDigest(arg(td, "path", ""))
		return fmt.Sprintf("digest=%q found=%v\n", d, ok), nil
	case "commit-gen":
		return "", h.gen.Commit(ctx, graph.Manifest{Commit: arg(td, "commit", ""), Tool: arg(td, "tool", ""),
			Started: fixedTime, Finished: fixedTime})
	case "abort-gen":
		return "", h.gen.Abort()
	}
	return "", nil
}

// facts parses a put-doc/gen-put command: path and document fields as
// arguments, facts in the input.
func (h *harness) facts(td *datadriven.TestData) (graph.DocumentFacts, error) {
	doc := graph.Document{
		Path: arg(td, "path", ""), Language: arg(td, "lang", ""), Package: arg(td, "pkg", ""),
		Digest: arg(td, "digest", ""), Source: arg(td, "source", ""),
	}
	return graphtest.ParseFacts(doc, td.Input)
}

// query runs a read command on the named reader or a fresh one.
func (h *harness) query(ctx context.Context, td *datadriven.TestData) (string, error) {
	r := h.readers[arg(td, "reader", "")]
	if r == nil {
		var err error
		if r, err = h.store.Reader(); err != nil {
			return "", err
		}
		defer r.Close()
	}
	var b strings.Builder
	err := runQuery(ctx, r, td, &b)
	return b.String(), err
}

func runQuery(ctx context.Context, r *graph.Reader, td *datadriven.TestData, b *strings.Builder) error {
	sym := arg(td, "sym", "")
	path := arg(td, "path", "")
	switch td.Cmd {
	case "dump":
		return r.Dump(b)
	case "refs", "defs":
		var occs []graph.Occurrence
		var err error
		if td.Cmd == "refs" {
			occs, err = r.References(ctx, sym, intArg(td, "limit"))
		} else {
			occs, err = r.Definitions(ctx, sym)
		}
		writeOccs(b, occs)
		return err
	case "occs":
		occs, err := r.Occurrences(ctx, path)
		writeOccs(b, occs)
		return err
	case "at":
		pos, err := graphtest.ParsePosition(arg(td, "pos", ""))
		if err != nil {
			return err
		}
		occs, err := r.SymbolsAt(ctx, path, pos)
		writeOccs(b, occs)
		return err
	case "symbol":
		s, ok, err := r.Symbol(ctx, sym)
		if ok {
			fmt.Fprintln(b, graphtest.FormatSymbol(s))
		} else if err == nil {
			fmt.Fprintln(b, "not found")
		}
		return err
	case "find", "doc-syms":
		var syms []graph.Symbol
		var err error
		var from []string
		switch {
		case td.Cmd == "find" && td.HasArg("from"):
			// The documents read: the name records' and the symbols'.
			var ids []string
			if ids, from, err = r.FindSymbolIDs(ctx, arg(td, "name", ""), td.HasArg("prefix"), intArg(td, "limit")); err != nil {
				return err
			}
			defer func() { fmt.Fprintf(b, "from %s\n", strings.Join(from, " ")) }()
			for _, id := range ids {
				s, ok, symFrom, err := r.SymbolFrom(ctx, id)
				if err != nil {
					return err
				}
				if ok {
					syms = append(syms, s)
				}
				from = append(from, symFrom...)
			}
			slices.Sort(from)
			from = slices.Compact(from)
		case td.Cmd == "find":
			syms, err = r.FindSymbols(ctx, arg(td, "name", ""), td.HasArg("prefix"), intArg(td, "limit"))
		default:
			syms, err = r.DocumentSymbols(ctx, path)
		}
		for _, s := range syms {
			fmt.Fprintln(b, graphtest.FormatSymbol(s))
		}
		if len(syms) == 0 && err == nil {
			fmt.Fprintln(b, "none")
		}
		return err
	case "incoming", "outgoing":
		return queryEdges(ctx, r, td, b)
	case "traverse":
		return queryTraverse(ctx, r, td, b)
	}
	return queryDocuments(ctx, r, td, b)
}

func queryDocuments(ctx context.Context, r *graph.Reader, td *datadriven.TestData, b *strings.Builder) error {
	switch td.Cmd {
	case "doc":
		d, ok, err := r.Document(ctx, arg(td, "path", ""))
		if ok {
			fmt.Fprintf(b, "%s layer=%s lang=%s pkg=%s digest=%s\n", d.Path, d.Layer, d.Language, d.Package, d.Digest)
		} else if err == nil {
			fmt.Fprintln(b, "not found")
		}
		return err
	case "docs":
		return r.Documents(ctx, func(d graph.Document) error {
			_, err := fmt.Fprintf(b, "%s layer=%s pkg=%s\n", d.Path, d.Layer, d.Package)
			return err
		})
	case "pkgs":
		ps, err := r.Packages(ctx)
		fmt.Fprintln(b, strings.Join(ps, "\n"))
		return err
	case "pkg-docs":
		ps, err := r.DocumentsOfPackage(ctx, arg(td, "pkg", ""))
		fmt.Fprintln(b, strings.Join(ps, "\n"))
		return err
	case "manifest":
		m, ok, err := r.Manifest(parseLayer(arg(td, "layer", "base")))
		if ok {
			fmt.Fprintf(b, "layer=%s gen=%d state=%s commit=%s tool=%s docs=%d syms=%d occs=%d edges=%d extra=%v\n",
				m.Layer, m.Generation, m.State, m.Commit, m.Tool, m.Documents, m.Symbols, m.Occurrences, m.Edges, m.Extra)
		} else if err == nil {
			fmt.Fprintln(b, "no manifest")
		}
		return err
	}
	return fmt.Errorf("unknown command %q", td.Cmd)
}

func queryEdges(ctx context.Context, r *graph.Reader, td *datadriven.TestData, b *strings.Builder) error {
	f := graph.EdgeFilter{Kinds: kindsArg(td), MinConfidence: floatArg(td, "min-conf"), Limit: intArg(td, "limit")}
	var es []graph.Edge
	var err error
	if td.Cmd == "incoming" {
		es, err = r.Incoming(ctx, arg(td, "sym", ""), f)
	} else {
		es, err = r.Outgoing(ctx, arg(td, "sym", ""), f)
	}
	for _, e := range es {
		fmt.Fprintln(b, graphtest.FormatEdge(e))
	}
	if len(es) == 0 && err == nil {
		fmt.Fprintln(b, "none")
	}
	return err
}

func queryTraverse(ctx context.Context, r *graph.Reader, td *datadriven.TestData, b *strings.Builder) error {
	o := graph.TraverseOptions{
		Kinds: kindsArg(td), MinConfidence: floatArg(td, "min-conf"), MaxDepth: intArg(td, "max-depth"),
		Limit: intArg(td, "limit"), LimitPerDepth: intArg(td, "per-depth"),
	}
	if arg(td, "dir", "up") == "down" {
		o.Direction = graph.Downstream
	}
	visits, truncated, err := r.Traverse(ctx, listArg(td, "start"), o)
	for _, v := range visits {
		fmt.Fprintln(b, graphtest.FormatVisit(v))
	}
	fmt.Fprintf(b, "truncated=%v\n", truncated)
	return err
}

func writeOccs(b *strings.Builder, occs []graph.Occurrence) {
	for _, o := range occs {
		fmt.Fprintln(b, graphtest.FormatOccurrence(o))
	}
	if len(occs) == 0 {
		fmt.Fprintln(b, "none")
	}
}

func parseLayer(s string) graph.Layer {
	if s == "live" {
		return graph.Live
	}
	return graph.Base
}

// arg returns an argument's values joined by commas, or def.
func arg(td *datadriven.TestData, key, def string) string {
	a, ok := td.Arg(key)
	if !ok {
		return def
	}
	return strings.Join(a.Vals, ",")
}

func listArg(td *datadriven.TestData, key string) []string {
	v := arg(td, key, "")
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

func kindsArg(td *datadriven.TestData) []graph.EdgeKind {
	var ks []graph.EdgeKind
	for _, k := range listArg(td, "kinds") {
		ks = append(ks, graph.EdgeKind(k))
	}
	return ks
}

func intArg(td *datadriven.TestData, key string) int {
	n, _ := strconv.Atoi(arg(td, key, "0"))
	return n
}

func floatArg(td *datadriven.TestData, key string) float64 {
	f, _ := strconv.ParseFloat(arg(td, key, "0"), 64)
	return f
}

func (h *harness) closeReaders() {
	for name, r := range h.readers {
		if err := r.Close(); err != nil {
			h.t.Errorf("closing reader %s: %v", name, err)
		}
	}
}
