package calibrate

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/syntax"
)

// Options says what to measure.
type Options struct {
	// Root is the source tree the dump was built from (at its commit).
	Root string
	// Dump is the SCIP file.
	Dump string
	// Threshold is the confidence at or above which an edge counts for
	// the callers sample.
	Threshold float64
	// Targets is the number of functions and of methods sampled for the
	// callers table (each).
	Targets int
	// Seed makes the sample reproducible.
	Seed uint64
}

// Rule is one row of the calibration table.
type Rule struct {
	Language string `json:"language"`
	Reason   string `json:"reason"`
	// Confidence is the rule's confidence in package syntax now, in this
	// language.
	Confidence float64 `json:"confidence"`
	// Edges are the rule's call edges whose two ends both match a
	// precise definition; Correct of them are in the precise index.
	Edges     int     `json:"edges"`
	Correct   int     `json:"correct"`
	Precision float64 `json:"precision"`
	// Recall is the share of the precise calls this rule's edges find.
	Recall float64 `json:"recall"`
}

// Point is the precision and recall of the call edges at or above one
// confidence.
type Point struct {
	Threshold float64 `json:"threshold"`
	Edges     int     `json:"edges"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
}

// Callers is the depth-1 callers of a sample of targets of one kind.
type Callers struct {
	Kind    string `json:"kind"` // "function" or "method"
	Targets int    `json:"targets"`
	// Truth is the callers the precise index lists; Found of them the
	// syntax graph lists too at the threshold, among Listed callers it lists.
	Truth     int     `json:"truth"`
	Listed    int     `json:"listed"`
	Found     int     `json:"found"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
}

// Report is one corpus's calibration.
type Report struct {
	Dump       string `json:"dump"`
	Tool       string `json:"tool"`
	Documents  int    `json:"documents"`
	Matched    int    `json:"matched_symbols"` // syntax definitions matched to a precise one
	Unmatched  int    `json:"unmatched_symbols"`
	TruthCalls int    `json:"truth_calls"`
	// UnmatchedEdges are syntax call edges with an end that matches no
	// precise definition (left out of the table).
	UnmatchedEdges int `json:"unmatched_edges"`
	// UnjudgedEdges are syntax call edges at sites where the precise
	// index resolved nothing (left out of the table).
	UnjudgedEdges int       `json:"unjudged_edges"`
	Rules         []Rule    `json:"rules"`
	Curve         []Point   `json:"curve"`
	Threshold     float64   `json:"threshold"`
	Callers       []Callers `json:"callers"`
}

// defKey is where a definition's name starts.
type defKey struct {
	path string
	pos  textpos.Position
}

type pair struct{ from, to string }

