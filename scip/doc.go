// Package scip imports SCIP dumps into the code graph.
//
// A dump is read as a stream, one document at a time, by a framing reader
// that knows the byte offset of every record, refuses impossible lengths
// before anything is allocated, skips unknown top-level fields and digests
// each document's payload. Documents are decoded from the wire into the
// official bindings' types by a decoder of our own, which gives what the
// bindings' proto.Unmarshal gives for the same bytes (fuzzed against it)
// at a fraction of its allocations. Its principal types are:
//
//   - [Converter] turns one SCIP document into [graph.DocumentFacts]:
//     symbols, occurrences with their enclosing definition, and edges.
//   - [Import] streams a dump into a new base generation of a
//     [graph.Store] and switches to it atomically, reusing the facts of
//     documents whose payload did not change; it returns a [Summary].
//     One goroutine frames the records and reads each document's head
//     (path, language, text, position encoding); one worker per processor
//     (at most four) decodes the rest of a document that changed, converts
//     and writes it; a bounded queue between them bounds memory by the
//     largest documents, not by the dump. The store's bytes do not depend
//     on the number of workers ([Options].Workers): a serial import writes
//     the same records. A dump from the tool and root of the current
//     generation in which few documents changed ([graph.PatchLimit])
//     patches that generation in place instead ([graph.BasePatch]): the
//     unchanged documents are neither decoded nor written, and the store
//     ends with the facts a new generation would hold.
//   - [Bench] measures a dump three ways in one process (decoding alone,
//     decoding and converting, a full import), then the imported records'
//     sstables written alone ([graph.TableFloor]), and the imported store's
//     bytes per fact; `lspgraph bench scip` prints it. An import that would keep
//     fewer than half the documents of the previous generation from the
//     same tool and root is refused unless [Options].AllowShrink is set
//     ([graph.CheckShrink]): a dump cut at a record boundary, as a crashed
//     indexer leaves it, decodes cleanly and would otherwise replace the
//     index with its first documents. A dump cut inside a record is
//     corrupt ([ErrCorrupt]) either way. The [Summary] states the
//     documents before and after.
//
// Positions are converted to the graph's encoding (UTF-8 byte columns, see
// package textpos). scip-go counts UTF-8 bytes; scip-typescript and
// scip-python count UTF-16 code units, so their documents are converted
// with the file's text (from the dump, or read under the workspace root).
// When the text is missing or does not match, the ranges are kept as given
// and the document is flagged [graph.DocPositionsUnverified].
//
// # Enclosing definitions and extents
//
// The enclosing definition of an occurrence is the innermost definition
// whose extent contains it. Locals, parameters and type parameters never
// enclose. A definition's extent is its SCIP enclosing_range when the
// indexer gives one (scip-go: functions and methods; scip-typescript and
// scip-python: functions, classes and modules). Otherwise it is computed:
// from the definition's name to the start of the next definition that is
// not one of its members (by symbol descriptors) and whose start lies after
// it, capped by the extent of the definition around it, or the end of the
// document's last occurrence. A module-level definition (a Go package
// clause, a Python module) spans the whole document. Limits: a computed
// extent starts at the name (decorators and leading keywords before it are
// outside), and it runs over trailing comments up to the next definition.
//
// # Edges
//
// Every reference inside an extent yields an edge from the enclosing symbol
// to the referenced one, aggregated per (from, kind, to) per document with
// the number of sites as Count:
//
//   - references, reason "scip:reference-in-body", for every reference;
//   - calls, reason "scip:call-by-descriptor", additionally when the
//     referenced symbol is a function or method (descriptor suffix "().").
//     SCIP has no call role, so a function used as a value counts too;
//     references enclosed only by a namespace or module (imports,
//     file-level code) make no calls edge;
//   - imports, reason "scip:import-role", additionally for occurrences with
//     the SCIP Import role.
//
// References to locals and to the enclosing symbol's own members
// (parameters, type parameters) make no edge. Relationships give
// implements ("scip:relationship-implementation"), type-definition
// ("scip:relationship-type-definition") and references
// ("scip:relationship-reference"); descriptors give contains
// ("scip:descriptor-parent") from a namespace or type to its members.
// Every SCIP edge has confidence 1.0 and source "scip".
//
// # External symbols
//
// A document's symbol list holds the symbols it defines or describes, plus
// a stub (External=true, no definition) for every symbol it references from
// another SCIP package (a dependency, or another package of a monorepo), so
// that dependency symbols have a name, kind and package and vanish with the
// last document that references them. The index's external_symbols
// section (documentation of dependency symbols) is written as the pseudo
// document [ExternalPath]. Readers merge a symbol's records over documents;
// a record with a definition wins over stubs.
package scip
