package graph

// This file is the on-disk value format (part of SchemaVersion). Values are
// compact binary: strings are a uvarint length and bytes, numbers uvarints,
// confidences 8-byte IEEE floats. The key carries the identifying fields, so
// values hold only the rest.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

var errBadValue = errors.New("graph: malformed value")

// valueWriter appends encoded fields to b.
type valueWriter struct{ b []byte }

func (w *valueWriter) uvarint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }

func (w *valueWriter) str(s string) {
	w.uvarint(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *valueWriter) float(f float64) { w.b = binary.BigEndian.AppendUint64(w.b, math.Float64bits(f)) }

// Confidence tags: most edges are precise, and take one byte.
const (
	confOne   = 0 // 1.0
	confOther = 1 // an 8-byte float follows
)

// confidence appends an edge's confidence: 1.0 as one byte, any other
// value as a tag and the float.
func (w *valueWriter) confidence(f float64) {
	if f == 1 {
		w.b = append(w.b, confOne)
		return
	}
	w.b = append(w.b, confOther)
	w.float(f)
}

func (w *valueWriter) rng(r textpos.Range) {
	w.uvarint(uint64(r.Start.Line))
	w.uvarint(uint64(r.Start.Col))
	w.uvarint(uint64(r.End.Line))
	w.uvarint(uint64(r.End.Col))
}

// valueReader consumes fields from b; the first failure sticks in bad.
type valueReader struct {
	b   []byte
	bad bool
	// borrow makes str return strings that share b's memory.
	borrow bool
}

func (r *valueReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *valueReader) u32() uint32 {
	v := r.uvarint()
	if v > math.MaxUint32 {
		r.bad = true
	}
	return uint32(v)
}

func (r *valueReader) str() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return ""
	}
	var s string
	if r.borrow {
		s = unsafe.String(unsafe.SliceData(r.b), n)
	} else {
		s = string(r.b[:n])
	}
	r.b = r.b[n:]
	return s
}

// skipStr steps over a string.
func (r *valueReader) skipStr() {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return
	}
	r.b = r.b[n:]
}