// Run measures the syntax graph of opts.Root against opts.Dump.
func Run(ctx context.Context, opts Options) (Report, error) {
	rep := Report{Dump: opts.Dump, Threshold: opts.Threshold}
	precise, err := loadPrecise(ctx, opts)
	if err != nil {
		return rep, err
	}
	rep.Tool, rep.Documents = precise.tool, precise.documents

	var mu sync.Mutex
	var docs []graph.DocumentFacts
	if _, err := syntax.Build(ctx, syntax.IndexOptions{Root: opts.Root}, func(_ context.Context, df graph.DocumentFacts) error {
		mu.Lock()
		docs = append(docs, df)
		mu.Unlock()
		return nil
	}); err != nil {
		return rep, fmt.Errorf("calibrate: indexing %s with syntax: %w", opts.Root, err)
	}

	// Syntax symbol → precise symbol, by the definition's position.
	match := map[string]string{}
	for _, df := range docs {
		for _, s := range df.Symbols {
			if s.Kind == "package" || s.Kind == "module" {
				continue
			}
			if p, ok := precise.defs[defKey{s.Def.Path, s.Def.Range.Start}]; ok {
				match[s.ID] = p
				rep.Matched++
			} else {
				rep.Unmatched++
			}
		}
	}
	// The truth: precise calls between matched definitions.
	matched := map[string]bool{}
	for _, p := range match {
		matched[p] = true
	}
	truth := map[pair]bool{}
	for pr := range precise.calls {
		if matched[pr.from] && matched[pr.to] {
			truth[pr] = true
		}
	}
	rep.TruthCalls = len(truth)

	// An edge is judged where the precise index resolved a use at one of
	// its sites to a global symbol: where it resolved none (an import it
	// could not follow), it has no say. Edges without sites (ambiguous guesses record no
	// occurrence) are always judged.
	sites := map[pair][]defKey{}
	for _, df := range docs {
		for _, o := range df.Occurrences {
			if o.Roles&graph.RoleDefinition == 0 && o.Enclosing != "" {
				k := pair{o.Enclosing, o.Symbol}
				sites[k] = append(sites[k], defKey{o.Path, o.Range.Start})
			}
		}
	}
	judged := func(e graph.Edge) bool {
		ss := sites[pair{e.From, e.To}]
		if len(ss) == 0 {
			return true
		}
		return slices.ContainsFunc(ss, func(k defKey) bool { return len(precise.occurs[k]) > 0 })
	}
	// An edge is right when the precise index resolves one of its sites
	// to its target (so that where each side draws the enclosing
	// definition, nested functions for one, does not matter), or, without
	// sites, when the precise index has the same edge.
	correct := func(e graph.Edge, pr pair) bool {
		ss := sites[pair{e.From, e.To}]
		if len(ss) == 0 {
			return precise.refs[pr]
		}
		return slices.ContainsFunc(ss, func(k defKey) bool { return slices.Contains(precise.occurs[k], pr.to) })
	}

	// Each syntax call edge, mapped; one pair keeps its strongest edge.
	type ruleKey struct{ lang, reason string }
	type mapped struct {
		conf  float64
		right bool
	}
	best := map[pair]mapped{}
	perRule := map[ruleKey]map[pair]bool{} // → right
	for _, df := range docs {
		for _, e := range df.Edges {
			if e.Kind != graph.EdgeCalls {
				continue
			}
			from, ok1 := match[e.From]
			to, ok2 := match[e.To]
			if !ok1 || !ok2 {
				rep.UnmatchedEdges++
				continue
			}
			if !judged(e) {
				rep.UnjudgedEdges++
				continue
			}
			pr := pair{from, to}
			if from == to {
				continue // recursion: a precise index keeps no edge from a symbol to itself
			}
			right := correct(e, pr)
			k := ruleKey{df.Document.Language, e.Reason}
			if perRule[k] == nil {
				perRule[k] = map[pair]bool{}
			}
			perRule[k][pr] = perRule[k][pr] || right
			if b, ok := best[pr]; !ok || e.Confidence > b.conf {
				best[pr] = mapped{e.Confidence, right}
			}
		}
	}
	for k, prs := range perRule {
		r := Rule{Language: k.lang, Reason: k.reason, Confidence: syntax.RuleConfidence(k.lang, k.reason), Edges: len(prs)}
		for _, right := range prs {
			if right {
				r.Correct++
			}
		}
		found := 0
		for pr := range prs {
			if truth[pr] {
				found++
			}
		}
		r.Precision = ratio(r.Correct, r.Edges)
		r.Recall = ratio(found, len(truth))
		rep.Rules = append(rep.Rules, r)
	}
	slices.SortFunc(rep.Rules, func(a, b Rule) int {
		return cmp.Or(cmp.Compare(a.Language, b.Language), cmp.Compare(b.Confidence, a.Confidence), cmp.Compare(a.Reason, b.Reason))
	})
	for _, t := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99} {
		pt := Point{Threshold: t}
		correct, found := 0, 0
		for pr, m := range best {
			if m.conf < t {
				continue
			}
			pt.Edges++
			if m.right {
				correct++
			}
			if truth[pr] {
				found++
			}
		}
		pt.Precision, pt.Recall = ratio(correct, pt.Edges), ratio(found, len(truth))
		rep.Curve = append(rep.Curve, pt)
	}
	rep.Callers = sampleCallers(precise, match, docs, judged, opts)
	return rep, nil
}

