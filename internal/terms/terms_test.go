package terms

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"parseHTTPRequest", "parse HTTP Request"},
		{"HTTPServer", "HTTP Server"},
		{"snake_case_name", "snake case name"},
		{"getV2Config", "get V 2 Config"},
		{"URL", "URL"},
		{"__init__", "init"},
		{"lower", "lower"},
	} {
		if got := strings.Join(Split(tc.in), " "); got != tc.want {
			t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStem(t *testing.T) {
	for _, group := range [][]string{
		{"cache", "caches", "cached", "caching"},
		{"stop", "stopped", "stopping", "stops"},
		{"dependency", "dependencies"},
		{"call", "calls", "called", "calling"},
	} {
		want := Stem(group[0])
		for _, w := range group[1:] {
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, want %q like %q", w, got, want, group[0])
			}
		}
	}
	if Stem("class") != "class" || Stem("status") != "status" {
		t.Errorf("Stem folded a word that is not plural: class → %q, status → %q", Stem("class"), Stem("status"))
	}
}

func TestQuery(t *testing.T) {
	got := Query("Where is the order state machine? orderStateMachine")
	want := []string{"order", "stat", "machin", "orderstatemachin"}
	if !slices.Equal(got, want) {
		t.Errorf("Query = %q, want %q", got, want)
	}
}

func TestDocument(t *testing.T) {
	src := []byte(`package cache

// evictOldest drops the least recently used entry.
func evictOldest(m map[string]int) error {
	return errors.New("cache: eviction failed")
}
`)
	doc := graph.Document{Path: "internal/lru/cache.go", Package: "example.com/internal/lru", Language: "go"}
	syms := []graph.Symbol{{ID: "s1", DisplayName: "evictOldest", Kind: "function"}, {ID: "local 1 x", DisplayName: "m", Kind: "local"}}
	got := map[string]int{}
	for _, tm := range Document(doc, syms, src) {
		got[tm.Word+"/"+tm.Field.String()] += tm.Count
	}
	for k, n := range map[string]int{
		"evict/name": 1, "oldest/name": 1, "evictoldest/name": 1,
		"lru/path": 2, "internal/path": 1, "cach/path": 1,
		"drop/doc": 1, "recently/doc": 1, "entry/doc": 1,
		"eviction/string": 1, "fail/string": 1, "cach/string": 1,
		"evictoldest/code": 1, "error/code": 2, "cach/code": 1,
	} {
		if got[k] != n {
			t.Errorf("term %s counted %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
	for _, k := range []string{"func/code", "return/code", "the/doc", "m/name", "map/code"} {
		if got[k] != 0 {
			t.Errorf("term %s counted, want it dropped", k)
		}
	}
}

// FuzzSplitASCII checks that the ASCII fast path splits as the general one.
func FuzzSplitASCII(f *testing.F) {
	for _, s := range []string{"parseHTTPRequest2Fast", "snake_case_ID", "A1b2C3", "__x__", "ABCdef", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isASCII(s) {
			return
		}
		got, want := splitASCII(s), splitRunes(s)
		if !slices.Equal(got, want) {
			t.Fatalf("splitASCII(%q) = %q, splitRunes = %q", s, got, want)
		}
	})
}

// goFiles returns the Go files of GOROOT/src/go/... (sorted), real code the
// memo is held to the plain count on.
func goFiles(t testing.TB) []string {
	t.Helper()
	return gorootFiles(t, "go", true)
}

// gorootFiles returns the .go files under GOROOT/src/dir (sorted), with or
// without those under testdata.
func gorootFiles(t testing.TB, dir string, skipTestdata bool) []string {
	t.Helper()
	var files []string
	root := filepath.Join(runtime.GOROOT(), "src", dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" && skipTestdata {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Skipf("no Go source under %s: %v", root, err)
	}
	return files
}

// TestMemoCountsAsPlain holds the counter's memo of identifiers met before
// to counting every occurrence afresh: the same terms, in the same order,
// with the same counts, on real files.
func TestMemoCountsAsPlain(t *testing.T) {
	memo := NewMemo()
	for _, p := range goFiles(t) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		doc := graph.Document{Path: filepath.ToSlash(p), Language: "go"}
		want := (&counter{noMemo: true}).document(doc, nil, src)
		if got := Document(doc, nil, src); !slices.Equal(got, want) {
			t.Fatalf("%s: the memo's terms differ from the plain count (%d against %d terms)", p, len(got), len(want))
		}
		if got := memo.Document(doc, nil, src); !slices.Equal(got, want) {
			t.Fatalf("%s: with a Memo of earlier files the terms differ from the plain count (%d against %d terms)", p, len(got), len(want))
		}
	}
}

// TestDocumentAsReference holds the counter to the plain rune-by-rune
// reference: the same terms, in the same order, with the same counts, on
// every Go file of GOROOT/src/go and GOROOT/src/net (testdata included,
// where the odd files are), counted alone, with a Memo of the files before,
// and as a hash-commented language.
func TestDocumentAsReference(t *testing.T) {
	memo := NewMemo()
	var files []string
	for _, dir := range []string{"go", "net"} {
		files = append(files, gorootFiles(t, dir, false)...)
	}
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, lang := range []string{"go", "python"} {
			doc := graph.Document{Path: filepath.ToSlash(p), Package: "example.com/" + filepath.Base(filepath.Dir(p)), Language: lang}
			want := refDocument(doc, nil, src)
			if got := Document(doc, nil, src); !slices.Equal(got, want) {
				t.Fatalf("%s (%s): %s", p, lang, termsDiff(got, want))
			}
			if got := memo.Document(doc, nil, src); !slices.Equal(got, want) {
				t.Fatalf("%s (%s), with a Memo: %s", p, lang, termsDiff(got, want))
			}
		}
	}
}

// termsDiff describes the first difference of got from want.
func termsDiff(got, want []graph.Term) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("term %d is %+v, the reference's %+v", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d terms, the reference's %d", len(got), len(want))
}

// documentCases are inputs the fuzz target starts from and the reference
// test checks: letters beyond ASCII, mixed case, digits, underscores,
// camelCase and ACRONYMCase, stop words, plurals, broken UTF-8.
var documentCases = []string{
	"// A naïve café: the naïveté of Ünïcode Straße\nvar naïveCount = 1\n",
	"/* 日本語のコメント 日本語 */ x := \"日本語テキスト and ascii\"",
	"// parseHTTPRequest ACRONYMCase getV2Config snake_case_name __init__ URLs HTTPServers\n",
	"func fooBar(x int) { return \"Caches cached caching STOPPED stopping\" }",
	"# python comment with Dependencies and classes\ndef my_func(): pass",
	"'single quoted ÉCOLE École' `raw\nstring ΑΒΓδεζ ΣΊΣΥΦΟΣ`",
	"// 1234 12ab ab12 a1b2c3 x_1_2 A_n A_1 IS_A i18n_L10N ΔelταX\n",
	"/* unterminated comment with ÀÉÎÕÜ",
	"\"unterminated string \\\" escaped\nnext line identifiers_here",
	"// invalid utf8 \xff\xfe bytes in\xc3 words ab\xe6\x97cd\n\xffident\x80x := 1",
	"$jquery $.each(ids, fn) ḞŏŏḂåř camelÇase İstanbul ǅemal ǈjudevit",
	"// ſtrange KELVIN \u212a sign and ß upper ẞ\n",
	"A an AN aN the THE The ie e.g. etc ETC policies ies flies",
}

// TestCasesAsReference holds Document, a Memo and Query to the reference
// on the hand-picked cases, as source, as symbol names and documentation,
// and as a query.
func TestCasesAsReference(t *testing.T) {
	memo := NewMemo()
	for _, s := range documentCases {
		checkAsReference(t, memo, s)
	}
}

// FuzzDocumentAsReference holds Document, a Memo and Query to the
// reference on any input.
func FuzzDocumentAsReference(f *testing.F) {
	for _, s := range documentCases {
		f.Add(s)
	}
	memo := NewMemo()
	f.Fuzz(func(t *testing.T, s string) {
		checkAsReference(t, memo, s)
	})
}

func checkAsReference(t *testing.T, memo *Memo, s string) {
	t.Helper()
	src := []byte(s)
	syms := []graph.Symbol{{ID: "s", DisplayName: s, Kind: "function", Doc: s}}
	for _, lang := range []string{"go", "python"} {
		doc := graph.Document{Path: "dir/" + s + "/file.go", Package: "example.com/" + s, Language: lang}
		for _, in := range []struct {
			syms []graph.Symbol
			src  []byte
		}{{nil, src}, {syms, src}, {syms, nil}} {
			want := refDocument(doc, in.syms, in.src)
			if got := Document(doc, in.syms, in.src); !slices.Equal(got, want) {
				t.Fatalf("Document(%q, %d symbols, source %t): %s", s, len(in.syms), in.src != nil, termsDiff(got, want))
			}
			if got := memo.Document(doc, in.syms, in.src); !slices.Equal(got, want) {
				t.Fatalf("Memo.Document(%q, %d symbols, source %t): %s", s, len(in.syms), in.src != nil, termsDiff(got, want))
			}
		}
	}
	if got, want := Query(s), refQuery(s); !slices.Equal(got, want) {
		t.Fatalf("Query(%q) = %q, the reference's %q", s, got, want)
	}
}

func BenchmarkDocument(b *testing.B) {
	files := goFiles(b)
	srcs := make([][]byte, len(files))
	n := 0
	for i, p := range files {
		var err error
		if srcs[i], err = os.ReadFile(p); err != nil {
			b.Fatal(err)
		}
		n += len(srcs[i])
	}
	for _, tc := range []struct {
		name     string
		document func(m *Memo, doc graph.Document, src []byte) []graph.Term
	}{
		{"plain", func(_ *Memo, doc graph.Document, src []byte) []graph.Term {
			return (&counter{noMemo: true}).document(doc, nil, src)
		}},
		{"document", func(_ *Memo, doc graph.Document, src []byte) []graph.Term { return Document(doc, nil, src) }},
		{"memo", func(m *Memo, doc graph.Document, src []byte) []graph.Term { return m.Document(doc, nil, src) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			m := NewMemo()
			for b.Loop() {
				for i, src := range srcs {
					tc.document(m, graph.Document{Path: files[i], Language: "go"}, src)
				}
			}
		})
	}
}

// TestWordSets holds a wordSet's filtered look-up to its map, on its own
// words, their prefixes and extensions, and the same in upper case.
func TestWordSets(t *testing.T) {
	for _, set := range []*wordSet{stopWords, keywords} {
		for w := range set.words {
			for _, v := range []string{w, w[:len(w)-1], w + "s", "x" + w, strings.ToUpper(w), "", "q", "qq"} {
				if got := set.has([]byte(v)); got != set.words[v] {
					t.Errorf("has(%q) = %t, the map says %t", v, got, set.words[v])
				}
			}
		}
	}
}
