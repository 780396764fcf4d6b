package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lspgraph/lspgraph/calibrate"
)

// runBenchCalibrate measures the syntax layer's rules against a SCIP dump of
// the same source tree.
func runBenchCalibrate(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench calibrate", "bench calibrate --root DIR [--threshold T] [--targets N] [--seed S] [--json] DUMP")
	root := fs.String("root", "", "the source tree the dump was built from, at the dump's commit (required)")
	threshold := fs.Float64("threshold", 0.7, "confidence at or above which an edge counts for the callers sample")
	targets := fs.Int("targets", 40, "functions and methods sampled (each) for the callers table")
	seed := fs.Uint64("seed", 1, "seed of the callers sample")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *root == "" {
		return fmt.Errorf("%w: want --root DIR and one dump file", errUsage)
	}
	dir, err := filepath.Abs(*root)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", *root, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("--root %s is not a directory", dir)
	}
	rep, err := calibrate.Run(ctx, calibrate.Options{Root: dir, Dump: fs.Arg(0), Threshold: *threshold, Targets: *targets, Seed: *seed})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, rep)
	}
	printCalibration(e.stdout, rep)
	return nil
}

// printCalibration writes a report as markdown tables.
func printCalibration(w io.Writer, rep calibrate.Report) {
	fmt.Fprintf(w, "%s (%s, %d documents): %d syntax definitions matched, %d not; %d precise calls between them; %d syntax call edges with an unmatched end, %d at sites the precise index left unresolved\n\n",
		filepath.Base(rep.Dump), rep.Tool, rep.Documents, rep.Matched, rep.Unmatched, rep.TruthCalls, rep.UnmatchedEdges, rep.UnjudgedEdges)
	fmt.Fprintln(w, "| language | rule | confidence | call edges | precision | recall |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|")
	for _, r := range rep.Rules {
		fmt.Fprintf(w, "| %s | %s | %.2f | %d | %.3f | %.3f |\n", r.Language, r.Reason, r.Confidence, r.Edges, r.Precision, r.Recall)
	}
	fmt.Fprintln(w, "\n| threshold | call edges | precision | recall |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|")
	for _, p := range rep.Curve {
		fmt.Fprintf(w, "| %.2f | %d | %.3f | %.3f |\n", p.Threshold, p.Edges, p.Precision, p.Recall)
	}
	fmt.Fprintf(w, "\nd=1 callers at threshold %.2f:\n\n", rep.Threshold)
	fmt.Fprintln(w, "| targets | kind | precise callers | syntax callers | found | precision | recall |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|")
	for _, c := range rep.Callers {
		fmt.Fprintf(w, "| %d | %s | %d | %d | %d | %.3f | %.3f |\n", c.Targets, c.Kind, c.Truth, c.Listed, c.Found, c.Precision, c.Recall)
	}
}
