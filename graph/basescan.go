package graph

import (
	"context"
	"fmt"
	"unsafe"
)

// The base layer read whole, in path order, for a producer that brings
// its previous generation up to date (see BasePatch): the documents, their
// symbols and the lookups they recorded, each in one scan.

// BaseDocuments calls fn for every document of the base generation, in
// path order, whether or not the live layer hides it.
func (r *Reader) BaseDocuments(ctx context.Context, fn func(Document) error) error {
	ls, ok := r.base()
	if !ok {
		return nil
	}
	prefix := appendPrefix(nil, ls.space, kindDoc)
	err := scanPrefix(ctx, r.kv(), prefix, func(k, v []byte) error {
		d, err := decodeDocValue(string(k[len(prefix):]), v)
		if err != nil {
			return err
		}
		d.Layer = Base
		return fn(d)
	})
	if err != nil {
		return fmt.Errorf("graph: reading the base documents: %w", err)
	}
	return nil
}

// BaseSymbols calls fn for every symbol the documents of the base
// generation define, by document path, then id: each document's symbols
// as BaseDocumentSymbols returns them. The strings of path and s share
// the store's memory and are valid only during the call (a generation's
// symbols are read without a copy of each): fn copies what it keeps.
func (r *Reader) BaseSymbols(ctx context.Context, fn func(path string, s Symbol) error) error {
	ls, ok := r.base()
	if !ok {
		return nil
	}
	prefix := appendPrefix(nil, ls.space, kindDocSym)
	err := scanPrefix(ctx, r.kv(), prefix, func(k, v []byte) error {
		rest := k[len(prefix):]
		path := unsafe.String(unsafe.SliceData(rest), len(rest))
		return eachBorrowedDocSym(path, v, func(s Symbol) error { return fn(path, s) })
	})
	if err != nil {
		return fmt.Errorf("graph: reading the base symbols: %w", err)
	}
	return nil
}

// BaseLookups calls fn for every document of the base generation that
// recorded lookups (DocumentFacts.Lookups), in path order. b is valid only
// during the call.
func (r *Reader) BaseLookups(ctx context.Context, fn func(path string, b []byte) error) error {
	ls, ok := r.base()
	if !ok {
		return nil
	}
	prefix := appendPrefix(nil, ls.space, kindDocLookups)
	err := scanPrefix(ctx, r.kv(), prefix, func(k, v []byte) error {
		return fn(string(k[len(prefix):]), v)
	})
	if err != nil {
		return fmt.Errorf("graph: reading the base lookups: %w", err)
	}
	return nil
}

// NormalizeSymbols returns a document's symbols as the store keeps them:
// by id, those of one id merged into the first. A producer that reads
// symbols back (BaseSymbols) and compares them with ones it extracts
// normalizes those first.
func NormalizeSymbols(in []Symbol) ([]Symbol, error) {
	out, err := new(normalizer).symbols(make([]Symbol, 0, len(in)), in)
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	return out, nil
}
