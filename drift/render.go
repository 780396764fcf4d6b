package drift

import (
	"fmt"
	"io"
	"strings"

	"github.com/lspgraph/lspgraph/impact"
)

// WriteText prints an audit for people: the verdict, precision and recall
// per source, the worst symbols with their missing and extra sites, and
// each layer's freshness.
func WriteText(w io.Writer, res Result) error {
	rep, server, maxDrift := res.Report, res.Server, res.MaxDrift
	var b strings.Builder
	fmt.Fprintf(&b, "verify: %d of %d symbols compared against %s (layer %s, seed %d)", rep.Compared, rep.Candidates, server, rep.Layer, rep.Seed)
	if rep.Failed > 0 {
		fmt.Fprintf(&b, ", %d failed", rep.Failed)
	}
	verdict := "ok"
	if res.Over {
		verdict = "OVER"
	}
	fmt.Fprintf(&b, "\ndrift %.3f (max %.3f): %s; precision %.3f, recall %.3f\n\n", rep.Drift, maxDrift, verdict, rep.Precision, rep.Recall)
	fmt.Fprintf(&b, "%-14s %8s %10s %10s %7s %7s %7s   %s\n", "source", "symbols", "precision", "recall", "graph", "server", "matched", "callers: symbols precision recall")
	for _, s := range rep.Sources {
		fmt.Fprintf(&b, "%-14s %8d %10.3f %10.3f %7d %7d %7d   %s\n", s.Layer+"/"+s.Source, s.Symbols, s.Precision, s.Recall, s.Graph, s.Server, s.Matched, callerColumns(s.Callers))
	}
	if rep.Callers != nil {
		fmt.Fprintf(&b, "callers (incoming calls, by caller definition): %d symbols, precision %.3f, recall %.3f (graph %d, server %d, matched %d)\n",
			rep.Callers.Symbols, rep.Callers.Precision, rep.Callers.Recall, rep.Callers.Graph, rep.Callers.Server, rep.Callers.Matched)
	}
	if len(rep.Worst) > 0 {
		b.WriteString("\nworst symbols:\n")
		for _, s := range rep.Worst {
			fmt.Fprintf(&b, "  F1 %.3f  %s (%s) %s [%s/%s] precision %.3f recall %.3f\n", s.F1, s.Name, s.Kind, s.Def, s.Layer, s.Source, s.Precision, s.Recall)
			for _, m := range s.Missing {
				fmt.Fprintf(&b, "    missing %s\n", m)
			}
			for _, x := range s.Extra {
				fmt.Fprintf(&b, "    extra   %s\n", x)
			}
			if c := s.Callers; c != nil {
				for _, m := range c.Missing {
					fmt.Fprintf(&b, "    missing caller %s\n", m)
				}
				for _, x := range c.Extra {
					fmt.Fprintf(&b, "    extra caller   %s\n", x)
				}
			}
		}
	}
	b.WriteString("\nlayers:\n")
	for _, l := range rep.Layers {
		switch l.Layer {
		case "base":
			state := "fresh"
			switch {
			case l.Head == "":
				state = "unknown"
			case l.Stale:
				state = "stale"
			}
			fmt.Fprintf(&b, "  base  %d documents from %s at %s; HEAD %s; %d changed since: %s\n",
				l.Documents, impact.OrDash(l.Tool), impact.OrDash(impact.ShortRev(l.Commit)), impact.OrDash(impact.ShortRev(l.Head)), l.Changed, state)
			for _, r := range l.Reasons {
				fmt.Fprintf(&b, "        %s\n", r)
			}
		default:
			fmt.Fprintf(&b, "  %-5s %d documents, %d unsaved\n", l.Layer, l.Documents, l.Dirty)
		}
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(&b, "error: %s\n", e)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// callerColumns formats a stratum's caller comparison, "-" when none ran.
func callerColumns(c *CallerStat) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%d %.3f %.3f", c.Symbols, c.Precision, c.Recall)
}
