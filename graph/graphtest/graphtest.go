// Package graphtest helps tests use the graph store: an in-memory [Open],
// a base layer written in one call ([Base]), a small text syntax for a document's facts ([ParseFacts]), and one-line
// renderings of facts for goldens ([FormatOccurrence], [FormatEdge],
// [FormatSymbol], [FormatVisit]), and [EachRecord], every raw key and value
// of a closed store.
//
// The fact syntax has one fact per line; ranges are 1-based "L:C-L:C" as
// textpos.Range prints them, roles as graph.Role prints them:
//
//	sym ID [name=N] [kind=K] [lang=L] [pkg=P] [sig=S] [def=L:C-L:C] [extent=L:C-L:C] [external]
//	occ ID L:C-L:C [ROLES] [enc=ENCLOSING]
//	edge FROM KIND TO [conf=F] [count=N] [source=S] [reason=R]
//
// Blank lines and lines starting with # are ignored.
package graphtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Open opens an in-memory store closed at the end of the test.
func Open(t testing.TB) *graph.Store {
	t.Helper()
	s, err := graph.Open(t.Name(), graph.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing store: %v", err)
		}
	})
	return s
}

// Base writes docs as the base layer of a new in-memory store, committed
// with manifest m, and returns a reader of it. Store and reader are closed
// at the end of the test.
func Base(t testing.TB, m graph.Manifest, docs ...graph.DocumentFacts) *graph.Reader {
	t.Helper()
	ctx := context.Background()
	st := Open(t)
	gw, err := st.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := gw.PutDocument(ctx, d); err != nil {
			t.Fatalf("%s: %v", d.Document.Path, err)
		}
	}
	if err := gw.Commit(ctx, m); err != nil {
		t.Fatal(err)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// BaseManifest returns the manifest of st's base generation.
func BaseManifest(t testing.TB, st *graph.Store) graph.Manifest {
	t.Helper()
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m, _, err := r.Manifest(graph.Base)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// EachRecord calls fn with every key and value of the closed on-disk store
// in dir, as Pebble holds them (nothing decoded), for tests that a byte
// string is stored nowhere.
func EachRecord(t testing.TB, dir string, fn func(key, value []byte)) {
	t.Helper()
	db, err := pebble.Open(dir, &pebble.Options{ReadOnly: true, Logger: testLogger{t}})
	if err != nil {
		t.Fatalf("opening the store %s raw: %v", dir, err)
	}
	defer db.Close()
	it, err := db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			t.Fatal(err)
		}
		fn(it.Key(), v)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
}

// testLogger drops Pebble's informational messages and fails the test on
// its errors.
type testLogger struct{ t testing.TB }

func (testLogger) Infof(string, ...any)                {}
func (l testLogger) Errorf(format string, args ...any) { l.t.Errorf("pebble: "+format, args...) }
func (l testLogger) Fatalf(format string, args ...any) { l.t.Errorf("pebble: "+format, args...) }

// MustParseFacts is ParseFacts failing the test on an error.
func MustParseFacts(t testing.TB, doc graph.Document, text string) graph.DocumentFacts {
	t.Helper()
	f, err := ParseFacts(doc, text)
	if err != nil {
		t.Fatalf("%s: %v", doc.Path, err)
	}
	return f
}

// ParseFacts parses the fact syntax into the facts of document doc.
func ParseFacts(doc graph.Document, text string) (graph.DocumentFacts, error) {
	f := graph.DocumentFacts{Document: doc}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := parseFact(&f, strings.Fields(line)); err != nil {
			return f, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
	}
	return f, nil
}

func parseFact(f *graph.DocumentFacts, w []string) error {
	switch {
	case w[0] == "sym" && len(w) >= 2:
		s, err := parseSymbol(w[1], w[2:])
		f.Symbols = append(f.Symbols, s)
		return err
	case w[0] == "occ" && len(w) >= 3:
		o, err := parseOccurrence(f.Document.Path, w[1:])
		f.Occurrences = append(f.Occurrences, o)
		return err
	case w[0] == "edge" && len(w) >= 4:
		e, err := parseEdge(w[1:])
		f.Edges = append(f.Edges, e)
		return err
	}
	return fmt.Errorf("want sym, occ or edge with their arguments")
}

func parseSymbol(id string, opts []string) (graph.Symbol, error) {
	s := graph.Symbol{ID: id}
	for _, o := range opts {
		k, v, _ := strings.Cut(o, "=")
		var err error
		switch k {
		case "name":
			s.DisplayName = v
		case "kind":
			s.Kind = v
		case "lang":
			s.Language = v
		case "pkg":
			s.Package = v
		case "sig":
			s.Signature = v
		case "doc":
			s.Doc = v
		case "external":
			s.External = true
		case "def":
			path, rng, ok := strings.Cut(v, "@")
			if !ok {
				return s, fmt.Errorf("def=%s: want PATH@L:C-L:C", v)
			}
			s.Def.Path = path
			s.Def.Range, err = ParseRange(rng)
		case "extent":
			s.DefExtent, err = ParseRange(v)
		default:
			err = fmt.Errorf("unknown symbol option %q", o)
		}
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

func parseOccurrence(path string, w []string) (graph.Occurrence, error) {
	o := graph.Occurrence{Path: path, Symbol: w[0]}
	var err error
	if o.Range, err = ParseRange(w[1]); err != nil {
		return o, err
	}
	for _, x := range w[2:] {
		if enc, ok := strings.CutPrefix(x, "enc="); ok {
			o.Enclosing = enc
			continue
		}
		if o.Roles, err = graph.ParseRoles(x); err != nil {
			return o, err
		}
	}
	return o, nil
}

func parseEdge(w []string) (graph.Edge, error) {
	e := graph.Edge{From: w[0], Kind: graph.EdgeKind(w[1]), To: w[2], Confidence: 1, Source: graph.SourceSCIP, Count: 1}
	for _, o := range w[3:] {
		k, v, _ := strings.Cut(o, "=")
		var err error
		switch k {
		case "conf":
			e.Confidence, err = strconv.ParseFloat(v, 64)
		case "count":
			e.Count, err = strconv.Atoi(v)
		case "source":
			e.Source = v
		case "reason":
			e.Reason = v
		default:
			err = fmt.Errorf("unknown edge option %q", o)
		}
		if err != nil {
			return e, err
		}
	}
	return e, nil
}

// ParseRange parses a 1-based "L:C-L:C" range.
func ParseRange(s string) (textpos.Range, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return textpos.Range{}, fmt.Errorf("range %q: want L:C-L:C", s)
	}
	start, err := ParsePosition(a)
	if err != nil {
		return textpos.Range{}, err
	}
	end, err := ParsePosition(b)
	return textpos.Range{Start: start, End: end}, err
}

// ParsePosition parses a 1-based "L:C" position.
func ParsePosition(s string) (textpos.Position, error) {
	l, c, ok := strings.Cut(s, ":")
	line, err1 := strconv.ParseUint(l, 10, 32)
	col, err2 := strconv.ParseUint(c, 10, 32)
	if !ok || err1 != nil || err2 != nil || line == 0 || col == 0 {
		return textpos.Position{}, fmt.Errorf("position %q: want 1-based L:C", s)
	}
	return textpos.Position{Line: uint32(line - 1), Col: uint32(col - 1)}, nil
}

// FormatOccurrence renders "PATH RANGE SYMBOL ROLES [enc=E]".
func FormatOccurrence(o graph.Occurrence) string {
	s := fmt.Sprintf("%s %s %s %s", o.Path, o.Range, o.Symbol, o.Roles)
	if o.Enclosing != "" {
		s += " enc=" + o.Enclosing
	}
	return strings.TrimSpace(s)
}

// FormatEdge renders "FROM -KIND-> TO conf=C count=N path=P layer=L [source=S] [reason=R]".
func FormatEdge(e graph.Edge) string {
	s := fmt.Sprintf("%s -%s-> %s conf=%.2f count=%d", e.From, e.Kind, e.To, e.Confidence, e.Count)
	if e.Path != "" {
		s += " path=" + e.Path
	}
	if e.Layer != 0 {
		s += " layer=" + e.Layer.String()
	}
	if e.Source != "" {
		s += " source=" + e.Source
	}
	if e.Reason != "" {
		s += " reason=" + e.Reason
	}
	return s
}

// FormatSymbol renders a symbol's id and non-empty fields.
func FormatSymbol(s graph.Symbol) string {
	parts := []string{s.ID}
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("name", s.DisplayName)
	add("kind", s.Kind)
	add("lang", s.Language)
	add("pkg", s.Package)
	add("sig", s.Signature)
	add("doc", s.Doc)
	if s.External {
		parts = append(parts, "external")
	}
	if s.Def.Path != "" {
		add("def", s.Def.Path+"@"+s.Def.Range.String())
	}
	if s.DefExtent != (textpos.Range{}) {
		add("extent", s.DefExtent.String())
	}
	return strings.Join(parts, " ")
}

// FormatVisit renders "dDEPTH SYMBOL via EDGE".
func FormatVisit(v graph.Visit) string {
	return fmt.Sprintf("d%d %s via %s", v.Depth, v.Symbol, FormatEdge(v.Via))
}
