// Package terms turns a document into the words it is searched by, and a
// query into the same words: identifiers split at case changes, digits and
// underscores (parseHTTPRequest → parse, http, request, and the whole name
// parsehttprequest), comments, string literals, the document's path and
// package, and the names of what it defines, each word in its graph.TermField.
// Words are lower-cased, stop words dropped and plural and verb endings
// folded by the same rules for documents and queries.
//
// The scan is lexical and shared by every language: line comments (// and
// #), block comments (/* */), and strings in ", ' and ` quotes; it needs no
// parse tree, so a document a parser skips can still be searched.
package terms
