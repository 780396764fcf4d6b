package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/ingest"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// The workspace: line 5 of a.go has a 2-byte and a 4-byte character before
// the call, so UTF-16 and UTF-8 columns differ there.
var files = map[string]string{
	"a/a.go": "package a\n\nimport \"example.com/m/b\"\n\nfunc Use() int {\n\t_ = \"é𝄞\"; return b.Add(1, 2)\n}\n",
	"b/b.go": "package b\n\n// Add adds.\nfunc Add(x, y int) int { return x + y }\n",
}

func workspace(t *testing.T) string {
	root := t.TempDir()
	writeFiles(t, root, files)
	return root
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	for p, text := range files {
		abs := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func uri(root, p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(root, p))}).String()
}

// rng renders an LSP range.
func rng(l1, c1, l2, c2 int) string {
	return fmt.Sprintf(`{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}}`, l1, c1, l2, c2)
}

// On line 5, "Add" starts at UTF-16 column 21 (`\t_ = "` 6, é 1, the
// surrogate pair 2, `"; return b.` 12) and at UTF-8 byte 24 (é is 2 bytes,
// 𝄞 is 4).
const addCol16 = 21

func exchange(t *testing.T, l *ingest.Live, method, params, result string) {
	t.Helper()
	if err := l.Exchange(context.Background(), ingest.Exchange{Method: method, Params: json.RawMessage(params), Result: json.RawMessage(result), Encoding: textpos.UTF16}); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// facts renders what the graph serves for the workspace's documents.
func facts(t *testing.T, s *graph.Store, paths ...string) string {
	t.Helper()
	ctx := context.Background()
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	if len(paths) == 0 {
		paths = []string{"a/a.go", "b/b.go"}
	}
	for _, p := range paths {
		syms, err := r.DocumentSymbols(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, sym := range syms {
			out = append(out, "sym "+graphtest.FormatSymbol(sym))
			es, err := r.Outgoing(ctx, sym.ID, graph.EdgeFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				out = append(out, "edge "+graphtest.FormatEdge(e))
			}
		}
		occs, err := r.Occurrences(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range occs {
			out = append(out, "occ "+graphtest.FormatOccurrence(o))
		}
	}
	return strings.Join(out, "\n") + "\n"
}

func TestLive(t *testing.T) {
	root := workspace(t)
	s := graphtest.Open(t)
	l := ingest.New(s, ingest.Options{Root: root})
	a, b := uri(root, "a/a.go"), uri(root, "b/b.go")
	doc := func(u string) string { return `{"textDocument":{"uri":"` + u + `"}}` }
	at := func(u string, line, char int) string {
		return fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d},"context":{"includeDeclaration":true}}`, u, line, char)
	}
	exchange(t, l, "textDocument/documentSymbol", doc(a), `[{"name":"Use","kind":12,"range":`+rng(4, 0, 6, 1)+`,"selectionRange":`+rng(4, 5, 4, 8)+`}]`)
	exchange(t, l, "textDocument/documentSymbol", doc(b), `[{"name":"Add","kind":12,"range":`+rng(3, 0, 3, 39)+`,"selectionRange":`+rng(3, 5, 3, 8)+`}]`)
	def := `[{"uri":"` + b + `","range":` + rng(3, 5, 3, 8) + `}]`
	exchange(t, l, "textDocument/definition", at(a, 5, addCol16+1), def)
	exchange(t, l, "textDocument/definition", at(a, 5, addCol16), def) // again: no double counting
	exchange(t, l, "textDocument/references", at(b, 3, 6), `[{"uri":"`+b+`","range":`+rng(3, 5, 3, 8)+`},{"uri":"`+a+`","range":`+rng(5, addCol16, 5, addCol16+3)+`}]`)
	item := func(u, name string, ext, sel string) string {
		return `{"name":"` + name + `","kind":12,"uri":"` + u + `","range":` + ext + `,"selectionRange":` + sel + `}`
	}
	use, add := item(a, "Use", rng(4, 0, 6, 1), rng(4, 5, 4, 8)), item(b, "Add", rng(3, 0, 3, 39), rng(3, 5, 3, 8))
	exchange(t, l, "callHierarchy/incomingCalls", `{"item":`+add+`}`, `[{"from":`+use+`,"fromRanges":[`+rng(5, addCol16, 5, addCol16+3)+`]}]`)
	exchange(t, l, "callHierarchy/outgoingCalls", `{"item":`+use+`}`, `[{"to":`+add+`,"fromRanges":[`+rng(5, addCol16, 5, addCol16+3)+`]}]`)
	// Premature answers are skipped.
	if err := l.Exchange(context.Background(), ingest.Exchange{Method: "textDocument/definition", Params: json.RawMessage(at(a, 2, 9)), Result: json.RawMessage(`[{"uri":"` + a + `","range":` + rng(2, 7, 2, 24) + `}]`), Premature: true}); err != nil {
		t.Fatal(err)
	}

	// "Add" in a.go line 6 is at UTF-8 byte column 24 (1-based 25).
	want := `sym lsp a/a.go:5:6 name=Use kind=function lang=go def=a/a.go@5:6-5:9 extent=5:1-7:2
edge lsp a/a.go:5:6 -calls-> lsp b/b.go:4:6 conf=1.00 count=1 path=a/a.go layer=live source=lsp reason=lsp:callHierarchy/outgoingCalls
edge lsp a/a.go:5:6 -references-> lsp b/b.go:4:6 conf=1.00 count=1 path=a/a.go layer=live source=lsp reason=lsp:references
occ a/a.go 5:6-5:9 lsp a/a.go:5:6 def
occ a/a.go 6:25-6:28 lsp b/b.go:4:6 ref|call enc=lsp a/a.go:5:6
sym lsp b/b.go:4:6 name=Add kind=function lang=go def=b/b.go@4:6-4:9 extent=4:1-4:40
occ b/b.go 4:6-4:9 lsp b/b.go:4:6 def
`
	if got := facts(t, s); got != want {
		t.Errorf("facts:\n%s\nwant:\n%s", got, want)
	}
	st := l.Stats()
	if st.Exchanges != 7 || st.Premature != 1 || st.Failed != 0 {
		t.Errorf("stats = %+v", st)
	}
	r, _ := s.Reader()
	defer r.Close()
	d, ok, err := r.Document(context.Background(), "a/a.go")
	if err != nil || !ok || d.Source != graph.SourceLSP || d.ContentHash != lang.HashContent([]byte(files["a/a.go"])) || d.Layer != graph.Live {
		t.Errorf("document a/a.go = %+v, %v, %v", d, ok, err)
	}
	if live := r.LiveDocuments(); !slices.Equal(live, []string{"a/a.go", "b/b.go"}) {
		t.Errorf("live documents = %v", live)
	}
}

// An answer the live layer already holds is not written again (a rewrite
// would leave deleted records every later read steps over); one that
// brings a new fact, or comes from changed text, is.
func TestLiveRepeatedAnswerWritesNothing(t *testing.T) {
	root := workspace(t)
	s := graphtest.Open(t)
	l := ingest.New(s, ingest.Options{Root: root})
	a, b := uri(root, "a/a.go"), uri(root, "b/b.go")
	at := func(line, char int) string {
		return fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}`, a, line, char)
	}
	def := `[{"uri":"` + b + `","range":` + rng(3, 5, 3, 8) + `}]`
	exchange(t, l, "textDocument/definition", at(5, addCol16), def)
	written := l.Stats().Documents
	before := facts(t, s)
	if written == 0 {
		t.Fatal("the first answer wrote no document")
	}
	for range 3 {
		exchange(t, l, "textDocument/definition", at(5, addCol16+1), def)
	}
	if got := l.Stats().Documents; got != written {
		t.Errorf("repeating the answer wrote %d documents", got-written)
	}
	if got := facts(t, s); got != before {
		t.Errorf("facts changed on a repeated answer:\n%s\nwant:\n%s", got, before)
	}
	// A new fact: the definition of the import path on line 3.
	exchange(t, l, "textDocument/definition", at(2, 9), `[{"uri":"`+b+`","range":`+rng(0, 8, 0, 9)+`}]`)
	if got := l.Stats().Documents; got == written {
		t.Error("an answer with a new occurrence wrote nothing")
	}
	written = l.Stats().Documents
	// Changed text: the same answer is written against the new content.
	writeFiles(t, root, map[string]string{"a/a.go": files["a/a.go"] + "\n// edited\n"})
	exchange(t, l, "textDocument/definition", at(5, addCol16), def)
	if got := l.Stats().Documents; got == written {
		t.Error("an answer about changed text wrote nothing")
	}
}
