package syntax

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/arena"
)

// The state of every document of a generation that an incremental index
// compares the tree with (its path, content hash, language and lookups
// record: lookups.go), kept beside the store in one file, as the table of
// definitions is (deftable.go). Read from the store, they are two records
// of every document read through the block cache and decoded: 35-53 ms of
// a re-index of one GOROOT copy, beside the walk of the tree and competing
// with it for the cores. The file is written at every commit, a few bytes
// per document. It is a cache: an index that finds it missing, stale
// (another commit's token, extraDocStates) or damaged reads the store
// instead.

// docStatesFile is the file's name in the store's directory.
const docStatesFile = "syntax-documents"

// extraDocStates is the manifest's extra count holding the token of the
// generation's file of documents' states (0 or absent: none).
const extraDocStates = "documents_table"

// docStatesMagic starts the file; docStatesVersion is its layout's
// version, raised when the layout changes.
const (
	docStatesMagic   = "lspgraph syntax documents\n"
	docStatesVersion = 1
)

// docState is what an incremental index knows of a document of the
// generation: its content hash and language, and its lookups record, as
// stored (lookups, "" when it has none) and decoded (rec, when hasRec).
type docState struct {
	hash, language string
	lookups        string
	rec            docRecord
	hasRec         bool
}

// newDocState returns the state of a document; its lookups record is
// decoded, and one that cannot be is no record (the document is resolved
// again).
func newDocState(hash, language, lookups string) docState {
	s := docState{hash: hash, language: language, lookups: lookups}
	if lookups != "" {
		if rec, err := decodeDocRecord(lookups); err == nil {
			s.rec, s.hasRec = rec, true
		}
	}
	return s
}

