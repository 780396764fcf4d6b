// Package searcheval replays a repository's history against search: for
// each commit, the query is its message, the truth the source files it
// modified, and the graph a syntax index of the tree at its parent; every
// ranking is scored by the same scorer (file hit@5, hit@10, MRR).
package searcheval
