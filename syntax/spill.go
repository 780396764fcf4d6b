package syntax

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/lspgraph/lspgraph/graph"
)

// spill holds the extracted files of an index on disk between extraction
// and resolution, so that memory holds only the definitions resolution
// looks names up in (see definitionsOf), never every file's uses,
// occurrences and terms. A file whose facts an entry of the fact cache
// holds (read or just written) is read back from that entry: writing the
// same facts a second time was a fifth of what a first index wrote.
// The others' records are appended in any order and read back by
// position, from several goroutines at once.
type spill struct {
	f  *os.File
	mu sync.Mutex // serializes appends
	at int64      // the end of the file
}

// spillRecord is where one file's facts lie: a record of the spill file,
// or the fact cache entry at entry.
type spillRecord struct {
	off   int64
	n     int32
	entry factLoc
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

// keep returns where the facts a of file can be read back: the cache
// entry that holds them, else a record appended to the spill file (buf is
// scratch space for its encoding).
func (s *spill) keep(a answered, buf *[]byte) (spillRecord, error) {
	if a.entry.pack != nil {
		return spillRecord{entry: a.entry}, nil
	}
	*buf = encodeFileFacts((*buf)[:0], a.ff)
	return s.add(*buf)
}

// errEntryGone reports a fact cache entry that an index wrote or read in
// its first pass and can no longer read back: removed by a concurrent
// Trim, or damaged.
var errEntryGone = errors.New("fact cache entry gone")

// read returns the facts of the file p from its record.
func (s *spill) read(r spillRecord, p string) (*FileFacts, error) {
	if r.entry.pack != nil {
		ff, _, err := r.entry.facts(nil, p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errEntryGone, err)
		}
		return ff, nil
	}
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

// spillReader reads the facts of files back from a spill, for one
// goroutine: a file whose cache entry went is extracted again (from the
// same content, unless the file changed during the index).
type spillReader struct {
	sp   *spill
	opts Options
	x    *Extractor // made on first need
}

// read returns the facts of the file p from its record.
func (r *spillReader) read(ctx context.Context, rec spillRecord, p string) (*FileFacts, error) {
	ff, err := r.sp.read(rec, p)
	if !errors.Is(err, errEntryGone) {
		return ff, err
	}
	src, rerr := r.opts.FS.ReadFile(p)
	if rerr != nil {
		return nil, fmt.Errorf("syntax: reading %s again (%v): %w", p, err, rerr)
	}
	if r.x == nil {
		r.x = NewExtractor(r.opts)
	}
	return r.x.File(ctx, p, src)
}

// close releases the extractor, if one was made.
func (r *spillReader) close() {
	if r.x != nil {
		r.x.Close()
	}
}

// close releases and removes the file.
func (s *spill) close() error {
	name := s.f.Name()
	err := s.f.Close()
	_ = os.Remove(name) // gone already where it was unlinked at creation
	return err
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

// definitionsOf returns the definitions of a file's symbols, package and
// module symbols left out. Their strings share the file's memory: a
// defStore copies what it keeps.
//
// The definitions are those of the symbols as the store keeps them (by
// id, one per id: graph.NormalizeSymbols), so that a table built from a
// stored generation's symbols (incremental.go) is this one.
func definitionsOf(f *FileFacts) []definition {
	syms, err := graph.NormalizeSymbols(f.Symbols)
	if err != nil {
		syms = f.Symbols // the document is refused when it is written
	}
	n := 0
	for k := range syms {
		if s := &syms[k]; s.Kind != "package" && s.Kind != "module" {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]definition, 0, n)
	for k := range syms {
		s := &syms[k]
		if s.Kind == "package" || s.Kind == "module" {
			continue
		}
		out = append(out, definitionOf(s))
	}
	return out
}
