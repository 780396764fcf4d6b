package scope

import (
	"path"
	"sort"
	"strings"
)

// hasPythonIn reports whether a Python file lies under dir.
func (w *Workspace) hasPythonIn(dir string, pyFiles []string) bool {
	for _, f := range pyFiles {
		if dirContains(dir, path.Dir(f)) {
			return true
		}
	}
	return false
}

// pythonPackages adds a package per directory of Python files, named by its
// dotted import path, and records its imports of other such packages. A
// directory's import path starts at the parent of its outermost enclosing
// directory with an __init__.py (so "src/shop/orders.py" is in "shop"); a
// directory without __init__.py (scripts, tests) is a top-level name.
func (w *Workspace) pythonPackages(pyFiles, manifests []string) {
	if len(pyFiles) == 0 {
		return
	}
	isPkg := map[string]bool{} // directories with an __init__.py
	for _, f := range pyFiles {
		if base := path.Base(f); base == "__init__.py" || base == "__init__.pyi" {
			isPkg[path.Dir(f)] = true
		}
	}
	dotted := func(dir string) string {
		top := dir
		for isPkg[top] && top != "." && isPkg[path.Dir(top)] {
			top = path.Dir(top)
		}
		rootDir := path.Dir(top)
		if !isPkg[dir] {
			rootDir = path.Dir(dir)
		}
		rel := dir
		if rootDir != "." {
			rel = strings.TrimPrefix(dir, rootDir+"/")
		}
		if rel == "." {
			return ""
		}
		return strings.ReplaceAll(rel, "/", ".")
	}
	nameOf := map[string]string{} // directory -> dotted name
	byName := map[string]string{} // dotted name -> directory
	dirs := map[string]bool{}
	for _, f := range pyFiles {
		dirs[path.Dir(f)] = true
	}
	for _, dir := range sortedStrings(dirs) {
		name := dotted(dir)
		if name == "" {
			name = RootPackage // modules at the root itself
		}
		if _, dup := byName[name]; dup {
			w.Skipped = append(w.Skipped, dir+": Python package "+name+" is also at "+byName[name])
			continue
		}
		nameOf[dir], byName[name] = name, dir
		manifest := ""
		for _, m := range manifests {
			if dirContains(path.Dir(m), dir) && len(m) > len(manifest) {
				manifest = m
			}
		}
		w.addPackage(Package{Name: name, Kind: KindPyPackage, Dir: dir, Manifest: manifest})
	}
	// owner maps a dotted module path to the package holding it: the
	// longest known prefix ("shop.orders" -> "shop").
	owner := func(mod string) (string, bool) {
		for m := mod; m != ""; {
			if _, ok := byName[m]; ok {
				return m, true
			}
			i := strings.LastIndex(m, ".")
			if i < 0 {
				break
			}
			m = m[:i]
		}
		return "", false
	}
	sort.Strings(pyFiles)
	for _, f := range pyFiles {
		from, ok := nameOf[path.Dir(f)]
		if !ok {
			continue
		}
		b, ok := w.readFile(f)
		if !ok {
			continue
		}
		for _, imp := range pythonImports(string(b)) {
			mod := imp.module
			if imp.level > 0 {
				if !isPkg[path.Dir(f)] {
					continue // a relative import outside a package fails at run time
				}
				parts := strings.Split(from, ".")
				if imp.level-1 >= len(parts) {
					continue
				}
				base := strings.Join(parts[:len(parts)-(imp.level-1)], ".")
				mod = strings.TrimSuffix(base+"."+mod, ".")
			}
			if to, ok := owner(mod); ok {
				w.addDep(from, to, Why{File: f, Line: imp.line, Detail: "imports " + imp.text})
			}
		}
	}
}

// pyImport is one imported module of a Python file.
type pyImport struct {
	module string // dotted, without the leading dots of a relative import
	level  int    // the leading dots: 0 for an absolute import
	line   int
	text   string // as written: "shop.pricing", ".users"
}

// pythonImports reads the modules a Python source imports, from
// `import a.b, c as d` and `from .a import b` statements (also indented
// ones, inside functions or try blocks). Names imported from a package
// (`from shop import pricing`) count as imports of the package.
func pythonImports(src string) []pyImport {
	var out []pyImport
	inString := ""
	for i, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if inString != "" {
			if strings.Contains(t, inString) {
				inString = ""
			}
			continue
		}
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(t, q)%2 == 1 {
				inString = q
			}
		}
		switch {
		case strings.HasPrefix(t, "import "):
			for _, part := range strings.Split(strings.TrimPrefix(t, "import "), ",") {
				f := strings.Fields(part)
				if len(f) > 0 && validDotted(f[0]) {
					out = append(out, pyImport{module: f[0], line: i + 1, text: f[0]})
				}
			}
		case strings.HasPrefix(t, "from "):
			f := strings.Fields(t)
			if len(f) < 3 || f[2] != "import" {
				continue
			}
			mod := f[1]
			level := len(mod) - len(strings.TrimLeft(mod, "."))
			rest := mod[level:]
			if rest != "" && !validDotted(rest) {
				continue
			}
			out = append(out, pyImport{module: rest, level: level, line: i + 1, text: mod})
		}
	}
	return out
}

// validDotted reports a dotted Python name: identifiers joined by dots.
func validDotted(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
		for j, r := range part {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 || j > 0 && r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}
