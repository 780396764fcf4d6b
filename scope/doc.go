// Package scope discovers a workspace's packages and their dependencies, and
// computes the package closure a question about one file is answered within.
//
// A workspace package is the unit a question is scoped by. [DiscoverPackages]
// (what `lspgraph scope` answers with) makes one of each Go package (a
// directory of Go files in a module, named by its import path; go.mod gives
// the module path, go.work its members), npm package (package.json,
// grouped by package.json workspaces or pnpm-workspace.yaml), a Python
// package (a directory of Python modules, named by its dotted import path)
// or Python project (pyproject.toml) with no Python package of its own.
// [Discover] (a context pack's closure) makes one package of a Go module,
// with its go.mod require and local replace directives among the reasons,
// and of a Python project. Both read the manifests and sources under a
// root and record the dependencies they declare: the imports of a Go
// package's non-test files that the build keeps on this GOOS/GOARCH (as
// `go list -deps`; a Go test's references are not observed either);
// package.json
// dependencies that name a workspace package (workspace: protocol,
// file:/link: paths or a plain version), tsconfig references and imports
// resolved through tsconfig paths; a Python package's imports (absolute
// and relative); pyproject local path dependencies. Every dependency keeps
// its reasons ([Why]): the file and line that declare it.
//
// [Analyze] adds what the code graph observes (on demand, per package, as a
// closure reaches it): package A depends on B when a document of A
// references a symbol defined in a document of B, unless the only edges
// behind that reference are weaker than [Analysis].MinConfidence (a
// syntax name guess: a `Type()` call does not make a dependency on the
// one package that defines a method Type).
// Documents
// are mapped to workspace packages by path (the package whose directory is
// the longest prefix); documents outside every discovered package belong to
// the package the graph records for them, so a graph without a work tree
// still has a package structure.
//
// A [SourceCache] keeps what discovery read of each source file (a Go
// file's imports, a TypeScript file's import specifiers) by the file's
// stamp (rootfs.Stamp): a work tree discovered again after a file was saved is
// walked again, and only the sources that changed are read. Its result is
// the one [Discover] gives. It can be kept in a file ([SourceCache.Save])
// for another process to start from ([SourceCache.Load]).
//
// The [Closure] of a package is its transitive dependencies (declared and
// observed) plus extra packages the caller names, each member with the chain
// of reasons that brought it in.
package scope
