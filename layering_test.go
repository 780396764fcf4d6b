package lspgraph_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/lspgraph/lspgraph"

// allowed is the layering of DESIGN.md as data: for each package of ours, the
// packages of ours it may import (in its own files and in its tests). It is a
// statement of policy: do not widen it to make a build pass; move the code.
var allowed = map[string][]string{
	"internal/textpos": {},
	"internal/rootfs":  {},
	"internal/lspwire": {"internal/textpos"},
	"graph":            {"internal/textpos", "graph/graphtest"}, // graphtest: its external tests only
	"graph/graphtest":  {"graph", "internal/textpos"},
	"lspproxy":         {"internal/textpos", "lspproxy/lsptest"},
	"lspproxy/lsptest": {"lspproxy", "internal/textpos"},
	"scip":             {"graph", "internal/textpos", "graph/graphtest"},
	"syntax":           {"graph", "internal/textpos", "internal/rootfs", "graph/graphtest"},
	"resolve":          {"graph", "internal/textpos", "graph/graphtest"},
	"freshness":        {"graph", "internal/textpos", "internal/rootfs", "graph/graphtest"},
	"impact":           {"graph", "resolve", "freshness", "internal/textpos", "graph/graphtest"},
	"scope":            {"graph", "internal/textpos", "internal/rootfs", "graph/graphtest"},
	"ranking":          {"graph", "resolve", "scope", "freshness", "internal/textpos", "graph/graphtest"},
	"contextpack":      {"graph", "resolve", "scope", "ranking", "freshness", "internal/textpos", "internal/rootfs", "graph/graphtest"},
	"ingest":           {"graph", "internal/textpos", "internal/lspwire", "internal/rootfs", "graph/graphtest"},
	"overlay":          {"graph", "syntax", "freshness", "internal/textpos", "internal/rootfs", "graph/graphtest"},
	"crawl":            {"graph", "internal/textpos", "internal/lspwire", "internal/rootfs", "graph/graphtest"},
	"cmd/lspgraph":     {"*"},
	"internal/e2e":     {"*"},
	".":                {"*"}, // this test
}

// forbidden lists third-party import prefixes a package of ours must never
// pull in: the proxy stays free of Pebble and cgo, the store free of LSP,
// SCIP and tree-sitter types, and only syntax uses cgo.
var forbidden = map[string][]string{
	"graph":    {"go.lsp.dev/", "github.com/scip-code/", "github.com/smacker/", "C"},
	"lspproxy": {"github.com/cockroachdb/pebble", "github.com/smacker/", "github.com/scip-code/", "C"},
	"scip":     {"github.com/smacker/", "go.lsp.dev/", "C"},
	"impact":   {"github.com/smacker/", "github.com/cockroachdb/pebble", "C"},
	"ranking":  {"github.com/smacker/", "github.com/cockroachdb/pebble", "C"},
}

func TestLayering(t *testing.T) {
	dirs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			dirs[filepath.ToSlash(filepath.Dir(path))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for d := range dirs {
		pkgs = append(pkgs, d)
	}
	sort.Strings(pkgs)
	for _, dir := range pkgs {
		p, err := build.ImportDir(dir, build.ImportComment)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				continue
			}
			t.Errorf("%s: %v", dir, err)
			continue
		}
		rules, ok := allowed[dir]
		if !ok {
			t.Errorf("package %s is not in the layering table of layering_test.go (and DESIGN.md): add it with the packages it may import", dir)
			continue
		}
		imports := append(append(append([]string{}, p.Imports...), p.TestImports...), p.XTestImports...)
		for _, imp := range imports {
			for _, bad := range forbidden[dir] {
				if imp == bad || (strings.HasSuffix(bad, "/") || strings.Contains(bad, ".")) && strings.HasPrefix(imp, bad) {
					t.Errorf("%s imports %s, which the layering forbids for it", dir, imp)
				}
			}
			ours, ok := strings.CutPrefix(imp, module+"/")
			if !ok || (len(rules) == 1 && rules[0] == "*") || ours == dir {
				continue
			}
			if !contains(rules, ours) {
				t.Errorf("%s imports %s; it may import only %v of ours (see DESIGN.md)", dir, ours, rules)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
