// Package ingest turns what the proxy observed between an editor and its
// language server into live-layer facts of the graph.
//
// Its principal type is [Live]. Positions are read against the text the
// server saw: an open editor buffer as its owner gives it
// ([Options.Buffer]; the workspace session follows the editor's
// notifications), else the file. [Live.Exchange] turns one answered request
// into facts with source "lsp" and confidence 1.0:
//
//   - definition and declaration: the definition (a symbol with Def and a
//     definition occurrence in the target document) and, at the requested
//     position, a reference occurrence whose Enclosing is the innermost known
//     definition around it, with a references edge from that enclosing
//     symbol; typeDefinition records only the definition;
//   - implementation: implements edges between the symbol at the position
//     and each result (direction by kind: whichever side is, or lies in, an
//     interface is the implemented one);
//   - references: an occurrence per location (a definition where it is the
//     symbol's own definition) and references edges from each enclosing
//     symbol, counted per site;
//   - documentSymbol and prepareCallHierarchy: symbols with Def (the name)
//     and DefExtent (the whole definition), contains edges from parents;
//   - callHierarchy/incomingCalls and outgoingCalls: calls edges with call
//     occurrences at the call sites;
//   - workspace/symbol: symbols whose location is exactly their name.
//
// # Identities
//
// A language server names nothing; a symbol is its definition location. A
// location the graph already knows as some symbol's Def gets that symbol's
// id; otherwise the id is "lsp PATH:LINE:COL" ([lang.LSPSymbolID]), the
// 1-based start of the name with the column in UTF-8 bytes (the same ids a
// headless crawl makes).
//
// # Merging
//
// Writing a live document replaces all its facts, so each write starts from
// what the graph serves for that document now (its live facts, else its
// base facts), adds the new observations (an occurrence once per range and
// symbol, an edge once per ends and kind, keeping the larger count) and
// writes the union. Edges are read back through the symbols the document
// defines or encloses: an edge the document justifies from a symbol defined
// elsewhere and not enclosing any of its occurrences is not carried over.
//
// Premature exchanges (answers a server gave before it finished loading)
// and locations outside the workspace root are skipped.
//
// # Repeats
//
// An exchange that changed nothing (the live layer already held every
// fact it brings) is remembered by a hash of its method, encoding, params
// and result, with the files it read (identity, size, modification time).
// The same exchange again is not worked out while the store's version, the
// buffers' version ([Options.BufferVersion]) and those files are unchanged
// ([Stats.Repeated]); any write to the store forgets them all. A file's
// stat stands for it for 10ms (repeats come in bursts, as the proxy hands
// its observations over once per tick), so a change to it is noticed by
// the first repeat after that. A file rewritten with the same size within
// the file system's timestamp granularity looks unchanged until the next
// write to the store.
package ingest
