package search

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/terms"
)

// Scope limits which documents a search may return.
type Scope string

const (
	// ScopeRepo searches every document.
	ScopeRepo Scope = "repo"
	// ScopeClosure searches the package of Options.From and the packages
	// it imports, directly or not.
	ScopeClosure Scope = "closure"
)

// ParseScope reads a scope name; "" is ScopeRepo.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case "", ScopeRepo:
		return ScopeRepo, nil
	case ScopeClosure:
		return ScopeClosure, nil
	}
	return "", fmt.Errorf("search: unknown scope %q (want repo or closure)", s)
}

// Weights are the BM25F weights of each field.
type Weights map[graph.TermField]float64

// FieldWeights favour names and paths over the words of code.
var FieldWeights = Weights{graph.TermName: 4, graph.TermPath: 3, graph.TermDoc: 1.5, graph.TermString: 1.5, graph.TermCode: 1}

// FlatWeights count every word alike: plain BM25 over whole files.
var FlatWeights = Weights{graph.TermName: 1, graph.TermPath: 1, graph.TermDoc: 1, graph.TermString: 1, graph.TermCode: 1}

// Options configure a search.
type Options struct {
	Limit int    // hits returned; 10 when 0
	Scope Scope  // "" is ScopeRepo
	From  string // the current document, for proximity and the closure
	// Text is BM25F's parameters for every document; when nil, each
	// document's are its language's (TextFor).
	Text *Text
	// TextOnly ranks by BM25 alone, without the graph's signals.
	TextOnly bool
	// Signals are the weights of the signals fused with the text's rank;
	// DefaultSignals when nil. A signal weighted 0 is not computed.
	Signals SignalWeights
	// Fusion sums the signals; DefaultFusion when "".
	Fusion Fusion
	// Cache keeps what searches of the same store read again; nil reads
	// everything afresh.
	Cache *Cache
}

// BM25's saturation and the fusion constant.
const (
	k1 = 1.2
	// rrfK damps the fusion: a signal's contribution is weight/(rrfK+rank).
	rrfK = 60
	// candidates is how many documents, best by BM25, the graph's signals
	// re-rank.
	candidates = 100
)

// Match is a query word a hit contains, with its count per field.
type Match struct {
	Word   string         `json:"word"`
	Fields map[string]int `json:"fields"`
}

// Signal is one ranking signal of a hit: its value and the hit's rank by it
// among the candidates (1 is best).
type Signal struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Rank  int     `json:"rank"`
}

// Hit is a document found, and why it ranked.
type Hit struct {
	Path    string   `json:"path"`
	Layer   string   `json:"layer"`
	Score   float64  `json:"score"`
	BM25    float64  `json:"bm25"`
	Matches []Match  `json:"matches"`
	Signals []Signal `json:"signals,omitempty"`
	Test    bool     `json:"test,omitempty"`
	// Neighbours are the candidates, best by BM25 first, whose documents
	// reference this one's definitions or define what it references
	// (three at most): the evidence of the neighbours signal.
	Neighbours []string `json:"neighbours,omitempty"`
	// Symbols are the document's definitions whose names hold the most
	// query words (three at most): where to start reading.
	Symbols []SymbolMatch `json:"symbols,omitempty"`
}

// SymbolMatch is a definition of a hit whose name holds query words.
type SymbolMatch struct {
	Name  string `json:"name"`
	Kind  string `json:"kind,omitempty"`
	ID    string `json:"id"`
	Line  int    `json:"line"` // 1-based line of its definition
	Words int    `json:"words"`
	score float64
}

// Result is a search's answer.
type Result struct {
	Query      string   `json:"query"`
	Words      []string `json:"words"`
	Scope      Scope    `json:"scope"`
	From       string   `json:"from,omitempty"`
	Documents  int      `json:"documents"` // documents with terms searched
	Candidates int      `json:"candidates"`
	Hits       []Hit    `json:"hits"`
}

// ErrNoTerms: the graph holds no term index (a store written before it
// existed, or empty).
var ErrNoTerms = errors.New("search: the graph has no term index")

