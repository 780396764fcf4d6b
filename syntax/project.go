package syntax

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"go/version"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"

	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// project finds the package and module a file belongs to from the project
// files between its directory and the workspace root. Results are cached
// per directory.
type project struct {
	root     string
	fs       *rootfs.Root        // reads the project files under root; nil reads none
	lister   *rootfs.Lister      // looks for them first (see read)
	tree     *treeListing        // tells absent ones without a look, when set
	goMod    map[string]goModule // dir → nearest go.mod
	goScope  map[string]string   // module dir → goScopeOf's answer
	goAnswer map[string]string   // module dir → goScopeAnswer's
	modules  []string            // the paths of the tree's modules, when known (see Options.goModules)
	work     int                 // a go.work above the root: 1 yes, -1 no, 0 not looked for (workAbove)
	npm      map[string]npmPackage
	pyRoots  map[string]string
	cargo    map[string]rustCrate
	// recording makes ask record the questions a walk asks in asked
	// (projectlog.go).
	recording bool
	asked     []projectAnswer
	// walk is the scratch memory of the walks of this project's files
	// (one at a time: an Extractor is not used concurrently).
	walk walkBuffers
}

type goModule struct {
	dir  string // relative to root, "" for the root
	path string // module path; "" when there is no go.mod
	// requires are the paths of the modules the go.mod requires, when it
	// lists every module its packages reach (a go directive of 1.17 or
	// later: see goScopeOf); complete says that it does.
	requires []string
	complete bool
}

type npmPackage struct {
	dir  string
	name string
}

func newProject(root string, fsys *rootfs.Root) *project {
	return &project{
		root:     root,
		fs:       fsys,
		goMod:    map[string]goModule{},
		goScope:  map[string]string{},
		goAnswer: map[string]string{},
		npm:      map[string]npmPackage{},
		pyRoots:  map[string]string{},
		cargo:    map[string]rustCrate{},
	}
}

// read returns a project file under the root, through fs: never one a
// symbolic link leads to outside the root.
func (p *project) read(rel string) ([]byte, bool) {
	if p.root == "" || p.fs == nil {
		return nil, false
	}
	// Most files asked for are absent (a go.mod or package.json in each
	// directory up from a source file, asked again for every unchanged
	// file of an incremental index): a look in the directory, reached
	// from the nearest one the lister holds open, answers those in a
	// system call or two instead of a walk from the root. What is there,
	// or might be, is read.
	if p.tree.absent(rel) {
		return nil, false
	}
	if p.lister == nil {
		p.lister = p.fs.NewLister()
	}
	dir, name := path.Split(rel)
	if dir = strings.TrimSuffix(dir, "/"); dir == "" {
		dir = "."
	}
	if _, _, errs, err := p.lister.LstatIn(dir, []string{name}); err == nil && errors.Is(errs[0], fs.ErrNotExist) {
		return nil, false
	}
	b, err := p.fs.ReadFile(rel)
	return b, err == nil
}

// isProjectFile reports whether name is a file project reads.
func isProjectFile(name string) bool {
	switch name {
	case "go.mod", "go.work", "package.json", "pyproject.toml", "setup.py", "setup.cfg", "Cargo.toml":
		return true
	}
	return false
}

// treeListing is what a walk of the tree saw of project files: the
// directories whose entries it read, and the project files among them.
// It is filled while the walk runs (note, from several goroutines) and
// only read after.
type treeListing struct {
	mu      sync.Mutex
	dirs    map[string]bool // root-relative, "" for the root
	present map[string]bool // root-relative paths
}

func newTreeListing() *treeListing {
	return &treeListing{dirs: map[string]bool{}, present: map[string]bool{}}
}

