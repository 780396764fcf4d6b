package freshness

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// FarChanges is the number of changed documents beyond which HEAD counts as
// far from the base: the live layer's syntax facts would then stand in for
// too much of the graph, and a fresh base (`lspgraph scip import` or
// `lspgraph index`) is needed.
const FarChanges = 200

// Digest prefixes that the overlay writes into live documents'
// [graph.Document].Digest, so that any reader can tell what a live document
// was derived from.
const (
	// DigestDisk + [lang.HashContent] of the file on disk.
	DigestDisk = "disk:"
	// DigestBuffer + [lang.HashContent] of an unsaved editor buffer.
	DigestBuffer = "buffer:"
	// DigestDeleted marks a tombstone: the document is gone from the work
	// tree, so the live layer owns it with no facts and hides its base facts.
	DigestDeleted = "deleted"
)

// Block is the freshness of an answer: which commit the base layer was built
// from, where the work tree is now, and which documents were answered from
// the live layer. It travels with every answer.
type Block struct {
	BaseCommit      string `json:"baseCommit"`
	BaseTool        string `json:"baseTool,omitempty"`
	BaseToolVersion string `json:"baseToolVersion,omitempty"`
	BaseState       string `json:"baseState,omitempty"`
	Head            string `json:"head"`
	// Changed lists the documents changed since the base commit, work tree
	// included.
	Changed []string `json:"changed"`
	// Live lists the documents the live layer owns (answered from the
	// overlay or from the language server's observations).
	Live []string `json:"live"`
	// Dirty lists unsaved editor buffers.
	Dirty   []string `json:"dirty"`
	Partial bool     `json:"partial"`
	// Reasons says, in words, why the answer may be partial and what to run.
	Reasons []string `json:"reasons,omitempty"`
	// Notes says what lowers confidence without making the answer partial
	// (documents answered from syntax instead of a precise index).
	Notes []string `json:"notes,omitempty"`
}

// lockfiles are dependency manifests: when one changes, packages outside the
// changed documents may resolve differently, so the base no longer holds.
var lockfiles = map[string]bool{
	"go.mod": true, "go.sum": true, "go.work": true, "go.work.sum": true,
	"package.json": true, "package-lock.json": true, "pnpm-lock.yaml": true,
	"pnpm-workspace.yaml": true, "yarn.lock": true, "bun.lockb": true,
	"pyproject.toml": true, "poetry.lock": true, "uv.lock": true,
	"Pipfile.lock": true, "setup.py": true, "setup.cfg": true,
}

// IsDependencyManifest reports whether a document declares dependencies
// (go.mod, package.json, a lockfile, pyproject.toml, requirements*.txt).
func IsDependencyManifest(p string) bool {
	base := path.Base(p)
	if lockfiles[base] {
		return true
	}
	return strings.HasPrefix(base, "requirements") && strings.HasSuffix(base, ".txt")
}

// Compute builds the freshness block of the graph r reads, for the
// workspace at root. Conditions that make answers partial are reported in
// the block, not as errors; an error means the store could not be read.
func Compute(ctx context.Context, r *graph.Reader, root string) (Block, error) {
	return ComputeWith(ctx, r, root, nil)
}

// ComputeWith is Compute with a look at the work tree already taken (Look
// with the base layer's commit); nil takes one.
func ComputeWith(ctx context.Context, r *graph.Reader, root string, w *WorkTree) (Block, error) {
	var b Block
	base, haveBase, err := r.Manifest(graph.Base)
	if err != nil {
		return b, fmt.Errorf("freshness: reading the base manifest: %w", err)
	}
	live := map[string]graph.Document{}
	for _, p := range r.LiveDocuments() {
		d, ok, err := r.Document(ctx, p)
		if err != nil {
			return b, fmt.Errorf("freshness: reading live document %s: %w", p, err)
		}
		if !ok || d.Layer != graph.Live {
			continue
		}
		live[d.Path] = d
		b.Live = append(b.Live, d.Path)
		if strings.HasPrefix(d.Digest, DigestBuffer) {
			b.Dirty = append(b.Dirty, d.Path)
		}
	}
	if w == nil || (haveBase && w.Base != base.Commit) {
		commit := ""
		if haveBase {
			commit = base.Commit
		}
		if w, err = Look(ctx, root, commit); err != nil {
			return b, fmt.Errorf("freshness: reading the state of %s: %w", root, err)
		}
	}
	b.Head = w.Head
	if !haveBase {
		b.Partial = true
		b.Reasons = append(b.Reasons, "no base layer: run `lspgraph scip import INDEX.scip` or `lspgraph index`")
		return b, nil
	}
	b.BaseCommit = base.Commit
	b.BaseTool = base.Tool
	b.BaseToolVersion = base.ToolVersion
	b.BaseState = string(base.State)
	if base.State == graph.StatePartial {
		b.Partial = true
		b.Reasons = append(b.Reasons, fmt.Sprintf("the base layer from %s is partial (the import or index did not finish): run it again", toolName(base)))
	}
	if !w.Git {
		b.Partial = true
		b.Reasons = append(b.Reasons, fmt.Sprintf("%s is not a git work tree: documents changed since the base cannot be listed", root))
		return b, nil
	}
	if base.Commit == "" {
		b.Partial = true
		b.Reasons = append(b.Reasons, "the base layer records no commit: documents changed since it cannot be listed; rebuild it inside the git work tree")
		return b, nil
	}
	if errors.Is(w.BaseErr, ErrUnknownBase) {
		b.Partial = true
		b.Reasons = append(b.Reasons, fmt.Sprintf("base commit %s is not in this repository: fetch it, or rebuild the base with `lspgraph scip import` or `lspgraph index`", short(base.Commit)))
		return b, nil
	}
	// A root that cannot be opened reads nothing: its changed documents
	// count as uncovered.
	fsys, _ := rootfs.Open(root)
	defer fsys.Close()
	bv := r.BaseView()
	b.addChanges(fsys, base.Commit, w.Changes, live, func(p string) (graph.Document, bool) {
		d, ok, err := bv.Document(ctx, p)
		return d, ok && err == nil
	})
	return b, nil
}

