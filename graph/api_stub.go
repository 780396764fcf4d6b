package graph

// This file fixes the public API of the store so that other packages can be
// written against it. Bodies are filled in by the store implementation.

import (
	"context"
	"errors"
	"io"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

var errTODO = errors.New("graph: not implemented yet")

// Options configure Open.
type Options struct {
	// ReadOnly opens for queries only.
	ReadOnly bool
	// InMemory uses an in-memory filesystem (tests); Dir is then a name only.
	InMemory bool
}

// Store is an open graph store.
type Store struct{}

// Open opens (creating when absent, mode 0700) the store in dir.
// A store locked by another process yields an error wrapping ErrLocked that
// names the path and the holder's pid; a schema mismatch wraps ErrSchema.
func Open(dir string, opts Options) (*Store, error) { return nil, errTODO }

// DefaultDir returns os.UserCacheDir()/lspgraph/<hash of the absolute root>.
func DefaultDir(root string) (string, error) { return "", errTODO }

var (
	ErrLocked   = errors.New("graph: store is in use by another process")
	ErrSchema   = errors.New("graph: store has another schema version")
	ErrNotFound = errors.New("graph: not found")
	ErrClosed   = errors.New("graph: store is closed")
)

func (s *Store) Close() error { return errTODO }
func (s *Store) Dir() string  { return "" }

// BeginGeneration starts a new base generation. Nothing is visible to
// readers until Commit switches to it atomically.
func (s *Store) BeginGeneration(ctx context.Context) (*GenerationWriter, error) {
	return nil, errTODO
}

// GenerationWriter writes one new base generation.
type GenerationWriter struct{}

// PutDocument writes one document's facts into the new generation (one batch).
func (g *GenerationWriter) PutDocument(ctx context.Context, f DocumentFacts) error { return errTODO }

// PreviousDigest returns the Digest the current base generation records for
// path, so a producer can skip re-converting an unchanged document.
func (g *GenerationWriter) PreviousDigest(path string) (string, bool) { return "", false }

// ReuseDocument copies path's facts from the current base generation.
func (g *GenerationWriter) ReuseDocument(ctx context.Context, path string) error { return errTODO }

// Commit records m and switches readers to the new generation atomically,
// then removes the previous generation with range deletions.
func (g *GenerationWriter) Commit(ctx context.Context, m Manifest) error { return errTODO }

// Abort discards the new generation.
func (g *GenerationWriter) Abort() error { return errTODO }

// PutDocument replaces a document's facts in a layer (Base: the current
// generation, in place; Live: the overlay) in one atomic batch.
func (s *Store) PutDocument(ctx context.Context, layer Layer, f DocumentFacts) error {
	return errTODO
}

// DeleteDocument removes everything a document contributed to a layer.
func (s *Store) DeleteDocument(ctx context.Context, layer Layer, path string) error {
	return errTODO
}

// RenameDocument moves a document's facts to a new path within a layer.
func (s *Store) RenameDocument(ctx context.Context, layer Layer, from, to string) error {
	return errTODO
}

// ClearLayer removes every document of a layer (Live only).
func (s *Store) ClearLayer(ctx context.Context, layer Layer) error { return errTODO }

// SetManifest records a layer's manifest (the live layer's, mostly).
func (s *Store) SetManifest(ctx context.Context, m Manifest) error { return errTODO }

// Reader returns a reader pinned to a consistent snapshot. Close it.
func (s *Store) Reader() (*Reader, error) { return nil, errTODO }

// Reader reads one consistent snapshot of the graph. The live layer hides
// the base facts of every document it owns.
type Reader struct{}

func (r *Reader) Close() error { return errTODO }

// Manifest returns a layer's manifest.
func (r *Reader) Manifest(layer Layer) (Manifest, bool, error) { return Manifest{}, false, errTODO }

// Symbol returns the symbol with that id, merged over the documents that
// describe it.
func (r *Reader) Symbol(ctx context.Context, id string) (Symbol, bool, error) {
	return Symbol{}, false, errTODO
}

// SymbolsAt returns the occurrences in path whose range contains pos,
// innermost first.
func (r *Reader) SymbolsAt(ctx context.Context, path string, pos textpos.Position) ([]Occurrence, error) {
	return nil, errTODO
}

// FindSymbols finds symbols by display name, exactly or by prefix, case
// sensitive, at most limit (0: no limit).
func (r *Reader) FindSymbols(ctx context.Context, name string, prefix bool, limit int) ([]Symbol, error) {
	return nil, errTODO
}

// Definitions returns the definition occurrences of a symbol.
func (r *Reader) Definitions(ctx context.Context, id string) ([]Occurrence, error) {
	return nil, errTODO
}

// References returns every occurrence of a symbol (definitions included),
// with its enclosing symbol, ordered by path and position, at most limit.
func (r *Reader) References(ctx context.Context, id string, limit int) ([]Occurrence, error) {
	return nil, errTODO
}

// Occurrences returns the occurrences of one document, in position order.
func (r *Reader) Occurrences(ctx context.Context, path string) ([]Occurrence, error) {
	return nil, errTODO
}

// DocumentSymbols returns the symbols a document defines.
func (r *Reader) DocumentSymbols(ctx context.Context, path string) ([]Symbol, error) {
	return nil, errTODO
}

// Document returns a document's record from the layer that owns it.
func (r *Reader) Document(ctx context.Context, path string) (Document, bool, error) {
	return Document{}, false, errTODO
}

// Documents calls fn for every visible document in path order.
func (r *Reader) Documents(ctx context.Context, fn func(Document) error) error { return errTODO }

// DocumentsOfPackage returns the paths of the documents of a package.
func (r *Reader) DocumentsOfPackage(ctx context.Context, pkg string) ([]string, error) {
	return nil, errTODO
}

// Packages returns every package that has documents, sorted.
func (r *Reader) Packages(ctx context.Context) ([]string, error) { return nil, errTODO }

// EdgeFilter selects edges. Empty Kinds means all kinds.
type EdgeFilter struct {
	Kinds         []EdgeKind
	MinConfidence float64
	Limit         int
}

// Incoming returns the edges pointing at id, aggregated per (From, Kind).
func (r *Reader) Incoming(ctx context.Context, id string, f EdgeFilter) ([]Edge, error) {
	return nil, errTODO
}

// Outgoing returns the edges leaving id, aggregated per (Kind, To).
func (r *Reader) Outgoing(ctx context.Context, id string, f EdgeFilter) ([]Edge, error) {
	return nil, errTODO
}

// Direction of a traversal.
type Direction uint8

const (
	Upstream   Direction = iota // follow incoming edges: who depends on the start
	Downstream                  // follow outgoing edges: what the start depends on
)

// TraverseOptions bound a traversal.
type TraverseOptions struct {
	Direction     Direction
	Kinds         []EdgeKind
	MinConfidence float64
	MaxDepth      int
	Limit         int // total visits, 0 = no limit
	LimitPerDepth int // 0 = no limit
}

// Visit is one symbol reached by a traversal.
type Visit struct {
	Symbol string
	Depth  int
	Via    Edge // the edge that reached it first (breadth-first, deterministic order)
}

// Traverse walks breadth-first from start. Truncated reports that a limit cut
// the walk short.
func (r *Reader) Traverse(ctx context.Context, start []string, o TraverseOptions) (visits []Visit, truncated bool, err error) {
	return nil, false, errTODO
}

// Dump writes every key of the visible graph in printable form, for goldens.
func (r *Reader) Dump(w io.Writer) error { return errTODO }
