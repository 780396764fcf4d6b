package lspgraph_test

import (
	"bufio"
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/lspgraph/lspgraph"

// architectureTables reads the two tables of ARCHITECTURE.md: for each
// package of ours, the packages of ours it may import ("*": any), and the
// third-party import prefixes ("cgo" for cgo) it must never depend on,
// directly or transitively. The document is the statement of policy: do not
// widen it to make a build pass; move the code.
func architectureTables(t *testing.T) (allowed, forbidden map[string][]string) {
	t.Helper()
	f, err := os.Open("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	allowed, forbidden = map[string][]string{}, map[string][]string{}
	var table map[string][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "| package | may import |"):
			table = allowed
			continue
		case strings.HasPrefix(line, "| package | must never depend on |"):
			table = forbidden
			continue
		case !strings.HasPrefix(line, "|"):
			table = nil
			continue
		case table == nil || strings.HasPrefix(line, "|---"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 {
			t.Fatalf("ARCHITECTURE.md: a table row with fewer than two cells: %s", line)
		}
		pkg := strings.Trim(strings.TrimSpace(cells[0]), "`")
		var list []string
		for _, item := range strings.Split(cells[1], ",") {
			item = strings.TrimSpace(item)
			if i := strings.Index(item, " ("); i >= 0 {
				item = item[:i] // a note in parentheses
			}
			if item = strings.Trim(item, "`"); item != "" {
				list = append(list, item)
			}
		}
		table[pkg] = list
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(allowed) == 0 || len(forbidden) == 0 {
		t.Fatal("ARCHITECTURE.md has no package table or no forbidden-dependency table")
	}
	return allowed, forbidden
}

// ourPackages lists the directories of the module that hold Go files.
func ourPackages(t *testing.T) []string {
	t.Helper()
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
	return pkgs
}

func TestLayering(t *testing.T) {
	allowed, _ := architectureTables(t)
	pkgs := ourPackages(t)
	for pkg := range allowed {
		if !slices.Contains(pkgs, pkg) {
			t.Errorf("ARCHITECTURE.md lists package %s, which does not exist: remove its row", pkg)
		}
	}
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
			t.Errorf("package %s is not in the package table of ARCHITECTURE.md: add it with the packages it may import", dir)
			continue
		}
		imports := append(append(append([]string{}, p.Imports...), p.TestImports...), p.XTestImports...)
		for _, imp := range imports {
			ours, ok := strings.CutPrefix(imp, module+"/")
			if !ok || (len(rules) == 1 && rules[0] == "*") || ours == dir {
				continue
			}
			if !slices.Contains(rules, ours) {
				t.Errorf("%s imports %s; ARCHITECTURE.md lets it import only %v of ours", dir, ours, rules)
			}
		}
	}
}

// TestForbiddenDependencies checks each package's transitive imports (its
// non-test build, as `go list -deps` sees it) against the forbidden table.
func TestForbiddenDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	_, forbidden := architectureTables(t)
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{if .CgoFiles}}cgo{{end}}`, "./"+pkg).Output()
		if err != nil {
			t.Errorf("go list -deps ./%s: %v", pkg, err)
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			dep, cgo, _ := strings.Cut(line, " ")
			for _, b := range bad {
				switch {
				case b == "cgo" && cgo == "cgo" && !strings.HasPrefix(dep, "runtime/cgo") && dep != "net" && dep != "os/user":
					t.Errorf("%s depends on %s, which uses cgo; ARCHITECTURE.md forbids cgo for it", pkg, dep)
				case b != "cgo" && strings.HasPrefix(dep, b):
					t.Errorf("%s depends on %s; ARCHITECTURE.md forbids %s for it", pkg, dep, b)
				}
			}
		}
	}
}
