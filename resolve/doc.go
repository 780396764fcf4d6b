// Package resolve turns what a user names — a SCIP symbol string, a
// FILE:LINE:COL position, or a display name such as "Catalog.Save" — into one
// [graph.Symbol] of the code graph.
//
// [Resolve] handles every form; [AtPosition] resolves an editor position once
// the caller has converted it to the graph's UTF-8 columns. A name that
// matches several symbols yields an [*AmbiguousError] listing the candidates
// with their locations (no guess is made); a name that matches nothing yields
// an error wrapping [ErrUnknown].
package resolve
