package scope

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// wholeFileImports is the reference readGoImports is held to: the file
// read whole by the parser and parsed for its imports.
func wholeFileImports(name string) ([]goImport, error) {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	return importsOf(fset, af), nil
}

func checkAsWhole(t *testing.T, name string, buf *[]byte) {
	t.Helper()
	got, gerr := readGoImports(name, buf)
	want, werr := wholeFileImports(name)
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("%s: error %v, want %v", name, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: imports\n%v\nwant\n%v", name, got, want)
	}
}

// TestReadGoImportsAsWholeFile moves the end of the head readGoImports
// reads first across every byte of package clauses and import
// declarations (after a comment as long as it takes), and checks that it
// finds what parsing the whole file finds: the same imports and lines,
// or the same error.
func TestReadGoImportsAsWholeFile(t *testing.T) {
	bodies := []string{
		"package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc F() { fmt.Println(os.Args) }\n",
		"package p\n\nimport \"fmt\"\n\n// between\nimport (\n\tx \"example.com/x\"\n\t_ \"example.com/y\"\n)\nimport \"example.com/z\"\n\nvar V = 1\n",
		"package p\nimport \"a\"; import \"b\"; type T int\n",
		"package p\n\nimport (\n\t\"fmt\" // trailing\n\t/* inside */ \"os\"\n)\n/* a comment after the imports */\n// and a line comment\nconst C = 0\n",
		"package p\n\nimport \"fmt\"\n",                              // nothing after the imports
		"package p\n",                                                // no imports
		"package p\n\nimport (\n\t\"fmt\"\n",                         // unclosed: an error
		"package p\n\nimport \"fmt\"\nimportant := 1\n",              // a token that starts like import
		"package p\n\nimport \"fmt\"\n\nfunc importer() {}\n",        // another one
		"package p\n\nimport \"a\"\n\nimport \"b\"\n\nfunc F() {}\n", // the second import after a gap
	}
	dir := t.TempDir()
	var buf []byte
	for bi, body := range bodies {
		for _, where := range []string{"before", "after"} {
			// The head ends everywhere from before the package clause to
			// past the end of the file.
			for pad := goHeadBytes - len(body) - 8; pad <= goHeadBytes+8; pad++ {
				if pad < 3 {
					continue
				}
				comment := "//" + strings.Repeat("x", pad-3) + "\n"
				src := comment + body
				if where == "after" {
					// The comment after the package clause, so that the
					// head ends inside the imports or what follows them.
					i := strings.Index(body, "\n") + 1
					src = body[:i] + comment + body[i:]
				}
				name := filepath.Join(dir, "f.go")
				if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Run("", func(t *testing.T) {
					checkAsWhole(t, name, &buf)
				})
				if t.Failed() {
					t.Fatalf("body %d, comment %s the imports, %d bytes", bi, where, pad)
				}
			}
		}
	}
}

// TestReadGoImportsGOROOT holds readGoImports to the whole-file parse on
// every Go file of GOROOT/src/go and GOROOT/src/net.
func TestReadGoImportsGOROOT(t *testing.T) {
	n := 0
	var buf []byte
	for _, sub := range []string{"go", "net"} {
		root := filepath.Join(runtime.GOROOT(), "src", sub)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			n++
			checkAsWhole(t, p, &buf)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 500 {
		t.Fatalf("only %d Go files under GOROOT/src/go and net", n)
	}
}
