// Package calibrate measures the syntax layer against a precise index of
// the same code: for each resolution rule and language, how many call
// edges the rule makes and what share of them the precise index confirms
// (precision), what share of the precise index's calls they find (recall),
// the precision and recall of all call edges at each confidence threshold,
// and the depth-1 callers of a seeded sample of functions and methods at
// one threshold. The rules' confidences in package syntax are set from
// its table (syntax/CALIBRATION.md, made by `lspgraph bench calibrate`).
//
// The precise side is a SCIP dump imported into an in-memory store; the
// syntax side is [syntax.Build] over the dump's source tree. Symbols of the
// two are matched by the position of their definition's name (path, line,
// column), so no naming convention of either side is trusted. An edge
// counts when both of its ends match; the truth is the precise index's
// references from one matched definition to another matched function or
// method (SCIP says nothing of calls: a reference of a callable from
// inside a definition is what its importer calls a call).
package calibrate