// sampleCallers compares the depth-1 callers of a seeded sample of matched
// functions and methods that have callers in the precise index: the
// precise index's referencing definitions against the syntax graph's
// calls and references edges at or above the threshold.
func sampleCallers(precise *preciseIndex, match map[string]string, docs []graph.DocumentFacts, judged func(graph.Edge) bool, opts Options) []Callers {
	truthCallers := map[string]map[string]bool{}
	for pr := range precise.refs {
		if _, ok := precise.kind[pr.to]; !ok {
			continue
		}
		if truthCallers[pr.to] == nil {
			truthCallers[pr.to] = map[string]bool{}
		}
		truthCallers[pr.to][pr.from] = true
	}
	matchedPrecise := map[string]bool{}
	for _, p := range match {
		matchedPrecise[p] = true
	}
	synCallers := map[string]map[string]bool{}
	for _, df := range docs {
		for _, e := range df.Edges {
			if (e.Kind != graph.EdgeCalls && e.Kind != graph.EdgeReferences) || e.Confidence < opts.Threshold || !judged(e) {
				continue
			}
			from, ok1 := match[e.From]
			to, ok2 := match[e.To]
			if !ok1 || !ok2 || from == to {
				continue
			}
			if synCallers[to] == nil {
				synCallers[to] = map[string]bool{}
			}
			synCallers[to][from] = true
		}
	}
	var out []Callers
	for _, kind := range []string{"function", "method"} {
		var pool []string
		for id, k := range precise.kind {
			if k != kind || !matchedPrecise[id] {
				continue
			}
			n := 0
			for c := range truthCallers[id] {
				if matchedPrecise[c] && c != id {
					n++
				}
			}
			if n > 0 {
				pool = append(pool, id)
			}
		}
		slices.Sort(pool)
		rng := rand.New(rand.NewPCG(opts.Seed, 1))
		rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		pool = pool[:min(len(pool), opts.Targets)]
		c := Callers{Kind: kind, Targets: len(pool)}
		for _, id := range pool {
			for caller := range truthCallers[id] {
				if matchedPrecise[caller] && caller != id {
					c.Truth++
					if synCallers[id][caller] {
						c.Found++
					}
				}
			}
			c.Listed += len(synCallers[id])
		}
		listedRight := 0
		for _, id := range pool {
			for caller := range synCallers[id] {
				if truthCallers[id][caller] {
					listedRight++
				}
			}
		}
		c.Precision, c.Recall = ratio(listedRight, c.Listed), ratio(c.Found, c.Truth)
		out = append(out, c)
	}
	return out
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// preciseIndex is what the calibration needs of a precise index.
type preciseIndex struct {
	tool      string
	documents int
	defs      map[defKey]string   // definition position → symbol
	kind      map[string]string   // callable symbols → "function" or "method"
	refs      map[pair]bool       // definition → symbol it references
	occurs    map[defKey][]string // the global symbols a use resolves to, by position
	calls     map[pair]bool       // the refs whose target is callable
}

// loadPrecise imports the dump into an in-memory store and reads it back.
func loadPrecise(ctx context.Context, opts Options) (*preciseIndex, error) {
	f, err := os.Open(opts.Dump)
	if err != nil {
		return nil, fmt.Errorf("calibrate: opening the dump: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("calibrate: opening the dump: %w", err)
	}
	st, err := graph.Open("calibrate", graph.Options{InMemory: true})
	if err != nil {
		return nil, fmt.Errorf("calibrate: opening a store: %w", err)
	}
	defer st.Close()
	sum, err := scip.Import(ctx, st, f, scip.Options{Root: opts.Root, Size: fi.Size()})
	if err != nil {
		return nil, fmt.Errorf("calibrate: importing %s: %w", opts.Dump, err)
	}
	r, err := st.Reader()
	if err != nil {
		return nil, fmt.Errorf("calibrate: reading the store: %w", err)
	}
	defer r.Close()
	p := &preciseIndex{tool: sum.Tool, defs: map[defKey]string{}, kind: map[string]string{},
		refs: map[pair]bool{}, calls: map[pair]bool{}, occurs: map[defKey][]string{}}
	var paths []string
	if err := r.Documents(ctx, func(d graph.Document) error {
		paths = append(paths, d.Path)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("calibrate: listing documents: %w", err)
	}
	p.documents = len(paths)
	var edges []graph.Edge
	for _, path := range paths {
		syms, err := r.BaseDocumentSymbols(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("calibrate: reading %s: %w", path, err)
		}
		for _, s := range syms {
			if s.External || s.Def.Path != path {
				continue
			}
			p.defs[defKey{path, s.Def.Range.Start}] = s.ID
			switch s.Kind {
			case "function", "method":
				p.kind[s.ID] = s.Kind
			}
		}
		occs, err := r.Occurrences(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("calibrate: reading %s: %w", path, err)
		}
		for _, o := range occs {
			// A local symbol where a name is used but not bound in the
			// function is the indexer's own "unresolved" (scip-python
			// binds an import it cannot find to a local).
			if o.Roles&graph.RoleDefinition == 0 && !strings.HasPrefix(o.Symbol, "local ") {
				k := defKey{path, o.Range.Start}
				p.occurs[k] = append(p.occurs[k], o.Symbol)
			}
		}
		es, err := r.BaseDocumentEdges(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("calibrate: reading %s: %w", path, err)
		}
		edges = append(edges, es...)
	}
	for _, e := range edges {
		if e.Kind != graph.EdgeReferences && e.Kind != graph.EdgeCalls {
			continue
		}
		pr := pair{e.From, e.To}
		p.refs[pr] = true
		if _, ok := p.kind[e.To]; ok {
			p.calls[pr] = true
		}
	}
	return p, nil
}
