package ranking

// History is what the repository's history says about a file: the files
// that changed together with it, and how strongly. Package history
// implements it from git.
type History interface {
	// Coupled returns the files that changed together with path, best
	// first, at most limit.
	Coupled(path string, limit int) []Coupling
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
