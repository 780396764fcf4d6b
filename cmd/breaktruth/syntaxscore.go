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
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
)

// functionStrata are the strata whose targets are package-level functions;
// every other stratum holds methods.
var functionStrata = map[string]bool{"exported function": true, "unexported function": true}

// runScoreSyntax scores the d=1 callers of a store made by `lspgraph index`
// of the truth's tree (the syntax layer alone, no SCIP) at impact's default
// threshold (or --threshold), per stratum and for functions and methods.
func runScoreSyntax(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("score-syntax", flag.ContinueOnError)
	fs.SetOutput(stderr)
	truthFile := fs.String("truth", "", "the truth (from breaktruth truth)")
	storeDir := fs.String("store", "", "a store made by `lspgraph index --store DIR --root TREE` of the truth's tree")
	threshold := fs.Float64("threshold", impact.DefaultOptions().MinConfidence, "the confidence an edge needs (impact's --min-confidence)")
	verbose := fs.Bool("v", false, "print each target's misses and extras")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *truthFile == "" || *storeDir == "" {
		return fmt.Errorf("%w: --truth and --store are required", errUsage)
	}
	truth, err := loadTruth(*truthFile)
	if err != nil {
		return err
	}
	st, err := graph.Open(*storeDir, graph.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("opening the store %s: %w", *storeDir, err)
	}
	defer st.Close()
	r, err := st.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	rows, missing, err := scoreSyntax(ctx, r, truth, *threshold, *verbose, stdout)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "d=1 callers at threshold %.2f\ttargets\ttrue\tfalse\tmissed\tP\tR\n", *threshold)
	for _, k := range append(append([]string(nil), strata...), "functions", "methods", "all") {
		if x, ok := rows[k]; ok {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\n", k, x.targets, x.c.tp, x.c.fp, x.c.fn, x.c.precision(), x.c.recall())
		}
	}
	tw.Flush()
	if len(missing) > 0 {
		fmt.Fprintf(stdout, "not in the graph (%d): %s\n", len(missing), strings.Join(missing, ", "))
	}
	return nil
}

// syntaxRow is one line of the table: its targets and their callers' counts.
type syntaxRow struct {
	targets int
	c       counts
}

// scoreSyntax asks impact for each target's d=1 callers at threshold and
// counts them against the truth, by stratum, by "functions" and "methods",
// and in "all"; missing names the targets the graph does not define.
func scoreSyntax(ctx context.Context, r *graph.Reader, truth Truth, threshold float64, verbose bool, stdout io.Writer) (map[string]*syntaxRow, []string, error) {
	inScope := map[string]bool{}
	for _, p := range truth.Files {
		inScope[p] = true
	}
	rows := map[string]*syntaxRow{}
	var missing []string
	for _, tg := range truth.Targets {
		sym, ok, err := symbolAt(ctx, r, tg)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			missing = append(missing, tg.Name)
			continue
		}
		o := impact.DefaultOptions()
		o.MaxDepth, o.IncludeTests, o.MinConfidence = 1, true, threshold
		o.Freshness = &freshness.Block{BaseCommit: "truth", Head: "truth"}
		a, err := impact.Compute(ctx, r, sym, o)
		if err != nil {
			return nil, nil, fmt.Errorf("impact of %s: %w", tg.Name, err)
		}
		self := fmt.Sprintf("%s:%d", tg.Path, tg.Line)
		d1 := minus(keysOf(a.Depths[0].Dependents, inScope), []string{self})
		group := "methods"
		if functionStrata[tg.Stratum] {
			group = "functions"
		}
		for _, k := range []string{tg.Stratum, group, "all"} {
			if rows[k] == nil {
				rows[k] = &syntaxRow{}
			}
			rows[k].targets++
			rows[k].c.add(d1, tg.Callers)
		}
		if verbose {
			var c counts
			c.add(d1, tg.Callers)
			if c.fp+c.fn > 0 {
				fmt.Fprintf(stdout, "%s (%s): callers %d, graph %d: missed %v, extra %v\n", tg.Name, tg.Stratum, len(tg.Callers), len(d1),
					minus(tg.Callers, d1), minus(d1, tg.Callers))
			}
		}
	}
	return rows, missing, nil
}

// loadTruth reads a truth written by breaktruth truth.
func loadTruth(path string) (Truth, error) {
	var truth Truth
	b, err := os.ReadFile(path)
	if err != nil {
		return truth, err
	}
	if err := json.Unmarshal(b, &truth); err != nil {
		return truth, fmt.Errorf("reading %s: %w", path, err)
	}
	return truth, nil
}
