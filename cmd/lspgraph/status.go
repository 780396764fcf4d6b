package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
)

// statusReport is what `lspgraph status --json` prints.
type statusReport struct {
	Store         string        `json:"store"`
	Schema        int           `json:"schema"`
	Empty         bool          `json:"empty"`
	DiskBytes     uint64        `json:"diskBytes,omitempty"`
	Layers        []layerStatus `json:"layers"`
	LiveDocuments []string      `json:"liveDocuments,omitempty"`
	// Freshness relates the base layer to HEAD and the work tree (status_freshness.go).
	Freshness *freshness.Block `json:"freshness,omitempty"`
}

// layerStatus is one layer's manifest as status reports it.
type layerStatus struct {
	Layer       string         `json:"layer"`
	Generation  uint64         `json:"generation,omitempty"`
	Commit      string         `json:"commit,omitempty"`
	Root        string         `json:"root,omitempty"`
	Tool        string         `json:"tool,omitempty"`
	ToolVersion string         `json:"toolVersion,omitempty"`
	State       string         `json:"state,omitempty"`
	Documents   int            `json:"documents"`
	Symbols     int            `json:"symbols"`
	Occurrences int            `json:"occurrences"`
	Edges       int            `json:"edges"`
	Extra       map[string]int `json:"extra,omitempty"`
	Started     *time.Time     `json:"started,omitempty"`
	Finished    *time.Time     `json:"finished,omitempty"`
}

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "status", "status [--store DIR] [--root DIR] [--json]")
	storeFlag := fs.String("store", "", "store directory (default: the workspace's store in the user cache)")
	root := fs.String("root", "", "workspace root (default: the git top level of the current directory)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	dir, err := storeDir(*storeFlag, *root)
	if err != nil {
		return err
	}
	rep, err := readStatus(ctx, dir)
	if err != nil {
		return err
	}
	rep.Freshness = statusFreshness(ctx, e, dir, *root) // status_freshness.go
	if *asJSON {
		return writeJSON(e.stdout, rep)
	}
	printStatus(e.stdout, rep)
	printFreshness(e.stdout, rep.Freshness) // status_freshness.go
	return nil
}

// readStatus opens the store read-only and collects its manifests. A store
// that does not exist yet is reported empty.
func readStatus(ctx context.Context, dir string) (statusReport, error) {
	rep := statusReport{Store: dir, Schema: graph.SchemaVersion}
	s, err := graph.Open(dir, graph.Options{ReadOnly: true})
	if errors.Is(err, graph.ErrNotFound) {
		rep.Empty = true
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	defer s.Close()
	rep.DiskBytes = s.DiskUsage()
	r, err := s.Reader()
	if err != nil {
		return rep, err
	}
	defer r.Close()
	rep.LiveDocuments = r.LiveDocuments()
	for _, l := range []graph.Layer{graph.Base, graph.Live} {
		m, ok, err := r.Manifest(l)
		if err != nil {
			return rep, err
		}
		if ok {
			rep.Layers = append(rep.Layers, toLayerStatus(m))
		}
	}
	rep.Empty = r.BaseGeneration() == 0 && len(rep.LiveDocuments) == 0
	return rep, nil
}

func toLayerStatus(m graph.Manifest) layerStatus {
	ls := layerStatus{
		Layer: m.Layer.String(), Generation: m.Generation, Commit: m.Commit, Root: m.Root,
		Tool: m.Tool, ToolVersion: m.ToolVersion, State: string(m.State),
		Documents: m.Documents, Symbols: m.Symbols, Occurrences: m.Occurrences, Edges: m.Edges, Extra: m.Extra,
	}
	if !m.Started.IsZero() {
		ls.Started = &m.Started
	}
	if !m.Finished.IsZero() {
		ls.Finished = &m.Finished
	}
	return ls
}

func printStatus(w io.Writer, rep statusReport) {
	if rep.Empty {
		fmt.Fprintf(w, "store %s: empty (no base layer yet; run `lspgraph index` or `lspgraph scip import`)\n", rep.Store)
		return
	}
	fmt.Fprintf(w, "store %s (schema %d, %.1f MB)\n", rep.Store, rep.Schema, float64(rep.DiskBytes)/1e6)
	hasBase := false
	for _, l := range rep.Layers {
		hasBase = hasBase || l.Layer == graph.Base.String()
		printLayer(w, l)
	}
	if !hasBase {
		fmt.Fprintln(w, "base: none (run `lspgraph index` or `lspgraph scip import`)")
	}
	if n := len(rep.LiveDocuments); n > 0 {
		fmt.Fprintf(w, "live documents: %d (%s)\n", n, abbreviate(rep.LiveDocuments, 5))
	}
}

func printLayer(w io.Writer, l layerStatus) {
	var parts []string
	if l.Generation != 0 {
		parts = append(parts, fmt.Sprintf("generation %d", l.Generation))
	}
	if l.Commit != "" {
		parts = append(parts, "commit "+l.Commit)
	}
	if tool := strings.TrimSpace(l.Tool + " " + l.ToolVersion); tool != "" {
		parts = append(parts, tool)
	}
	parts = append(parts, cmpOr(l.State, "state unknown"))
	fmt.Fprintf(w, "%s: %s\n", l.Layer, strings.Join(parts, ", "))
	fmt.Fprintf(w, "  %d documents, %d symbols, %d occurrences, %d edges\n", l.Documents, l.Symbols, l.Occurrences, l.Edges)
	if len(l.Extra) > 0 {
		var extra []string
		for _, k := range sortedKeys(l.Extra) {
			extra = append(extra, fmt.Sprintf("%s %d", k, l.Extra[k]))
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(extra, ", "))
	}
	if l.Finished != nil {
		line := "  finished " + l.Finished.Local().Format("2006-01-02 15:04:05")
		if l.Started != nil {
			line += fmt.Sprintf(" (took %s)", l.Finished.Sub(*l.Started).Round(time.Millisecond))
		}
		fmt.Fprintln(w, line)
	}
	if l.Root != "" {
		fmt.Fprintf(w, "  root %s\n", l.Root)
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// abbreviate joins the first n items and says how many more there are.
func abbreviate(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, … %d more", strings.Join(items[:n], ", "), len(items)-n)
}
