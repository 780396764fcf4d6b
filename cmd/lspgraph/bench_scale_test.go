package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/indexbench"
)

// TestBenchScaleRounds runs the scale benchmark on a small Go tree, two
// sizes, three rounds, with a dump: every size has every round's index and
// import, the ratios are of the medians, and nothing is left behind.
func TestBenchScaleRounds(t *testing.T) {
	t.Setenv("LSPGRAPH_RUN_MAIN", "1")
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "goapp"))
	if err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join("..", "..", "testdata", "scip", "goapp.scip")
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: os.Getenv}
	args := []string{"bench", "scale", "--json", "--copies", "1,2", "--rounds", "3", "--targets", "2", "--source", src, "--dump", dump, dir}
	if code := run(context.Background(), e, args); code != 0 {
		t.Fatalf("bench scale exited %d: %s", code, stderr.String())
	}
	var res indexbench.ScaleResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	if res.Rounds != 3 || len(res.Sizes) != 2 || len(res.IndexRoundRatios) != 3 || len(res.ImportRoundRatios) != 3 {
		t.Fatalf("rounds %d, sizes %d, index ratios %v, import ratios %v", res.Rounds, len(res.Sizes), res.IndexRoundRatios, res.ImportRoundRatios)
	}
	for _, s := range res.Sizes {
		if len(s.IndexRounds) != 3 || len(s.ImportRounds) != 3 || s.ImportMedian == nil {
			t.Fatalf("%d×: %d index rounds, %d import rounds", s.Copies, len(s.IndexRounds), len(s.ImportRounds))
		}
		if !reflect.DeepEqual(s.IndexRounds[0], s.Index) || !reflect.DeepEqual(s.ImportRounds[0], *s.Import) {
			t.Errorf("%d×: the first round is not the first measurement", s.Copies)
		}
		// Every round indexed the same files: the copies beyond the
		// size were set aside, and put back for the next size.
		for r, run := range s.IndexRounds {
			if run.Seconds <= 0 || run.CPUSeconds <= 0 || run.Files != s.Index.Files {
				t.Errorf("%d× round %d: %+v", s.Copies, r+1, run)
			}
		}
		if s.IndexMedian.Seconds <= 0 || s.ImportMedian.Seconds <= 0 {
			t.Errorf("%d×: medians %+v %+v", s.Copies, s.IndexMedian, *s.ImportMedian)
		}
		// The command line was asked each question as a process of its
		// own, which answered (a failed one fails the benchmark).
		// And again through a session lspgraph serve kept.
		// And twice of a session just started.
		if st := s.SessionStart; st.FirstContextMs <= 0 || st.SecondContextMs <= 0 {
			t.Errorf("%d×: session start %+v", s.Copies, st)
		}
		for _, c := range []indexbench.CommandLine{s.CommandLine, s.CommandLineSession} {
			if c.Targets == 0 || c.Status.Targets != c.Targets || c.Impact.Targets != c.Targets || c.Context.Targets != c.Targets || c.Search.Targets != c.Targets ||
				c.Status.P50ms <= 0 || c.Context.P50ms <= 0 || c.Search.P50ms <= 0 || c.Impact.P50ms <= 0 {
				t.Errorf("%d×: command line %+v", s.Copies, c)
			}
		}
	}
	first, last := res.Sizes[0], res.Sizes[1]
	if last.Index.Files != 2*first.Index.Files {
		t.Errorf("2× indexed %d files, 1× %d", last.Index.Files, first.Index.Files)
	}
	if got, want := res.IndexWallRatio, last.IndexMedian.Seconds/first.IndexMedian.Seconds; got != want {
		t.Errorf("index wall ratio %v, want the medians' %v", got, want)
	}
	// The fixture's one-copy index takes some 20 ms of CPU: a loaded
	// machine may have counted none of it as user time, which the ratio
	// then divides by as a nanosecond.
	if got, want := res.IndexUserRatio, last.IndexMedian.UserSeconds/max(first.IndexMedian.UserSeconds, 1e-9); got != want || first.IndexMedian.UserSeconds < 0 || first.IndexMedian.UserSeconds > first.IndexMedian.CPUSeconds {
		t.Errorf("index user CPU ratio %v, want the medians' %v (1×: %+v)", got, want, first.IndexMedian)
	}
	if got, want := res.ContextCommandRatio, last.CommandLine.Context.P50ms/first.CommandLine.Context.P50ms; got != want {
		t.Errorf("command line context ratio %v, want the medians' %v", got, want)
	}
	if got, want := res.IndexRoundRatios[1], last.IndexRounds[1].Seconds/first.IndexRounds[1].Seconds; got != want {
		t.Errorf("round 2's index ratio %v, want %v", got, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, d := range entries {
		left = append(left, d.Name())
	}
	if len(left) != 0 {
		t.Errorf("left in the working directory: %v", left)
	}
}
