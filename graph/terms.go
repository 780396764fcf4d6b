package graph

// This file is the term index: the words a reader searches code by, per
// document, in the same spaces as every other fact. A document's terms are
// one doc-first record (doc-terms: path → every term, its field and count)
// and one posting per word (term: word, path → the word's count per field
// and the document's length), derived from it by emitRecords, so they are
// replaced, deleted, renamed and reused with the document, and the live
// layer hides a base document's postings as it hides its other facts.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// TermField names where in a document a word was found. The values are
// part of the on-disk format: never renumber them.
type TermField uint8

const (
	// TermName: the name of something the document defines.
	TermName TermField = iota + 1
	// TermPath: the document's path and its package.
	TermPath
	// TermDoc: comments and documentation.
	TermDoc
	// TermString: string literals (routes, flags, keys, messages).
	TermString
	// TermCode: the other identifiers of the code.
	TermCode
)

// termFields is the number of fields; posting values hold one count each.
const termFields = int(TermCode)

// TermFields lists every field, in order.
var TermFields = []TermField{TermName, TermPath, TermDoc, TermString, TermCode}

func (f TermField) String() string {
	switch f {
	case TermName:
		return "name"
	case TermPath:
		return "path"
	case TermDoc:
		return "doc"
	case TermString:
		return "string"
	case TermCode:
		return "code"
	}
	return "field?"
}

// Term is a word of a document and how often it occurs in one field.
// Words are lower case.
type Term struct {
	Word  string
	Field TermField
	Count int
}

// ManifestTermDocuments is the manifest Extra key counting the documents
// whose terms a layer records; a base layer without it predates the term
// index (search needs a new `lspgraph index` or import).
const ManifestTermDocuments = "term_documents"

// ManifestTermLength is the manifest Extra key holding the lengths of
// the documents with terms of the base layer, summed: with
// ManifestTermDocuments, the term index's statistics (TermStats) without
// reading every document's terms, which cost a command line search on
// four copies of GOROOT's source 0.2 s of its 0.45. It is kept by every
// write of the base layer; a manifest without it (written before it, or
// by SetManifest) has its statistics counted from the documents.
const ManifestTermLength = "term_length"

// termTotals is what a document adds to its layer's term statistics: one
// document and its length, when its terms, normalized, are not none.
func termTotals(ts []Term) (docs, length int) {
	for _, t := range ts {
		if t.Word != "" && len(t.Word) <= maxWordLen && t.Count > 0 {
			docs, length = 1, length+t.Count
		}
	}
	return docs, length
}

// maxWordLen bounds the words kept: longer runs are data, not words.
const maxWordLen = 64

// Posting is one document's entry for a word: its count per field and the
// document's length (its terms' counts summed).
type Posting struct {
	Path   string
	Layer  Layer
	Counts [termFields]int // by TermField-1
	Length int             // the document's length, rounded (postingLength)
}

// Count returns the word's count in field f.
func (p *Posting) Count(f TermField) int { return p.Counts[f-1] }

