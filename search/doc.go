// Package search finds documents by words: BM25F over the graph's term
// index (the words of names, paths, comments, strings and code, each field
// weighted per the document's language), fused (CombSUM of each signal's
// value over its largest, or reciprocal ranks) with signals of the graph:
// the query's words in the document's definitions, in the documents its
// references link it to and in its directory, and the query-blind
// centrality (how many packages import the document's package), proximity
// to the document the question comes from, and whether the document is a
// test. It reads one graph.Reader snapshot, so its answers are exactly as
// fresh as the graph, unsaved buffers included. Every hit says why it
// ranked: the words it matched per field and the rank of each signal.
package search
