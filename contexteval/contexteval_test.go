package contexteval

import (
	"context"
	"os"
	"os/exec"
	"reflect"
	"testing"
)

const goSrc = `package p

// Get reads.
func (d *DB) Get(k int) int {
	return k
}

func helper() {}

func (s *Set[T]) Add(v T) {
}
`

func TestGoFuncsAndTouched(t *testing.T) {
	fs, err := GoFuncs{}.Funcs(context.Background(), []Source{{Path: "p.go", Text: []byte(goSrc)}, {Path: "bad.go", Text: []byte("not go")}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Func{{"DB.Get", 3, 6}, {"helper", 8, 8}, {"Set.Add", 10, 11}}
	if !reflect.DeepEqual(fs[0], want) || len(fs[1]) != 0 {
		t.Fatalf("Funcs = %+v; want %+v and nothing for the file that does not parse", fs, want)
	}
	// Line 3 is Get's doc comment; line 9 lies between two functions.
	got := touched("p.go", fs[0], []int{3, 9, 11})
	if !reflect.DeepEqual(got, []Changed{{"p.go", "DB.Get"}, {"p.go", "Set.Add"}}) {
		t.Errorf("touched = %+v", got)
	}
}

func TestChangedLines(t *testing.T) {
	diff := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -3,0 +4,2 @@ func x\n+a\n+b\n@@ -10 +12 @@\n-c\n+d\n@@ -20,2 +21,0 @@\n-e\n-f\ndiff --git a/gone.go b/gone.go\n--- a/gone.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
	got := ChangedLines(diff)
	want := map[string][]int{"a.go": {4, 5, 12, 21}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ChangedLines = %v; want %v", got, want)
	}
}

func TestRecallAndSplit(t *testing.T) {
	c := Case{Files: []string{"a.go", "b.go", "c.go"}, Funcs: []Changed{{"a.go", "A"}, {"b.go", "B"}, {"b.go", "B2"}}}
	seed := Changed{"a.go", "A"}
	files, funcs := c.Recall(seed, []Changed{{"a.go", "A"}, {"b.go", "B"}, {"d.go", "D"}})
	if files != 0.5 || funcs != 0.5 {
		t.Errorf("Recall = %v, %v; want 0.5, 0.5 (b.go of b.go and c.go; B of B and B2)", files, funcs)
	}
	cases := []Case{{Commit: "new"}, {Commit: "mid"}, {Commit: "old"}}
	older, newer := Split(cases)
	if len(newer) != 1 || newer[0].Commit != "new" || len(older) != 2 || older[1].Commit != "old" {
		t.Errorf("Split = %+v, %+v", older, newer)
	}
}

const tsSrc = `/** Runs. */
export function run(x: number) {
  const inner = () => x
  return inner()
}

export const arrow = (a: string) => a

class Effect<T> {
  constructor() {}
  stop(): void {
  }
  get dirty() { return true }
}
`

func TestTSFuncs(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("LSPGRAPH_E2E") != "" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	fs, err := TSFuncs{}.Funcs(context.Background(), []Source{{Path: "src/a.ts", Text: []byte(tsSrc)}})
	if err != nil {
		if os.Getenv("LSPGRAPH_E2E") == "" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	// Checked by hand against the source above: the nested arrow belongs
	// to run; class members carry the class's name.
	want := []Func{{"run", 1, 5}, {"arrow", 7, 7}, {"Effect.constructor", 10, 10}, {"Effect.stop", 11, 12}, {"Effect.dirty", 13, 13}}
	if len(fs) != 1 || !reflect.DeepEqual(fs[0], want) {
		t.Errorf("Funcs = %+v; want %+v", fs, want)
	}
}

func TestSummarizeSkipsEmptyTruth(t *testing.T) {
	rs := []Result{
		{TruthFiles: 2, TruthFuncs: 2, Recall: map[string]map[int][2]float64{MethodPack: {8000: {0.5, 1}}}},
		{TruthFiles: 1, TruthFuncs: 0, Recall: map[string]map[int][2]float64{MethodPack: {8000: {1, 0}}}},
	}
	s := Summarize(rs)
	got := s.Recall[MethodPack][8000]
	if got != [2]float64{0.75, 1} || s.FileCases != 2 || s.FuncCases != 1 {
		t.Errorf("Summarize = %v over %d/%d cases; want [0.75 1] over 2/1 (a case with no truth function other than the seed does not count toward function recall)", got, s.FileCases, s.FuncCases)
	}
}
