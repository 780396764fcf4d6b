package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lspgraph/lspgraph/scope"
)

// scopeReport is the JSON form of `lspgraph scope`.
type scopeReport struct {
	Root     string         `json:"root"`
	Start    string         `json:"start"`
	Packages []scopePackage `json:"packages"`
	Closure  []scope.Member `json:"closure"`
	Outside  []string       `json:"outside"`
	Observed bool           `json:"observed"` // false: the graph was unavailable, only declared dependencies count
	Note     string         `json:"note,omitempty"`
	Skipped  []string       `json:"skipped,omitempty"`
}

type scopePackage struct {
	scope.Package
	Documents int `json:"documents"`
}

func runScope(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "scope", "scope [--store DIR] [--root DIR] [--json] [--with PKG,...] FILE|PACKAGE")
	var q queryFlags
	fs.StringVar(&q.store, "store", "", "graph store directory (default: the user cache directory for the root)")
	fs.StringVar(&q.root, "root", "", "workspace root (default: the git top level, else the current directory)")
	fs.BoolVar(&q.json, "json", false, "print JSON")
	with := fs.String("with", "", "comma list of extra packages to add to the closure")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: give one FILE or PACKAGE", errUsage)
	}
	root, err := workspaceRoot(ctx, q.root)
	if err != nil {
		return err
	}
	ws, err := scope.Discover(root)
	if err != nil {
		return err
	}
	rep := scopeReport{Root: root, Skipped: ws.Skipped, Observed: true}
	var a *scope.Analysis
	r, closeAll, err := openQueryReader(root, q.store)
	if err == nil {
		defer closeAll()
		if a, err = scope.Analyze(ctx, ws, r); err != nil {
			return err
		}
	} else {
		// Declared dependencies still answer; say what is missing.
		rep.Observed = false
		rep.Note = "observed dependencies unavailable: " + err.Error()
		if a, err = scope.Analyze(ctx, ws, nil); err != nil {
			return err
		}
	}
	arg := pos[0]
	start, ok := a.Resolve(arg)
	if !ok {
		rel := rootRelative(root, arg)
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil && a.Documents(a.PackageOfDocument(rel)) == 0 {
			return fmt.Errorf("%w: %q is neither a package (%s) nor a file under %s", errUsage, arg, knownPackages(a), root)
		}
		start = a.PackageOfDocument(rel)
	}
	var extra []string
	for _, x := range strings.Split(*with, ",") {
		if x = strings.TrimSpace(x); x != "" {
			extra = append(extra, x)
		}
	}
	cl, err := a.Closure(ctx, start, extra)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	rep.Start = start
	rep.Closure = cl.Members
	rep.Outside = []string{}
	for _, name := range a.Packages() {
		if !cl.Contains(name) {
			rep.Outside = append(rep.Outside, name)
		}
		p, found := ws.Package(name)
		if !found {
			p = scope.Package{Name: name, Kind: a.Kind(name)}
		}
		rep.Packages = append(rep.Packages, scopePackage{Package: p, Documents: a.Documents(name)})
	}
	if q.json {
		return writeJSON(e.stdout, rep)
	}
	return writeScopeText(e.stdout, rep)
}

// knownPackages names a few packages for messages.
func knownPackages(a *scope.Analysis) string {
	names := a.Packages()
	if len(names) > 8 {
		return strings.Join(names[:8], ", ") + fmt.Sprintf(", … %d in all", len(names))
	}
	return strings.Join(names, ", ")
}

// rootRelative maps a path argument (relative to the current directory or
// absolute) to a root-relative slash path.
func rootRelative(root, p string) string {
	abs := p
	if !filepath.IsAbs(p) {
		if _, err := os.Stat(p); err != nil {
			return filepath.ToSlash(filepath.Clean(p)) // already root-relative, or not on disk
		}
		var err error
		if abs, err = filepath.Abs(p); err != nil {
			return filepath.ToSlash(p)
		}
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

func writeScopeText(w io.Writer, rep scopeReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Workspace %s: %d packages\n", rep.Root, len(rep.Packages))
	if rep.Note != "" {
		fmt.Fprintf(&b, "(%s)\n", rep.Note)
	}
	fmt.Fprintf(&b, "\nScope of %s:\n", rep.Start)
	for _, m := range rep.Closure {
		switch {
		case m.Depth == 0 && !m.Extra:
			fmt.Fprintf(&b, "  %s (%s): the starting package\n", m.Name, m.Kind)
		case m.Extra:
			fmt.Fprintf(&b, "  %s (%s): added on request\n", m.Name, m.Kind)
		default:
			fmt.Fprintf(&b, "  %s (%s): depth %d, a dependency of %s\n", m.Name, m.Kind, m.Depth, m.Via.From)
			for _, why := range m.Via.Why {
				fmt.Fprintf(&b, "      %s\n", why)
			}
		}
	}
	if len(rep.Outside) > 0 {
		b.WriteString("\nOutside the scope:\n")
		for _, name := range rep.Outside {
			for _, p := range rep.Packages {
				if p.Name == name {
					fmt.Fprintf(&b, "  %s (%s, %d documents)\n", name, p.Kind, p.Documents)
				}
			}
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(&b, "skipped %s\n", s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
