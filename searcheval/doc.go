// Package searcheval replays repositories' histories against search: for
// each commit, the query is its subject and body, the truth the source
// files it modified, and the graph a syntax index of the tree at its
// parent (kept in a cache directory across runs). BM25F's parameters per
// language, the fusion and the weights of the query-dependent signals
// are chosen on the older half of each repository's commits and every
// ranking is scored on the newer half by the same scorer: file hit@1, @3,
// @5, @10, MRR and recall@10, beside plain BM25 over whole files and each
// signal left out in turn.
package searcheval
