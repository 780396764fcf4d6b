// Package syntax extracts graph facts from Go, TypeScript, JavaScript,
// Python, Java and Rust source text with tree-sitter: the definitions a file
// makes, the containers they belong to, its imports, and the names it uses
// (calls and other references) with the definition that encloses each use.
// It is the only package of the module that uses cgo.
//
// Its principal types are [Extractor], which parses one file at a time into
// [FileFacts] (definitions are final, uses are still names), and [Resolver],
// which turns the names of one or more files into occurrences and edges
// against a global view of definitions: a [NameTable] built from every
// extracted file (a full `lspgraph index`), or a [ReaderLookup] over the
// symbols already in the graph (re-extracting one changed document for the
// live layer). [Resolve] does both steps' second half in one call.
//
// # Parsers and concurrency
//
// An Extractor owns one tree-sitter parser per language and is not safe for
// concurrent use: run one Extractor per goroutine, and call [Extractor.Close]
// when done to release the parsers' C memory (a finalizer would release it
// eventually, but not promptly). A Resolver is safe for concurrent use once
// built.
//
// # Symbol identities
//
// Syntax symbols are named "syntax LANGUAGE PACKAGE DESCRIPTOR", for example
// "syntax go example.com/goapp/service Catalog.Save". The same file content
// gives the same identities whether a whole repository is indexed or the file
// is re-extracted alone: the identity depends only on the file's path, its
// project files (go.mod, package.json, pyproject.toml, Cargo.toml) and its text.
//   - Go: PACKAGE is the module path from the nearest go.mod plus the
//     directory ("_test" appended for external test packages); DESCRIPTOR is
//     Name, Type.Method or Type.Field. Every file's init functions are kept
//     apart as "init#FILE". A struct field's Signature is "name PKGPATH.T"
//     when its type is a named type (pointers dropped; "[]" or "map[]" in
//     front for a collection of it), a function's or method's is "Name()
//     R0 R1 …" (its results, "_" for those of no named type) and a type's
//     "embeds PKGPATH.A …": resolution reads them to infer the types of
//     x in x.M (goinfer.go), whether they come from this index or the graph.
//   - TypeScript and JavaScript: PACKAGE is the nearest package.json name
//     (its directory relative to the root when it has none); DESCRIPTOR is
//     FILE:Name or FILE:Class.member, FILE being the path inside the package
//     without extension ("syntax typescript @shop/order src/index:Order.total").
//     CommonJS is read as modules: `const m = require("./mod")` (and
//     TypeScript's `import m = require("./mod")`) binds m like
//     `import * as m from "./mod"`, `const { a, b: c } = require("./mod")`
//     binds a and c like `import { a, b as c }`, and a require with a
//     non-literal argument is ignored. A top-level `exports.f = …` or
//     `module.exports.f = …` defines f, and so do `f: value` and `f() {…}`
//     in `module.exports = { … }`, where a shorthand f refers to the file's f.
//     A module's default export is the file's top-level definition that
//     `export default function f() {}` / `class C {}`, `export default f`,
//     `export { f as default }` or the CommonJS `module.exports = f` names
//     (`module.exports = function f() {}` and `= class C {}` define f and C);
//     its Signature says so ("export default", "module.exports ="), so that
//     re-extracting an importer alone finds it in the graph (through a
//     [DocumentLookup]). A default import `import Y from "./x"` binds Y to
//     it, and so does `const Y = require("./x")` when x has
//     `module.exports = f` (Y.name still reads x as a namespace). An
//     anonymous default export, a default that is not the file's own
//     definition (a re-export) and default imports of packages resolve to
//     nothing.
//   - Java: PACKAGE is the package declaration (the directory when there is
//     none); DESCRIPTOR is Class, Class.member or Outer.Inner; constructors
//     are Class.Class with kind "constructor".
//   - Rust: PACKAGE is the module path, from the crate of the nearest
//     Cargo.toml ([lib] or [package] name, "-" → "_") and the file's path
//     under src/ (lib.rs, main.rs: the crate root; a.rs, a/mod.rs: a;
//     a/b.rs: a::b), or an inline mod's; each file under tests/, benches/,
//     examples/ or src/bin/ is a crate of its own named by its file.
//     DESCRIPTOR is Name, Type.member (struct fields, enum variants of kind
//     "enum-member", trait methods, and impl methods, also of an impl Trait
//     for Type, under Type's module as the impl's use declarations spell
//     it) or name! for a macro_rules macro ("syntax rust shop_core::orders
//     Order.total"). Traits are of kind "interface", unions "struct",
//     modules "module". Use declarations become imports (renamed, grouped,
//     glob); crate::, self::, super:: and names they bind are expanded in
//     paths. Macro arguments are read as tokens for calls and member uses.
//     Items under #[test] or #[cfg(test)] get the test role in a document
//     that is not a test document (*_test.rs, under tests/).
//   - Python: the module is the dotted path from the project root (the
//     nearest directory with pyproject.toml, setup.py or setup.cfg, else the
//     workspace root; a leading src/ is dropped); PACKAGE is the module's
//     package and DESCRIPTOR is MODULE:Name or MODULE:Class.member
//     ("syntax python shop shop.orders:Order.total"). `from m import *`
//     makes m's exports candidates for the bare names nothing else in the
//     file explains: the names of m's __all__ when it is a literal list or
//     tuple of strings not changed later at module level (+=, append,
//     extend; kept as the Signature of m's __all__ symbol), else
//     m's top-level names without a leading underscore; a name that several
//     star imports export comes from the last of them, as at run time.
//
// Package symbols ("syntax go example.com/goapp/store", kind "package") and
// module symbols ("syntax typescript @shop/order/src/index", kind "module")
// are the sources of imports edges, and of edges from uses outside any
// definition (Python and JavaScript top-level code).
//
// # Resolution and confidence
//
// Extraction is precise about what a file defines; what a name used in a body
// refers to is a guess made without types. Each resolved use becomes an edge
// (calls for a call, references otherwise) from the enclosing definition to
// the target, with a confidence and a reason that say how the guess was made.
// A supertype named by a declaration (Java extends/implements, TypeScript and
// JavaScript class heritage, a Python base class, Rust's impl Trait for Type)
// becomes an implements edge from the type, and each method the declaration
// defines implements the supertype's method of the same name, at the
// confidence of the supertype's resolution.
//
// Each rule's confidence is measured, not chosen: `lspgraph bench
// calibrate` compares the call edges of a syntax index with a precise
// index (a SCIP dump) of the same tree, and the confidence of a rule in a
// language is the share of its edges the precise index confirms (cut to
// two decimals, at most 0.99). CALIBRATION.md has the tables, the corpora
// and the commands; calibration.go holds the values, and a rule not
// measured for a language (Java, Rust, JavaScript) keeps its default:
//
//	reason                          default  rule
//	syntax:declaration              1.0      contains: a type or class declares the member; imports: an import declaration names the package
//	syntax:same-file                0.9      the name is defined in the same file (and not bound locally)
//	syntax:same-package             0.85     Go, Java, Rust: the name is defined at package level in another file of the package (Rust: the module)
//	syntax:imported-package         0.85     pkg.Name where pkg is an import (Go), a named, default or namespace import or a require() binding of a relative module or a workspace package (TS/JS), from x import y / import x / from x import * (Python), a use declaration or a path to the defining module (Rust, globs included)
//	syntax:receiver-type            0.8      recv.M inside a method of T (Go), this.m (TS/JS), self.m (Python), self.m and Self::m (Rust): a member of the enclosing type
//	syntax:declared-type            0.8      x.M where x is a parameter or local declared with type T (Go, TS, Java, Rust, Python annotations; Go x := T{…}, new(T), x.(T), TS/Java new T(), Python x = T(…), Rust T {…} and T::f(…)), or Java T.m, Rust T::f: a member of T
//	syntax:inferred-type            0.8      Go x.M where the type of x is inferred (goinfer.go): a call's result (F(), pkg.F(), y.M(), the K-th of several), a field through a chain (a.b.c.M()), an element of a ranged or indexed collection, a conversion
//	syntax:promoted-member          0.8      Go x.M where M is a member of a type embedded in x's type (struct embedding, interface embedding, an alias's target), up to 3 levels
//	syntax:unique-global-name       0.6      x.M with x of unknown type, or a bare name nothing else explains: exactly one definition of that name in the language (Rust: a name a module does not define, as re-exported by pub use, among the definitions of its crate)
//	syntax:ambiguous-global-name    0.3      as above with 2..8 candidates: one edge per candidate (more than 8: no edge)
//
// Measured, the rules that follow names and types are right 94–100% of
// the time and the global-name guesses 1–48%: the default impact threshold
// of 0.7 keeps the former and drops the latter in every language measured.
// An edge reached through several steps (a chain, a promoted member) takes
// the rule of its weakest step. Occurrences are recorded for
// every resolution except ambiguous ones (an occurrence carries no confidence,
// so a reference list should not show guesses among 2..8 candidates).
// Names bound locally in the enclosing function (parameters, local variables)
// are not resolved at all, and a bare Go name is only looked up in its own
// package (Go names from elsewhere are always qualified). A Go file's
// global-name candidates are those its module can reach: the standard
// library, its own module, the modules it is nested in and those its
// go.mod requires (a go.mod of Go 1.17 or later lists every module its
// imports reach), so that in a repository of many modules a name defined
// in each of them is not a guess among all (nor, past 8, no edge at all);
// without such a go.mod, or under a go.work, every definition is one. A
// package of the tree is of the module of the tree its path extends
// longest, so that a module nested in one the file reaches (gopls in
// golang.org/x/tools) is out of reach unless required; [Resolve], which
// knows no listing of the tree's go.mod files, takes a package to be of
// any module in reach its path extends.
//
// [Index] runs the whole pipeline into a new base generation of a store:
// [ListFiles], extraction in parallel (one Extractor per worker), a
// [NameTable] of every definition, resolution in parallel, one
// PutDocument per file, and a manifest (commit, tool "lspgraph-syntax",
// counts, skipped files by reason). [Build] is the same without a store.
// Memory does not hold every file's facts: pass 1 leaves each extracted
// file's facts on disk as soon as it is extracted (in the fact cache entry
// that holds them, else a spill file of compact binary records,
// factcodec.go) and keeps only what resolution looks names up in (each
// definition's id, name, kind, language, package, signature and path);
// pass 2 reads the files back one by one, resolves them against the table
// of all definitions and writes them. The result is that of resolving all
// files held in memory ([Resolve]), which tests hold it to. The table
// holds no pointers for the collector to scan: its strings are in an
// arena, names, packages and paths are interned, and its indexes are
// chains and open-addressing tables of integers. The same-file rule reads
// an index of the document's own definitions built while it is resolved,
// not one entry per definition of the tree. [MemoryLimit] is the soft heap limit `lspgraph index`
// sets. With [IndexOptions].Cache, pass 1 reads files it has seen before
// from a [FactCache] (extracted facts per file version, checked by
// checksum and by the project answers the walk used) instead of parsing
// them; pass 2 runs over every file either way, since a file's edges
// depend on every other file's definitions. The table of definitions
// is left beside the store (deftable.go), with the indexes resolution
// looked names up in, laid out to be used where it lies: an incremental
// index starts from it instead of reading every definition back from the
// store, and when no changed file changed its definitions it resolves
// against those indexes without building them again. Each commit also
// leaves the state of every document beside the store (docstates.go:
// content hash, language, lookups record), which an incremental index
// compares the tree with instead of reading two records of every
// document from the store.
// Like the SCIP importer, Index refuses a generation that keeps fewer than
// half the documents of the previous syntax index of the same root unless
// [IndexOptions].AllowShrink is set ([graph.CheckShrink]): listing a tree
// that was half checked out, or the wrong directory under the same root
// name, should not silently replace a whole index.
//
// # Files indexed and skipped
//
// [ListFiles] lists a tree's source files: in a git work tree it asks
// `git ls-files -co --exclude-standard` (so .gitignore is respected);
// elsewhere it walks the tree. Either way, files under vendor/,
// node_modules/ or a hidden directory are left out.
//
// Every file, project files (go.mod, package.json, …) included, is read
// through a [rootfs.Root] on the workspace root, so nothing outside it is
// ever read. A listed symbolic link to a file inside the root is indexed
// under that file's own path, once (the link counts as skipped, symlink); one
// leading outside the root is never read (outside-root), and a walk never
// descends a directory link.
//
// [Extractor.File] skips a file, with a [SkipReason] and no
// facts, when it is a Go file under a testdata directory (testdata: the go
// tool ignores those, they are fixtures in no package), when it is larger
// than 1 MB (huge), starts with a generated-code
// marker (generated: for Go, a "// Code generated ... DO NOT EDIT." line
// before the package clause, as the go tool reads it; for other languages
// "Code generated ... DO NOT EDIT." or "@generated" in its first 20
// lines), is minified JavaScript (average line longer than
// 500 bytes, or any line longer than 10 KB: minified), or takes longer to
// parse than the parse timeout (timeout, 5 s by default: tree-sitter's own
// parse timeout). A walker that breaks on a
// file (a bug) fails that file only (failed, with FileFacts.Failure).
//
// # Re-extracting one document
//
// The live layer re-extracts a changed or unsaved document and resolves it
// against the graph it already has:
//
//	x := syntax.NewExtractor(syntax.Options{Root: root}) // one per goroutine
//	defer x.Close()
//	ff, err := x.File(ctx, "service/catalog.go", buffer)
//	// ff.Skipped != "" → no facts (generated, huge, …): decide what to keep
//	docs, err := syntax.Resolve(ctx, []*syntax.FileFacts{ff}, syntax.ReaderLookup{Reader: r})
//	// docs[0] replaces the document in the live layer
//
// The document's own definitions always win over what the graph says about
// the same path (its older version), and the result is the same as a full
// index of the unchanged repository would give for that file.
//
// # Performance
//
// Each file is parsed and its tree copied out of tree-sitter by one C call
// into a flat array (see flat.go) and walked in Go, so the cost per node is
// a few loads rather than several cgo calls and a map insertion. The parser
// and the tree live in an arena of the Extractor's and are dropped with it
// instead of being freed node by node. Go files are parsed with go/parser
// instead, about three times faster, and converted into the same flat
// array tree-sitter-go would give, node for node (see goast.go); the few
// constructs the converter does not reproduce send their file to
// tree-sitter. Parsing itself is about half
// of the CPU time of an index; resolution uses a name table indexed by
// (package, name), (file, name) and symbol.
package syntax
