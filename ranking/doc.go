// Package ranking finds what a reader needs to see to work on a symbol and
// orders it.
//
// [Rank] collects candidates around a target from the graph's read API:
// its definition, direct callers and callees (and a second hop of each),
// implementations and implemented interfaces, types (type-of and
// type-definition edges, types referenced inside the definition), tests that
// exercise the target, its callers or its callees, the paired test files of
// its file by the language's convention (internal/lang), members and
// siblings of the same type, the definitions of its file nearest first, the
// files of its directory, the files that changed together with its file in
// the repository's history (a [History], role co-changed), and namesakes
// (symbols with the same name and no graph relation, which a text search
// would confuse with the target). Each [Candidate] carries its [Role], the
// reason in words, and the site that justifies it.
//
// The score is a role weight times a distance decay, plus a centrality
// term (personalized PageRank seeded at the target over the subgraph the
// candidates form), a locality term (same file, more the nearer; same type;
// same directory; same package) and the history's coupling of the
// candidate's file. All weights are in weights.go; [Options.Without] turns
// signals off to measure what each adds. Ties break on path, then
// position, then symbol id, so results are deterministic.
//
// Candidates whose package lies outside the given [scope.Closure] are
// returned apart (Result.OutOfScope), never silently dropped.
//
// testdata/eval holds hand-written queries on the testdata fixtures with the
// items a careful engineer would need; testdata/rank_stats.txt records
// recall@5, recall@10 and MRR over them. The evaluation runs in cmd/lspgraph
// (it needs the SCIP importer) and rewrites the stats with -update.
// Recall on real repositories' history, and the fit of [Weights], are
// recorded in contexteval/testdata (cmd/lspgraph TestContextHistoryEval).
//
// A host that ranks many targets keeps a [Cache] (Options.Cache): the
// symbols, documents' symbols and occurrences, and edges a ranking reads,
// kept while the store's version holds, so that a pack after the first
// decodes little of the graph again.
package ranking
