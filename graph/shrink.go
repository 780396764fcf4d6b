package graph

import (
	"errors"
	"fmt"
)

// ErrShrink is wrapped by the error of a commit refused because the new
// base generation lost too many of the previous one's documents; see
// [CheckShrink].
var ErrShrink = errors.New("graph: the new base generation lost most of the previous one's documents")

// ShrinkError is a base generation refused by [CheckShrink]. It wraps
// [ErrShrink].
type ShrinkError struct {
	Tool   string // the producer of both generations
	Root   string // the workspace root of both generations
	Before int    // documents of the generation still current
	After  int    // documents of the refused generation
}

func (e *ShrinkError) Error() string {
	return fmt.Sprintf("graph: refusing the new base generation: documents %d → %d, fewer than half of the previous "+
		"generation's (same tool %q, same root %q), as an index cut short by a crashed indexer would be; "+
		"the previous generation stays current; pass --allow-shrink if intended",
		e.Before, e.After, e.Tool, e.Root)
}

func (e *ShrinkError) Unwrap() error { return ErrShrink }

// CheckShrink applies the shrink rule to a base generation about to
// replace prev: it is refused, with a [*ShrinkError], when both were made
// by the same tool for the same root and next keeps fewer than half of
// prev's documents (next.Documents*2 < prev.Documents). A first generation
// (prev.Documents 0), or one made by another tool or for another root, is
// never refused.
//
// Why half: a dump cut at a record boundary (what an indexer that crashed
// while writing leaves behind) decodes without error and would silently
// replace a whole index with its first documents. Real changes between two
// indexes of one workspace add or delete files at the margin; losing most
// of them at once is far more often a broken input than an intended
// deletion, and an intended one can say so (AllowShrink in the producers'
// options, --allow-shrink on the command line).
func CheckShrink(prev, next Manifest) error {
	if prev.Documents == 0 || prev.Tool != next.Tool || prev.Root != next.Root {
		return nil
	}
	if next.Documents*2 >= prev.Documents {
		return nil
	}
	return &ShrinkError{Tool: next.Tool, Root: next.Root, Before: prev.Documents, After: next.Documents}
}
