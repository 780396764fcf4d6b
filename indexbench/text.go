package indexbench

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the comparison for people: each run, then the ratios.
func (res CompareResult) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s\n", res.Dir)
	for _, r := range res.Runs {
		fmt.Fprintf(w, "  %-28s %7.2fs wall %7.2fs cpu %6.0f MB peak RSS %6d files %7.0f files/s\n",
			r.Name, r.Seconds, r.CPUSeconds, r.PeakRSSMB, r.Files, r.FilesPerS)
	}
	fmt.Fprintf(w, "  index (new store) / ctags: %.2f× wall, %.2f× cpu; store %.1f MB\n", res.WallRatio, res.CPURatio, res.StoreMB)
	fmt.Fprintf(w, "  parse only / ctags:        %.2f× wall, %.2f× cpu\n", res.ParseWallRatio, res.ParseCPURatio)
	if cg := res.CodeGraph; cg != nil {
		fmt.Fprintf(w, "  index / CodeGraph %s:  %.2f× wall, %.2f× peak RSS, %.2f× store (%.1f MB vs %.1f MB)\n",
			cg.Version, cg.WallRatio, cg.RSSRatio, cg.StoreRatio, res.StoreMB, cg.StoreMB)
	}
}

// WriteText writes the scale benchmark for people: each size, then the
// ratios of the largest to the smallest.
func (res ScaleResult) WriteText(w io.Writer) {
	copies := make([]int, len(res.Sizes))
	for i, s := range res.Sizes {
		copies[i] = s.Copies
	}
	fmt.Fprintf(w, "%s copied %v times\n", res.Source, copies)
	for _, s := range res.Sizes {
		fmt.Fprintf(w, "  %d× %8d Go lines %6d files: index %7.1fs wall %7.1fs cpu %5.0f MB peak RSS, store %5.0f MB\n",
			s.Copies, s.Tree.GoLines, s.Index.Files, s.Index.Seconds, s.Index.CPUSeconds, s.Index.PeakRSSMB, s.IndexStoreMB)
		fmt.Fprintf(w, "      re-index after changing %d files: %.2fs wall %.2fs cpu %.0f MB peak RSS (%.1f%% of the full index's wall",
			s.Edited, s.Reindex.Seconds, s.Reindex.CPUSeconds, s.Reindex.PeakRSSMB, 100*s.ReindexRatio)
		if len(s.ReindexRatios) > 1 {
			fmt.Fprintf(w, ", the median of %d rounds:", len(s.ReindexRatios))
			for _, r := range s.ReindexRatios {
				fmt.Fprintf(w, " %.1f%%", 100*r)
			}
		}
		fmt.Fprintln(w, ")")
		fmt.Fprintf(w, "      impact p50 %.1f p99 %.1f ms, context p50 %.1f p99 %.1f ms (%d targets)\n",
			s.Impact.P50ms, s.Impact.P99ms, s.Context.P50ms, s.Context.P99ms, s.Impact.Targets)
		if c := s.CommandLine; c.Targets > 0 {
			fmt.Fprintf(w, "      command line, a process each (%d targets, p50/max ms): status %.0f/%.0f, impact %.0f/%.0f, context %.0f/%.0f, search %.0f/%.0f\n",
				c.Targets, c.Status.P50ms, c.Status.Maxms, c.Impact.P50ms, c.Impact.Maxms, c.Context.P50ms, c.Context.Maxms, c.Search.P50ms, c.Search.Maxms)
		}
		if c := s.CommandLineSession; c.Targets > 0 {
			fmt.Fprintf(w, "      the same through lspgraph serve: status %.0f/%.0f, impact %.0f/%.0f, context %.0f/%.0f, search %.0f/%.0f\n",
				c.Status.P50ms, c.Status.Maxms, c.Impact.P50ms, c.Impact.Maxms, c.Context.P50ms, c.Context.Maxms, c.Search.P50ms, c.Search.Maxms)
		}
		if st := s.SessionStart; st.FirstContextMs > 0 {
			fmt.Fprintf(w, "      lspgraph serve just started: first context %.0f ms from its start, the next %.0f ms\n", st.FirstContextMs, st.SecondContextMs)
		}
		if len(s.IndexRounds) > 1 {
			fmt.Fprintf(w, "      index over %d rounds: median %.1fs wall %.1fs cpu (walls%s)\n",
				len(s.IndexRounds), s.IndexMedian.Seconds, s.IndexMedian.CPUSeconds, roundWalls(s.IndexRounds, 1))
		}
		if s.Import != nil {
			fmt.Fprintf(w, "      import of %d documents: %.1fs wall %.1fs cpu %.0f MB peak RSS, store %.0f MB; impact p50 %.1f p99 %.1f ms\n",
				s.ImportDump.Documents, s.Import.Seconds, s.Import.CPUSeconds, s.Import.PeakRSSMB, s.ImportStoreMB, s.ImportImpact.P50ms, s.ImportImpact.P99ms)
			if len(s.ImportRounds) > 1 {
				fmt.Fprintf(w, "      import over %d rounds: median %.2fs wall %.2fs cpu (walls%s)\n",
					len(s.ImportRounds), s.ImportMedian.Seconds, s.ImportMedian.CPUSeconds, roundWalls(s.ImportRounds, 2))
			}
		}
	}
	fmt.Fprintf(w, "  %.0f× the size: index %.2f× wall %.2f× cpu %.2f× user cpu", res.SizeRatio, res.IndexWallRatio, res.IndexCPURatio, res.IndexUserRatio)
	if res.Rounds > 1 {
		fmt.Fprintf(w, " (medians of %d rounds; per round%s%s)", res.Rounds, ratios(res.IndexRoundRatios), roundMedian(res.IndexRoundMedian))
	}
	if res.ImportWallRatio > 0 {
		fmt.Fprintf(w, ", import %.2f× wall %.2f× cpu %.2f× user cpu", res.ImportWallRatio, res.ImportCPURatio, res.ImportUserRatio)
		if res.Rounds > 1 {
			fmt.Fprintf(w, " (per round%s%s)", ratios(res.ImportRoundRatios), roundMedian(res.ImportRoundMedian))
		}
	}
	fmt.Fprintf(w, "; largest index peak RSS %.0f MB; re-index after 1%% changed at most %.1f%% of a full index", res.MaxIndexRSSMB, 100*res.MaxReindexRatio)
	if res.ContextCommandRatio > 0 {
		fmt.Fprintf(w, "; command line context %.2f×, search %.2f× (p50)", res.ContextCommandRatio, res.SearchCommandRatio)
	}
	if res.ContextSessionRatio > 0 {
		fmt.Fprintf(w, ", through lspgraph serve %.2f×, %.2f×", res.ContextSessionRatio, res.SearchSessionRatio)
	}
	fmt.Fprintln(w)
}

// roundWalls lists the rounds' wall times, prec digits after the point.
func roundWalls(runs []Run, prec int) string {
	var b strings.Builder
	for _, r := range runs {
		fmt.Fprintf(&b, " %.*f", prec, r.Seconds)
	}
	return b.String()
}

// roundMedian says what the rounds' ratios give: their median and its
// interval.
func roundMedian(r *RoundRatio) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf(", median %.2f× (%.2f-%.2f at %.1f%%)", r.Median, r.Low, r.High, 100*r.Confidence)
}

// ratios lists ratios.
func ratios(x []float64) string {
	var b strings.Builder
	for _, r := range x {
		fmt.Fprintf(&b, " %.2f×", r)
	}
	return b.String()
}