// addChanges records the changed documents and the reasons they give,
// reading the work tree through fsys: live holds the live layer's
// documents, base (nil: none) finds a base document.
func (b *Block) addChanges(fsys *rootfs.Root, baseCommit string, changes []Change, live map[string]graph.Document, base func(path string) (graph.Document, bool)) {
	var manifests, uncovered []string
	fromSyntax := 0
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			b.Changed = append(b.Changed, p)
		}
	}
	for _, c := range changes {
		add(c.Path)
		if c.OldPath != "" {
			add(c.OldPath)
			if !covered(fsys, c.OldPath, true, live, base) {
				uncovered = append(uncovered, c.OldPath)
			}
		}
		if IsDependencyManifest(c.Path) {
			manifests = append(manifests, c.Path)
		}
		if !covered(fsys, c.Path, c.Status == "D" || isLink(fsys, c.Path), live, base) {
			uncovered = append(uncovered, c.Path)
		} else if d := live[c.Path]; d.Source == graph.SourceSyntax {
			fromSyntax++
		}
	}
	sort.Strings(b.Changed)
	if n := len(b.Changed); n > FarChanges {
		b.Partial = true
		b.Reasons = append(b.Reasons, fmt.Sprintf("HEAD moved %d files from the base %s (more than %d): run `lspgraph scip import` or `lspgraph index`", n, short(baseCommit), FarChanges))
	}
	if len(manifests) > 0 {
		sort.Strings(manifests)
		b.Partial = true
		b.Reasons = append(b.Reasons, fmt.Sprintf("dependencies changed since the base %s (%s): run `lspgraph scip import` or `lspgraph index`", short(baseCommit), strings.Join(manifests, ", ")))
	}
	for p, d := range live {
		if seen[p] || !strings.HasPrefix(d.Digest, DigestDisk) {
			continue
		}
		// A live document derived from a file that no longer differs
		// from the base, or has changed again since.
		text, err := fsys.ReadFile(p)
		if err != nil || d.Digest != DigestDisk+lang.HashContent(text) {
			uncovered = append(uncovered, p)
		}
	}
	if len(uncovered) > 0 {
		sort.Strings(uncovered)
		b.Partial = true
		b.Reasons = append(b.Reasons, fmt.Sprintf("%s changed since base %s %s answered from stale facts (%s): the overlay brings them up to date on the next sync",
			plural(len(uncovered), "document"), short(baseCommit), isAre(len(uncovered)), listSome(uncovered, 5)))
	}
	if fromSyntax > 0 {
		b.Notes = append(b.Notes, fmt.Sprintf("%s changed since base %s %s answered from syntax (name-based, lower confidence)", plural(fromSyntax, "document"), short(baseCommit), isAre(fromSyntax)))
	}
}

// IndexedAsIs reports whether base document d was extracted by syntax
// from the text whose hash it records: a syntax index of the work tree
// reads each file as it is, so that a file changed since the base commit
// but not since the index is answered for by the base as the overlay
// would answer for it. A precise base's documents describe their commit.
func IndexedAsIs(d graph.Document) bool {
	return d.Source == graph.SourceSyntax && d.ContentHash != "" && d.Layer == graph.Base
}

// isLink reports whether a changed path is a symbolic link (leading inside
// the root or out of it). The overlay hides it like a deleted file: a link
// inside is indexed under its target's own path, one outside never read.
func isLink(fsys *rootfs.Root, p string) bool {
	real, err := fsys.RealPath(p)
	return errors.Is(err, rootfs.ErrOutside) || err == nil && real != p
}

// covered reports whether the graph answers for a changed document as it
// is now: the live layer with a tombstone for a deleted one, facts derived
// from the current text (or from an editor buffer, or from the language
// server) otherwise; or the base layer, a syntax index of the work tree
// extracted from the current text (IndexedAsIs).
func covered(fsys *rootfs.Root, p string, deleted bool, live map[string]graph.Document, base func(string) (graph.Document, bool)) bool {
	d, ok := live[p]
	if !ok {
		if deleted || base == nil {
			return false
		}
		bd, ok := base(p)
		if !ok || !IndexedAsIs(bd) {
			return false
		}
		text, err := fsys.ReadFile(p)
		return err == nil && bd.ContentHash == lang.HashContent(text)
	}
	if deleted {
		return d.Digest == DigestDeleted || d.Source == graph.SourceLSP || strings.HasPrefix(d.Digest, DigestBuffer)
	}
	switch {
	case strings.HasPrefix(d.Digest, DigestBuffer), d.Source == graph.SourceLSP:
		return true
	case strings.HasPrefix(d.Digest, DigestDisk):
		text, err := fsys.ReadFile(p)
		return err == nil && d.Digest == DigestDisk+lang.HashContent(text)
	}
	return false
}

func toolName(m graph.Manifest) string {
	if m.Tool == "" {
		return "an unknown tool"
	}
	return m.Tool
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// listSome names up to n items and counts the rest.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
