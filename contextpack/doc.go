// Package contextpack builds context packs: what a reader (a person or an AI
// assistant) must see to work on a symbol, ranked, cut at syntax boundaries
// and fitted to a token budget counted on the answer as it is emitted, with
// a manifest of what was left out.
//
// [Build] ranks the target's neighbourhood with package ranking inside a
// package closure from package scope, reads snippets through a [Source]
// (the work tree under the workspace root, or an editor's unsaved buffers),
// and gives each candidate several forms: its body (an excerpt when the
// body would take more than 30% of the budget, the target's own included),
// its doc comment and signature, its signature, its location. Fitting
// starts from the target and then takes, step by step, the form (or the
// richer form of an item already in) worth most per token, worth being
// the candidate's score times a share per form. Items are grouped by file
// ([File]) so a path is written once. What room is left names the
// out-of-scope packages and the best dropped candidates.
//
// The budget holds for the whole answer in its [Format] (compact JSON,
// indented JSON, markdown, text): every part is priced by rendering it
// and counting it with [Tokens], a conservative estimate measured against
// tiktoken's encodings; the rendered answer is counted again at the end,
// and [Pack.Tokens] is that count. A budget smaller than the answer's frame
// is refused with [ErrBudget]. [Pack.Render] returns the answer; [Handle]
// answers the `lspgraph.context` command's JSON arguments.
//
// Nothing is read outside the workspace root: document paths with ".."
// elements, absolute paths, and symlinks that resolve outside the root are
// refused, and the item says why its snippet is withheld.
package contextpack
