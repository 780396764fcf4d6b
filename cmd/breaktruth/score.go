package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/goconv"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/scip"
)

// counts are true positives, false positives and false negatives.
type counts struct{ tp, fp, fn int }

func (c *counts) add(got, want []string) {
	w := map[string]bool{}
	for _, k := range want {
		w[k] = true
	}
	g := map[string]bool{}
	for _, k := range got {
		g[k] = true
		if w[k] {
			c.tp++
		} else {
			c.fp++
		}
	}
	for _, k := range want {
		if !g[k] {
			c.fn++
		}
	}
}

func (c counts) precision() float64 { return ratio(c.tp, c.tp+c.fp) }
func (c counts) recall() float64    { return ratio(c.tp, c.tp+c.fn) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func runScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	truthFile := fs.String("truth", "", "the truth (from breaktruth truth)")
	dump := fs.String("scip", "", "a SCIP dump of the tree (scip-go run in --dir)")
	dir := fs.String("dir", "", "the tree the dump was made from (default: GOROOT/src)")
	goTypes := fs.Bool("go-types", false, "add the type checker's conversion sites to the import (as lspgraph scip import --go-types)")
	verbose := fs.Bool("v", false, "print each target's misses and extras")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *truthFile == "" || *dump == "" {
		return fmt.Errorf("%w: --truth and --scip are required", errUsage)
	}
	if *dir == "" {
		d, _, err := goroot()
		if err != nil {
			return err
		}
		*dir = d
	}
	b, err := os.ReadFile(*truthFile)
	if err != nil {
		return err
	}
	var truth Truth
	if err := json.Unmarshal(b, &truth); err != nil {
		return fmt.Errorf("reading %s: %w", *truthFile, err)
	}
	storeDir, err := os.MkdirTemp("", "breaktruth-store-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(storeDir)
	st, err := graph.Open(storeDir, graph.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	opts := scip.Options{Root: *dir, Commit: "truth"}
	if *goTypes {
		conv, err := goconv.Collect(ctx, *dir, truth.Scope...)
		if err != nil {
			return err
		}
		conv.ImportOptions(&opts)
		fmt.Fprintf(stderr, "go types: %d packages, %d conversion sites\n", conv.Packages, conv.Count())
	}
	f, err := os.Open(*dump)
	if err != nil {
		return err
	}
	_, err = scip.Import(ctx, st, f, opts)
	f.Close()
	if err != nil {
		return err
	}
	r, err := st.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	inScope := map[string]bool{}
	for _, p := range truth.Files {
		inScope[p] = true
	}
	callers, breaks := map[string]*counts{}, map[string]*counts{}
	var allCallers, allBreaks counts
	levels := map[string]int{}
	var missing []string
	for _, tg := range truth.Targets {
		sym, ok, err := symbolAt(ctx, r, tg)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, tg.Name)
			continue
		}
		o := impact.DefaultOptions()
		o.MaxDepth, o.IncludeTests = 1, true
		o.Freshness = &freshness.Block{BaseCommit: "truth", Head: "truth"}
		a, err := impact.Compute(ctx, r, sym, o)
		if err != nil {
			return fmt.Errorf("impact of %s: %w", tg.Name, err)
		}
		// The changed declaration itself is left out on both sides.
		self := fmt.Sprintf("%s:%d", tg.Path, tg.Line)
		d1 := minus(keysOf(a.Depths[0].Dependents, inScope), []string{self})
		all := append(d1, minus(keysOf(a.Satisfaction, inScope), []string{self})...)
		for _, m := range []map[string]*counts{callers, breaks} {
			if m[tg.Stratum] == nil {
				m[tg.Stratum] = &counts{}
			}
		}
		callers[tg.Stratum].add(d1, tg.Callers)
		allCallers.add(d1, tg.Callers)
		breaks[tg.Stratum].add(all, tg.Breaks)
		allBreaks.add(all, tg.Breaks)
		level := a.Risk.Level
		if a.Risk.AtLeast {
			level = "at least " + level
		}
		if len(tg.Breaks) > 0 {
			levels[level]++
		} else {
			levels["(nothing breaks) "+level]++
		}
		if *verbose {
			var c counts
			c.add(all, tg.Breaks)
			if c.fp+c.fn > 0 {
				fmt.Fprintf(stdout, "%s (%s): breaks %d, graph %d: missed %v, extra %v\n", tg.Name, tg.Stratum, len(tg.Breaks), len(dedupe(all)),
					minus(tg.Breaks, all), minus(all, tg.Breaks))
			}
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "stratum\ttargets\tcallers P\tcallers R\tbreaks P\tbreaks R\n")
	n := map[string]int{}
	for _, tg := range truth.Targets {
		n[tg.Stratum]++
	}
	for _, s := range strata {
		if c, ok := callers[s]; ok {
			fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\n", s, n[s], c.precision(), c.recall(), breaks[s].precision(), breaks[s].recall())
		}
	}
	fmt.Fprintf(tw, "all\t%d\t%.2f\t%.2f\t%.2f\t%.2f\n", len(truth.Targets)-len(missing), allCallers.precision(), allCallers.recall(), allBreaks.precision(), allBreaks.recall())
	tw.Flush()
	fmt.Fprintf(stdout, "callers: %d true, %d false, %d missed; breaks: %d true, %d false, %d missed\n",
		allCallers.tp, allCallers.fp, allCallers.fn, allBreaks.tp, allBreaks.fp, allBreaks.fn)
	fmt.Fprintf(stdout, "risk levels: %v\n", levels)
	if len(missing) > 0 {
		fmt.Fprintf(stdout, "not in the graph (%d): %s\n", len(missing), strings.Join(missing, ", "))
	}
	return nil
}

// symbolAt finds the symbol defined at the target's name.
func symbolAt(ctx context.Context, r *graph.Reader, tg Target) (graph.Symbol, bool, error) {
	syms, err := r.DocumentSymbols(ctx, tg.Path)
	if err != nil {
		return graph.Symbol{}, false, err
	}
	for _, s := range syms {
		if s.Def.Path == tg.Path && int(s.Def.Range.Start.Line)+1 == tg.Line && int(s.Def.Range.Start.Col)+1 == tg.Col {
			return s, true, nil
		}
	}
	return graph.Symbol{}, false, nil
}

// keysOf names dependents as the truth names declarations.
func keysOf(ds []impact.Dependent, inScope map[string]bool) []string {
	var out []string
	for _, d := range ds {
		if d.Location == nil || !inScope[d.Location.Path] {
			continue
		}
		switch {
		case d.TopLevel:
			out = append(out, d.Location.Path+":top")
		case d.Kind == "function" || d.Kind == "method":
			out = append(out, fmt.Sprintf("%s:%d", d.Location.Path, d.Location.Line))
		default:
			out = append(out, d.Location.Path+":top")
		}
	}
	return dedupe(out)
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range dedupe(a) {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}
