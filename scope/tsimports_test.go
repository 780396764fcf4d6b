package scope

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// importRE is what tsImportSpecs finds, as a regular expression: the
// specification the scanner is checked against.
var importRE = regexp.MustCompile(`(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"'\n]+)["']`)

func regexpSpecs(src string) []tsSpec {
	var out []tsSpec
	for _, m := range importRE.FindAllStringSubmatchIndex(src, -1) {
		out = append(out, tsSpec{spec: src[m[2]:m[3]], line: strings.Count(src[:m[0]], "\n") + 1})
	}
	return out
}

// tsImportSeeds are sources whose specifiers both must agree on.
var tsImportSeeds = []string{
	"import { a } from \"./a\";\nexport * from '../b';\nconst c = require('c');\nconst d = await import(\"d\");\n",
	"import x from\n  'multi-line';\nimport(\n 'dyn')\nrequire ( 'spaced' )\nrequire'no-paren'\n",
	"fromage 'x'\nimported 'y'\n_from 'z'\n$from 'w'\né from 'accent'\nxrequire('q')\n",
	"from 'open\nfrom ''\nfrom \"mixed'\nfrom 'a' from 'b'import'c'\nfrom \"x\"",
	"from 'unterminated",
	"import 'from \"inner\"'\nfrom",
	"\"from 'quoted'\" // from 'comment'\n/* import('x') */",
	"import\t\f\r\n('tabs')\nfrom\v'vtab'\n",
}

// TestTSImportSpecsAgreeWithRegexp: on the seeds and on this repository's
// own TypeScript fixtures, the scanner finds what the regular expression
// does.
func TestTSImportSpecsAgreeWithRegexp(t *testing.T) {
	srcs := append([]string(nil), tsImportSeeds...)
	err := filepath.WalkDir("../testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isTSFile(d.Name()) {
			return err
		}
		b, err := os.ReadFile(p)
		srcs = append(srcs, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, src := range srcs {
		got, want := tsImportSpecs(src), regexpSpecs(src)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", src, got, want)
		}
		found += len(want)
	}
	if found < 20 {
		t.Errorf("only %d specifiers in all sources: the check compares too little", found)
	}
}

func FuzzTSImportSpecs(f *testing.F) {
	for _, s := range tsImportSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := tsImportSpecs(src), regexpSpecs(src); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", src, got, want)
		}
	})
}
