package scope

import (
	"path"
	"sort"
	"strconv"
	"strings"
)

// goMod is the part of a go.mod discovery needs.
type goMod struct {
	module   string
	requires []goDirective // Path: module path
	replaces []goDirective // Path: module path, Target: replacement (a local path or a module)
}

type goDirective struct {
	Path, Target string
	Line         int
}

// parseGoMod reads module, require and replace directives, in single-line
// and block form. Comments are dropped; other directives are ignored.
func parseGoMod(src string) goMod {
	var m goMod
	block := ""
	for i, line := range strings.Split(src, "\n") {
		if j := strings.Index(line, "//"); j >= 0 {
			line = line[:j]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if block != "" {
			if f[0] == ")" {
				block = ""
				continue
			}
			f = append([]string{block}, f...)
		} else if len(f) == 2 && f[1] == "(" {
			block = f[0]
			continue
		}
		switch f[0] {
		case "module":
			if len(f) >= 2 {
				m.module = unquoteGo(f[1])
			}
		case "require":
			if len(f) >= 2 {
				m.requires = append(m.requires, goDirective{Path: unquoteGo(f[1]), Line: i + 1})
			}
		case "replace":
			// replace old [v] => new [v]
			arrow := indexOf(f, "=>")
			if arrow >= 2 && arrow+1 < len(f) {
				m.replaces = append(m.replaces, goDirective{Path: unquoteGo(f[1]), Target: unquoteGo(f[arrow+1]), Line: i + 1})
			}
		case "use":
			if len(f) >= 2 {
				// go.work: Path is the directory.
				m.requires = append(m.requires, goDirective{Path: unquoteGo(f[1]), Line: i + 1})
			}
		}
	}
	return m
}

func indexOf(f []string, s string) int {
	for i, x := range f {
		if x == s {
			return i
		}
	}
	return -1
}

func unquoteGo(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

// discoverGo records Go packages (one per directory of Go files inside a
// module, named by import path) and the imports between them. A module's
// go.mod gives its path and the packages' manifest; go.work marks its
// members. Dependencies are the imports of non-test files, as in `go list
// -deps`: a require in a go.mod that no package imports makes none, and a
// test's imports do not widen its package's closure, and files the build
// excludes on this GOOS/GOARCH (go/build's default context: file name
// suffixes, //go:build lines, `ignore`) are left out.
func (w *Workspace) discoverGo(goMods []string, goWork string, goFiles []string) {
	used, parsed := w.readGoManifests(goMods, goWork)
	mods := map[string]string{} // module dir -> module path
	for dir, m := range parsed {
		mods[dir] = m.module
	}
	w.goPackages(mods, used, goWork, goFiles)
}

// readGoManifests parses the go.mod files by directory and lists the
// module directories go.work uses.
func (w *Workspace) readGoManifests(goMods []string, goWork string) (map[string]bool, map[string]goMod) {
	used := map[string]bool{}
	if goWork != "" {
		if b, ok := w.readFile(goWork); ok {
			for _, u := range parseGoMod(string(b)).requires {
				if dir, ok := relJoin(".", u.Path); ok {
					used[dir] = true
				}
			}
		}
	}
	mods := map[string]goMod{}
	for _, rel := range goMods {
		b, ok := w.readFile(rel)
		if !ok {
			continue
		}
		m := parseGoMod(string(b))
		if m.module == "" {
			w.Skipped = append(w.Skipped, rel+": no module directive")
			continue
		}
		mods[path.Dir(rel)] = m
	}
	return used, mods
}

// moduleOf returns the innermost module directory containing dir.
func moduleOf(mods map[string]string, dir string) (string, bool) {
	best, found := "", false
	for md := range mods {
		if dirContains(md, dir) && (!found || len(md) > len(best)) {
			best, found = md, true
		}
	}
	return best, found
}

// importPath is the import path of the package in dir of the module at
// mdir with path mod. The standard library's module "std" has no prefix.
func importPath(mdir, mod, dir string) string {
	sub := dir
	if mdir != "." {
		sub = strings.TrimPrefix(strings.TrimPrefix(dir, mdir), "/")
	}
	if sub == "." {
		sub = ""
	}
	switch {
	case sub == "":
		return mod
	case mod == "std":
		return sub
	}
	return mod + "/" + sub
}

// goPackages adds a package per directory of Go files and records its
// imports of other packages under the root.
func (w *Workspace) goPackages(mods map[string]string, used map[string]bool, goWork string, goFiles []string) {
	if len(mods) == 0 {
		return
	}
	type goFile struct{ rel, ip string }
	var files []goFile
	byPath := map[string]bool{}
	for _, rel := range goFiles {
		dir := path.Dir(rel)
		mdir, ok := moduleOf(mods, dir)
		if !ok {
			continue
		}
		ip := importPath(mdir, mods[mdir], dir)
		files = append(files, goFile{rel, ip})
		if byPath[ip] {
			continue
		}
		byPath[ip] = true
		p := Package{Name: ip, Kind: KindGoPackage, Dir: dir, Manifest: path.Join(mdir, "go.mod"), Module: mods[mdir]}
		if used[mdir] {
			p.Member = goWork
		}
		w.addPackage(p)
	}
	// Every file's imports are read (through the source cache, on every
	// core), though a test's and a file the build leaves out on this
	// GOOS/GOARCH do not count: the cache then holds what a discovery by
	// module reads as well.
	rels := make([]string, len(files))
	for i, f := range files {
		rels[i] = f.rel
	}
	imports := w.goImports(rels, func(i int) (bool, bool) {
		return true, !strings.HasSuffix(rels[i], "_test.go")
	})
	for i, f := range files {
		if strings.HasSuffix(f.rel, "_test.go") {
			continue // test imports are no part of the package's import closure
		}
		if imports[i].excluded {
			w.goExcluded[f.rel] = true
			continue
		}
		if err := imports[i].err; err != nil {
			w.Skipped = append(w.Skipped, f.rel+": "+err.Error())
			continue
		}
		for _, is := range imports[i].imports {
			imp, detail := is.path, "imports "+is.path
			if imp == "C" {
				imp, detail = "runtime/cgo", "imports C (cgo links runtime/cgo)"
			}
			if byPath[imp] {
				w.addDep(f.ip, imp, Why{File: f.rel, Line: is.line, Detail: detail})
			}
		}
	}
}

func isLocalPath(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../")
}

// discoverGoModules records Go modules (one package each), their Go
// packages, and their dependencies: go.mod require and local replace
// directives, go.work, and imports of another module's packages.
func (w *Workspace) discoverGoModules(goMods []string, goWork string, goFiles []string) {
	used, mods := w.readGoManifests(goMods, goWork)
	for _, dir := range sortedStrings(mods) {
		m := mods[dir]
		p := Package{Name: m.module, Kind: KindGoModule, Dir: dir, Manifest: path.Join(dir, "go.mod")}
		if used[dir] {
			p.Member = goWork
		}
		w.addPackage(p)
	}
	byPath := map[string]string{} // module path -> module path (workspace modules only)
	byDir := map[string]string{}
	for dir, m := range mods {
		byPath[m.module] = m.module
		byDir[dir] = m.module
	}
	for dir, m := range mods {
		mf := path.Join(dir, "go.mod")
		local := map[string]bool{}
		for _, r := range m.replaces {
			if !isLocalPath(r.Target) {
				continue
			}
			tdir, ok := relJoin(dir, r.Target)
			if !ok {
				continue
			}
			if to, ok := byDir[tdir]; ok {
				local[r.Path] = true
				w.addDep(m.module, to, Why{File: mf, Line: r.Line, Detail: "replace " + r.Path + " => " + r.Target})
			}
		}
		for _, r := range m.requires {
			if to, ok := byPath[r.Path]; ok {
				detail := "require " + r.Path
				if local[r.Path] {
					detail += " (replaced by a local path)"
				} else if goWork != "" {
					detail += " (resolved by " + goWork + ")"
				}
				w.addDep(m.module, to, Why{File: mf, Line: r.Line, Detail: detail})
			}
		}
	}
	w.goPackagesAndImports(mods, goFiles)
}

// goPackagesAndImports lists each module's Go packages and records imports
// of another workspace module's packages as dependencies.
func (w *Workspace) goPackagesAndImports(mods map[string]goMod, goFiles []string) {
	if len(mods) == 0 {
		return
	}
	// innermost returns the innermost module containing a directory: the
	// nearest directory up from it that has a go.mod.
	innermost := func(dir string) (string, string, bool) {
		for d := dir; ; d = path.Dir(d) {
			if m, ok := mods[d]; ok {
				return d, m.module, true
			}
			if d == "." || d == "/" {
				return "", "", false
			}
		}
	}
	// modulePathOwner returns the workspace module whose path is the
	// longest prefix of an import path, up to a slash.
	modulePaths := make(map[string]bool, len(mods))
	for _, m := range mods {
		modulePaths[m.module] = true
	}
	modulePathOwner := func(imp string) (string, bool) {
		for p := imp; ; {
			if modulePaths[p] {
				return p, true
			}
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				return "", false
			}
			p = p[:i]
		}
	}
	pkgs := map[string]map[string]bool{}
	// The module of each file, found once: its imports are read only
	// when it has one.
	type placed struct {
		dir, mod string
		ok       bool
	}
	where := make([]placed, len(goFiles))
	for i, rel := range goFiles {
		where[i].dir, where[i].mod, where[i].ok = innermost(path.Dir(rel))
	}
	imports := w.goImports(goFiles, func(i int) (bool, bool) { return where[i].ok, false })
	for i, rel := range goFiles {
		dir := path.Dir(rel)
		mdir, mod, ok := where[i].dir, where[i].mod, where[i].ok
		if !ok {
			continue
		}
		sub := strings.TrimPrefix(strings.TrimPrefix(dir, mdir), "/")
		if mdir == "." {
			sub = dir
			if dir == "." {
				sub = ""
			}
		}
		ip := mod
		if sub != "" {
			ip = mod + "/" + sub
		}
		if pkgs[mod] == nil {
			pkgs[mod] = map[string]bool{}
		}
		pkgs[mod][ip] = true
		if err := imports[i].err; err != nil {
			w.Skipped = append(w.Skipped, rel+": "+err.Error())
			continue
		}
		for _, is := range imports[i].imports {
			if to, ok := modulePathOwner(is.path); ok && to != mod {
				w.addDep(mod, to, Why{File: rel, Line: is.line, Detail: "imports " + is.path})
			}
		}
	}
	for i := range w.Packages {
		p := &w.Packages[i]
		if p.Kind != KindGoModule {
			continue
		}
		for ip := range pkgs[p.Name] {
			p.GoPackages = append(p.GoPackages, ip)
		}
		sort.Strings(p.GoPackages)
	}
}
