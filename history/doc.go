// Package history reads a repository's commits with git and answers which
// files changed together: evolutionary coupling, for context packs.
//
// [Load] reads the commits reachable from a revision (never those after
// it, so that an answer for an old commit sees only its past), newest
// first, up to [Options.MaxCommits], merges left out. [Log.Coupled] scores
// each file that shared commits with a given file: every shared commit
// adds its recency weight (halved every [Options.HalfLife] commits back
// from the revision) divided by the number of other files it touched (a
// commit touching two files ties them more than a sweeping one), and the
// sum is divided by the recency weight of all the file's commits. Commits
// touching more than [Options.MaxFiles] files (vendoring, renames across
// the tree, formatting) tie nothing and are skipped.
//
// [Log] implements ranking.History.
package history
