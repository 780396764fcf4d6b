package scope

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// Kind tells what declares a workspace package.
type Kind string

const (
	KindGoModule  Kind = "go-module"  // a go.mod (Discover)
	KindGoPackage Kind = "go-package" // a directory of Go files in a module (DiscoverPackages)
	KindNPM       Kind = "npm"        // a package.json with a name
	KindPython    Kind = "python"     // a pyproject.toml with a project name and no Python packages
	KindPyPackage Kind = "py-package" // a directory of Python modules, named by its dotted import path
	KindGraph     Kind = "graph"      // no manifest: the package the graph records for documents
)

// Package is one workspace package.
type Package struct {
	Name     string `json:"name"` // Go module path, npm package name, Python project name
	Kind     Kind   `json:"kind"`
	Dir      string `json:"dir,omitempty"`      // relative to the root, forward slashes, "." for the root itself
	Manifest string `json:"manifest,omitempty"` // the file that declares it, relative to the root
	// Member names the workspace file that lists the package
	// ("go.work", "pnpm-workspace.yaml", "package.json workspaces"), if any.
	Member string `json:"member,omitempty"`
	// Module is a Go package's module path.
	Module string `json:"module,omitempty"`
	// GoPackages lists the import paths of a Go module's packages.
	GoPackages []string `json:"goPackages,omitempty"`
}

// Why is one reason for a dependency.
type Why struct {
	Observed bool   `json:"observed"` // true: seen in the graph; false: declared in a file
	File     string `json:"file"`     // the declaring file or the referencing document, relative to the root
	Line     int    `json:"line"`     // 1-based; 0 when unknown
	Detail   string `json:"detail"`   // "require example.com/pricing => ../pricing", "references `quote`", …
}

// String renders the reason for people: "declared in billing/go.mod:5: require …".
func (w Why) String() string {
	loc := w.File
	if w.Line > 0 {
		loc = fmt.Sprintf("%s:%d", w.File, w.Line)
	}
	if w.Observed {
		return fmt.Sprintf("observed at %s: %s", loc, w.Detail)
	}
	return fmt.Sprintf("declared in %s: %s", loc, w.Detail)
}

// Dep is a dependency between two workspace packages with its reasons.
type Dep struct {
	From string `json:"from"`
	To   string `json:"to"`
	Why  []Why  `json:"why"`
}

// maxWhy bounds the reasons kept per dependency; the first ones (in file
// order) are the most useful, the rest only repeat them.
const maxWhy = 3

// Workspace is what Discover found under a root.
type Workspace struct {
	Root     string    // absolute
	Packages []Package // sorted by Dir, then Name
	// deps[from][to] lists the declared reasons.
	deps map[string]map[string][]Why
	// byPackage: Go and Python packages are the units (DiscoverPackages).
	byPackage bool
	// goExcluded holds the Go files the build leaves out on this platform:
	// neither their imports nor their references make dependencies.
	goExcluded map[string]bool
	// Skipped lists manifests that could not be read or parsed, with the reason.
	Skipped []string
	// fs reads the manifests and sources during Discover.
	fs *rootfs.Root
	// src reads the sources during Discover, through a SourceCache.
	src *sourceReads
	// byDir lists the packages of each directory by their place in
	// Packages, in order.
	byDir map[string][]int
	// declared maps a package's kind and name to its place in Packages
	// while Discover adds them.
	declared map[string]int
}

// discovered reports whether discovery reads or lists a file: a manifest
// or a Go, TypeScript or Python source.
func discovered(rel string) bool {
	switch name := path.Base(rel); name {
	case "go.mod", "package.json", "tsconfig.json", "pyproject.toml":
		return true
	case "go.work", "pnpm-workspace.yaml":
		return rel == name
	default:
		l := lang.Of(name)
		return l == "go" || l == "python" || isTSFile(name)
	}
}

