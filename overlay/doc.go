// Package overlay keeps the graph's live layer true between base imports.
// It is the one package that combines the graph, syntax extraction and
// freshness: the base layer describes a commit, the work tree and the
// editor's buffers have moved on, and the overlay re-extracts what differs
// into the live layer, whose documents hide their base facts.
//
// Its principal type is [Overlay]. [Overlay.Sync] (on proxy start and before
// each CLI query) compares the base layer's commit with HEAD and the work
// tree ([freshness.Changes]) and brings the live layer to the current state:
//
//   - an added, modified or untracked document is extracted with syntax and
//     resolved against the graph into the live layer;
//   - a deleted document gets a tombstone: an empty live document with the
//     digest [freshness.DigestDeleted], which hides its base facts and
//     contributes nothing;
//   - a renamed document is a deletion of the old path (tombstone) and an
//     addition of the new one; syntax identities do not depend on the file
//     name (a Go symbol is its package and name), and over a precise base
//     the new path inherits the old path's base identities, so references
//     to the moved definitions keep their targets;
//   - a changed document whose text a syntax index read as it is now (the
//     base document's ContentHash, freshness.IndexedAsIs: `lspgraph index`
//     of a work tree with uncommitted changes) is left to the base, which
//     answers for it as the overlay would (SyncStats.Indexed);
//   - a document that no longer differs from the base leaves the live layer,
//     and its base facts return;
//   - a changed path that is a symbolic link gets a tombstone too: the index
//     records a link to a file inside the root under that file's own path,
//     and a link leading outside is never read (SyncStats.Outside counts
//     those). Every work-tree read goes through a [rootfs.Root].
//
// [Overlay.BufferChanged] and [Overlay.BufferClosed] do the same for unsaved
// editor buffers: a buffer is extracted (after a debounce, 200 ms by
// default, or at the next [Overlay.Sync] or [Overlay.Flush]) and marked with
// the digest prefix [freshness.DigestBuffer] while its text differs from the
// file; closing it returns the document to its on-disk state.
//
// # Incremental equals full rebuild
//
// Syntax resolution is global: a use of a name resolves against every
// definition of that name (same file, same package, imported package, or a
// unique global name). Changing the definitions in one document can
// therefore change what unchanged documents resolve to. The overlay tracks,
// per name, the definitions (identity, kind, package, language, and a
// field's declared type) that documents contribute. A document must be re-resolved when it
// changed itself or when it uses a name whose definitions changed since the
// last sync. When the base layer was built by syntax ([syntax.Tool]), an
// unchanged document that uses a name whose definitions differ from the
// base's ("a dependent") is also re-resolved into the live layer, so that
// the graph answers exactly as a fresh syntax index of the current files
// would: no ghost edges to deleted definitions, no missing edges to new
// ones. Finding the dependents needs the names every document uses; the
// overlay extracts the whole workspace once per base generation to learn
// them, and only when some name's definitions changed. Over a precise base
// (SCIP or a language server) dependents keep their base facts: replacing
// precise facts with name-based guesses would lose more than it gains.
//
// # Over a precise base
//
// When the base layer is a SCIP import or a language-server crawl, the
// unchanged documents reference the base's identities, not syntax ones. A
// re-extracted document therefore speaks the base's identities too, so
// that paths through it (callers inside it, definitions in it that base
// documents use) are not cut:
//
//   - each definition takes the identity of the base symbol the same
//     document defined at the base commit ([graph.Reader.BaseDocumentSymbols]),
//     matched by container-qualified display name and kind (a language
//     server's receiver form "(*Catalog).Save" is "Catalog.Save"), else by
//     display name and the nearest definition position; one without a match
//     is new and keeps its syntax identity. It keeps the base's display
//     name too;
//   - references are resolved by the syntax rules against the graph's
//     symbols, precise ones presented under their syntax-equivalent
//     identity (the Go SCIP symbol `pkg`/T#M(). and the language server's
//     "(*T).M" of package pkg are "syntax go pkg T.M") and preferred over
//     syntax symbols of the same identity, then written
//     with the precise identity. Such an edge keeps its syntax confidence
//     and its reason gains "→scip" (or "→lsp");
//   - an edge the base version of the document justified too (same caller,
//     target and kind) takes the base's confidence, "(confirmed by the
//     base)": a call through a variable whose type syntax cannot infer stays
//     as strong as before while caller and callee are unchanged.
//
// # Record
//
// The overlay records what each live document was derived from (content
// hash, buffer or disk, definitions, used names), so a sync when nothing
// changed costs one `git diff` and the hashing of the changed files. With
// [Options].StatePath the record survives the process (the CLI keeps it next
// to the store); a record that is missing or belongs to another base
// generation is discarded together with the live layer.
//
// # Language-server facts take precedence
//
// The proxy writes live documents with source "lsp" from what the real
// server answers. Such a document is left alone while its ContentHash (set
// by the writer with [lang.HashContent] of the text the server saw)
// equals the hash of the document's current text; once the text changes,
// syntax re-extraction replaces it.
package overlay
