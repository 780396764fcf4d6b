package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/overlay"
)

func runChanges(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "changes", "changes [--store DIR] [--root DIR] [--base REV] [--staged] [--depth N] [--min-confidence X] [--kinds a,b] [--no-tests] [--limit N] [--json] [--format text|markdown]\n\n"+
		"Maps `git diff BASE` (the work tree, or the index with --staged; untracked files count as added)\nto the symbols whose definitions the changed lines touch, and shows their combined impact.")
	var f impactFlags
	f.register(fs, false)
	base := fs.String("base", "", "compare with `REV` (default: the commit the graph's base index was built from, else HEAD)")
	staged := fs.Bool("staged", false, "compare the index (staged changes) instead of the work tree")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		fs.Usage()
		return fmt.Errorf("%w: changes takes no arguments, got %q", errUsage, pos)
	}
	o, err := f.options()
	if err != nil {
		return err
	}
	root, err := workspaceRoot(ctx, f.root)
	if err != nil {
		return err
	}
	a, err := computeChanges(ctx, root, f.store, *base, *staged, o)
	if err != nil {
		return err
	}
	return writeChangesAnswer(e.stdout, a, f.json, f.format)
}

// computeChanges opens the store, brings the live layer up to date with
// the work tree and answers for the diff against base.
func computeChanges(ctx context.Context, root, storeFlag, base string, staged bool, o impact.Options) (*impact.Answer, error) {
	st, err := openQueryStore(root, storeFlag, false)
	readOnly := false
	if errors.Is(err, graph.ErrLocked) {
		// An editor's proxy holds the store and keeps its live layer up
		// to date: read what it has.
		if st, err = openQueryStore(root, storeFlag, true); err != nil {
			return nil, err
		}
		readOnly = true
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var notes []string
	oldR, err := st.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading the store %s: %w", st.Dir(), err)
	}
	m, haveBase, err := oldR.Manifest(graph.Base)
	if err != nil {
		oldR.Close()
		return nil, fmt.Errorf("reading the base manifest: %w", err)
	}
	if base == "" {
		base = "HEAD"
		if haveBase && m.Commit != "" {
			base = m.Commit
		}
	}
	if haveBase && m.Commit != "" && !sameRev(ctx, root, base, m.Commit) {
		notes = append(notes, fmt.Sprintf("--base %s is not the commit the base index was built from (%s): old line numbers are matched against that index", base, impactShortRev(m.Commit)))
	}
	files, err := gitChanges(ctx, root, base, staged)
	if err != nil {
		oldR.Close()
		return nil, err
	}
	newR := oldR
	if !readOnly {
		// The old side must see base facts: documents the live layer owns
		// hide them, so give changed ones back before syncing again.
		if ownsAny(oldR, files) {
			oldR.Close()
			if err := st.ClearLayer(ctx, graph.Live); err != nil {
				return nil, fmt.Errorf("resetting the live layer: %w", err)
			}
			if err := os.Remove(filepath.Join(st.Dir(), overlay.StateFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("resetting the overlay record: %w", err)
			}
			if oldR, err = st.Reader(); err != nil {
				return nil, fmt.Errorf("reading the store %s: %w", st.Dir(), err)
			}
		}
		if _, err := overlay.Sync(ctx, st, root); err != nil {
			notes = append(notes, fmt.Sprintf("the live layer could not be brought up to date (%v): symbols added in changed files are unknown", err))
		} else if newR, err = st.Reader(); err != nil {
			oldR.Close()
			return nil, fmt.Errorf("reading the store %s: %w", st.Dir(), err)
		}
		if staged {
			notes = append(notes, "--staged: the live layer reflects the work tree, which may differ from the index")
		}
	}
	defer oldR.Close()
	if newR != oldR {
		defer newR.Close()
	}
	fb, err := freshness.Compute(ctx, newR, root)
	if err != nil {
		return nil, err
	}
	o.Freshness = &fb
	a, err := impact.Changes(ctx, impact.ChangeInput{Files: files, Old: oldR, New: newR}, o)
	if err != nil {
		return nil, err
	}
	if len(notes) > 0 {
		a.Partial = true
		a.PartialReasons = append(a.PartialReasons, notes...)
	}
	return a, nil
}

// ownsAny reports whether the live layer owns one of the changed paths.
func ownsAny(r *graph.Reader, files []impact.FileChange) bool {
	live := map[string]bool{}
	for _, p := range r.LiveDocuments() {
		live[p] = true
	}
	for _, f := range files {
		if live[f.OldPath] || live[f.Path] {
			return true
		}
	}
	return false
}

// sameRev reports whether two revisions name the same commit.
func sameRev(ctx context.Context, root, a, b string) bool {
	ra, err1 := gitOutput(ctx, root, "rev-parse", "--verify", "--quiet", a+"^{commit}")
	rb, err2 := gitOutput(ctx, root, "rev-parse", "--verify", "--quiet", b+"^{commit}")
	return err1 == nil && err2 == nil && strings.TrimSpace(string(ra)) == strings.TrimSpace(string(rb))
}

// gitChanges lists the changed files and lines between base and the work
// tree (or the index), renames followed, untracked files as added.
func gitChanges(ctx context.Context, root, base string, staged bool) ([]impact.FileChange, error) {
	args := []string{"diff", "-U0", "-M", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/"}
	if staged {
		args = append(args, "--cached")
	}
	args = append(args, base, "--")
	out, err := gitOutput(ctx, root, args...)
	if err != nil {
		return nil, fmt.Errorf("listing changes since %s: %w", base, err)
	}
	files, err := impact.ParseUnifiedDiff(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("reading the diff since %s: %w", base, err)
	}
	if staged {
		return files, nil
	}
	out, err = gitOutput(ctx, root, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, fmt.Errorf("listing untracked files: %w", err)
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			continue // vanished or unreadable: nothing to map
		}
		n := bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
		fc := impact.FileChange{Status: "A", Path: p}
		if n > 0 {
			fc.Added = []impact.LineRange{{Start: 1, End: n}}
		}
		files = append(files, fc)
	}
	return files, nil
}

// gitOutput runs git in root and returns its standard output; the error
// carries git's standard error.
func gitOutput(ctx context.Context, root string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out, nil
}

// writeChangesAnswer prints the changed symbols, then their impact.
func writeChangesAnswer(w io.Writer, a *impact.Answer, asJSON bool, format string) error {
	if asJSON {
		return writeJSON(w, a)
	}
	var b strings.Builder
	if format == "markdown" {
		fmt.Fprintf(&b, "#### Changed symbols (%d in %d files)\n\n", len(a.Changes), len(a.Files))
		if len(a.Changes) > 0 {
			b.WriteString("| change | symbol | kind | location |\n|---|---|---|---|\n")
			for _, c := range a.Changes {
				fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", c.Change, impactMD(c.Name), c.Kind, changeLoc(c, "`"))
			}
		}
		b.WriteString("\n")
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		return writeImpactMarkdown(w, a)
	}
	fmt.Fprintf(&b, "changed files (%d)\n", len(a.Files))
	for _, f := range a.Files {
		p := f.Path
		if f.Status == "R" {
			p = f.OldPath + " -> " + f.Path
		} else if p == "" {
			p = f.OldPath
		}
		fmt.Fprintf(&b, "  %s %s\n", f.Status, p)
	}
	fmt.Fprintf(&b, "changed symbols (%d)\n", len(a.Changes))
	for _, c := range a.Changes {
		fmt.Fprintf(&b, "  %-8s %s (%s) %s\n", c.Change, c.Name, c.Kind, changeLoc(c, ""))
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeImpactText(w, a)
}

// changeLoc renders where a changed symbol is, and where it was.
func changeLoc(c impact.ChangedSymbol, quote string) string {
	var parts []string
	if c.Location != nil {
		parts = append(parts, quote+impactLoc(*c.Location)+quote)
	}
	if c.OldLocation != nil && (c.Location == nil || c.OldLocation.Path != c.Location.Path || c.Change != impact.ChangeModified) {
		parts = append(parts, "was "+quote+impactLoc(*c.OldLocation)+quote)
	}
	return strings.Join(parts, " ")
}