// compareWalkOrder orders root-relative paths as a walk by directory
// lists them: component by component.
func compareWalkOrder(a, b string) int {
	for a != "" && b != "" {
		i, j := strings.IndexByte(a, '/'), strings.IndexByte(b, '/')
		ca, cb := a, b
		if i >= 0 {
			ca, a = a[:i], a[i+1:]
		} else {
			a = ""
		}
		if j >= 0 {
			cb, b = b[:j], b[j+1:]
		} else {
			b = ""
		}
		if c := strings.Compare(ca, cb); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

// SkipDir reports whether discovery leaves a directory of this name out
// (below the root), with everything below it.
func SkipDir(name string) bool {
	switch name {
	case "node_modules", "vendor", "testdata", "dist", "build", "__pycache__", "venv", "site-packages":
		return true
	}
	return strings.HasPrefix(name, ".")
}

// Discover reads the package manifests under root, with a Go module and
// a Python project as one package each: the units a context pack's
// closure is made of.
func Discover(root string) (*Workspace, error) { return discover(root, false, nil) }

// DiscoverPackages reads the manifests and sources under root, with each
// Go package and each Python package as a package of its own: the units
// `lspgraph scope` answers with.
func DiscoverPackages(root string) (*Workspace, error) { return discover(root, true, nil) }

func discover(root string, byPackage bool, cache *SourceCache) (*Workspace, error) {
	abs, fsys, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	files, err := walkListed(fsys)
	if err != nil {
		return nil, err
	}
	return discoverListed(abs, fsys, byPackage, cache, files), nil
}

// openRoot opens root for discovery.
func openRoot(root string) (string, *rootfs.Root, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", nil, fmt.Errorf("scope: resolving root %q: %w", root, err)
	}
	fsys, err := rootfs.Open(abs)
	if err != nil {
		return "", nil, fmt.Errorf("scope: %w", err)
	}
	return abs, fsys, nil
}

// listedFile is a file discovery reads or lists (see discovered), with
// the stamp the listing saw.
type listedFile struct {
	rel   string
	stamp rootfs.Stamp
}

// walkListed lists the files discovery reads or lists under the root, in
// the order of a walk by directory (a directory's files before those of
// a sibling whose name it prefixes), which the reasons kept per
// dependency follow: regular files only (a link may lead outside the
// root), in no directory skipDir leaves out.
func walkListed(fsys *rootfs.Root) ([]listedFile, error) {
	walked, err := fsys.Walk(context.Background(), rootfs.WalkOptions{
		Workers: runtime.GOMAXPROCS(0),
		Enter: func(rel string, _ []rootfs.DirEntry) bool {
			return rel == "." || !SkipDir(path.Base(rel))
		},
		Keep: func(rel string, typ fs.FileMode) bool {
			return typ.IsRegular() && discovered(rel)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("scope: walking %s: %w", fsys.Dir(), err)
	}
	files := make([]listedFile, 0, len(walked))
	for _, f := range walked {
		if f.Err == nil { // else gone since its directory was read
			files = append(files, listedFile{f.Path, rootfs.StampOf(f.Info)})
		}
	}
	slices.SortFunc(files, func(a, b listedFile) int { return compareWalkOrder(a.rel, b.rel) })
	return files, nil
}

// discoverListed discovers the workspace at abs made of files (from
// walkListed), reading through fsys and cache (nil: none).
func discoverListed(abs string, fsys *rootfs.Root, byPackage bool, cache *SourceCache, files []listedFile) *Workspace {
	w := &Workspace{Root: abs, deps: map[string]map[string][]Why{}, goExcluded: map[string]bool{}, byPackage: byPackage, fs: fsys}
	defer func() { w.fs, w.src = nil, nil }()
	w.src = cache.reads(abs, files)
	var goMods, goFiles, pkgJSONs, tsconfigs, tsFiles, pyprojects, pyFiles []string
	var goWork, pnpmWS string
	for _, f := range files {
		rel, name := f.rel, path.Base(f.rel)
		switch {
		case name == "go.mod":
			goMods = append(goMods, rel)
		case name == "go.work" && rel == "go.work":
			goWork = rel
		case name == "package.json":
			pkgJSONs = append(pkgJSONs, rel)
		case name == "pnpm-workspace.yaml" && rel == name:
			pnpmWS = rel
		case name == "tsconfig.json":
			tsconfigs = append(tsconfigs, rel)
		case name == "pyproject.toml":
			pyprojects = append(pyprojects, rel)
		case lang.Of(name) == "go":
			goFiles = append(goFiles, rel)
		case isTSFile(name):
			tsFiles = append(tsFiles, rel)
		case lang.Of(name) == "python":
			pyFiles = append(pyFiles, rel)
		}
	}
	if byPackage {
		w.discoverGo(goMods, goWork, goFiles)
	} else {
		w.discoverGoModules(goMods, goWork, goFiles)
		pyFiles = nil // a project is one package
	}
	w.discoverNPM(pkgJSONs, pnpmWS, tsconfigs, tsFiles)
	w.discoverPython(pyprojects, pyFiles)
	cache.keep(w.src)
	sort.Slice(w.Packages, func(i, j int) bool {
		if w.Packages[i].Dir != w.Packages[j].Dir {
			return w.Packages[i].Dir < w.Packages[j].Dir
		}
		return w.Packages[i].Name < w.Packages[j].Name
	})
	w.byDir, w.declared = nil, nil
	for i := range w.Packages {
		w.indexDir(i)
	}
	return w
}

func (w *Workspace) readFile(rel string) ([]byte, bool) {
	b, err := w.fs.ReadFile(rel)
	if err != nil {
		w.Skipped = append(w.Skipped, fmt.Sprintf("%s: %v", rel, err))
		return nil, false
	}
	return b, true
}

func (w *Workspace) addPackage(p Package) {
	key := string(p.Kind) + "\x00" + p.Name
	if i, dup := w.declared[key]; dup {
		w.Skipped = append(w.Skipped, fmt.Sprintf("%s: package %q is already declared by %s", p.Manifest, p.Name, w.Packages[i].Manifest))
		return
	}
	if w.declared == nil {
		w.declared = map[string]int{}
	}
	w.declared[key] = len(w.Packages)
	w.Packages = append(w.Packages, p)
	w.indexDir(len(w.Packages) - 1)
}

// indexDir notes the directory of the i-th package in byDir.
func (w *Workspace) indexDir(i int) {
	if w.byDir == nil {
		w.byDir = map[string][]int{}
	}
	d := w.Packages[i].Dir
	w.byDir[d] = append(w.byDir[d], i)
}

func (w *Workspace) addDep(from, to string, why Why) {
	if from == to || from == "" || to == "" {
		return
	}
	m := w.deps[from]
	if m == nil {
		m = map[string][]Why{}
		w.deps[from] = m
	}
	if len(m[to]) < maxWhy {
		m[to] = append(m[to], why)
	}
}

// Package returns the package with that name.
func (w *Workspace) Package(name string) (Package, bool) {
	for _, p := range w.Packages {
		if p.Name == name {
			return p, true
		}
	}
	return Package{}, false
}

// Lookup finds a package by name, by directory, or (for a Go module) by
// the import path of one of its Go packages.
func (w *Workspace) Lookup(s string) (Package, bool) {
	if p, ok := w.Package(s); ok {
		return p, true
	}
	dir := strings.TrimSuffix(path.Clean(filepath.ToSlash(s)), "/")
	for _, p := range w.Packages {
		if p.Dir == dir {
			return p, true
		}
		for _, gp := range p.GoPackages {
			if gp == s {
				return p, true
			}
		}
	}
	return Package{}, false
}

// PackageOf returns the package of a root-relative path: the Go package of
// its directory, else the package whose directory is the longest prefix.
func (w *Workspace) PackageOf(rel string) (Package, bool) {
	return w.packageOfDir(path.Dir(rel))
}

func (w *Workspace) packageOfDir(dir string) (Package, bool) {
	// The packages of dir, then of each directory up from it: the first
	// one that may hold dir's files is the one with the longest prefix.
	// A directory's Go or Python modules are its own package's only.
	d := dir
	for {
		for _, i := range w.byDir[d] {
			if p := w.Packages[i]; d == dir || (p.Kind != KindGoPackage && p.Kind != KindPyPackage) {
				return p, true
			}
		}
		if d == "." || d == "/" || d == "" {
			break
		}
		d = path.Dir(d)
	}
	if d != "." { // not below the root: the root's package holds it still
		for _, i := range w.byDir["."] {
			if p := w.Packages[i]; p.Kind != KindGoPackage && p.Kind != KindPyPackage {
				return p, true
			}
		}
	}
	return Package{}, false
}

// dirContains reports whether dir is parent or equal to sub (both clean, slash-separated).
func dirContains(parent, sub string) bool {
	if parent == "." || parent == sub {
		return true
	}
	return len(sub) > len(parent) && sub[len(parent)] == '/' && strings.HasPrefix(sub, parent)
}

// Declared returns every declared dependency, sorted.
func (w *Workspace) Declared() []Dep {
	return flattenDeps(w.deps)
}

func flattenDeps(m map[string]map[string][]Why) []Dep {
	var out []Dep
	for from, tos := range m {
		for to, why := range tos {
			out = append(out, Dep{From: from, To: to, Why: why})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out
}

// relJoin joins a relative reference (like "../pricing") to a root-relative
// directory and reports whether the result stays inside the root.
func relJoin(dir, ref string) (string, bool) {
	if filepath.IsAbs(ref) || strings.HasPrefix(ref, "/") {
		return "", false
	}
	p := path.Clean(path.Join(dir, filepath.ToSlash(ref)))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}