// candidate is a document being ranked.
type candidate struct {
	hit     Hit
	pkgSym  string
	central float64
	near    float64
	// symbol, neighbours and siblings are the query's evidence in the
	// document's definitions, its reference neighbours and its directory.
	symbol     float64
	neighbours float64
	siblings   float64
	symbols    []SymbolMatch
	named      bool // symbols were read
	// postings are the document's postings of the query's words, in the
	// query's order: its Matches, built for the hits returned only.
	postings []wordPosting
}

// wordPosting is a document's counts per field of one query word.
type wordPosting struct {
	word   string
	counts [len(graph.Posting{}.Counts)]int
}

// matches returns a candidate's words with their count per field.
func (c *candidate) matches() []Match {
	out := make([]Match, len(c.postings))
	for i, wp := range c.postings {
		out[i] = Match{Word: wp.word, Fields: map[string]int{}}
		for _, f := range graph.TermFields {
			if n := wp.counts[f-1]; n > 0 {
				out[i].Fields[f.String()] = n
			}
		}
	}
	return out
}

// Search ranks the documents of r's snapshot for query.
func Search(ctx context.Context, r *graph.Reader, query string, o Options) (Result, error) {
	res := Result{Query: query, Words: terms.Query(query), Scope: cmp.Or(o.Scope, ScopeRepo), From: o.From}
	if len(res.Words) == 0 {
		return res, fmt.Errorf("search: the query %q has no searchable words", query)
	}
	if o.Scope == ScopeClosure && o.From == "" {
		return res, errors.New("search: --scope closure needs the current file (--from)")
	}
	limit := cmp.Or(o.Limit, 10)
	v := o.Cache.view(ctx, r)
	st, err := v.termStats(ctx)
	if err != nil {
		return res, err
	}
	if st.Documents == 0 {
		return res, fmt.Errorf("%w: run `lspgraph index` (or `lspgraph scip import`) again to build it", ErrNoTerms)
	}
	res.Documents = st.Documents
	avgdl := float64(st.Length) / float64(st.Documents)
	// Every document holding a query word is scored; only the best become
	// candidates (a common word is in most of a repository's documents).
	var docs scoredDocs
	idf := map[string]float64{}
	var found []wordPostings // in the query's order
	for _, w := range res.Words {
		ps, err := r.Postings(ctx, w)
		if err != nil {
			return res, err
		}
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf[w] = math.Log(1 + (float64(st.Documents)-df+0.5)/(df+0.5))
		found = append(found, wordPostings{w, ps})
		for i := range ps {
			p := &ps[i]
			d := docs.of(p, o.Text)
			var tf float64
			for _, f := range graph.TermFields {
				if c := p.Count(f); c > 0 {
					tf += d.text.Weights[f] * float64(c)
				}
			}
			norm := tf / (1 - d.text.B + d.text.B*float64(p.Length)/avgdl)
			d.bm25 += idf[w] * norm * (k1 + 1) / (norm + k1)
		}
	}
	g := graphSignals{v: v}
	kept := docs.list
	if o.Scope == ScopeClosure {
		if kept, err = g.inClosure(ctx, kept, o.From); err != nil {
			return res, err
		}
	}
	best := bestBy(kept, candidates, func(a, b *scoredDoc) int {
		return cmp.Or(cmp.Compare(b.bm25, a.bm25), strings.Compare(a.path, b.path))
	})
	cands := make([]*candidate, len(best))
	byPath := make(map[string]*candidate, len(best))
	for i, d := range best {
		cands[i] = &candidate{hit: Hit{Path: d.path, Layer: d.layer.String(), BM25: d.bm25}}
		byPath[d.path] = cands[i]
	}
	w := o.Signals
	if w == nil {
		w = DefaultSignals
	}
	var siblings map[string]float64
	if !o.TextOnly && w[SignalPackage] > 0 {
		siblings = siblingScores(docs.list, cands) // over every document, before the cut
	}
	res.Candidates = len(cands)
	for i, c := range cands {
		c.hit.Signals = []Signal{{Name: SignalText, Value: round(c.hit.BM25), Rank: i + 1}}
	}
	if o.TextOnly {
		w = SignalWeights{SignalText: 1}
	} else {
		q := queryWords{words: res.Words, idf: idf}
		if err := g.fuse(ctx, cands, o.From, q, w, siblings); err != nil {
			return res, err
		}
	}
	hits := make([]Hit, len(cands))
	for i, c := range cands {
		hits[i] = c.hit
	}
	FuseBy(hits, w, cmp.Or(o.Fusion, DefaultFusion))
	hits = hits[:min(limit, len(hits))]
	matchPostings(found, hits, byPath)
	for i := range hits {
		h := hits[i]
		c := byPath[h.Path]
		if !c.named {
			if c.symbols, err = matchingSymbols(ctx, v, h.Path, res.Words, idf); err != nil {
				return res, err
			}
		}
		sortSymbols(c.symbols)
		h.Symbols = c.symbols[:min(3, len(c.symbols))]
		h.Matches = c.matches()
		h.Score = round(h.Score * 1000)
		h.BM25 = round(h.BM25)
		res.Hits = append(res.Hits, h)
	}
	return res, nil
}

