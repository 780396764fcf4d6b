// Package indexbench measures `lspgraph index` and what it scales with.
//
// Measure runs one command as a child process and reports its wall time,
// CPU time and peak resident memory, the numbers the index benchmarks
// compare (`lspgraph bench index` beside universal-ctags and CodeGraph).
//
// The scale benchmark (`lspgraph bench scale`, Scale) builds a synthetic
// monorepo from real code and measures the index, a SCIP import, impact
// and context on it at growing sizes: CopyTree writes copies of a Go
// source tree (GOROOT/src) side by side, each under its own module path
// with its imports of its own packages rewritten to that path, so that
// each copy resolves within itself as the original does; CopyDump writes a
// SCIP dump holding a real dump's documents several times over, each copy
// under its own directory and package names.
package indexbench
