package ranking

import "context"

// History is what the repository's history says about a file: the files
// that changed together with it, and how strongly. Package history
// implements it from git.
type History interface {
	// Coupled returns the files that changed together with path, best
	// first, at most limit.
	Coupled(path string, limit int) []Coupling
}

// FuncHistory is a History that also knows which functions changed
// together: package history reads the commits' hunks for it.
type FuncHistory interface {
	History
	// CoupledFuncs returns the functions (and types) that changed in the
	// commits that changed fn of path, best first, at most limit. fn is
	// the function's short qualified name ("DB.Get", "render").
	CoupledFuncs(ctx context.Context, path, fn string, limit int) ([]FuncCoupling, error)
}

// Coupling is one file's evolutionary tie to another.
type Coupling struct {
	Path string
	// Weight is in (0, 1]: the recency- and size-weighted share of the
	// commits touching the first file that touched this one too.
	Weight float64
	// Commits counts the commits that touched both.
	Commits int
}

// FuncCoupling is one function's evolutionary tie to another.
type FuncCoupling struct {
	Path string
	// Name is the function's name as its declaration line gives it:
	// "Type.Method" for a Go method, the bare name elsewhere.
	Name string
	// Weight is in (0, 1]: the recency- and size-weighted share of the
	// commits changing the first function that changed this one too.
	Weight float64
	// Commits counts the commits that changed both.
	Commits int
}
