package syntax

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
)

// spill holds the extracted files of an index on disk between extraction
// and resolution, so that memory holds only the definitions resolution
// looks names up in (see definitionsOf), never every file's uses,
// occurrences and terms. Records are appended in any order and read back
// by position, from several goroutines at once.
type spill struct {
	f  *os.File
	mu sync.Mutex // serializes appends
	at int64      // the end of the file
}

// spillRecord is where one file's record lies in the spill file.
type spillRecord struct {
	off int64
	n   int32
}

// newSpill creates the spill file in dir (the system's temporary
// directory if empty); close removes it.
func newSpill(dir string) (*spill, error) {
	f, err := os.CreateTemp(dir, "lspgraph-index-*.spill")
	if err != nil {
		return nil, fmt.Errorf("syntax: creating the index spill file: %w", err)
	}
	// Unlinked at once where the system allows it (a killed index leaves
	// nothing behind); close removes it where it does not.
	_ = os.Remove(f.Name())
	return &spill{f: f}, nil
}

// add appends one record.
func (s *spill) add(rec []byte) (spillRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Write(rec); err != nil {
		return spillRecord{}, fmt.Errorf("syntax: writing the index spill file: %w", err)
	}
	r := spillRecord{off: s.at, n: int32(len(rec))}
	s.at += int64(len(rec))
	return r, nil
}

// read returns the facts of a record.
func (s *spill) read(r spillRecord) (*FileFacts, error) {
	buf := make([]byte, r.n)
	if _, err := s.f.ReadAt(buf, r.off); err != nil {
		return nil, fmt.Errorf("syntax: reading the index spill file: %w", err)
	}
	ff, err := decodeFileFacts(string(buf))
	if err != nil {
		return nil, fmt.Errorf("syntax: reading the index spill file: %w", err)
	}
	return ff, nil
}

// close releases and removes the file.
func (s *spill) close() error {
	name := s.f.Name()
	err := s.f.Close()
	_ = os.Remove(name) // gone already where it was unlinked at creation
	return err
}

// interner shares equal strings: a table of definitions holds each
// package, path, kind and name once.
type interner map[string]string

func (in interner) get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	s = strings.Clone(s)
	in[s] = s
	return s
}

// definition is what name resolution reads of a definition: a
// graph.Symbol without its documentation and ranges (120 bytes where a
// Symbol takes 168, for every definition of a tree).
type definition struct {
	ID, DisplayName, Kind, Language, Package, Signature string
	Path                                                string // Def.Path
	External                                            bool
}

// definitionOf is the definition of s.
func definitionOf(s *graph.Symbol) definition {
	return definition{ID: s.ID, DisplayName: s.DisplayName, Kind: s.Kind, Language: s.Language, Package: s.Package,
		Signature: s.Signature, Path: s.Def.Path, External: s.External}
}

// symbol is the graph.Symbol of d, without documentation or ranges.
func (d *definition) symbol() graph.Symbol {
	return graph.Symbol{ID: d.ID, DisplayName: d.DisplayName, Kind: d.Kind, Language: d.Language, Package: d.Package,
		Signature: d.Signature, External: d.External, Def: graph.Location{Path: d.Path}}
}

// definitionsOf returns the definitions of a file's symbols, in the
// file's order, package and module symbols left out, every string copied
// out of the extraction's memory (in shares the repeated ones), so that
// the table keeps nothing else of the file alive.
func definitionsOf(f *FileFacts, in interner) []definition {
	n := 0
	for k := range f.Symbols {
		if s := &f.Symbols[k]; s.Kind != "package" && s.Kind != "module" {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]definition, 0, n)
	for k := range f.Symbols {
		s := &f.Symbols[k]
		if s.Kind == "package" || s.Kind == "module" {
			continue
		}
		out = append(out, definition{
			ID:          strings.Clone(s.ID),
			DisplayName: in.get(s.DisplayName),
			Kind:        in.get(s.Kind),
			Language:    in.get(s.Language),
			Package:     in.get(s.Package),
			Signature:   strings.Clone(s.Signature),
			External:    s.External,
			Path:        in.get(s.Def.Path),
		})
	}
	return out
}
