package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/workspace"
)

// statusReport is what `lspgraph status --json` prints: the store, and
// the session serving it when one runs.
type statusReport struct {
	workspace.StoreStatus
	// Session is the running session's view (nil: none runs).
	Session *workspace.SessionInfo `json:"session,omitempty"`
	// Freshness relates the base layer to HEAD and the work tree.
	Freshness *freshness.Block `json:"freshness,omitempty"`
}

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "status", "status [--store DIR] [--root DIR] [--json]")
	storeFlag := fs.String("store", "", "store directory (default: the workspace's store in the user cache)")
	rootFlag := fs.String("root", "", "workspace root (default: the git top level of the current directory)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	dir, err := storeDir(*storeFlag, *rootFlag)
	if err != nil {
		return err
	}
	root := rootOrDefault(*rootFlag)
	st, served, err := workspace.StatusOf(ctx, dir, root)
	if err != nil {
		return err
	}
	rep := statusReport{StoreStatus: st.StoreStatus, Freshness: st.Freshness}
	if served {
		rep.Session = &st.Session
	}
	if *asJSON {
		return writeJSON(e.stdout, rep)
	}
	printStatus(e.stdout, rep)
	printFreshness(e.stdout, rep.Freshness) // status_freshness.go
	return nil
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
	if ss := rep.Session; ss != nil {
		headless := ""
		if ss.Headless {
			headless = " (headless: an editor's proxy takes it over)"
		}
		resident := ""
		if ss.ResidentMB > 0 {
			resident = fmt.Sprintf(", %.0f MB resident", ss.ResidentMB)
		}
		fmt.Fprintf(w, "session: pid %d%s, up %s%s, live server: %v, %d clients\n", ss.PID, headless, time.Duration(ss.UptimeSeconds*float64(time.Second)).Round(time.Second), resident, ss.Server, len(ss.Clients))
		for _, c := range ss.Clients {
			fmt.Fprintf(w, "  %s pid %d %s\n", c.Kind, c.PID, c.Server)
		}
	}
}

func printLayer(w io.Writer, l workspace.LayerStatus) {
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
	parts = append(parts, cmp.Or(l.State, "state unknown"))
	fmt.Fprintf(w, "%s: %s\n", l.Layer, strings.Join(parts, ", "))
	fmt.Fprintf(w, "  %d documents, %d symbols, %d occurrences, %d edges\n", l.Documents, l.Symbols, l.Occurrences, l.Edges)
	if len(l.Extra) > 0 {
		var extra []string
		for _, k := range slices.Sorted(maps.Keys(l.Extra)) {
			extra = append(extra, fmt.Sprintf("%s %d", k, l.Extra[k]))
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(extra, ", "))
	}
	if len(l.Packages) > 0 {
		fmt.Fprintf(w, "  packages %s\n", abbreviate(l.PackageVersions(), 3))
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

// abbreviate joins the first n items and says how many more there are.
func abbreviate(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, … %d more", strings.Join(items[:n], ", "), len(items)-n)
}
