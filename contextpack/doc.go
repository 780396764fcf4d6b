// Package contextpack builds context packs: what a reader (a person or an AI
// assistant) must see to work on a symbol, ranked, cut at syntax boundaries
// and trimmed to a token budget, with a manifest of what was left out.
//
// [Build] ranks the target's neighbourhood with package ranking inside a
// package closure from package scope, reads snippets through a [Source]
// (the work tree under the workspace root, or an editor's unsaved buffers),
// and fits the items greedily by score into the budget, downgrading a
// snippet from the whole definition to its signature (plus the lines around
// the relevant site) to its location before dropping an item. [Pack] is the
// result; [Pack.Markdown] renders it as evidence sections ready to paste into
// a prompt. [Handle] answers the `lspgraph.context` command's JSON arguments.
//
// Nothing is read outside the workspace root: document paths with ".."
// elements, absolute paths, and symlinks that resolve outside the root are
// refused, and the item says why its snippet is withheld.
//
// Token estimate: ceil(bytes/4) over the text an item carries (path, name,
// reason, snippet) plus a fixed per-item overhead for its framing
// ([ItemOverhead]). The sum over the items never exceeds the budget. The
// definition is placed first; when even its location does not fit, nothing
// is shown and the manifest lists every item.
package contextpack
