// Package lang holds the rules lspgraph applies to a document by its path
// and its text, whichever producer reads it (a SCIP import, tree-sitter
// extraction, a headless crawl, the live adapter, the overlay), so that
// every layer of the graph records a document the same way:
//
//   - its language: [Of] gives the name the graph records ("typescript"),
//     [LanguageID] the LSP languageId ("typescriptreact"), [Extensions] the
//     extensions of some languages, and [Normalize] turns a declared name
//     (a SCIP document's "TypeScriptReact") into the graph's;
//   - whether it is a test file by its language's naming convention
//     ([IsTestPath]);
//   - the hash of its content ([HashContent]), the one format stored in
//     Document.ContentHash and in the overlay's digests;
//   - the id of a symbol a language server names only by its definition
//     location ([LSPSymbolID]).
//
// The languages are one table (fileTypes in lang.go): each row is a file
// type with the graph's language name, the LSP languageId and the
// extensions. Extensions match case-insensitively, as editors associate
// them.
package lang