// appendNormalTerms appends in's terms to out, validated, in word then
// field order (sorted through ts), duplicates merged.
func appendNormalTerms(out, in []Term, ts *termSorter) ([]Term, error) {
	for _, t := range in {
		if t.Word == "" || len(t.Word) > maxWordLen || t.Count <= 0 {
			continue
		}
		if t.Field < TermName || t.Field > TermCode {
			return nil, fmt.Errorf("term %q has unknown field %d", t.Word, t.Field)
		}
		if err := validID("term", t.Word); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	ts.sort(out)
	w := 0
	for i := range out {
		if w > 0 && compareTerms(out[w-1], out[i]) == 0 {
			out[w-1].Count += out[i].Count
			continue
		}
		out[w] = out[i]
		w++
	}
	return out[:w], nil
}

func compareTerms(a, b Term) int {
	return cmp.Or(strings.Compare(a.Word, b.Word), cmp.Compare(a.Field, b.Field))
}

// A termSorter sorts terms as compareTerms orders them, in buffers it
// reuses. It sorts numbers made of each word's first eight bytes and
// compares the words themselves only where those tie: a document's terms
// are a few hundred short words, and comparing them as strings was most
// of the cost of normalizing them.
type termSorter struct {
	keys  []termKey
	order []int32
}

type termKey struct {
	prefix uint64 // the word's first eight bytes, big-endian, zero-padded
	i      int32
}

func (s *termSorter) sort(ts []Term) {
	keys := s.keys[:0]
	for i := range ts {
		var b [8]byte
		copy(b[:], ts[i].Word)
		keys = append(keys, termKey{binary.BigEndian.Uint64(b[:]), int32(i)})
	}
	// Words that differ in their first eight bytes (a shorter one padded
	// with zeros) are in the order of those bytes as numbers.
	slices.SortFunc(keys, func(a, b termKey) int {
		if a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		return compareTerms(ts[a.i], ts[b.i])
	})
	order := slices.Grow(s.order[:0], len(keys))[:len(keys)]
	for j, k := range keys {
		order[j] = k.i
	}
	permute(ts, order)
	s.keys, s.order = keys, order
}

func appendDocTermsKey(dst []byte, space uint64, path string) []byte {
	return append(appendPrefix(dst, space, kindDocTerms), path...)
}

func appendTermKey(dst []byte, space uint64, word, path string) []byte {
	return append(appendField(appendPrefix(dst, space, kindTerm), word), path...)
}

// termsLength is a document's length: its terms' counts summed.
func termsLength(ts []Term) int {
	n := 0
	for _, t := range ts {
		n += t.Count
	}
	return n
}

// Doc-terms value: uvarint length, uvarint term count, then per term the
// word, the field and the count.
func appendDocTermsValue(dst []byte, ts []Term) []byte {
	w := valueWriter{dst}
	w.uvarint(uint64(termsLength(ts)))
	w.uvarint(uint64(len(ts)))
	for _, t := range ts {
		w.str(t.Word)
		w.uvarint(uint64(t.Field))
		w.uvarint(uint64(t.Count))
	}
	return w.b
}

func decodeDocTermsValue(path string, b []byte) ([]Term, error) {
	r := valueReader{b: b}
	r.uvarint()
	n := r.uvarint()
	if n > uint64(len(b)) {
		return nil, fmt.Errorf("%w: terms of %s", errBadValue, path)
	}
	out := make([]Term, 0, n)
	for range n {
		t := Term{Word: r.str(), Field: TermField(r.uvarint()), Count: int(r.uvarint())}
		out = append(out, t)
	}
	return out, r.done("terms of", path)
}

// Term value: the document's length, rounded (postingLength), then the
// word's count in each field.
func appendTermValue(dst []byte, length int, counts *[termFields]int) []byte {
	w := valueWriter{dst}
	w.uvarint(uint64(length))
	for _, c := range counts {
		w.uvarint(uint64(c))
	}
	return w.b
}

func decodeTermValue(p *Posting, b []byte) error {
	r := valueReader{b: b}
	p.Length = int(r.uvarint())
	for i := range p.Counts {
		p.Counts[i] = int(r.uvarint())
	}
	return r.done("posting of", p.Path)
}

// terms emits a document's doc-terms record and one posting per word.
// ts is normalized: sorted by word, then field.
func (e *recordEmitter) terms(ts []Term) {
	if len(ts) == 0 {
		return
	}
	length := postingLength(termsLength(ts))
	for i := 0; i < len(ts); {
		var counts [termFields]int
		j := i
		for ; j < len(ts) && ts[j].Word == ts[i].Word; j++ {
			counts[ts[j].Field-1] += ts[j].Count
		}
		e.put(appendTermKey(e.k[:0], e.space, ts[i].Word, e.path), appendTermValue(e.v[:0], length, &counts))
		i = j
	}
	e.put(appendDocTermsKey(e.k[:0], e.space, e.path), appendDocTermsValue(e.v[:0], ts))
}

func readDocTerms(ctx context.Context, r kvReader, space uint64, path string) ([]Term, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, ok, err := get(r, appendDocTermsKey(nil, space, path))
	if err != nil || !ok {
		return nil, err
	}
	return decodeDocTermsValue(path, v)
}

// DocumentTerms returns the terms of a document, from the layer that owns
// it, by word then field.
func (r *Reader) DocumentTerms(ctx context.Context, path string) ([]Term, error) {
	ls, ok := r.owner(path)
	if !ok {
		return nil, nil
	}
	return readDocTerms(ctx, r.kv(), ls.space, path)
}

// Postings returns the visible documents holding word, in path order: the
// live layer's first, then the base layer's it does not hide.
func (r *Reader) Postings(ctx context.Context, word string) ([]Posting, error) {
	var out []Posting
	for _, ls := range r.layers {
		prefix := appendField(appendPrefix(nil, ls.space, kindTerm), word)
		err := scanPrefix(ctx, r.kv(), prefix, func(k, v []byte) error {
			path := string(k[len(prefix):])
			if r.hidden(ls, path) {
				return nil
			}
			p := Posting{Path: path, Layer: ls.layer}
			if err := decodeTermValue(&p, v); err != nil {
				return err
			}
			out = append(out, p)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("graph: reading postings of %q: %w", word, err)
		}
	}
	return out, nil
}

// TermStats describes the visible term index as a whole: how many
// documents have terms and their lengths summed.
type TermStats struct {
	Documents int
	Length    int
}

// TermStats counts the documents with terms and their total length over
// the visible layers. The base layer's totals are kept by the store per
// base version (BaseVersion), so that a reader whose live layer changed
// reads the terms of the live documents and of the base documents they
// hide, not the base layer's whole.
func (r *Reader) TermStats(ctx context.Context) (TermStats, error) {
	var st TermStats
	for _, ls := range r.layers {
		if ls.layer != Base || r.baseVersion == 0 {
			if err := r.addTermStats(ctx, ls, true, &st); err != nil {
				return st, err
			}
			continue
		}
		all, err := r.baseTermStats(ctx, ls)
		if err != nil {
			return st, err
		}
		st.Documents += all.Documents
		st.Length += all.Length
		for p := range r.live { // hidden: take back what the base counts of them
			v, ok, err := get(r.kv(), appendDocTermsKey(nil, ls.space, p))
			if err != nil {
				return st, fmt.Errorf("graph: reading term statistics: %w", err)
			}
			if ok {
				n, err := docTermsLength(v, p)
				if err != nil {
					return st, err
				}
				st.Documents--
				st.Length -= n
			}
		}
	}
	return st, nil
}

// baseTermStats returns the totals of every document of the base layer
// ls, hidden or not: the store's, when they are of the reader's base
// version, else counted and kept for it.
func (r *Reader) baseTermStats(ctx context.Context, ls layerSpace) (TermStats, error) {
	m, ok, err := r.Manifest(Base)
	if err != nil {
		return TermStats{}, fmt.Errorf("graph: reading term statistics: %w", err)
	}
	if n, kept := m.Extra[ManifestTermLength]; ok && kept {
		return TermStats{Documents: m.Extra[ManifestTermDocuments], Length: n}, nil
	}
	c := &r.store.baseTerms
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == r.baseVersion && c.space == ls.space {
		return c.st, nil
	}
	var st TermStats
	if err := r.addTermStats(ctx, ls, false, &st); err != nil {
		return st, err
	}
	c.version, c.space, c.st = r.baseVersion, ls.space, st
	return st, nil
}

// baseTermsCache holds the term totals of one base version's base layer.
type baseTermsCache struct {
	mu      sync.Mutex
	version uint64 // the BaseVersion counted (0: none)
	space   uint64
	st      TermStats
}

// addTermStats adds to st the documents of layer ls with terms, and their
// lengths; with hide, not those the live layer hides.
func (r *Reader) addTermStats(ctx context.Context, ls layerSpace, hide bool, st *TermStats) error {
	prefix := appendPrefix(nil, ls.space, kindDocTerms)
	err := scanPrefix(ctx, r.kv(), prefix, func(k, v []byte) error {
		if hide && r.hidden(ls, string(k[len(prefix):])) {
			return nil
		}
		n, err := docTermsLength(v, string(k[len(prefix):]))
		if err != nil {
			return err
		}
		st.Documents++
		st.Length += n
		return nil
	})
	if err != nil {
		return fmt.Errorf("graph: reading term statistics: %w", err)
	}
	return nil
}

// docTermsLength returns the document length a doc-terms value records.
func docTermsLength(v []byte, path string) (int, error) {
	rd := valueReader{b: v}
	n := rd.uvarint()
	if rd.bad {
		return 0, errors.Join(errBadValue, fmt.Errorf("terms of %s", path))
	}
	return int(n), nil
}

// DocumentSymbolsWhere returns the symbols a document defines that are
// visible outside it (not "local …") and that keep accepts by display name
// and kind, by id, decoding only those: cheaper than DocumentSymbols, as the
// document's locals are skipped unread and the others are judged before
// anything is copied. keep must not retain name or kind.
func (r *Reader) DocumentSymbolsWhere(ctx context.Context, path string, keep func(name, kind []byte) bool) ([]Symbol, error) {
	ls, ok := r.owner(path)
	if !ok {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Symbol
	_, err := view(r.kv(), appendDocSymsKey(nil, ls.space, path), func(v []byte) error {
		return eachDocSym(path, v, func(id, v []byte) error {
			if bytes.HasPrefix(id, []byte(localPrefix)) {
				return nil
			}
			head := valueReader{b: v}
			name, kind := head.bytes(), head.bytes()
			if !head.bad && !keep(name, kind) {
				return nil
			}
			s, err := decodeSymbolValue(string(id), v)
			out = append(out, s)
			return err
		})
	})
	return out, err
}

// localPrefix begins the id of every symbol local to its document.
const localPrefix = "local "

// bytes reads a string's bytes without copying them.
func (r *valueReader) bytes() []byte {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

// postingLength is the document length n as its postings hold it: exact
// below 32, else its five highest bits kept and the rest set to the
// middle of what they span, within 3% of n, as search engines keep
// lengths for BM25 (Lucene's norms, a byte per document). A posting
// holding the exact length changed with every word added to or removed
// from its document, so that such an edit rewrote all of the document's
// postings: 11,233 of the 11,355 records a re-index of 53 GOROOT files,
// each with a comment line added, wrote. Rounded, most such edits leave
// the length, and the postings of the words they did not touch, as they
// were. Documents' exact lengths stay in their doc-terms records (and
// their sum, for the average, in the manifest).
func postingLength(n int) int {
	if n < 32 {
		return n
	}
	shift := bits.Len(uint(n)) - 5
	return n>>shift<<shift | 1<<shift>>1
}
