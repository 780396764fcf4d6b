// Package contexteval replays a repository's history against context
// packs. For each commit, the seed is one function the commit changed, the
// truth is the rest of the commit (the other files, and the other
// functions, it changed), and the pack is built with history read at the
// commit's parent (--history-rev PARENT), so that it never sees the
// commit or its future. The changed functions come from a parser
// independent of the graph ([GoFuncs]: go/parser; [TSFuncs]: the
// TypeScript compiler API through node) applied to the commit's own file
// versions and `git diff -U0`. Recall counts only what a pack shows (its
// items' files and names), never its omission list.
//
// Two baselines go through the same scorer in the same run: the target's
// graph neighbours (callers and callees by the graph's edges, each with its
// body, in path order, until the budget) and the target's own file (its
// definitions with their bodies, nearest the target first, until the
// budget), both priced with contextpack.Tokens as the packs are.
// Ablations turn one ranking signal off at a time.
//
// [Run] scores every case; [Report.Split] scores the older and the newer
// half apart, and [Fit] chooses ranking weights on one half to report them
// on the other.
package contexteval
