package syntax

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// goastOracle holds tree-sitter and the go/parser converter to the same
// source.
type goastOracle struct {
	g    *grammar
	syms *goSyms
	ts   flat
	buf  []flatRec
}

func newGoastOracle() *goastOracle {
	g := newGrammar("go", "go")
	return &goastOracle{g: g, syms: newGoSyms(g)}
}

// outcome of comparing the two trees of one source.
type goastOutcome int

const (
	goastMatch     goastOutcome = iota
	goastBadSource              // tree-sitter found an error, or go/parser rejected the file
	goastDeclined               // the converter left the file to tree-sitter
)

// check compares the trees; a mismatch is an error. decline is why the
// converter declined, if it did.
func (o *goastOracle) check(src []byte) (out goastOutcome, decline goDecline, err error) {
	if err := o.ts.parse(o.g, src, 10*time.Second); err != nil {
		return goastBadSource, goDecline{}, nil
	}
	for i := range o.ts.recs {
		if t := o.ts.nodes[i].Type(); t == "ERROR" || o.ts.recs[i].startByte == o.ts.recs[i].endByte && t != "source_file" {
			return goastBadSource, goDecline{}, nil // ERROR, or MISSING (a zero-width node)
		}
	}
	recs, d := goFlat(o.syms, src, o.buf)
	if d.Why == "syntax error" {
		return goastBadSource, d, nil
	}
	if d.Why != "" {
		return goastDeclined, d, nil
	}
	o.buf = recs
	var conv flat
	conv.install(o.g, recs)
	return goastMatch, d, diffFlat(&o.ts, &conv, src)
}

// diffFlat describes the first record where two flat trees differ: in
// content (type, field, range) first, then in links.
func diffFlat(want, got *flat, src []byte) error {
	n := min(len(want.recs), len(got.recs))
	for i := 0; i < n; i++ {
		w, g := want.recs[i], got.recs[i]
		wn, gn := &want.nodes[i], &got.nodes[i]
		if wn.Type() != gn.Type() || wn.field() != gn.field() || w.startByte != g.startByte || w.endByte != g.endByte ||
			w.startRow != g.startRow || w.startCol != g.startCol || w.endRow != g.endRow || w.endCol != g.endCol || w.named != g.named {
			return fmt.Errorf("record %d differs\n%s", i, diffContext(want, got, i, src))
		}
	}
	if len(want.recs) != len(got.recs) {
		return fmt.Errorf("record %d: %d records from tree-sitter, %d converted\n%s", n, len(want.recs), len(got.recs), diffContext(want, got, n, src))
	}
	for i := 0; i < n; i++ {
		w, g := want.recs[i], got.recs[i]
		if w.parent != g.parent || w.firstChild != g.firstChild || w.nextSibling != g.nextSibling {
			return fmt.Errorf("record %d: links differ\n%s", i, diffContext(want, got, i, src))
		}
	}
	return nil
}

func diffContext(want, got *flat, i int, src []byte) string {
	line := func(f *flat, k int) string {
		if k < 0 || k >= len(f.recs) {
			return "-"
		}
		n, r := &f.nodes[k], f.recs[k]
		depth := 0
		for p := n.Parent(); p != nil; p = p.Parent() {
			depth++
		}
		text := string(src[r.startByte:min(r.endByte, r.startByte+30)])
		return fmt.Sprintf("%d %s%s %s [%d,%d) %d:%d-%d:%d p%d c%d s%d %q", k, strings.Repeat(" ", depth), n.Type(), n.field(),
			r.startByte, r.endByte, r.startRow, r.startCol, r.endRow, r.endCol, int32(r.parent), int32(r.firstChild), int32(r.nextSibling), text)
	}
	var b strings.Builder
	for k := max(0, i-4); k <= i+3; k++ {
		fmt.Fprintf(&b, "  tree-sitter %s\n  converted   %s\n", line(want, k), line(got, k))
	}
	return b.String()
}

// goastCorpus lists the Go files the oracle runs over: the repository's
// Go test data and, from GOROOT/src (test data left out), every tenth
// file, or all of them with LSPGRAPH_E2E=1; plus every Go file under the
// directories listed in GOAST_CORPUS (separated by the OS's list
// separator), to hold the converter to other code.
func goastCorpus(t testing.TB) []string {
	var files []string
	dirs := []string{"testdata", "../testdata"}
	if extra := os.Getenv("GOAST_CORPUS"); extra != "" {
		dirs = append(dirs, filepath.SplitList(extra)...)
	}
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
				files = append(files, p)
			}
			return nil
		})
	}
	goroot, err := gorootGoFiles("src")
	if err != nil {
		t.Logf("no GOROOT: %v", err)
		return files
	}
	step := 10
	if os.Getenv("LSPGRAPH_E2E") == "1" {
		step = 1
	}
	for i := 0; i < len(goroot); i += step {
		files = append(files, goroot[i])
	}
	return files
}