// note records the entries of the directory dir ("." for the root).
func (t *treeListing) note(dir string, entries []rootfs.DirEntry) {
	if dir == "." {
		dir = ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dirs[dir] = true
	for _, e := range entries {
		if isProjectFile(e.Name) {
			t.present[joinRel(dir, e.Name)] = true
		}
	}
}

// absent reports whether the walk read the directory of the project file
// rel and did not find it there. A nil listing knows nothing.
func (t *treeListing) absent(rel string) bool {
	if t == nil {
		return false
	}
	return t.dirs[dirOf(rel)] && !t.present[rel] && isProjectFile(path.Base(rel))
}

// close releases the directories the project's lister holds open.
func (p *project) close() {
	if p.lister != nil {
		p.lister.Close()
		p.lister = nil
	}
}

// readAbove returns the file name (go.mod, go.work) of a directory above
// the root, confined to that directory (one there that is a symbolic link
// leading out of it, or not a regular file, is not read).
func readAbove(dir, name string) ([]byte, error) {
	d, err := rootfs.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadFile(name)
}

// parentDir returns the parent of a root-relative directory, "" for the root.
func parentDir(dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	d := path.Dir(dir)
	if d == "." {
		d = ""
	}
	return d, true
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// goPackage returns the Go package path of a directory.
func (p *project) goPackage(dir string) string {
	m := p.goModuleOf(dir)
	if m.path == "" {
		if dir == "" {
			return "."
		}
		return dir
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(dir, m.dir), "/")
	if m.dir == "" {
		rel = dir
	}
	if m.path == "std" { // the standard library: import paths have no module prefix
		if rel == "" {
			return "std"
		}
		return rel
	}
	if rel == "" {
		return m.path
	}
	return m.path + "/" + rel
}

func (p *project) goModuleOf(dir string) goModule {
	if m, ok := p.goMod[dir]; ok {
		return m
	}
	var m goModule
	if b, ok := p.read(joinRel(dir, "go.mod")); ok {
		m = goModule{dir: dir, path: modulePath(b)}
		if f, err := modfile.ParseLax("go.mod", b, nil); err == nil && f.Go != nil && version.Compare("go"+f.Go.Version, "go1.17") >= 0 {
			m.complete = true
			for _, r := range f.Require {
				m.requires = append(m.requires, r.Mod.Path)
			}
		}
	} else if parent, ok := parentDir(dir); ok {
		m = p.goModuleOf(parent)
	} else {
		m = p.outerGoModule()
	}
	p.goMod[dir] = m
	return m
}

// goScopeOf returns the modules a Go file of the directory dir can reach
// beyond the standard library, their paths one per line: its module, the
// modules that enclose it in the tree (GOROOT's cmd in std; a tool module
// inside its parent's tree) and every module its go.mod requires. From Go
// 1.17 a go.mod lists every module its packages' imports reach, indirect
// ones included, so no type the file can name is declared outside these.
// A package is in reach when its module is (goReach.in): of a package of
// the tree, the module of the tree its path extends longest, so that
// golang.org/x/tools/gopls, nested in golang.org/x/tools and not required
// by it, is out of its reach.
//
// The answer is "" (no scope: every package reachable) when that does
// not hold or is not known: no go.mod in the tree above dir, a go
// directive before 1.17 or none, a go.mod that does not parse, or a
// go.work in the module's directory or above it (above the root too),
// whose modules import each other without requiring.
func (p *project) goScopeOf(dir string) string {
	m := p.goModuleOf(dir)
	if m.path == "" {
		return ""
	}
	if s, ok := p.goScope[m.dir]; ok {
		return s
	}
	scope := p.moduleReach(m)
	p.goScope[m.dir] = scope
	return scope
}

// moduleReach computes goScopeOf's answer for the module m.
func (p *project) moduleReach(m goModule) string {
	if !m.complete {
		return "" // a go.mod of a go before 1.17, or of none, or above the root
	}
	if p.workAbove() {
		return ""
	}
	in := append([]string{m.path}, m.requires...)
	for d, ok := m.dir, true; ok; d, ok = parentDir(d) {
		if _, work := p.read(joinRel(d, "go.work")); work {
			return ""
		}
		if outer := p.goModuleOf(d); d != m.dir && outer.dir == d && outer.path != "" {
			in = append(in, outer.path)
		}
	}
	slices.Sort(in)
	return strings.Join(slices.Compact(in), "\n")
}

// workAbove reports whether a directory above the root holds a go.work
// (readAbove): the root is then part of a
// workspace whose modules import each other without requiring.
func (p *project) workAbove() bool {
	if p.work != 0 {
		return p.work > 0
	}
	p.work = -1
	abs, err := filepath.Abs(p.root)
	if err != nil {
		return false
	}
	for d := filepath.Dir(abs); d != abs; abs, d = d, filepath.Dir(d) {
		if _, err := readAbove(d, "go.work"); err == nil {
			p.work = 1
			return true
		}
	}
	return false
}

// goScopeAnswer is what a file's facts record of its goScopeOf answer: its
// hash, with the tree's modules (a module added to the tree can take a
// package out of a file's reach); "" for no scope.
func (p *project) goScopeAnswer(dir string) string {
	m := p.goModuleOf(dir)
	if a, ok := p.goAnswer[m.dir]; ok {
		return a
	}
	a := ""
	if scope := p.goScopeOf(dir); scope != "" {
		a = lang.HashContent([]byte(scope + "\n\n" + strings.Join(p.modules, "\n")))
	}
	p.goAnswer[m.dir] = a
	return a
}

// goReach tells the packages a Go file can reach (see goScopeOf).
type goReach struct {
	// modules are the paths of the tree's modules (nil: not known; a
	// package is then of the module of a scope its path extends).
	modules map[string]bool
}

// in reports whether the Go package pkg is within scope, a goScopeOf
// answer ("": everything is): a package of the standard library (no dot in
// its first element), a package of the tree whose module is in the scope,
// or another package of a module of the scope.
func (g *goReach) in(pkg, scope string) bool {
	if scope == "" {
		return true
	}
	return g.classOf(pkg).in(pkg, scope)
}

// reachClass is what decides, whatever the scope, whether a package is in
// it (see goReach.in).
type reachClass struct {
	always bool   // the standard library's: in every scope
	module string // the tree's module holding it, if known: in the scopes listing it
}

// classOf returns the class of the Go package pkg.
func (g *goReach) classOf(pkg string) reachClass {
	first, _, _ := strings.Cut(pkg, "/")
	if !strings.Contains(first, ".") {
		return reachClass{always: true}
	}
	if g.modules != nil {
		for m := pkg; ; {
			if g.modules[m] {
				return reachClass{module: m}
			}
			i := strings.LastIndexByte(m, '/')
			if i < 0 {
				break
			}
			m = m[:i]
		}
	}
	return reachClass{}
}

// in reports whether pkg, of class c, is within scope (not "").
func (c reachClass) in(pkg, scope string) bool {
	switch {
	case c.always:
		return true
	case c.module != "":
		return lineIn(scope, c.module)
	}
	for m := range strings.SplitSeq(scope, "\n") {
		if hasPathPrefix(pkg, m) {
			return true
		}
	}
	return false
}

// lineIn reports whether line is one of the lines of text.
func lineIn(text, line string) bool {
	for l := range strings.SplitSeq(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// hasPathPrefix reports whether the import path p is prefix or under it.
func hasPathPrefix(p, prefix string) bool {
	return strings.HasPrefix(p, prefix) && (len(p) == len(prefix) || p[len(prefix)] == '/')
}

// outerGoModule finds the module enclosing the workspace root when the
// root itself is a directory inside a module: it returns the root's
// package path as the module path of the root.
func (p *project) outerGoModule() goModule {
	if p.root == "" {
		return goModule{}
	}
	abs, err := filepath.Abs(p.root)
	if err != nil {
		return goModule{}
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if b, err := readAbove(d, "go.mod"); err == nil {
			rel, err := filepath.Rel(d, abs)
			if err != nil {
				return goModule{}
			}
			mod := modulePath(b)
			if mod == "std" {
				return goModule{path: filepath.ToSlash(rel)}
			}
			return goModule{path: mod + "/" + filepath.ToSlash(rel)}
		}
		if filepath.Dir(d) == d {
			return goModule{}
		}
	}
}

// modulePath returns the module directive's path of a go.mod file.
func modulePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// npmPackageOf returns the nearest package.json's name and directory.
func (p *project) npmPackageOf(dir string) npmPackage {
	if m, ok := p.npm[dir]; ok {
		return m
	}
	var m npmPackage
	if b, ok := p.read(joinRel(dir, "package.json")); ok {
		var pj struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(b, &pj) // a broken package.json names no package
		m = npmPackage{dir: dir, name: pj.Name}
		if m.name == "" {
			m.name = dir
			if dir == "" {
				m.name = "."
			}
		}
	} else if parent, ok := parentDir(dir); ok {
		m = p.npmPackageOf(parent)
	} else {
		m = npmPackage{dir: "", name: "."}
	}
	p.npm[dir] = m
	return m
}

// tsModule returns the npm package and module of a TS/JS file.
func (p *project) tsModule(file string) (pkg, module string) {
	dir := dirOf(file)
	m := p.npmPackageOf(dir)
	rel := strings.TrimPrefix(strings.TrimPrefix(stripExt(file), m.dir), "/")
	return m.name, m.name + "/" + rel
}

// pythonRoot returns the nearest directory with pyproject.toml, setup.py or
// setup.cfg, else the workspace root.
func (p *project) pythonRoot(dir string) string {
	if r, ok := p.pyRoots[dir]; ok {
		return r
	}
	r := ""
	found := false
	for _, f := range []string{"pyproject.toml", "setup.py", "setup.cfg"} {
		if _, ok := p.read(joinRel(dir, f)); ok {
			r, found = dir, true
			break
		}
	}
	if !found {
		if parent, ok := parentDir(dir); ok {
			r = p.pythonRoot(parent)
		}
	}
	p.pyRoots[dir] = r
	return r
}

// pythonModule returns the dotted module of a Python file and its package.
func (p *project) pythonModule(file string) (pkg, module string) {
	r := p.pythonRoot(dirOf(file))
	rel := strings.TrimPrefix(strings.TrimPrefix(stripExt(file), r), "/")
	rel = strings.TrimPrefix(rel, "src/")
	parts := strings.Split(rel, "/")
	isInit := parts[len(parts)-1] == "__init__"
	if isInit {
		parts = parts[:len(parts)-1]
	}
	module = strings.Join(parts, ".")
	if isInit {
		return module, module
	}
	if len(parts) > 1 {
		pkg = strings.Join(parts[:len(parts)-1], ".")
	} else {
		pkg = module
	}
	return pkg, module
}

func dirOf(file string) string {
	d := path.Dir(file)
	if d == "." {
		return ""
	}
	return d
}

func stripExt(file string) string {
	if strings.HasSuffix(file, ".d.ts") {
		return strings.TrimSuffix(file, ".d.ts")
	}
	return strings.TrimSuffix(file, path.Ext(file))
}
