package scope

import (
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
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

func isLocalPath(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../")
}

// discoverGo records Go modules, their packages, and their dependencies.
func (w *Workspace) discoverGo(goMods []string, goWork string, goFiles []string) {
	used := map[string]int{} // module dir -> go.work line
	if goWork != "" {
		if b, ok := w.readFile(goWork); ok {
			for _, u := range parseGoMod(string(b)).requires {
				if dir, ok := relJoin(".", u.Path); ok {
					used[dir] = u.Line
				}
			}
		}
	}
	mods := map[string]goMod{} // dir -> parsed
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
		dir := path.Dir(rel)
		mods[dir] = m
		p := Package{Name: m.module, Kind: KindGoModule, Dir: dir, Manifest: rel}
		if _, ok := used[dir]; ok {
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
	modDirs := make([]string, 0, len(mods))
	for dir := range mods {
		modDirs = append(modDirs, dir)
	}
	// moduleOf returns the innermost module containing a directory.
	moduleOf := func(dir string) (string, string, bool) {
		best := ""
		found := false
		for _, md := range modDirs {
			if dirContains(md, dir) && (!found || len(md) > len(best)) {
				best, found = md, true
			}
		}
		if !found {
			return "", "", false
		}
		return best, mods[best].module, true
	}
	// modulePathOwner returns the workspace module whose path is the longest
	// prefix of an import path.
	modulePathOwner := func(imp string) (string, bool) {
		best := ""
		for _, m := range mods {
			if (imp == m.module || strings.HasPrefix(imp, m.module+"/")) && len(m.module) > len(best) {
				best = m.module
			}
		}
		return best, best != ""
	}
	pkgs := map[string]map[string]bool{}
	fset := token.NewFileSet()
	for _, rel := range goFiles {
		dir := path.Dir(rel)
		mdir, mod, ok := moduleOf(dir)
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
		f, err := parser.ParseFile(fset, filepath.Join(w.Root, filepath.FromSlash(rel)), nil, parser.ImportsOnly)
		if err != nil {
			w.Skipped = append(w.Skipped, rel+": "+err.Error())
			continue
		}
		for _, is := range f.Imports {
			imp, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				continue
			}
			if to, ok := modulePathOwner(imp); ok && to != mod {
				w.addDep(mod, to, Why{File: rel, Line: fset.Position(is.Pos()).Line, Detail: "imports " + imp})
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