// readStoreDocStates reads the states of the base generation's documents
// from the store; n is about how many there are.
func readStoreDocStates(ctx context.Context, r *graph.Reader, n int) (map[string]docState, error) {
	// Sized from the manifest's count: grown step by step, the map cost
	// a twentieth of a re-index in rehashing.
	states := make(map[string]docState, n)
	err := r.BaseDocuments(ctx, func(d graph.Document) error {
		states[d.Path] = docState{hash: d.ContentHash, language: d.Language}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The records are copied into one arena, and their strings share it.
	var text arena.Strings
	err = r.BaseLookups(ctx, func(path string, b []byte) error {
		s, ok := states[path]
		if !ok || len(b) == 0 {
			return nil
		}
		states[path] = newDocState(s.hash, s.language, text.String(text.Add(unsafe.String(&b[0], len(b)))))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return states, nil
}

// docStatesWriter writes a file of documents' states as documents are
// written, straight to a temporary file beside the store: held in memory
// until the commit, a full index's took its peak 7-13 MB higher for one
// GOROOT copy. It is safe for concurrent use.
type docStatesWriter struct {
	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	h   *xxhash.Digest
	n   uint64 // documents added
	err error  // the first write's that failed
}

// newDocStatesWriter begins a file of documents' states in dir, of the
// commit of token.
func newDocStatesWriter(dir string, token int) (*docStatesWriter, error) {
	removeStaleTemps(dir, docStatesFile, time.Now().Add(-staleTemp))
	f, err := os.CreateTemp(dir, docStatesFile+"-*.tmp")
	if err != nil {
		return nil, err
	}
	w := &docStatesWriter{f: f, h: xxhash.New()}
	w.w = bufio.NewWriterSize(io.MultiWriter(f, w.h), 256<<10)
	head := append([]byte(docStatesMagic), make([]byte, 16)...)
	binary.LittleEndian.PutUint64(head[len(docStatesMagic):], docStatesVersion)
	binary.LittleEndian.PutUint64(head[len(docStatesMagic)+8:], uint64(token))
	_, w.err = w.w.Write(head)
	return w, nil
}

// add adds the state of the document at path.
func (w *docStatesWriter) add(path, hash, language, lookups string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var n [binary.MaxVarintLen64]byte
	for _, f := range [...]string{path, hash, language, lookups} {
		if w.err == nil {
			_, w.err = w.w.Write(n[:binary.PutUvarint(n[:], uint64(len(f)))])
		}
		if w.err == nil {
			_, w.err = w.w.WriteString(f)
		}
	}
	w.n++
}

// addWritten adds the state of a document as written.
func (w *docStatesWriter) addWritten(f *graph.DocumentFacts) {
	w.add(f.Document.Path, f.Document.ContentHash, f.Document.Language, unsafe.String(unsafe.SliceData(f.Lookups), len(f.Lookups)))
}

// finish ends the file and returns its path. The writer takes no more.
func (w *docStatesWriter) finish() (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.err
	if err == nil {
		_, err = w.w.Write(binary.LittleEndian.AppendUint64(nil, w.n))
	}
	if err == nil {
		err = w.w.Flush()
	}
	if err == nil {
		_, err = w.f.Write(binary.LittleEndian.AppendUint64(nil, w.h.Sum64()))
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(w.f.Name())
		return "", err
	}
	return w.f.Name(), nil
}

// discard ends the file and removes it.
func (w *docStatesWriter) discard() {
	if name, err := w.finish(); err == nil {
		_ = os.Remove(name)
	}
}

// startDocStates begins writing states into dir under token in the
// background. states must not change until it is installed or
// discarded.
func startDocStates(dir string, token int, states map[string]docState) *pendingFile {
	return startFile(dir, docStatesFile, "the documents' states", func() (string, error) {
		w, err := newDocStatesWriter(dir, token)
		if err != nil {
			return "", err
		}
		for p, s := range states {
			w.add(p, s.hash, s.language, s.lookups)
		}
		return w.finish()
	})
}

// The file's layout (version 1): the magic, then its version and the
// token, 8 bytes each, little-endian; then per document, in no order, its
// path, content hash, language and lookups record, each a uvarint length
// and its bytes; then the number of documents and the xxhash of all
// before it, 8 bytes each.

// errStaleDocStates is returned by readDocStates for a file that is not
// the one of the token asked for.
var errStaleDocStates = errors.New("syntax: the documents' states are another commit's")

// readDocStates reads the documents' states in dir written under token. A
// missing file, one of another token and a damaged one are errors: the
// caller reads the store instead. The states' strings share the file's
// bytes. With mapped, the file may be mapped instead of read (its pages
// are the page cache's: reading it faulted in as many fresh ones), and is
// never unmapped: only for a process that ends after its index.
func readDocStates(dir string, token int, mapped bool) (map[string]docState, error) {
	var b []byte
	var err error
	name := filepath.Join(dir, docStatesFile)
	if mapped {
		b, _, err = mapFile(name, nil)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, err
	}
	head := len(docStatesMagic) + 16
	if len(b) < head+16 || string(b[:len(docStatesMagic)]) != docStatesMagic {
		return nil, fmt.Errorf("syntax: %s is not a file of documents' states", docStatesFile)
	}
	damaged := func(what string) error {
		return fmt.Errorf("syntax: the documents' states %s are damaged: %s", docStatesFile, what)
	}
	le := binary.LittleEndian
	if v := le.Uint64(b[len(docStatesMagic):]); v != docStatesVersion {
		return nil, fmt.Errorf("syntax: the documents' states have layout %d, not %d", v, docStatesVersion)
	}
	if le.Uint64(b[len(docStatesMagic)+8:]) != uint64(token) {
		return nil, errStaleDocStates
	}
	body := b[:len(b)-8]
	if xxhash.Sum64(body) != le.Uint64(b[len(b)-8:]) {
		return nil, damaged("checksum")
	}
	n := le.Uint64(body[len(body)-8:])
	body = body[:len(body)-8]
	if n > uint64(len(body)) {
		return nil, damaged("more documents than bytes")
	}
	data := unsafe.String(&body[0], len(body))
	off := head
	field := func() (string, bool) {
		l, k := binary.Uvarint(body[off:])
		if k <= 0 || l > uint64(len(body)-off-k) {
			return "", false
		}
		off += k
		s := data[off : off+int(l)]
		off += int(l)
		return s, true
	}
	states := make(map[string]docState, n)
	for range n {
		p, ok1 := field()
		hash, ok2 := field()
		language, ok3 := field()
		lookups, ok4 := field()
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, damaged("a document cut short")
		}
		states[p] = newDocState(hash, language, lookups)
	}
	if off != len(body) {
		return nil, damaged("bytes after the documents")
	}
	return states, nil
}
