package scip

import (
	"github.com/lspgraph/lspgraph/internal/gitcmd"

	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// WriteText writes the summary for people.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	tool := cmp.Or(s.Tool, "unknown tool")
	if s.ToolVersion != "" {
		tool += " " + s.ToolVersion
	}
	fmt.Fprintf(&b, "imported a %s index: generation %d", tool, s.Generation)
	if s.Patched {
		b.WriteString(" patched in place")
	}
	if s.Commit != "" {
		fmt.Fprintf(&b, ", commit %s", gitcmd.ShortCommit(s.Commit))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  documents    %s → %s (%s converted, %s reused unchanged", num(s.DocumentsBefore), num(s.Documents), num(s.Converted), num(s.Reused))
	if s.Patched {
		fmt.Fprintf(&b, ", %s deleted", num(s.Deleted))
	}
	b.WriteString(")\n")
	fmt.Fprintf(&b, "  occurrences  %s\n", num(s.Occurrences))
	fmt.Fprintf(&b, "  symbols      %s (%s from the external symbols section)\n", num(s.Symbols), num(s.ExternalSymbols))
	fmt.Fprintf(&b, "  edges        %s\n", num(s.Edges))
	if n := len(s.Skipped); n > 0 {
		fmt.Fprintf(&b, "  skipped      %s documents:\n", num(n))
		for _, g := range groupSkips(s.Skipped) {
			fmt.Fprintf(&b, "    %s × %s (%s occurrences), e.g. %q at byte %d\n", num(g.count), g.reason, num(g.occurrences), g.first.Path, g.first.Offset)
		}
	}
	if s.UnverifiedDocuments > 0 {
		fmt.Fprintf(&b, "  unverified   %s documents kept their columns as given: their text was missing under the root or did not match (pass --root)\n", num(s.UnverifiedDocuments))
	}
	if s.InvalidOccurrences > 0 {
		fmt.Fprintf(&b, "  dropped      %s occurrences with a malformed range or symbol\n", num(s.InvalidOccurrences))
	}
	if len(s.VersionChanges) > 0 {
		const shown = 5
		for i, c := range s.VersionChanges[:min(len(s.VersionChanges), shown)] {
			label := "versions"
			if i > 0 {
				label = ""
			}
			fmt.Fprintf(&b, "  %-12s %s: %s → %s\n", label, c.Package, c.From, c.To)
		}
		if n := len(s.VersionChanges) - shown; n > 0 {
			fmt.Fprintf(&b, "               and %s more packages\n", num(n))
		}
		if !s.Patched && s.Converted > s.Reused {
			b.WriteString("               every symbol names its package's version, so every document defining symbols of these packages changed\n")
			if s.Tool == "scip-go" {
				b.WriteString("               run scip-go with a fixed --module-version (e.g. --module-version=dev) so that an import rewrites only the documents that changed\n")
			}
		}
	}
	if s.UnknownFields > 0 {
		fmt.Fprintf(&b, "  ignored      %s unknown top-level fields (a newer SCIP schema?)\n", num(s.UnknownFields))
	}
	fmt.Fprintf(&b, "  took         %s for %s: %.1f MB/s, %s occurrences/s\n",
		s.Duration.Round(time.Millisecond), size(s.Bytes), s.MBPerSec, num(int(s.OccurrencesPerSec)))
	_, err := io.WriteString(w, b.String())
	return err
}

type skipGroup struct {
	reason      string
	count       int
	occurrences int
	first       Skip
}

func groupSkips(skips []Skip) []skipGroup {
	var groups []skipGroup
	for _, s := range skips {
		i := slices.IndexFunc(groups, func(g skipGroup) bool { return g.reason == s.Reason })
		if i < 0 {
			groups = append(groups, skipGroup{reason: s.Reason, first: s})
			i = len(groups) - 1
		}
		groups[i].count++
		groups[i].occurrences += s.Occurrences
	}
	return groups
}

// num formats n with thousands separators.
func num(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// size renders a byte count for people.
func size(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d bytes", n)
}
