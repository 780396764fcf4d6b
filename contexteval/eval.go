package contexteval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/history"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/ranking"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/scope"
)

// The methods scored: the pack, the pack with one signal off, and the two
// baselines.
const (
	MethodPack       = "pack"
	MethodNeighbours = "scip-neighbours"
	MethodOwnFile    = "own-file"
)

// Ablations are the pack's signals that "pack-no-X" turns off: history
// (files and functions that changed together), history-functions (the
// functions alone), locality, neighbours (the file's definitions and the
// directory's files), tests (tests of callees and paired test files).
var Ablations = []string{"history", "history-functions", "locality", "neighbours", "tests"}

// Methods are every method Run scores, in report order.
func Methods() []string {
	out := []string{MethodPack}
	for _, a := range Ablations {
		out = append(out, "pack-no-"+a)
	}
	return append(out, MethodNeighbours, MethodOwnFile)
}

// Budgets are the token budgets of the recall curve.
var Budgets = []int{2000, 4000, 8000, 16000}

// Graph is a graph of one commit with its work tree and scope analysis.
type Graph struct {
	Root     string // the work tree at the graph's commit
	Store    *graph.Store
	Reader   *graph.Reader
	Analysis *scope.Analysis
	// CheckoutNote says what the checkout could not write, if anything.
	CheckoutNote string
}

// Close releases the reader and the store.
func (g *Graph) Close() {
	g.Reader.Close()
	g.Store.Close()
}

// OpenGraph checks rev of the repository at gitDir out into dir/repo
// (sharing its objects) and imports the SCIP dump into a store in
// dir/store.
func OpenGraph(ctx context.Context, gitDir, rev, dump, dir string) (*Graph, error) {
	root := filepath.Join(dir, "repo")
	if _, err := gitcmd.Run(ctx, "", "clone", "-q", "--shared", "--no-checkout", gitDir, root); err != nil {
		return nil, fmt.Errorf("contexteval: cloning %s: %w", gitDir, err)
	}
	// A mirror may lack some blobs (large test data): the checkout then
	// fails for those files and leaves them absent, which only snippets
	// notice.
	var note string
	if _, err := gitcmd.Run(ctx, root, "-c", "advice.detachedHead=false", "checkout", "-q", rev, "--", "."); err != nil {
		note = fmt.Sprintf("checking %s out: %v (files the repository lacks stay absent)", rev, err)
	}
	st, err := graph.Open(filepath.Join(dir, "store"), graph.Options{})
	if err != nil {
		return nil, err
	}
	f, err := os.Open(dump)
	if err != nil {
		st.Close()
		return nil, err
	}
	defer f.Close()
	if _, err := scip.Import(ctx, st, f, scip.Options{Root: root}); err != nil {
		st.Close()
		return nil, fmt.Errorf("contexteval: importing %s: %w", dump, err)
	}
	r, err := st.Reader()
	if err != nil {
		st.Close()
		return nil, err
	}
	ws, err := scope.Discover(root)
	if err != nil {
		r.Close()
		st.Close()
		return nil, err
	}
	a, err := scope.Analyze(ctx, ws, r)
	if err != nil {
		r.Close()
		st.Close()
		return nil, err
	}
	return &Graph{Root: root, Store: st, Reader: r, Analysis: a, CheckoutNote: note}, nil
}

// Result is one case's scores.
type Result struct {
	Commit     string
	Seed       Changed
	TruthFiles int
	TruthFuncs int
	// Recall is per method and budget: file and function recall.
	Recall map[string]map[int][2]float64
	// Where the truth files went in the 8k pack: shown, ranked but cut
	// for the budget, never candidates.
	Shown, Cut, Never int
}

// Options tune Run.
type Options struct {
	Budgets []int    // nil: Budgets
	Methods []string // nil: Methods()
	// Weights replace the ranking's (nil: its defaults).
	Weights *ranking.Weights
	// Limit stops after this many cases scored (0: all).
	Limit int
	// Progress, when set, hears of each case scored.
	Progress func(r Result)
}

// Eval scores cases on one graph, keeping the history read at each
// case's parent.
type Eval struct {
	G    *Graph
	logs map[string]*history.Log
}