func round(x float64) float64 { return math.Round(x*1000) / 1000 }

// scoredDoc is a document a query word is in, scored so far.
type scoredDoc struct {
	path  string
	layer graph.Layer
	text  Text // its fields' weights
	bm25  float64
}

// scoredDocs are the documents scored, in one slice, by path.
type scoredDocs struct {
	list  []*scoredDoc
	slab  []scoredDoc
	index map[string]*scoredDoc
}

// of returns p's document, made when new with its text weighting
// (TextFor its path, unless text is set).
func (ds *scoredDocs) of(p *graph.Posting, text *Text) *scoredDoc {
	if d := ds.index[p.Path]; d != nil {
		return d
	}
	if ds.index == nil {
		ds.index = map[string]*scoredDoc{}
	}
	if len(ds.slab) == cap(ds.slab) {
		ds.slab = make([]scoredDoc, 0, max(64, 2*cap(ds.slab)))
	}
	ds.slab = append(ds.slab, scoredDoc{path: p.Path, layer: p.Layer})
	d := &ds.slab[len(ds.slab)-1]
	if text != nil {
		d.text = *text
	} else {
		d.text = TextFor(p.Path)
	}
	ds.index[p.Path] = d
	ds.list = append(ds.list, d)
	return d
}

// wordPostings are a query word's postings.
type wordPostings struct {
	word string
	ps   []graph.Posting
}

// matchPostings gives each hit its postings of the query's words (in the
// query's order), from which its Matches are made.
func matchPostings(found []wordPostings, hits []Hit, byPath map[string]*candidate) {
	want := make(map[string]*candidate, len(hits))
	for _, h := range hits {
		want[h.Path] = byPath[h.Path]
	}
	for _, wp := range found {
		for i := range wp.ps {
			p := &wp.ps[i]
			c := want[p.Path]
			if c == nil {
				continue
			}
			w := wordPosting{word: wp.word}
			for _, f := range graph.TermFields {
				w.counts[f-1] = p.Count(f)
			}
			c.postings = append(c.postings, w)
		}
	}
}

// bestBy returns the k first of items by cmp, in order. It keeps them in
// a heap of k as it goes rather than sorting every item: a common word's
// documents are most of the repository's, and on four GOROOT copies
// sorting them was most of a search's own time.
func bestBy[T any](items []T, k int, cmp func(a, b T) int) []T {
	if len(items) <= k {
		out := slices.Clone(items)
		slices.SortFunc(out, cmp)
		return out
	}
	// best is a heap of the k first so far, the last of them on top.
	best := slices.Clone(items[:k])
	after := func(i, j int) bool { return cmp(best[i], best[j]) > 0 }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= k {
				return
			}
			if r := l + 1; r < k && after(r, l) {
				l = r
			}
			if !after(l, i) {
				return
			}
			best[i], best[l] = best[l], best[i]
			i = l
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, it := range items[k:] {
		if cmp(it, best[0]) < 0 {
			best[0] = it
			down(0)
		}
	}
	slices.SortFunc(best, cmp)
	return best
}

