// Package freshness tells how far the graph's base layer is from the
// workspace as it is now, as a version relation rather than a timestamp.
//
// [Changes] lists the documents that differ between the base commit and the
// work tree (committed since the base, staged, unstaged and untracked).
// [Head] returns the current commit. [Compute] combines them with the store's
// manifests and live layer into a [Block]: the base commit, tool and state,
// HEAD, the documents changed since the base, the documents the live layer
// answers for, unsaved editor buffers, and whether an answer built on this
// graph may be partial, with the reasons in words.
//
// The package runs git through os/exec and reads the graph through
// [graph.Reader] only.
package freshness
