// Package scope discovers a workspace's packages and their dependencies, and
// computes the package closure a question about one file is answered within.
//
// A workspace package is a unit a monorepo is built from: a Go module
// (go.mod, grouped by go.work), an npm package (package.json, grouped by
// package.json workspaces or pnpm-workspace.yaml) or a Python project
// (pyproject.toml). [Discover] reads the manifests under a root and records the
// dependencies they declare: go.mod require and local replace directives and
// the imports of the module's Go packages; package.json dependencies that name
// a workspace package (workspace: protocol, file:/link: paths or a plain
// version), tsconfig references and imports resolved through tsconfig paths;
// pyproject local path dependencies. Every dependency keeps its reasons
// ([Why]): the file and line that declare it.
//
// [Analyze] adds what the code graph observes (on demand, per package, as a
// closure reaches it): package A depends on B when a document of A
// references a symbol defined in a document of B, unless the only edges
// behind that reference are weaker than [Analysis].MinConfidence (a
// syntax name guess: a `Type()` call does not make a dependency on the
// one package that defines a method Type). Documents
// are mapped to workspace packages by path (the package whose directory is
// the longest prefix); documents outside every discovered package belong to
// the package the graph records for them, so a graph without a work tree
// still has a package structure.
//
// The [Closure] of a package is its transitive dependencies (declared and
// observed) plus extra packages the caller names, each member with the chain
// of reasons that brought it in.
package scope