// graphSignals reads the graph's signals of candidates through a cache.
type graphSignals struct {
	v *view
}

// packageOf returns the symbol of the package a document belongs to, or
// "" when it defines none.
func (g *graphSignals) packageOf(ctx context.Context, p string) (string, error) {
	d, err := g.v.pkg(ctx, p)
	return d.sym, err
}

// inClosure keeps the documents whose package is from's or one it
// imports, directly or not.
func (g *graphSignals) inClosure(ctx context.Context, docs []*scoredDoc, from string) ([]*scoredDoc, error) {
	start, err := g.packageOf(ctx, from)
	if err != nil {
		return nil, err
	}
	if start == "" {
		return nil, fmt.Errorf("search: %s belongs to no package the graph knows, so it has no closure", from)
	}
	seen := map[string]bool{start: true}
	queue := []string{start}
	for len(queue) > 0 {
		es, err := g.v.r.Outgoing(ctx, queue[0], graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeImports}})
		if err != nil {
			return nil, fmt.Errorf("search: reading the imports of %s: %w", queue[0], err)
		}
		queue = queue[1:]
		for _, e := range es {
			if !seen[e.To] {
				seen[e.To] = true
				queue = append(queue, e.To)
			}
		}
	}
	var out []*scoredDoc
	for _, d := range docs {
		s, err := g.packageOf(ctx, d.path)
		if err != nil {
			return nil, err
		}
		if seen[s] {
			out = append(out, d)
		}
	}
	return out, nil
}

// fuse computes the signals weighted above 0 for the candidates, best by
// BM25 first: the query's evidence in their definitions (symbol), in the
// documents their references link them to (neighbours) and in their
// directories (package), then the query-blind centrality, proximity to
// from (when given) and non-test (unless the query's words speak of
// tests).
func (g *graphSignals) fuse(ctx context.Context, cands []*candidate, from string, q queryWords, w SignalWeights, siblings map[string]float64) error {
	if w[SignalSymbol] > 0 {
		if err := symbolEvidence(ctx, g.v, cands[:min(evidenceDepth, len(cands))], q); err != nil {
			return err
		}
		addSignal(cands, SignalSymbol, func(c *candidate) float64 { return c.symbol })
	}
	if w[SignalNeighbours] > 0 {
		if err := neighbourEvidence(ctx, g.v, cands[:min(evidenceDepth, len(cands))]); err != nil {
			return err
		}
		addSignal(cands, SignalNeighbours, func(c *candidate) float64 { return c.neighbours })
	}
	if w[SignalPackage] > 0 {
		for _, c := range cands {
			c.siblings = siblings[c.hit.Path]
		}
		addSignal(cands, SignalPackage, func(c *candidate) float64 { return c.siblings })
	}
	if w[SignalDependents] <= 0 && w[SignalProximity] <= 0 && w[SignalNonTest] <= 0 {
		return nil
	}
	fromPkg := ""
	if from != "" {
		var err error
		if fromPkg, err = g.packageOf(ctx, from); err != nil {
			return err
		}
	}
	for _, c := range cands {
		d, err := g.v.pkg(ctx, c.hit.Path)
		if err != nil {
			return err
		}
		c.pkgSym = d.sym
		if w[SignalDependents] > 0 {
			if c.central, err = g.v.dependents(ctx, d.sym); err != nil {
				return err
			}
		}
		if from != "" {
			c.near = proximity(from, c.hit.Path, fromPkg != "" && d.sym == fromPkg)
		}
		c.hit.Test = d.test
	}
	if w[SignalDependents] > 0 {
		addSignal(cands, SignalDependents, func(c *candidate) float64 { return c.central })
	}
	if from != "" && w[SignalProximity] > 0 {
		addSignal(cands, SignalProximity, func(c *candidate) float64 { return c.near })
	}
	if slices.Contains(q.words, "test") || w[SignalNonTest] <= 0 {
		return nil // the question is about tests: they are not pushed down
	}
	addSignal(cands, SignalNonTest, func(c *candidate) float64 {
		if c.hit.Test {
			return 0
		}
		return 1
	})
	return nil
}