// TestGoastMatchesTreeSitter is the converter's acceptance test: on every
// file both parsers accept, the converted tree equals tree-sitter's,
// record by record, or the converter declined.
func TestGoastMatchesTreeSitter(t *testing.T) {
	o := newGoastOracle()
	defer o.ts.free()
	files := goastCorpus(t)
	counts := map[goastOutcome]int{}
	declines := map[string]int{}
	failed := 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out, d, err := o.check(src)
		counts[out]++
		if out == goastDeclined {
			if declines[d.Why]++; declines[d.Why] <= 2 {
				t.Logf("%s: declined (%s) at %q", p, d.Why, src[d.At:min(d.At+60, len(src))])
			}
		}
		if err != nil {
			failed++
			if failed <= 5 {
				t.Errorf("%s: %v", p, err)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d files differ", failed, len(files))
	}
	t.Logf("%d files: %d converted, %d declined, %d left out (syntax errors)", len(files), counts[goastMatch], counts[goastDeclined], counts[goastBadSource])
	var reasons []string
	for d, n := range declines {
		reasons = append(reasons, fmt.Sprintf("%5d %s", n, d))
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		t.Logf("declined: %s", r)
	}
}

// FuzzGoastMatchesTreeSitter holds the converter to tree-sitter on
// arbitrary text: whenever both parsers accept it and the converter does
// not decline, the trees must be equal.
func FuzzGoastMatchesTreeSitter(f *testing.F) {
	for _, seed := range []string{
		"package p\n\nfunc (x *T[K]) M(a, b int) (r int) { return a.b.c(d)[e] }\n",
		"package p // c\n\nimport (\n\t\"fmt\" // c\n\t_ \"os\"\n)\n\ntype T[K comparable] struct {\n\t*pkg.E\n\ta, b int `tag`\n\t// tail\n}\n",
		"package p\n\nfunc f() {\n\tswitch x := y.(type) {\n\tcase int, *T:\n\t\tg() // c\n\n\tdefault:\n\t}\n\tfor i := 0; i < 3; i++ {\n\t}\n\tfor ; ; {\n\t}\nL:\n}\n",
		"package p\n\nvar _ = []any{a[b](c), a[b][c], a[b[c]], (*T[int])(x), *(*[]int)(p), new(int), make(map[K]V, 1), \"\\x41\\u00e9\\n\", 'x', `raw`, 1.5, 2i}\n",
		"package p\n\nfunc f() {\n\tselect {\n\tcase v := <-ch:\n\tcase ch <- 1:\n\t}\n\tgo func() {}()\n\tdefer g(x...)\n\tx, y = y, x\n\tif a := 1; a > b {\n\t} else if c {\n\t}\n}\n",
		"package p\r\n\r\n// c\r\nvar x = 1 // d\r\n/* e\r\n*/\r\nfunc f() {\r\n\tswitch {\r\n\tcase a:\r\n\t\tg() // h\r\n\t}\r\n}\r\n",
		"package p\r\n\r\nvar x = `a\r\nb`\r\n",
		"package p\n\ntype I interface {\n\t~int | string\n\tM(a int) error\n\tio.Reader\n}\n\nconst (\n\ta = iota\n\tb\n)\n",
	} {
		f.Add(seed)
	}
	o := newGoastOracle()
	defer o.ts.free()
	f.Fuzz(func(t *testing.T, src string) {
		if _, _, err := o.check([]byte(src)); err != nil {
			t.Fatalf("%v\nsource: %q", err, src)
		}
	})
}

// BenchmarkGoParse compares tree-sitter and the converter on the Go files
// of GOROOT/src/go (test data left out), each building the flat tree.
func BenchmarkGoParse(b *testing.B) {
	files, err := gorootGoFiles("src", "go")
	if err != nil {
		b.Skip("no GOROOT")
	}
	var srcs [][]byte
	size := 0
	for _, p := range files {
		if src, err := os.ReadFile(p); err == nil {
			srcs = append(srcs, src)
			size += len(src)
		}
	}
	g := newGrammar("go", "go")
	b.Run("tree-sitter", func(b *testing.B) {
		var f flat
		defer f.free()
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, src := range srcs {
				if err := f.parse(g, src, time.Minute); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("goast", func(b *testing.B) {
		syms := newGoSyms(g)
		var recs []flatRec
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, src := range srcs {
				r, _ := goFlat(syms, src, recs)
				if r != nil {
					recs = r
				}
			}
		}
	})
}

// gorootGoFiles lists the Go files under GOROOT/dir... (test data left
// out), in walk order.
func gorootGoFiles(dir ...string) ([]string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, err
	}
	var files []string
	root := filepath.Join(append([]string{strings.TrimSpace(string(out))}, dir...)...)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && d.Name() == "testdata":
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go"):
			files = append(files, p)
		}
		return nil
	})
	return files, nil
}
