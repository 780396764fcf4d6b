package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lspgraph/lspgraph/workspace"
)

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
		return fmt.Errorf("%w: give one FILE or PACKAGE", errUsage)
	}
	root, err := workspaceRoot(ctx, q.root)
	if err != nil {
		return err
	}
	req := workspace.ScopeRequest{Target: rootRelative(root, pos[0])}
	for _, x := range strings.Split(*with, ",") {
		if x = strings.TrimSpace(x); x != "" {
			req.With = append(req.With, x)
		}
	}
	rep, err := scopeOf(ctx, e, root, q.store, req)
	if errors.Is(err, workspace.ErrBadTarget) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err != nil {
		return err
	}
	if q.json {
		return writeJSON(e.stdout, rep)
	}
	return writeScopeText(e.stdout, *rep)
}

// scopeOf asks the session for a scope; without a store, the declared
// dependencies still answer.
func scopeOf(ctx context.Context, e *env, root, storeFlag string, req workspace.ScopeRequest) (*workspace.ScopeReport, error) {
	var rep workspace.ScopeReport
	err := askSession(ctx, e, "cli", root, storeFlag, workspace.CommandScope, req, &rep, true)
	if err == nil || errors.Is(err, workspace.ErrBadTarget) || strings.Contains(err.Error(), workspace.ErrBadTarget.Error()) {
		if err != nil {
			return nil, fmt.Errorf("%w: %v", workspace.ErrBadTarget, strings.TrimPrefix(err.Error(), workspace.ErrBadTarget.Error()+": "))
		}
		return &rep, nil
	}
	// Declared dependencies still answer; say what is missing.
	out, serr := workspace.Scope(ctx, root, nil, req)
	if serr != nil {
		return nil, serr
	}
	out.Note = "observed dependencies unavailable: " + err.Error()
	return out, nil
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

func writeScopeText(w io.Writer, rep workspace.ScopeReport) error {
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