func (r *valueReader) float() float64 {
	if len(r.b) < 8 {
		r.bad = true
		return 0
	}
	v := math.Float64frombits(binary.BigEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

// confidence reads what valueWriter.confidence wrote.
func (r *valueReader) confidence() float64 {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	tag := r.b[0]
	r.b = r.b[1:]
	switch tag {
	case confOne:
		return 1
	case confOther:
		return r.float()
	}
	r.bad = true
	return 0
}

func (r *valueReader) rng() textpos.Range {
	var x textpos.Range
	x.Start.Line, x.Start.Col = r.u32(), r.u32()
	x.End.Line, x.End.Col = r.u32(), r.u32()
	return x
}

// done reports an error if the value was malformed or has trailing bytes,
// naming what it is and the parts after it (joined by spaces only then:
// a value decoded fine allocates no message).
func (r *valueReader) done(what string, parts ...string) error {
	if r.bad || len(r.b) != 0 {
		return fmt.Errorf("%w: %s", errBadValue, strings.Join(append([]string{what}, parts...), " "))
	}
	return nil
}

// Symbol value: every field but ID.
func appendSymbolValue(dst []byte, s *Symbol) []byte {
	w := valueWriter{dst}
	w.str(s.DisplayName)
	w.str(s.Kind)
	w.str(s.Language)
	w.str(s.Package)
	w.str(s.Signature)
	w.str(s.Doc)
	var flags uint64
	if s.External {
		flags |= 1
	}
	w.uvarint(flags)
	w.str(s.Def.Path)
	w.rng(s.Def.Range)
	w.rng(s.DefExtent)
	return w.b
}

func decodeSymbolValue(id string, b []byte) (Symbol, error) {
	return decodeSymbol(id, valueReader{b: b})
}

// decodeSymbol reads a symbol value from r.
func decodeSymbol(id string, r valueReader) (Symbol, error) {
	s := Symbol{ID: id}
	s.DisplayName, s.Kind, s.Language = r.str(), r.str(), r.str()
	s.Package, s.Signature, s.Doc = r.str(), r.str(), r.str()
	s.External = r.uvarint()&1 != 0
	s.Def.Path = r.str()
	s.Def.Range = r.rng()
	s.DefExtent = r.rng()
	return s, r.done("symbol", id)
}

// Doc-syms value: a document's symbols in id order: their number, then
// per symbol its id and its symbol value, each as a string.
func appendDocSymsValue(dst []byte, syms []Symbol) []byte {
	w := valueWriter{dst}
	w.uvarint(uint64(len(syms)))
	var v []byte
	for i := range syms {
		w.str(syms[i].ID)
		v = appendSymbolValue(v[:0], &syms[i])
		w.uvarint(uint64(len(v)))
		w.b = append(w.b, v...)
	}
	return w.b
}

// eachDocSym calls fn with the id and the symbol value of every symbol of
// a doc-syms value, in order, without copying them; errStop from fn ends
// the walk without error.
func eachDocSym(path string, b []byte, fn func(id, v []byte) error) error {
	r := valueReader{b: b}
	n := r.uvarint()
	if n > uint64(len(b)) {
		return fmt.Errorf("%w: symbols of %q", errBadValue, path)
	}
	for range n {
		id, v := r.bytes(), r.bytes()
		if r.bad {
			break
		}
		if err := fn(id, v); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
	return r.done("symbols of", path)
}

// eachBorrowedDocSym calls fn with every symbol of a doc-syms value,
// decoded without a copy: the strings of s share b's memory.
func eachBorrowedDocSym(path string, b []byte, fn func(s Symbol) error) error {
	return eachDocSym(path, b, func(id, v []byte) error {
		s, err := decodeSymbol(unsafe.String(unsafe.SliceData(id), len(id)), valueReader{b: v, borrow: true})
		if err != nil {
			return err
		}
		return fn(s)
	})
}

// decodeDocSymsValue decodes every symbol of a doc-syms value.
func decodeDocSymsValue(path string, b []byte) ([]Symbol, error) {
	var out []Symbol
	err := eachDocSym(path, b, func(id, v []byte) error {
		s, err := decodeSymbolValue(string(id), v)
		out = append(out, s)
		return err
	})
	return out, err
}

// Occurrence value (ref and def records): roles, then the enclosing
// symbol's id in the space (8 bytes big-endian), absent when there is none.
func appendOccValue(dst []byte, roles Role, enclosing uint64, hasEnclosing bool) []byte {
	dst = binary.AppendUvarint(dst, uint64(roles))
	if hasEnclosing {
		dst = binary.BigEndian.AppendUint64(dst, enclosing)
	}
	return dst
}

// decodeOccValue decodes an occurrence value; ok is false when it names
// no enclosing symbol.
func decodeOccValue(b []byte) (roles Role, enclosing uint64, ok bool, err error) {
	r := valueReader{b: b}
	roles = Role(r.u32())
	if len(r.b) == symIDLen {
		enclosing, ok = binary.BigEndian.Uint64(r.b), true
		r.b = nil
	}
	return roles, enclosing, ok, r.done("occurrence")
}

// The doc-occs and doc-edges values hold a whole document's occurrences or
// edges. Their symbol ids are strings of a table built as the value is
// read: a uvarint 2n+1 is the table's nth string, 2n a new string of n
// bytes that follows and joins the table. A document mentions few distinct
// symbols many times, so most ids are references.

// idWriter appends ids through a string table. The table starts with
// dict, a dictionary of strings every value of its kind may name without
// spelling them out (nil for none).
type idWriter struct {
	w     *valueWriter
	table map[string]uint64
	dict  []string
	// memo finds most of table's strings before table.
	memo *stringMemo[uint64]
}

// id appends s, spelled out the first time, a reference after, and
// returns its index in the table.
func (t *idWriter) id(s string) uint64 {
	if i, ok := t.memo.get(s); ok {
		t.w.uvarint(2*i + 1)
		return i
	}
	i, ok := t.table[s]
	if ok {
		t.w.uvarint(2*i + 1)
	} else {
		i = uint64(len(t.dict) + len(t.table))
		t.table[s] = i
		t.w.uvarint(2 * uint64(len(s)))
		t.w.b = append(t.w.b, s...)
	}
	t.memo.put(s, i)
	return i
}

// known is id for a string that is likely in the dictionary, which must
// be edgeDictionary (see edgeDictIndex).
func (t *idWriter) known(s string) {
	if i := edgeDictIndex(s); i >= 0 {
		t.w.uvarint(2*uint64(i) + 1)
		return
	}
	t.id(s)
}

// idReader reads ids written by an idWriter with the same dictionary.
type idReader struct {
	r     *valueReader
	table []string
	dict  []string
}

func (t *idReader) id() string {
	x := t.r.uvarint()
	if x&1 == 1 {
		i := x >> 1
		if i < uint64(len(t.dict)) {
			return t.dict[i]
		}
		if i -= uint64(len(t.dict)); i >= uint64(len(t.table)) {
			t.r.bad = true
			return ""
		}
		return t.table[i]
	}
	if t.r.bad || x>>1 > uint64(len(t.r.b)) {
		t.r.bad = true
		return ""
	}
	var s string
	if t.r.borrow {
		s = unsafe.String(unsafe.SliceData(t.r.b), x>>1)
	} else {
		s = string(t.r.b[:x>>1])
	}
	t.r.b = t.r.b[x>>1:]
	t.table = append(t.table, s)
	return s
}

// Doc-occs value: a document's occurrences in key order (position, then
// symbol): their number, then per occurrence its range, symbol, roles and
// enclosing symbol.
func appendDocOccsValue(dst []byte, occs []Occurrence) []byte {
	w := valueWriter{dst}
	// Sized for a symbol per four occurrences, which spares the table most
	// of its growth.
	var memo stringMemo[uint64]
	t := idWriter{&w, make(map[string]uint64, len(occs)/4), nil, &memo}
	w.uvarint(uint64(len(occs)))
	// Occurrences in a row mostly share their enclosing symbol, which is
	// then a reference to the table's entry without a look-up.
	var lastEnc string
	var lastEncRef uint64
	for i := range occs {
		o := &occs[i]
		w.rng(o.Range)
		t.id(o.Symbol)
		w.uvarint(uint64(o.Roles))
		if i > 0 && o.Enclosing == lastEnc {
			w.uvarint(lastEncRef)
			continue
		}
		lastEnc, lastEncRef = o.Enclosing, 2*t.id(o.Enclosing)+1
	}
	return w.b
}

// decodeDocOccsValue decodes a doc-occs value, stopping before the first
// occurrence starting after line stopAfter, if set.
func decodeDocOccsValue(path string, b []byte, stopAfter *uint32) ([]Occurrence, error) {
	var out []Occurrence
	err := eachDocOcc(path, b, false, func(n int) { out = make([]Occurrence, 0, n) }, func(o Occurrence) error {
		if stopAfter != nil && o.Range.Start.Line > *stopAfter {
			return errStop
		}
		out = append(out, o)
		return nil
	})
	if err == errStop {
		err = nil
	}
	return out, err
}

// eachDocOcc calls fn for each occurrence of a doc-occs value, after
// sized with their number. With borrow, the occurrences' strings share
// b's memory. An error from fn ends the walk and is returned.
func eachDocOcc(path string, b []byte, borrow bool, sized func(n int), fn func(Occurrence) error) error {
	r := valueReader{b: b, borrow: borrow}
	t := idReader{r: &r}
	n := r.uvarint()
	if n > uint64(len(b)) {
		return fmt.Errorf("%w: occurrences of %q", errBadValue, path)
	}
	sized(int(n))
	for range n {
		o := Occurrence{Path: path, Range: r.rng()}
		o.Symbol = t.id()
		o.Roles = Role(r.u32())
		o.Enclosing = t.id()
		if r.bad {
			break
		}
		if err := fn(o); err != nil {
			return err
		}
	}
	return r.done("occurrences of", path)
}

// Doc-edges value: every edge a document justifies, in key order: the
// number of edges, then per edge its from, kind and to, and its body (see
// appendEdgeBody), every string through the value's table.
func appendDocEdgesValue(dst []byte, edges []Edge) []byte {
	w := valueWriter{dst}
	var memo stringMemo[uint64]
	t := idWriter{&w, make(map[string]uint64, len(edges)/2), edgeDictionary[:], &memo}
	w.uvarint(uint64(len(edges)))
	for i := range edges {
		e := &edges[i]
		t.id(e.From)
		t.known(string(e.Kind))
		t.id(e.To)
		appendEdgeBody(&w, t.known, e)
	}
	return w.b
}

func decodeDocEdgesValue(path string, b []byte) ([]Edge, error) {
	r := valueReader{b: b}
	t := idReader{r: &r, dict: edgeDictionary[:]}
	n := r.uvarint()
	if n > uint64(len(b)) {
		return nil, fmt.Errorf("%w: edges of %q", errBadValue, path)
	}
	out := make([]Edge, 0, n)
	for range n {
		e := Edge{From: t.id(), Kind: EdgeKind(t.id()), To: t.id()}
		e.Confidence = r.confidence()
		e.Source, e.Reason = t.id(), t.id()
		e.Count = int(r.uvarint())
		if r.bad {
			break
		}
		out = append(out, e)
	}
	return out, r.done("edges of", path)
}

// docIDsHashed is a bit of a document value's flags that no
// DocumentFlags value uses: every symbol id the document's records hold is
// its symbol's hash (symbolHash), as it nearly always is. A writer
// replacing or deleting the document then knows the ids of its old
// records without reading the space's symbol table: ids never change in a
// space, and a writer sets the bit only when every id it gave the
// document was a hash. A new bit within schema 6: a document value
// without it (written before it, or with an id past its hash) has its
// ids looked up.
const docIDsHashed = 1 << 31

// Document value: every field but Path and Layer; hashed sets
// docIDsHashed (a producer's own flags never do).
func appendDocValue(dst []byte, d *Document, hashed bool) []byte {
	w := valueWriter{dst}
	w.str(d.Language)
	w.str(d.Package)
	w.str(d.ContentHash)
	w.str(d.Digest)
	w.str(d.Source)
	flags := uint64(d.Flags) &^ docIDsHashed
	if hashed {
		flags |= docIDsHashed
	}
	w.uvarint(flags)
	return w.b
}

func decodeDocValue(path string, b []byte) (Document, error) {
	d, _, err := decodeDocValueHashed(path, b)
	return d, err
}

// decodeDocValueHashed is decodeDocValue, and whether the value has
// docIDsHashed.
func decodeDocValueHashed(path string, b []byte) (Document, bool, error) {
	r := valueReader{b: b}
	d := Document{Path: path}
	d.Language, d.Package, d.ContentHash = r.str(), r.str(), r.str()
	d.Digest, d.Source = r.str(), r.str()
	flags := r.u32()
	d.Flags = DocumentFlags(flags &^ docIDsHashed)
	return d, flags&docIDsHashed != 0, r.done("document", path)
}