// history returns the log of the commits reachable from rev.
func (e *Eval) history(ctx context.Context, rev string) (*history.Log, error) {
	if l, ok := e.logs[rev]; ok {
		return l, nil
	}
	l, err := history.Load(ctx, e.G.Root, rev, history.Options{})
	if err != nil {
		return nil, err
	}
	if e.logs == nil {
		e.logs = map[string]*history.Log{}
	}
	e.logs[rev] = l
	return l, nil
}

// Run scores every case whose seed the graph defines: the first changed
// function, in file order, defined in the same file under the same name.
func (e *Eval) Run(ctx context.Context, cases []Case, o Options) ([]Result, error) {
	g := e.G
	if o.Budgets == nil {
		o.Budgets = Budgets
	}
	if o.Methods == nil {
		o.Methods = Methods()
	}
	var out []Result
	for _, c := range cases {
		if o.Limit > 0 && len(out) >= o.Limit {
			break
		}
		seed, sym, ok := findSeed(ctx, g.Reader, c)
		if !ok {
			continue
		}
		hist, err := e.history(ctx, c.Parent)
		if err != nil {
			return nil, err
		}
		res := Result{Commit: c.Commit, Seed: seed, TruthFiles: len(c.TruthFiles(seed)), TruthFuncs: len(c.TruthFuncs(seed)), Recall: map[string]map[int][2]float64{}}
		for _, m := range o.Methods {
			res.Recall[m] = map[int][2]float64{}
			for _, b := range o.Budgets {
				shown, err := show(ctx, g, sym, hist, m, b, o.Weights)
				if err != nil {
					return nil, fmt.Errorf("contexteval: %s at %s: %w", m, c.Commit, err)
				}
				fr, fn := c.Recall(seed, shown)
				res.Recall[m][b] = [2]float64{fr, fn}
				if m == MethodPack && b == 8000 {
					if err := where(ctx, g, sym, hist, c, seed, shown, &res); err != nil {
						return nil, err
					}
				}
			}
		}
		out = append(out, res)
		if o.Progress != nil {
			o.Progress(res)
		}
	}
	return out, nil
}

// show returns what one method shows for the seed within a budget.
func show(ctx context.Context, g *Graph, sym graph.Symbol, hist *history.Log, m string, budget int, w *ranking.Weights) ([]Changed, error) {
	switch m {
	case MethodNeighbours:
		return neighboursBaseline(ctx, g, sym, budget)
	case MethodOwnFile:
		return ownFileBaseline(ctx, g, sym, budget)
	}
	o := contextpack.Options{Budget: budget, Format: contextpack.FormatJSON, Source: contextpack.Source{Root: g.Root}, History: hist, Weights: w}
	if off, ok := strings.CutPrefix(m, "pack-no-"); ok {
		if off == "history" {
			o.History = nil
		} else {
			o.Without = []string{off}
		}
	} else if m != MethodPack {
		return nil, fmt.Errorf("unknown method %q", m)
	}
	p, err := contextpack.Build(ctx, g.Reader, g.Analysis, sym, o)
	if err != nil {
		return nil, err
	}
	var shown []Changed
	for _, it := range p.Items() {
		shown = append(shown, Changed{it.Path, it.Name})
	}
	return shown, nil
}

// where sorts the truth files into shown, ranked but cut, and never a
// candidate (in scope or out).
func where(ctx context.Context, g *Graph, sym graph.Symbol, hist *history.Log, c Case, seed Changed, shown []Changed, res *Result) error {
	cl, err := g.Analysis.For(ctx, g.Analysis.PackageOfDocument(sym.Def.Path), scope.Spec{Closure: true})
	if err != nil {
		return err
	}
	rk, err := ranking.Rank(ctx, g.Reader, sym, ranking.Options{Analysis: g.Analysis, Scope: cl, History: hist})
	if err != nil {
		return err
	}
	ranked := map[string]bool{}
	for _, cs := range [][]ranking.Candidate{rk.Items, rk.OutOfScope} {
		for i := range cs {
			ranked[cs[i].Location().Path] = true
		}
	}
	inPack := map[string]bool{}
	for _, s := range shown {
		inPack[s.Path] = true
	}
	for _, f := range c.TruthFiles(seed) {
		switch {
		case inPack[f]:
			res.Shown++
		case ranked[f]:
			res.Cut++
		default:
			res.Never++
		}
	}
	return nil
}

