package syntax

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
)

// WriteText prints the summary for people: files, languages, facts,
// edges per resolution rule, time, and the generation written with its
// commit ("" when the root is not a git work tree).
func (sum IndexSummary) WriteText(w io.Writer, commit string) {
	skipped := 0
	var parts []string
	reasons := make([]string, 0, len(sum.Skipped))
	for r := range sum.Skipped {
		reasons = append(reasons, string(r))
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		n := sum.Skipped[SkipReason(r)]
		skipped += n
		parts = append(parts, fmt.Sprintf("%s %d", r, n))
	}
	skip := fmt.Sprintf("%d skipped", skipped)
	if len(parts) > 0 {
		skip += " (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintf(w, "  files       %d listed, %d indexed, %s, %d unreadable\n", sum.Files, sum.Indexed, skip, sum.Unreadable)
	var langs []string
	for _, l := range slices.Sorted(maps.Keys(sum.Languages)) {
		langs = append(langs, fmt.Sprintf("%s %d", l, sum.Languages[l]))
	}
	if len(langs) > 0 {
		fmt.Fprintf(w, "  languages   %s\n", strings.Join(langs, ", "))
	}
	if sum.Incremental {
		fmt.Fprintf(w, "  incremental %d files changed, %d deleted; %d documents resolved again, the others kept\n", sum.Changed, sum.Deleted, sum.Resolved)
	}
	if sum.Cached > 0 {
		fmt.Fprintf(w, "  cached      %d files' facts read from the fact cache, not parsed\n", sum.Cached)
	}
	fmt.Fprintf(w, "  facts       %d symbols, %d occurrences, %d edges\n", sum.Symbols, sum.Occurrences, sum.Edges)
	for _, r := range Rules() { // confidences differ by language: see syntax/CALIBRATION.md
		if n := sum.EdgesByReason[r.Reason]; n > 0 {
			fmt.Fprintf(w, "    %-31s %d edges\n", r.Reason, n)
		}
	}
	secs := sum.Duration.Seconds()
	fmt.Fprintf(w, "  time        %.2fs, %.0f files/s, %.1f MB/s\n", secs, sum.FilesPerSecond(), float64(sum.Bytes)/1e6/max(secs, 1e-9))
	if commit == "" {
		commit = "(not a git work tree)"
	}
	fmt.Fprintf(w, "  generation  %d, commit %s, tool %s %s\n", sum.Generation, commit, Tool, Version)
}
