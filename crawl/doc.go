// Package crawl builds a base layer of the graph headlessly, through a real
// language server: no editor, no SCIP indexer. It starts the server over
// stdio, initializes it with the workspace root, waits until the server has
// finished loading, and then asks it, document by document, what a SCIP
// indexer would have said: documentSymbol for the definitions, references
// (with the declaration) for each definition worth it, and
// callHierarchy/incomingCalls for functions and methods when the server
// supports it. The answers become source "lsp" facts of confidence 1.0 in a
// new base generation.
//
// Its principal types are [Options], which names the server and the
// documents, and [Result], the facts per document. [Crawl] runs the server
// and collects a Result; [Write] stores it as a new base generation.
// [StartServer] starts the same client and keeps the server running as a
// [Server] that answers live questions (the verification of `lspgraph mcp
// -- SERVER`), opening each document it is asked about with its text on
// disk.
//
// # Identities
//
// A language server names nothing: a symbol is its definition location.
// Symbols are "lsp PATH:LINE:COL" ([lang.LSPSymbolID]), the start of
// documentSymbol's selectionRange, 1-based, with the column in UTF-8 bytes.
// Display name and kind come from documentSymbol (SymbolKind), Def is the
// selectionRange and DefExtent the range.
//
// # What is asked
//
// Every document is opened (didOpen), its symbols listed and closed again
// when its questions are answered. References are asked for every symbol
// except those nested inside a function or method (locals, closures:
// language servers list them inconsistently and nothing outside the body
// refers to them). Each reference location inside the workspace becomes an
// occurrence (a definition when it is the symbol's own name) whose Enclosing
// is the innermost documentSymbol of that document whose range contains it,
// and each (enclosing, target) pair becomes one references edge per
// document, with the number of sites as Count. incomingCalls adds calls
// edges from the calling symbol (named by its selectionRange) to the callee.
// Locations outside the workspace (the standard library, dependencies) are
// dropped.
//
// Servers answer references semantically: gopls lists a call made through
// an interface among the references (and incoming calls) of every concrete
// method that implements it. The graph keeps that call on the interface
// method only, as SCIP does, so that impact analysis can tell "will break"
// from "dispatch": a location several symbols claim is settled with
// textDocument/definition at that location, and the other claims are
// dropped ([Stats].Disambiguated). A document the server leaves out of
// every package (a Go file excluded by build constraints) keeps its symbols
// and has no references ([Stats].NotInBuild); it does not make the layer
// partial. Failed requests do.
//
// # Positions
//
// The client offers the "utf-8" and "utf-16" position encodings (see
// [Options].PositionEncodings) and converts whatever the server negotiated
// to the graph's UTF-8 columns with [textpos.Mapper], reading each
// document's text from disk.
package crawl
