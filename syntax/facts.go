package syntax

import (
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Tool is the manifest tool name of graphs built by this package.
const Tool = "lspgraph-syntax"

// Version is the extractor's version; it changes whenever the facts a file
// yields change, so stores built by an older extractor can be told apart.
const Version = "0.7.1"

// SkipReason says why a file produced no facts. The empty reason means it was
// extracted.
type SkipReason string

const (
	SkipNone        SkipReason = ""
	SkipHuge        SkipReason = "huge"         // larger than Options.MaxFileSize
	SkipGenerated   SkipReason = "generated"    // a generated-code marker in the header
	SkipMinified    SkipReason = "minified"     // minified JavaScript (very long lines)
	SkipTimeout     SkipReason = "timeout"      // parsing took longer than Options.ParseTimeout
	SkipUnsupported SkipReason = "unsupported"  // no grammar for the file's extension
	SkipFailed      SkipReason = "failed"       // the extractor broke on the file (a bug: FileFacts.Failure says how)
	SkipTestdata    SkipReason = "testdata"     // a Go file under a testdata directory: a fixture, in no package
	SkipOutside     SkipReason = "outside-root" // a symbolic link leading outside the workspace root: never read
	SkipLink        SkipReason = "symlink"      // a symbolic link to a file inside the root: that file is indexed under its own path (or left out with it)
)

// FileFacts is what one file yields before name resolution: its document,
// its definitions (final), its imports, and the names it uses (to resolve).
type FileFacts struct {
	Document graph.Document
	// Skipped is non-empty when the file was skipped; then only Document is set.
	Skipped SkipReason
	// Failure describes the broken invariant when Skipped is SkipFailed.
	Failure string
	// Symbols are the file's definitions, package symbols included.
	Symbols []graph.Symbol
	// Occurrences are the definition and import occurrences.
	Occurrences []graph.Occurrence
	// Edges are the facts a file states by itself: contains edges from a
	// container to its members and imports edges from the file's package.
	Edges []graph.Edge
	// Terms are the words the file is searched by.
	Terms []graph.Term
	// Imports are the file's imports, for resolving qualified names.
	Imports []Import
	// Uses are the names the file uses, in source order.
	Uses []Use
	// Container maps a member's symbol to its container's symbol, for
	// receiver-type resolution (Go methods, class members).
	Container map[string]string
	// module is the module (Go: package path; TS/JS/Python: module path)
	// the file defines, used to match imports against definitions.
	module string
	// goScope is where a Go file's names of unknown owner may resolve to
	// (project.goScopeOf, inGoScope); "": any package.
	goScope string
	// scope is goScope's number in the Resolver resolving the file, once
	// it has one (Resolver.goScoped).
	scope int32
	// self is the symbol of the file's package (Go) or module (TS/JS,
	// Python): the source of edges from uses outside any definition.
	self string
	// own indexes the file's definitions in the table it is resolved
	// against, while it is resolved (NameTable.inPath).
	own *documentIndex
	// looked, when not nil, records the keys of the table its
	// resolution looks up (see look).
	looked map[uint32]struct{}
}

// Import is one imported package, module or name.
type Import struct {
	// Local is the name the import binds in the file: the package name or
	// alias (Go), the local binding of a named or namespace import (TS/JS),
	// the bound name (Python). Empty for side-effect imports.
	Local string
	// Module is the imported package or module: a Go import path, a resolved
	// TS/JS module ("@shop/pricing", or "@shop/order/src/rules" for a relative
	// import), a Python dotted module.
	Module string
	// Name is the imported member for named imports (TS/JS `{ quote }`,
	// Python `from m import quote`); empty when Local names the module itself.
	Name string
	// Relative is set when Module is a root-relative file path without
	// extension (a TS/JS relative import) rather than a package name.
	Relative bool
	// Require is set when Local is bound to a whole CommonJS module
	// (`const m = require("./mod")`, TypeScript `import m = require(…)`):
	// m is the module's exports, its `module.exports = f` when it has one.
	Require bool
	// Range is the import's name (Go: the path literal) in the file.
	Range textpos.Range
}

// UseKind says how a name is used.
type UseKind uint8

const (
	// UseBare is a plain identifier: `Save`, `Catalog`.
	UseBare UseKind = iota
	// UseQualified is `Q.Name` where Q is an import's local name.
	UseQualified
	// UseMember is `Q.Name` where Q is the receiver, this or self: a member
	// of the enclosing type.
	UseMember
	// UseSelector is `x.Name` where x is any other expression: a member of
	// an unknown type.
	UseSelector
	// UseTyped is `x.Name` where x is a parameter or local variable declared
	// with a type: Qualifier is the type as written ("T" or "pkg.T"); in Go,
	// the type of any expression x the walk could follow (see goinfer.go).
	UseTyped
)

// Use is one name used in the file.
type Use struct {
	Range textpos.Range // the name's range
	Name  string
	// Qualifier is the import's local name for UseQualified, the
	// enclosing type's symbol for UseMember, and the declared type as
	// written for UseTyped.
	Qualifier string
	// Enclosing is the innermost enclosing definition's symbol, or "".
	Enclosing string
	Kind      UseKind
	// Call is set when the use is the callee of a call (or a `new`).
	Call bool
	// Type is set when the name is used as a type (Go type identifiers,
	// TS type annotations): only type-like definitions match.
	Type bool
	// Import is set when the use is the binding of a named import (TS/JS
	// `{ quote }`, Python `from m import quote`): it resolves like a use of
	// Name and becomes an import occurrence.
	Import bool
	// Test is set when the use is in test-only code of a document that is
	// not a test document (Rust #[test] functions, #[cfg(test)] modules):
	// its occurrences get the test role.
	Test bool
	// Implements is set when the use names a supertype of Enclosing (a
	// Java or Python base class or interface, a Rust trait in `impl Trait
	// for Type`): the type implements what it resolves to, and each of
	// Members (methods the declaration defines) implements the target's
	// method of the same name, when it has one.
	Implements bool
	Members    []string
}