// proximity scores how near p is to from: 3 the same document, 2 the same
// package, 1 the same directory tree (parent or child), else 0.
func proximity(from, p string, samePkg bool) float64 {
	switch {
	case from == p:
		return 3
	case samePkg || path.Dir(from) == path.Dir(p):
		return 2
	case strings.HasPrefix(path.Dir(p), path.Dir(path.Dir(from))+"/"):
		return 1
	}
	return 0
}

// addSignal ranks the candidates by value (higher first; equal values
// share a rank) and records each one's rank among those with a value above
// 0. A signal equal for every candidate says nothing and is left out.
func addSignal(cands []*candidate, name string, value func(*candidate) float64) {
	if len(cands) == 0 {
		return
	}
	vals := make([]float64, len(cands))
	for i, c := range cands {
		vals[i] = value(c)
	}
	sorted := slices.Clone(vals)
	slices.SortFunc(sorted, func(a, b float64) int { return cmp.Compare(b, a) })
	if sorted[0] == sorted[len(sorted)-1] {
		return
	}
	for i, c := range cands {
		if vals[i] <= 0 && name != SignalNonTest {
			continue
		}
		rank, _ := slices.BinarySearchFunc(sorted, vals[i], func(a, t float64) int { return cmp.Compare(t, a) })
		c.hit.Signals = append(c.hit.Signals, Signal{Name: name, Value: round(vals[i]), Rank: rank + 1})
	}
}

// matchingSymbols returns the definitions of a document whose names hold
// query words, in definition order; score weighs each by the idf of its
// words and the share of its name they cover.
func matchingSymbols(ctx context.Context, v *view, p string, words []string, idf map[string]float64) ([]SymbolMatch, error) {
	names, err := v.symbols(ctx, p)
	if err != nil {
		return nil, err
	}
	// Only the definitions holding a query word can match: those, in
	// definition order.
	var holding []uint32
	for _, w := range words {
		if i := names.word(w); i >= 0 {
			holding = append(holding, names.holdersOf(i)...)
		}
	}
	slices.Sort(holding)
	var out []SymbolMatch
	for _, i := range slices.Compact(holding) {
		if !holdsPrefix(lowerASCII([]byte(names.name(int(i)))), words) {
			continue
		}
		n, sum := 0, 0.0
		ws := names.wordsOf(int(i))
		for _, wi := range ws {
			w := names.words[wi].of(names.wordText)
			if slices.Contains(words, w) {
				n++
				sum += idf[w]
			}
		}
		m := names.match(int(i))
		m.Words, m.score = n, sum*float64(n)/float64(len(ws))
		out = append(out, m)
	}
	return out, nil
}

// sortSymbols puts the definitions holding the most query words first,
// functions, methods and types before other kinds, then in position
// order.
func sortSymbols(ms []SymbolMatch) {
	slices.SortFunc(ms, func(a, b SymbolMatch) int {
		return cmp.Or(cmp.Compare(b.Words, a.Words), cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)), cmp.Compare(a.Line, b.Line))
	})
}

// kindOrder puts the kinds a reader starts from first.
func kindOrder(k string) int {
	switch k {
	case "function", "method":
		return 0
	case "type", "struct", "interface", "class":
		return 1
	}
	return 2
}

// holdsPrefix reports whether a lower-case name might hold one of the
// words: whether it contains the first four letters of one (a stemmed
// word keeps them).
func holdsPrefix(low []byte, words []string) bool {
	for _, w := range words {
		if bytes.Contains(low, []byte(w[:min(len(w), 4)])) {
			return true
		}
	}
	return false
}

// lowerASCII lower-cases name as strings.ToLower does, copying it only
// when it holds an upper-case letter or a non-ASCII byte.
func lowerASCII(name []byte) []byte {
	for _, c := range name {
		if c >= utf8.RuneSelf {
			return []byte(strings.ToLower(string(name)))
		}
	}
	if !bytes.ContainsFunc(name, func(r rune) bool { return 'A' <= r && r <= 'Z' }) {
		return name
	}
	out := make([]byte, len(name))
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