// findSeed picks the case's first changed function (in file order) that
// the graph defines in the same file under the same name.
func findSeed(ctx context.Context, r *graph.Reader, c Case) (Changed, graph.Symbol, bool) {
	for _, fn := range c.Funcs {
		syms, err := r.DocumentSymbols(ctx, fn.Path)
		if err != nil {
			continue
		}
		for _, s := range syms {
			callable := s.Kind == "function" || s.Kind == "method" || s.Kind == "constructor" || (s.Kind == "" && strings.HasSuffix(s.ID, ")."))
			if s.Def.Path == fn.Path && callable && itemName(s) == fn.Name {
				return fn, s, true
			}
		}
	}
	return Changed{}, graph.Symbol{}, false
}

// itemName is the name a pack item carries for a symbol.
func itemName(s graph.Symbol) string {
	c := ranking.Candidate{Symbol: s}
	return c.Name()
}

// Summary is the mean recall of each method at each budget over results.
// File recall is the mean over the cases with truth files besides the
// seed's, function recall over the cases with truth functions besides the
// seed: the recall of an empty truth is undefined, not zero.
type Summary struct {
	Cases int
	// FileCases and FuncCases are how many cases each mean is over.
	FileCases, FuncCases int
	Recall               map[string]map[int][2]float64
}

// Summarize averages results.
func Summarize(rs []Result) Summary {
	s := Summary{Cases: len(rs), Recall: map[string]map[int][2]float64{}}
	for _, r := range rs {
		if r.TruthFiles > 0 {
			s.FileCases++
		}
		if r.TruthFuncs > 0 {
			s.FuncCases++
		}
	}
	for _, r := range rs {
		for m, bs := range r.Recall {
			if s.Recall[m] == nil {
				s.Recall[m] = map[int][2]float64{}
			}
			for b, v := range bs {
				cur := s.Recall[m][b]
				if r.TruthFiles > 0 {
					cur[0] += v[0] / float64(s.FileCases)
				}
				if r.TruthFuncs > 0 {
					cur[1] += v[1] / float64(s.FuncCases)
				}
				s.Recall[m][b] = cur
			}
		}
	}
	return s
}

// Table writes the summary's rows: method, budget, file and function
// recall, methods in order, budgets ascending.
func (s Summary) Table(methods []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %d cases: file recall over the %d with truth files, function recall over the %d with truth functions\n", s.Cases, s.FileCases, s.FuncCases)
	fmt.Fprintf(&b, "%-26s %8s %12s %12s\n", "method", "budget", "file recall", "func recall")
	for _, m := range methods {
		bs := s.Recall[m]
		if bs == nil {
			continue
		}
		var budgets []int
		for k := range bs {
			budgets = append(budgets, k)
		}
		sort.Ints(budgets)
		for _, bud := range budgets {
			fmt.Fprintf(&b, "%-26s %8d %12.3f %12.3f\n", m, bud, bs[bud][0], bs[bud][1])
		}
	}
	return b.String()
}

// Lines writes one line per case: its seed, truth sizes and each method's
// file/function recall at budget.
func Lines(rs []Result, methods []string, budget int) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s seed %s %s truth %d files %d funcs:", r.Commit[:12], r.Seed.Path, r.Seed.Name, r.TruthFiles, r.TruthFuncs)
		for _, m := range methods {
			v := r.Recall[m][budget]
			fmt.Fprintf(&b, " %s %.2f/%.2f", m, v[0], v[1])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Where writes where the truth files went in the 8k packs.
func Where(rs []Result) string {
	var shown, cut, never int
	for _, r := range rs {
		shown, cut, never = shown+r.Shown, cut+r.Cut, never+r.Never
	}
	total := max(shown+cut+never, 1)
	pct := func(n int) float64 { return 100 * float64(n) / float64(total) }
	return fmt.Sprintf("Truth files at 8000 tokens (pack): %d in all; %.1f%% shown, %.1f%% ranked but cut for the budget, %.1f%% never candidates.\n",
		shown+cut+never, pct(shown), pct(cut), pct(never))
}
