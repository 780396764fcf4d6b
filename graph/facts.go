package graph

import (
	"time"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Layer names where a fact came from. A document owned by the live layer
// hides the base layer's facts for that document.
type Layer uint8

const (
	// Base holds the last complete bulk load (SCIP import or `lspgraph index`).
	Base Layer = 1
	// Live holds what the proxy observed and what the overlay re-extracted
	// from documents changed since the base commit or unsaved in an editor.
	Live Layer = 2
)

func (l Layer) String() string {
	switch l {
	case Base:
		return "base"
	case Live:
		return "live"
	}
	return "layer?"
}

// Role is a bit set describing what an occurrence does with its symbol.
// The bits are part of the on-disk format: never renumber them.
type Role uint32

const (
	RoleDefinition Role = 1 << iota
	RoleReference
	RoleImport
	RoleWrite
	RoleRead
	RoleCall
	RoleTest // the occurrence lies in a test document
	RoleGenerated
	RoleForwardDefinition
	// RoleConversion: the occurrence is a place where a concrete type
	// becomes an interface value that needs the occurrence's symbol, a
	// ConversionSymbol (recorded from the type checker).
	RoleConversion
)

// ConversionSymbol is the symbol id that a conversion site needs: the
// method name of type typ in package pkg (a Go package path), whatever the
// producer of the document's other facts calls it. A conversion site is an
// occurrence of it with RoleConversion; the method's dependents that break
// through the conversion are the declarations enclosing those occurrences.
// The ids of this family start with "conversion " and contain spaces, so no
// SCIP symbol or syntax id takes that form.
//
// A base layer that records conversion sites says how many packages the
// type checker saw in its manifest's Extra under ManifestConversionPackages.
func ConversionSymbol(pkg, typ, name string) string {
	return "conversion " + pkg + " " + typ + "." + name
}

// EdgeKind names a relation between two symbols. Values are stored on disk.
type EdgeKind string

const (
	EdgeReferences EdgeKind = "references"      // From's body references To
	EdgeCalls      EdgeKind = "calls"           // From's body calls To
	EdgeImplements EdgeKind = "implements"      // From implements To (type or method)
	EdgeTypeOf     EdgeKind = "type-of"         // From's type is To
	EdgeContains   EdgeKind = "contains"        // From (namespace/type) contains member To
	EdgeImports    EdgeKind = "imports"         // From (document package) imports To
	EdgeTypeDef    EdgeKind = "type-definition" // relationship is_type_definition
)

// Source names how a fact was derived.
const (
	SourceSCIP   = "scip"
	SourceLSP    = "lsp"
	SourceSyntax = "syntax"
)

// Location is a range in a document, the path relative to the workspace root
// with forward slashes.
type Location struct {
	Path  string
	Range textpos.Range
}

// Symbol is an identity in the code. ID is the SCIP symbol string where one
// exists; local symbols are made unique per document by their producer
// ("local 4" in "a/b.go" becomes "local 4 a/b.go"); symbols observed without a
// name are keyed by their definition location. The graph treats IDs as
// opaque strings.
type Symbol struct {
	ID          string
	DisplayName string
	Kind        string // function, method, type, interface, struct, class, field, variable, constant, namespace, package, module, parameter, local, …
	Language    string // go, typescript, javascript, python, …
	Package     string // the package the symbol belongs to (Go package path, npm package name, Python project)
	Signature   string
	Doc         string // first paragraph of its documentation
	External    bool   // known only as a reference target; not defined in the workspace
	// Def is the name range of the definition; DefExtent the whole
	// definition (body included) when known. Zero when unknown.
	Def       Location
	DefExtent textpos.Range
}

// Occurrence is one mention of a symbol in a document.
type Occurrence struct {
	Path   string
	Range  textpos.Range
	Symbol string
	Roles  Role
	// Enclosing is the innermost definition whose extent contains this
	// occurrence (the caller, for a call inside a function body), or "".
	Enclosing string
}

// Edge is a relation between two symbols, justified by one document.
// When several documents justify the same (From, Kind, To), readers
// aggregate them: Count sums, Confidence is the maximum.
type Edge struct {
	From, To   string
	Kind       EdgeKind
	Confidence float64 // 1.0 precise (SCIP, LSP); lower for name-based syntax matches
	Source     string  // SourceSCIP, SourceLSP, SourceSyntax
	Reason     string  // the rule that made the edge, e.g. "scip:reference-in-body"
	Count      int     // number of sites
	Path       string  // the document that justifies the edge (set by readers)
	Layer      Layer   // set by readers
}

// DocumentFlags record conditions a reader should know about. The store
// keeps a flag of its own in the top bit: a producer's is not kept.
type DocumentFlags uint32

const (
	// DocPositionsUnverified: the document's text was not available or did
	// not match, so columns were kept as the producer gave them.
	DocPositionsUnverified DocumentFlags = 1 << iota
	// DocTest: the document is a test file by its language's convention.
	DocTest
	// DocGenerated: the document is generated code.
	DocGenerated
)

// Document is a file of the workspace and what is known about it.
type Document struct {
	Path        string // relative to the workspace root, forward slashes
	Language    string
	Package     string // the package the document belongs to, if known
	ContentHash string // hash of the text the facts were derived from, if known
	Digest      string // producer's digest of its input (e.g. the SCIP payload), for reuse
	Source      string // SourceSCIP, SourceLSP, SourceSyntax
	Flags       DocumentFlags
	Layer       Layer // set by readers
}

// DocumentFacts is everything one document contributes. Writing it replaces
// whatever the same document contributed before in that layer.
type DocumentFacts struct {
	Document    Document
	Symbols     []Symbol     // symbols whose definition (or SymbolInformation) this document provides
	Occurrences []Occurrence // Path is taken from Document.Path
	Edges       []Edge       // edges this document justifies
	Terms       []Term       // the words the document is searched by
	// Lookups is what the producer's name resolution looked up for the
	// document, in a form of its own: the graph keeps it with the
	// document's other facts (replaced, reused and deleted with them) and
	// never reads it, so that a producer resolving again can tell which
	// documents a change of definitions reaches (see syntax.Index).
	Lookups []byte
}

// State tells whether a layer's content is complete.
type State string

const (
	StateComplete State = "complete"
	StatePartial  State = "partial"
)

// Manifest describes the content of a layer.
type Manifest struct {
	Layer       Layer
	Generation  uint64
	Commit      string // source commit the layer was built from
	Root        string // absolute workspace root at build time
	Tool        string // e.g. "scip-go", "lspgraph-syntax"
	ToolVersion string
	ToolArgs    []string
	State       State
	Documents   int
	Symbols     int
	Occurrences int
	Edges       int
	Extra       map[string]int // producer-specific counts (skipped documents, reused documents, …)
	// Packages are the versions of the packages the layer's documents
	// define symbols of, by package, for producers that name packages
	// in their symbols (SCIP: "scheme manager name" → version).
	Packages map[string]string `json:",omitempty"`
	Started  time.Time
	Finished time.Time
}

// ManifestConversionPackages is the manifest Extra key counting the
// packages whose conversion sites a layer records; absent when it records
// none.
const ManifestConversionPackages = "conversion_packages"
