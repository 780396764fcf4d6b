package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
)

// ChangesRequest is lspgraph.changes's argument: the revision to compare
// with, the index instead of the work tree, and the impact options.
type ChangesRequest struct {
	// Base is the revision (default: the base index's commit, else HEAD).
	Base string `json:"base,omitempty"`
	// Staged compares the index (staged changes) instead of the work tree.
	Staged bool `json:"staged,omitempty"`
	ImpactRequest
}

// changesCommand answers lspgraph.changes: the overlay is synced with the
// work tree and the buffers, then the git diff since the base (with each
// dirty buffer's lines in place of its file's) is mapped to symbols.
func (s *Session) changesCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, `{"base": REV}`)
	if err != nil {
		return nil, err
	}
	var req ChangesRequest
	if string(arg) != "null" {
		if err := json.Unmarshal(arg, &req); err != nil {
			return nil, fmt.Errorf("argument %s is not {\"base\": REV}: %w", arg, err)
		}
	}
	o, err := req.Options()
	if err != nil {
		return nil, err
	}
	// The buffers first: every edit they show has been handed to the
	// overlay, so the sync below extracts them (or newer edits).
	dirty := s.buffers.dirtyTexts()
	if req.Staged {
		dirty = nil // the index, not what the editor shows
	}
	var notes []string
	w := s.look(ctx)
	if s.ov == nil {
		notes = append(notes, "the overlay is not running: symbols added in changed files and unsaved buffers are unknown")
	} else if _, err := s.ov.SyncWith(ctx, w); err != nil {
		notes = append(notes, fmt.Sprintf("the live layer could not be brought up to date (%v): symbols added in changed files are unknown", err))
	}
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	m, haveBase, err := r.Manifest(graph.Base)
	if err != nil {
		return nil, fmt.Errorf("reading the base manifest: %w", err)
	}
	base := req.Base
	if base == "" {
		base = "HEAD"
		if haveBase && m.Commit != "" {
			base = m.Commit
		}
	} else if haveBase && m.Commit != "" && !sameRev(ctx, s.root, base, m.Commit) {
		notes = append(notes, fmt.Sprintf("base %s is not the commit the base index was built from (%s): old line numbers are matched against that index", base, shortRev(m.Commit)))
	}
	files, err := s.diffs.changes(ctx, s.root, w, base, req.Staged)
	if err != nil {
		return nil, err
	}
	if files, err = s.withBuffers(ctx, base, files, dirty); err != nil {
		return nil, err
	}
	if req.Staged {
		notes = append(notes, "staged: the live layer reflects the work tree, which may differ from the index")
	}
	fb, err := s.freshness(ctx, r, w)
	if err != nil {
		return nil, err
	}
	o.Freshness = &fb
	// The old side is the base as indexed (the live layer hides the
	// base facts of the documents it owns); the new side is the graph
	// with the work tree and the buffers.
	a, err := impact.Changes(ctx, impact.ChangeInput{Files: files, Old: r.BaseView(), New: r}, o)
	if err != nil {
		return nil, err
	}
	if len(notes) > 0 {
		a.Partial = true
		a.PartialReasons = append(a.PartialReasons, notes...)
	}
	return a, nil
}

// withBuffers puts each dirty buffer's changed lines in place of its
// file's: the buffer is compared with the file's text at base (which is
// the file on disk when only the buffer changed), so that the lines match
// the facts the overlay extracted from the buffer.
func (s *Session) withBuffers(ctx context.Context, base string, files []impact.FileChange, dirty []openBuffer) ([]impact.FileChange, error) {
	out := slices.Clone(files)
	for _, b := range dirty {
		i := slices.IndexFunc(out, func(f impact.FileChange) bool {
			return f.Path == b.path || f.Status == "D" && f.OldPath == b.path
		})
		fc := impact.FileChange{Status: "M", Path: b.path, OldPath: b.path}
		if i >= 0 {
			switch prev := out[i]; prev.Status {
			case "A":
				fc.Status, fc.OldPath = "A", ""
			case "R":
				fc.Status, fc.OldPath = "R", prev.OldPath
			}
		}
		var old []byte
		if fc.OldPath != "" {
			t, err := gitOutput(ctx, s.root, "show", base+":./"+fc.OldPath)
			if err != nil {
				fc.Status, fc.OldPath = "A", "" // not in the base commit
			} else {
				old = t
			}
		}
		fc.Added, fc.Removed = changedLines(old, b.text)
		if fc.Status == "A" {
			fc.Removed = nil
			if n := len(splitLines(b.text)); n > 0 {
				fc.Added = []impact.LineRange{{Start: 1, End: n}}
			} else {
				fc.Added = nil
			}
		}
		unchanged := fc.Status == "M" && len(fc.Added) == 0 && len(fc.Removed) == 0
		switch {
		case i >= 0 && unchanged:
			out = slices.Delete(out, i, i+1) // the buffer undoes the file's changes
		case i >= 0:
			out[i] = fc
		case !unchanged:
			out = append(out, fc)
		}
	}
	return out, nil
}

// keptDiff keeps the last changed files and lines gitChanges listed, for
// as long as the session's look at the work tree is the same one: the
// watcher hands back its last look while it saw nothing change (no file,
// no HEAD, index or branch), so the diff against an immutable base (a
// commit id) is the same too. On four GOROOT copies in git each
// lspgraph.changes ran git diff and git ls-files over the whole tree,
// 170-190 ms through serve.
type keptDiff struct {
	mu     sync.Mutex
	w      *freshness.WorkTree
	base   string
	staged bool
	files  []impact.FileChange
}

// changes returns gitChanges(ctx, root, base, staged), kept while w (the
// session's look, nil for none) is the look it was listed at and base is
// a commit id. The caller does not change what it returns.
func (k *keptDiff) changes(ctx context.Context, root string, w *freshness.WorkTree, base string, staged bool) ([]impact.FileChange, error) {
	keep := w != nil && isCommitID(base)
	k.mu.Lock()
	if keep && k.w == w && k.base == base && k.staged == staged {
		files := k.files
		k.mu.Unlock()
		return files, nil
	}
	k.mu.Unlock()
	var files []impact.FileChange
	looked := false
	var err error
	if !staged {
		files, looked, err = changesFromLook(ctx, root, w, base)
	}
	if !looked {
		files, err = gitChanges(ctx, root, base, staged)
	}
	if err != nil || !keep {
		return files, err
	}
	k.mu.Lock()
	k.w, k.base, k.staged, k.files = w, base, staged, files
	k.mu.Unlock()
	return files, nil
}

// isCommitID reports whether rev is a full commit id (a name that never
// comes to mean another commit, unlike a branch or HEAD~1).
func isCommitID(rev string) bool {
	if len(rev) != 40 && len(rev) != 64 {
		return false
	}
	for _, c := range rev {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
