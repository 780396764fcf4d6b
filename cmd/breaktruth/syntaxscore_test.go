package main

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/syntax"
)

var nethttpSyntax = flag.String("nethttp.syntax", os.Getenv("LSPGRAPH_NETHTTP_SYNTAX"),
	"a store made by `lspgraph index` of GOROOT/src (see README): hold its d=1 callers to the syntax goals against testdata/truth/nethttp.json")

// syntaxIndex indexes dir with the syntax layer alone into a temporary
// store and returns a reader of it.
func syntaxIndex(t *testing.T, dir string) *graph.Reader {
	t.Helper()
	st, err := graph.Open(filepath.Join(t.TempDir(), "store"), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := syntax.Index(context.Background(), st, syntax.IndexOptions{Root: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestScoreSyntaxOnFixture builds the type checker's truth for
// testdata/gobreak's shape package and scores a syntax index of the same
// tree: every target is found, every stratum counted once in its group and
// in "all", and the counts add up to the truth's callers.
func TestScoreSyntaxOnFixture(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "gobreak"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "truth.json")
	if err := runTruth(context.Background(), []string{"--dir", dir, "--package", "example.com/gobreak/shape", "--importers", "example.com/gobreak/use", "--out", out}, io.Discard); err != nil {
		t.Fatal(err)
	}
	truth, err := loadTruth(out)
	if err != nil {
		t.Fatal(err)
	}
	rows, missing, err := scoreSyntax(context.Background(), syntaxIndex(t, dir), truth, impact.DefaultOptions().MinConfidence, false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("targets not in the syntax graph: %v", missing)
	}
	callers := 0
	for _, tg := range truth.Targets {
		callers += len(tg.Callers)
	}
	all := rows["all"]
	if all == nil || all.targets != len(truth.Targets) || all.c.tp+all.c.fn != callers {
		t.Fatalf("all: %+v; want %d targets, %d callers", all, len(truth.Targets), callers)
	}
	sum := syntaxRow{}
	for _, g := range []string{"functions", "methods"} {
		if x := rows[g]; x != nil {
			sum.targets += x.targets
			sum.c.tp += x.c.tp
			sum.c.fn += x.c.fn
		}
	}
	inStrata := 0
	for _, s := range strata {
		if x := rows[s]; x != nil {
			inStrata += x.targets
		}
	}
	if sum.targets != all.targets || sum.c.tp != all.c.tp || sum.c.fn != all.c.fn || inStrata != all.targets {
		t.Errorf("functions and methods (%+v) or the strata (%d targets) do not add up to all %+v", sum, inStrata, all)
	}
	if all.c.recall() < 0.5 || all.c.precision() < 0.9 {
		t.Errorf("syntax callers on gobreak: P %.2f R %.2f", all.c.precision(), all.c.recall())
	}
}

// TestScoreSyntaxNetHTTP holds the syntax-only d=1 callers of net/http to
// their goals at the default threshold: recall ≥ 0.85 at precision ≥ 0.95,
// methods' recall ≥ 0.75. Give it a store of GOROOT/src made with
// `lspgraph index` (README: "Measured against the compiler").
func TestScoreSyntaxNetHTTP(t *testing.T) {
	if *nethttpSyntax == "" {
		t.Skip("no -nethttp.syntax store (LSPGRAPH_NETHTTP_SYNTAX)")
	}
	truth, err := loadTruth(filepath.Join("..", "..", "testdata", "truth", "nethttp.json"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := graph.Open(*nethttpSyntax, graph.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var v strings.Builder
	rows, missing, err := scoreSyntax(context.Background(), r, truth, impact.DefaultOptions().MinConfidence, true, &v)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("%d targets not in the graph (h2_bundle.go is skipped as generated unless its marker is edited; README): %v", len(missing), missing)
	}
	if all := rows["all"]; all.c.recall() < 0.85 || all.c.precision() < 0.95 {
		t.Errorf("callers P %.2f R %.2f; want R ≥ 0.85 at P ≥ 0.95\n%s", all.c.precision(), all.c.recall(), v.String())
	}
	if m := rows["methods"]; m.c.recall() < 0.75 {
		t.Errorf("methods' callers R %.2f; want ≥ 0.75\n%s", m.c.recall(), v.String())
	}
}
