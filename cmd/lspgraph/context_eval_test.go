package main

import (
	"bufio"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/history"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/ranking"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/scope"
)

// The history evaluation of context packs, on a real repository's real
// commits (not this repository's): for each commit, the seed is one Go
// function the commit changed, the truth is the rest of the commit (the
// other files, and the other functions, it changed), and the pack is built
// at the commit's parent (history read with --history-rev PARENT). The
// changed functions come from go/parser on the commit's own file versions
// and `git diff -U0`, independently of the graph. Recall counts only what
// a pack shows (its items' files and names), not its omission list.
//
// Two baselines go through the same scorer in the same run: the target's
// SCIP neighbours (callers and callees by the graph's edges, each with its
// body, in path order, until the budget) and the target's own file (its
// definitions with their bodies, nearest the target first, until the
// budget). Both are priced with contextpack.Tokens, as the packs are.
//
// It needs the repository's git directory and a SCIP dump of one of its
// commits; the graph is that commit's (the cases are the commits just
// before it, so the graph is a little newer than each case: a pack can
// show a function the case's parent does not have yet, never a commit
// after the parent in the history).
//
//	LSPGRAPH_EVAL_GIT=/path/to/pebble/.git LSPGRAPH_EVAL_REV=f82e3ff74d10 \
//	  go test ./cmd/lspgraph -run TestContextHistoryEval -timeout 60m -v
//
// LSPGRAPH_EVAL_DUMP defaults to the corpus's pebble-go.scip;
// LSPGRAPH_EVAL_CASES (default 100) bounds the cases; LSPGRAPH_EVAL_OUT
// names the file the scores go to (default ranking/testdata/history_eval_pebble.txt).
func TestContextHistoryEval(t *testing.T) {
	gitDir := os.Getenv("LSPGRAPH_EVAL_GIT")
	if gitDir == "" {
		t.Skip("LSPGRAPH_EVAL_GIT is not set")
	}
	rev := cmpOr(os.Getenv("LSPGRAPH_EVAL_REV"), "f82e3ff74d10")
	dump := os.Getenv("LSPGRAPH_EVAL_DUMP")
	if dump == "" {
		p, ok := corpusDump("pebble-go.scip")
		if !ok {
			t.Skip("no pebble-go.scip in the corpus")
		}
		dump = p
	}
	maxCases := 100
	if n, err := strconv.Atoi(os.Getenv("LSPGRAPH_EVAL_CASES")); err == nil && n > 0 {
		maxCases = n
	}
	out := cmpOr(os.Getenv("LSPGRAPH_EVAL_OUT"), filepath.Join("..", "..", "ranking", "testdata", "history_eval_pebble.txt"))
	ctx := context.Background()

	// A work tree at the dump's commit, sharing the repository's objects.
	root := filepath.Join(t.TempDir(), "repo")
	if _, err := gitcmd.Run(ctx, "", "clone", "-q", "--shared", "--no-checkout", gitDir, root); err != nil {
		t.Fatal(err)
	}
	if _, err := gitcmd.Run(ctx, root, "-c", "advice.detachedHead=false", "checkout", "-q", rev, "--", "."); err != nil {
		t.Logf("checkout: %v (files the mirror lacks stay absent)", err)
	}
	cases := buildHistoryCases(t, root, rev, maxCases*3)

	start := time.Now()
	dir := filepath.Join(t.TempDir(), "store")
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scip.Import(ctx, st, f, scip.Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	defer r.Close()
	t.Logf("imported %s in %v", filepath.Base(dump), time.Since(start).Round(time.Second))
	ws, err := scope.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	a, err := scope.Analyze(ctx, ws, r)
	if err != nil {
		t.Fatal(err)
	}

	budgets := []int{2000, 4000, 8000, 16000}
	methods := []string{"pack", "pack-no-history", "pack-no-locality", "pack-no-neighbours", "pack-no-tests", "scip-neighbours", "own-file"}
	type tally struct{ files, funcs float64 }
	sum := map[string]map[int]*tally{}
	for _, m := range methods {
		sum[m] = map[int]*tally{}
		for _, b := range budgets {
			sum[m][b] = &tally{}
		}
	}
	var lines []string
	var where struct{ total, shown, cut int }
	n := 0
	for _, c := range cases {
		if n >= maxCases {
			break
		}
		seed, ok := findSeed(ctx, r, c)
		if !ok {
			continue
		}
		n++
		hist, err := history.Load(ctx, root, c.parent, history.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Where the truth goes: shown in the 8k pack, ranked but cut, or
		// never a candidate (in scope or out).
		start := a.PackageOfDocument(seed.sym.Def.Path)
		cl, err := a.For(ctx, start, scope.Spec{Closure: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := ranking.Rank(ctx, r, seed.sym, ranking.Options{Analysis: a, Scope: cl, History: hist})
		if err != nil {
			t.Fatal(err)
		}
		ranked := map[string]bool{}
		for _, cs := range [][]ranking.Candidate{res.Items, res.OutOfScope} {
			for i := range cs {
				ranked[cs[i].Location().Path] = true
			}
		}
		row := fmt.Sprintf("%s seed %s %s truth %d files %d funcs:", c.commit[:12], seed.fn.path, seed.fn.name, len(c.truthFiles(seed.fn)), len(c.truthFuncs(seed.fn)))
		for _, b := range budgets {
			for _, m := range methods {
				var shown []shownItem
				switch m {
				case "pack", "pack-no-history", "pack-no-locality", "pack-no-neighbours", "pack-no-tests":
					o := contextpack.Options{Budget: b, Format: contextpack.FormatJSON, Source: contextpack.Source{Root: root}}
					if m != "pack-no-history" {
						o.History = hist
					}
					if w, ok := strings.CutPrefix(m, "pack-no-"); ok && w != "history" {
						o.Without = []string{w}
					}
					p, err := contextpack.Build(ctx, r, a, seed.sym, o)
					if err != nil {
						t.Fatalf("%s: %v", c.commit, err)
					}
					for _, it := range p.Items() {
						shown = append(shown, shownItem{it.Path, it.Name})
					}
					if dir := os.Getenv("LSPGRAPH_EVAL_RENDER_DIR"); dir != "" && m == "pack" {
						renderFormats(t, ctx, r, a, seed.sym, o, filepath.Join(dir, fmt.Sprintf("%s-%d", c.commit[:12], b)))
					}
				case "scip-neighbours":
					shown = neighboursBaseline(ctx, t, r, root, seed.sym, b)
				case "own-file":
					shown = ownFileBaseline(ctx, t, r, root, seed.sym, b)
				}
				fr, fn := c.recall(seed.fn, shown)
				if b == 8000 && m == "pack" {
					inPack := map[string]bool{}
					for _, it := range shown {
						inPack[it.path] = true
					}
					coupled := map[string]int{}
					for i, cp := range hist.Coupled(seed.fn.path, 1000) {
						coupled[cp.Path] = i + 1
					}
					for _, f := range c.truthFiles(seed.fn) {
						where.total++
						switch {
						case inPack[f]:
							where.shown++
						case ranked[f]:
							where.cut++
						default:
							if os.Getenv("LSPGRAPH_EVAL_DEBUG") != "" {
								_, inGraph, _ := r.Document(ctx, f)
								t.Logf("missed %s (seed %s): coupling rank %d, same dir %v, in graph %v", f, seed.fn.path, coupled[f], filepath.Dir(f) == filepath.Dir(seed.fn.path), inGraph)
							}
						}
					}
				}
				sum[m][b].files += fr
				sum[m][b].funcs += fn
				if b == 8000 {
					row += fmt.Sprintf(" %s %.2f/%.2f", m, fr, fn)
				}
			}
		}
		lines = append(lines, row)
	}
	if n == 0 {
		t.Fatal("no case with a seed in the graph")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Context packs on the history of cockroachdb/pebble: %d commits before %s (newest first),\n", n, rev)
	b.WriteString("# each with one changed function as the seed and the rest of the commit as the truth, built at\n")
	b.WriteString("# the commit's parent (--history-rev PARENT) on the graph of pebble-go.scip. Recall is the mean\n")
	b.WriteString("# over cases of the share of truth files (other than the seed's) and truth functions shown.\n")
	b.WriteString("# pack-no-X turns one signal off (history; locality; neighbours: the file's definitions and the\n")
	b.WriteString("# directory's files; tests: tests of callees and paired test files) to show what it adds.\n")
	b.WriteString("# Regenerate: see TestContextHistoryEval in cmd/lspgraph/context_eval_test.go.\n\n")
	fmt.Fprintf(&b, "%-16s %8s %14s %14s\n", "method", "budget", "file recall", "func recall")
	for _, m := range methods {
		for _, bud := range budgets {
			s := sum[m][bud]
			fmt.Fprintf(&b, "%-16s %8d %14.3f %14.3f\n", m, bud, s.files/float64(n), s.funcs/float64(n))
		}
	}
	fmt.Fprintf(&b, "\n# Truth files at 8000 tokens (pack): %d in all; %.1f%% shown, %.1f%% ranked but cut for the budget, %.1f%% never candidates.\n",
		where.total, pct(where.shown, where.total), pct(where.cut, where.total), pct(where.total-where.shown-where.cut, where.total))
	b.WriteString("\n# Per case at 8000 tokens: file/function recall of each method.\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	t.Log("\n" + b.String())
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// changedFunc is a function a commit changed: its file and its name as the
// graph displays it ("DB.Get", "newIter").
type changedFunc struct{ path, name string }

type historyCase struct {
	commit, parent string
	files          []string // .go files the commit changed (kept or added)
	funcs          []changedFunc
}

func (c *historyCase) truthFiles(seed changedFunc) []string {
	var out []string
	for _, f := range c.files {
		if f != seed.path {
			out = append(out, f)
		}
	}
	return out
}

func (c *historyCase) truthFuncs(seed changedFunc) []changedFunc {
	var out []changedFunc
	for _, f := range c.funcs {
		if f != seed {
			out = append(out, f)
		}
	}
	return out
}

type shownItem struct{ path, name string }

// recall returns the share of the truth files and functions among shown.
func (c *historyCase) recall(seed changedFunc, shown []shownItem) (files, funcs float64) {
	paths := map[string]bool{}
	names := map[changedFunc]bool{}
	for _, s := range shown {
		paths[s.path] = true
		names[changedFunc{s.path, s.name}] = true
	}
	tf, tn := c.truthFiles(seed), c.truthFuncs(seed)
	hit := 0
	for _, f := range tf {
		if paths[f] {
			hit++
		}
	}
	if len(tf) > 0 {
		files = float64(hit) / float64(len(tf))
	}
	hit = 0
	for _, f := range tn {
		if names[f] {
			hit++
		}
	}
	if len(tn) > 0 {
		funcs = float64(hit) / float64(len(tn))
	}
	return files, funcs
}

// buildHistoryCases lists the non-merge commits before rev (rev included)
// that change between 2 and 30 Go files and at least one function, with
// the functions each changed (go/parser on the commit's version of each
// file, lines from `git diff -U0`).
func buildHistoryCases(t *testing.T, root, rev string, limit int) []historyCase {
	ctx := context.Background()
	log, err := gitcmd.Run(ctx, root, "log", "--no-merges", "--format=%H %P", fmt.Sprintf("--max-count=%d", limit*4), rev)
	if err != nil {
		t.Fatal(err)
	}
	var out []historyCase
	sc := bufio.NewScanner(strings.NewReader(string(log)))
	for sc.Scan() && len(out) < limit {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		c := historyCase{commit: f[0], parent: f[1]}
		diff, err := gitcmd.Run(ctx, root, "diff", "-U0", "--no-renames", "--diff-filter=AM", c.parent, c.commit, "--", "*.go")
		if err != nil {
			t.Fatal(err)
		}
		changed := changedLines(string(diff))
		if len(changed) < 2 || len(changed) > 30 {
			continue
		}
		for _, p := range sortedKeys(changed) {
			c.files = append(c.files, p)
			src, err := gitcmd.Run(ctx, root, "show", c.commit+":"+p)
			if err != nil {
				t.Fatal(err)
			}
			c.funcs = append(c.funcs, funcsTouched(p, src, changed[p])...)
		}
		if len(c.funcs) == 0 {
			continue
		}
		out = append(out, c)
	}
	return out
}

// changedLines parses `git diff -U0` into the new side's changed lines per
// file (a pure deletion marks the line it happened before).
func changedLines(diff string) map[string][]int {
	out := map[string][]int{}
	cur := ""
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			cur = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if cur == "/dev/null" {
				cur = ""
			}
		case strings.HasPrefix(l, "@@ ") && cur != "":
			// @@ -a,b +c,d @@
			f := strings.Fields(l)
			if len(f) < 3 {
				continue
			}
			nums := strings.SplitN(strings.TrimPrefix(f[2], "+"), ",", 2)
			start, _ := strconv.Atoi(nums[0])
			count := 1
			if len(nums) == 2 {
				count, _ = strconv.Atoi(nums[1])
			}
			if count == 0 {
				out[cur] = append(out[cur], max(start, 1))
			}
			for i := 0; i < count; i++ {
				out[cur] = append(out[cur], start+i)
			}
		}
	}
	return out
}

// funcsTouched returns the functions of a Go file whose lines (doc comment
// included) hold a changed line.
func funcsTouched(path string, src []byte, lines []int) []changedFunc {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out []changedFunc
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		from := fset.Position(fd.Pos()).Line
		if fd.Doc != nil {
			from = fset.Position(fd.Doc.Pos()).Line
		}
		to := fset.Position(fd.End()).Line
		for _, l := range lines {
			if l >= from && l <= to {
				out = append(out, changedFunc{path, funcName(fd)})
				break
			}
		}
	}
	return out
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}

type seedOf struct {
	fn  changedFunc
	sym graph.Symbol
}

// findSeed picks the case's first changed function (in file order) that
// the graph defines in the same file under the same name.
func findSeed(ctx context.Context, r *graph.Reader, c historyCase) (seedOf, bool) {
	for _, fn := range c.funcs {
		syms, err := r.DocumentSymbols(ctx, fn.path)
		if err != nil {
			continue
		}
		for _, s := range syms {
			if s.Def.Path == fn.path && (s.Kind == "function" || s.Kind == "method") && evalName(s) == fn.name {
				return seedOf{fn, s}, true
			}
		}
	}
	return seedOf{}, false
}

// evalName is the name a pack item carries for a symbol.
func evalName(s graph.Symbol) string {
	c := ranking.Candidate{Symbol: s}
	return c.Name()
}

// bodyOf is a definition's text (from its extent), for the baselines.
func bodyOf(root string, s graph.Symbol, texts map[string][]string) string {
	ls, ok := texts[s.Def.Path]
	if !ok {
		b, err := os.ReadFile(filepath.Join(root, s.Def.Path))
		if err == nil {
			ls = strings.Split(string(b), "\n")
		}
		texts[s.Def.Path] = ls
	}
	from, to := int(s.DefExtent.Start.Line), int(s.DefExtent.End.Line)
	if s.DefExtent.Start == s.DefExtent.End {
		from, to = int(s.Def.Range.Start.Line), int(s.Def.Range.Start.Line)
	}
	if from >= len(ls) {
		return ""
	}
	return strings.Join(ls[from:min(to+1, len(ls))], "\n") + "\n"
}

// fillBaseline takes symbols in order, each as "PATH:LINE NAME" and its
// body, while they fit the budget.
func fillBaseline(root string, syms []graph.Symbol, budget int) []shownItem {
	texts := map[string][]string{}
	used := 0
	var out []shownItem
	for _, s := range syms {
		c := contextpack.Tokens(fmt.Sprintf("%s:%d %s\n", s.Def.Path, s.Def.Range.Start.Line+1, evalName(s)) + bodyOf(root, s, texts))
		if used+c > budget {
			continue
		}
		used += c
		out = append(out, shownItem{s.Def.Path, evalName(s)})
	}
	return out
}

// neighboursBaseline: the target, then its callers and callees by the
// graph's edges, in path and line order.
func neighboursBaseline(ctx context.Context, t *testing.T, r *graph.Reader, root string, target graph.Symbol, budget int) []shownItem {
	f := graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeCalls, graph.EdgeReferences}}
	in, err := r.Incoming(ctx, target.ID, f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Outgoing(ctx, target.ID, f)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{target.ID: true}
	var syms []graph.Symbol
	for _, e := range append(in, out...) {
		id := e.From
		if id == target.ID {
			id = e.To
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		s, ok, err := r.Symbol(ctx, id)
		if err != nil || !ok || s.External || s.Def.Path == "" {
			continue
		}
		syms = append(syms, s)
	}
	sort.SliceStable(syms, func(i, j int) bool {
		if syms[i].Def.Path != syms[j].Def.Path {
			return syms[i].Def.Path < syms[j].Def.Path
		}
		return syms[i].Def.Range.Start.Line < syms[j].Def.Range.Start.Line
	})
	return fillBaseline(root, append([]graph.Symbol{target}, syms...), budget)
}

// ownFileBaseline: the target's file's functions, methods and types,
// nearest the target first.
func ownFileBaseline(ctx context.Context, t *testing.T, r *graph.Reader, root string, target graph.Symbol, budget int) []shownItem {
	all, err := r.DocumentSymbols(ctx, target.Def.Path)
	if err != nil {
		t.Fatal(err)
	}
	var syms []graph.Symbol
	for _, s := range all {
		if s.Def.Path == target.Def.Path && s.ID != target.ID && !strings.HasPrefix(s.ID, "local ") {
			switch s.Kind {
			case "function", "method", "type", "struct", "interface":
				syms = append(syms, s)
			}
		}
	}
	line := target.Def.Range.Start.Line
	dist := func(s graph.Symbol) uint32 {
		if l := s.Def.Range.Start.Line; l > line {
			return l - line
		} else {
			return line - l
		}
	}
	sort.SliceStable(syms, func(i, j int) bool { return dist(syms[i]) < dist(syms[j]) })
	return fillBaseline(root, append([]graph.Symbol{target}, syms...), budget)
}

// renderFormats writes the pack in every format to PREFIX.FORMAT with its
// estimate on the first line of PREFIX.tokens, for measuring the estimate
// against a real tokenizer.
func renderFormats(t *testing.T, ctx context.Context, r *graph.Reader, a *scope.Analysis, sym graph.Symbol, o contextpack.Options, prefix string) {
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []contextpack.Format{contextpack.FormatJSON, contextpack.FormatJSONPretty, contextpack.FormatMarkdown, contextpack.FormatText} {
		o.Format = f
		p, err := contextpack.Build(ctx, r, a, sym, o)
		if err != nil {
			continue
		}
		out := p.Render()
		if err := os.WriteFile(prefix+"."+string(f), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
