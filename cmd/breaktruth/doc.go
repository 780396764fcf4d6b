// Command breaktruth measures impact's answers against the Go compiler.
//
// `breaktruth truth` builds the truth for one package of a Go tree (by
// default GOROOT's net/http and its direct importers within GOROOT): it
// picks targets stratified by kind (exported and unexported functions,
// methods, interface methods with implementations, methods that implement
// an interface method, methods used as method values), gives each a new
// first parameter of a fresh type (through an in-memory copy of the file;
// nothing on disk changes), type-checks the package, its internal tests
// and its importers with go/types, and maps every error to its top-level
// declaration. The declarations that referenced the target before the
// change are its callers. The result is a JSON file committed under
// testdata/truth.
//
// `breaktruth score` imports a SCIP dump of the same tree (with the type
// checker's conversion sites when asked), computes impact for every
// target and prints precision and recall of the callers (d=1) and of
// everything that breaks (d=1 and the satisfaction group) against the
// truth, per stratum and in all, and the risk levels given where
// something breaks.
package main
