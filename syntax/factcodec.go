package syntax

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/freelist"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// The fact codec writes one file's FileFacts as bytes and reads them back
// identical: the index's spill file and the fact cache hold files in this
// form. Numbers are unsigned varints; each string is written once per
// record and referred to by its index afterwards (a file repeats its path,
// its package and its enclosing symbols many times), so a decoded record
// shares those strings as the extractor's output did.

// factCodecVersion changes whenever the encoding does.
const factCodecVersion = 2

// errCorrupt is wrapped by every decoding error: the bytes are not a record
// this codec wrote.
var errCorrupt = errors.New("corrupt fact record")

// factEncoder appends records to buf. One encoder serves file after file
// (reset), its table of strings cleared, not made again: grown from
// nothing for each file, the table and the record's buffer were most of
// what encoding cost.
type factEncoder struct {
	buf     []byte
	strings freelist.ScratchMap[string, uint32]
	n       uint32 // strings written so far
	// seen remembers strings written by where their bytes are: a file's
	// facts repeat the very strings the extractor made once (its path,
	// its symbols, its enclosing definitions), and one with the same
	// bytes at the same place is the same string, found without hashing
	// it. An entry holds the string's index+1, 0 when empty.
	seen [seenSlots]seenString
}

// seenSlots is the size of factEncoder.seen (a power of two).
const seenSlots = 256

type seenString struct {
	p   *byte
	n   int
	ref uint32
}

// reset makes e encode a new record, appended to dst.
func (e *factEncoder) reset(dst []byte) {
	e.buf = dst
	e.strings.Reset()
	e.n = 0
	e.seen = [seenSlots]seenString{}
}

func (e *factEncoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }

func (e *factEncoder) bool(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// str writes s as a back reference (index+1) when the record has written
// it before, else as 0, its length and its bytes.
func (e *factEncoder) str(s string) {
	p := unsafe.StringData(s)
	slot := &e.seen[(uintptr(unsafe.Pointer(p))>>3^uintptr(len(s)))&(seenSlots-1)]
	if slot.ref != 0 && slot.p == p && slot.n == len(s) {
		e.uint(uint64(slot.ref))
		return
	}
	i, ok := e.strings.M[s]
	if !ok {
		i = e.n
		e.n++
		e.strings.M[s] = i
		e.uint(0)
		e.uint(uint64(len(s)))
		e.buf = append(e.buf, s...)
	} else {
		e.uint(uint64(i) + 1)
	}
	*slot = seenString{p, len(s), i + 1}
}

func (e *factEncoder) rng(r textpos.Range) {
	e.uint(uint64(r.Start.Line))
	e.uint(uint64(r.Start.Col))
	e.uint(uint64(r.End.Line))
	e.uint(uint64(r.End.Col))
}

// encodeFileFacts appends the record of f to dst.
func encodeFileFacts(dst []byte, f *FileFacts) []byte {
	var e factEncoder
	e.reset(dst)
	return e.facts(f)
}

// facts appends the record of f to the buffer reset gave e, and returns it.
func (e *factEncoder) facts(f *FileFacts) []byte {
	d := &f.Document
	e.str(d.Path)
	e.str(d.Language)
	e.str(d.Package)
	e.str(d.ContentHash)
	e.str(d.Digest)
	e.str(d.Source)
	e.uint(uint64(d.Flags))
	e.uint(uint64(d.Layer))
	e.str(string(f.Skipped))
	e.str(f.Failure)
	e.str(f.module)
	e.str(f.goScope)
	e.str(f.self)
	e.uint(uint64(len(f.Symbols)))
	for i := range f.Symbols {
		s := &f.Symbols[i]
		e.str(s.ID)
		e.str(s.DisplayName)
		e.str(s.Kind)
		e.str(s.Language)
		e.str(s.Package)
		e.str(s.Signature)
		e.str(s.Doc)
		e.bool(s.External)
		e.str(s.Def.Path)
		e.rng(s.Def.Range)
		e.rng(s.DefExtent)
	}
	e.uint(uint64(len(f.Occurrences)))
	for i := range f.Occurrences {
		o := &f.Occurrences[i]
		e.str(o.Path)
		e.rng(o.Range)
		e.str(o.Symbol)
		e.uint(uint64(o.Roles))
		e.str(o.Enclosing)
	}
	e.uint(uint64(len(f.Edges)))
	for i := range f.Edges {
		x := &f.Edges[i]
		e.str(x.From)
		e.str(x.To)
		e.str(string(x.Kind))
		e.uint(math.Float64bits(x.Confidence))
		e.str(x.Source)
		e.str(x.Reason)
		e.uint(uint64(x.Count))
		e.str(x.Path)
		e.uint(uint64(x.Layer))
	}
	e.uint(uint64(len(f.Terms)))
	for i := range f.Terms {
		t := &f.Terms[i]
		e.str(t.Word)
		e.uint(uint64(t.Field))
		e.uint(uint64(t.Count))
	}
	e.uint(uint64(len(f.Imports)))
	for i := range f.Imports {
		m := &f.Imports[i]
		e.str(m.Local)
		e.str(m.Module)
		e.str(m.Name)
		e.bool(m.Relative)
		e.bool(m.Require)
		e.rng(m.Range)
	}
	e.uint(uint64(len(f.Uses)))
	for i := range f.Uses {
		u := &f.Uses[i]
		e.rng(u.Range)
		e.str(u.Name)
		e.str(u.Qualifier)
		e.str(u.Enclosing)
		e.uint(uint64(u.Kind))
		var flags uint64
		for bit, set := range [...]bool{u.Call, u.Type, u.Import, u.Test, u.Implements} {
			if set {
				flags |= 1 << bit
			}
		}
		e.uint(flags)
		e.uint(uint64(len(u.Members)))
		for _, m := range u.Members {
			e.str(m)
		}
	}
	// The Container map, in key order; nil and empty differ.
	if f.Container == nil {
		e.uint(0)
	} else {
		keys := make([]string, 0, len(f.Container))
		for k := range f.Container {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		e.uint(uint64(len(keys)) + 1)
		for _, k := range keys {
			e.str(k)
			e.str(f.Container[k])
		}
	}
	return e.buf
}

// factDecoder reads one record. Its strings are substrings of one string
// holding the whole record: decoded facts keep the record's bytes alive
// until the last of them is dropped (clone what outlives the facts).
type factDecoder struct {
	data    string
	off     int
	strings []string
	err     error
}

func (d *factDecoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d", errCorrupt, what, d.off)
	}
}

func (d *factDecoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	var v uint64
	var shift uint
	for i := d.off; i < len(d.data); i++ {
		b := d.data[i]
		if shift == 63 && b > 1 {
			break
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			d.off = i + 1
			return v
		}
		shift += 7
	}
	d.fail("bad number")
	return 0
}

// plain reads a string written as its length and bytes (not one of the
// record's strings by reference, as str reads).
func (d *factDecoder) plain() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := d.data[d.off : d.off+n]
	d.off += n
	return s
}

// varint reads a signed number as binary.AppendVarint writes it.
func (d *factDecoder) varint() int64 {
	x := d.uint()
	v := int64(x >> 1)
	if x&1 != 0 {
		v = ^v
	}
	return v
}

// count reads a length that cannot exceed the bytes left (each element
// takes at least one byte).
func (d *factDecoder) count() int {
	n := d.uint()
	if n > uint64(len(d.data)-d.off) {
		d.fail("bad count")
		return 0
	}
	return int(n)
}

func (d *factDecoder) u32() uint32 {
	v := d.uint()
	if v > math.MaxUint32 {
		d.fail("number out of range")
	}
	return uint32(v)
}

func (d *factDecoder) bool() bool {
	switch d.uint() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail("bad flag")
	return false
}

func (d *factDecoder) str() string {
	ref := d.uint()
	if d.err != nil {
		return ""
	}
	if ref > 0 {
		if ref > uint64(len(d.strings)) {
			d.fail("bad string reference")
			return ""
		}
		return d.strings[ref-1]
	}
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := d.data[d.off : d.off+n]
	d.off += n
	d.strings = append(d.strings, s)
	return s
}

func (d *factDecoder) rng() textpos.Range {
	return textpos.Range{
		Start: textpos.Position{Line: d.u32(), Col: d.u32()},
		End:   textpos.Position{Line: d.u32(), Col: d.u32()},
	}
}

// decodeFileFacts reads a record encodeFileFacts wrote. An error wraps
// errCorrupt.
func decodeFileFacts(data string) (*FileFacts, error) {
	d := &factDecoder{data: data, strings: make([]string, 0, 64)}
	f := &FileFacts{}
	doc := &f.Document
	doc.Path = d.str()
	doc.Language = d.str()
	doc.Package = d.str()
	doc.ContentHash = d.str()
	doc.Digest = d.str()
	doc.Source = d.str()
	doc.Flags = graph.DocumentFlags(d.u32())
	doc.Layer = graph.Layer(d.uint())
	f.Skipped = SkipReason(d.str())
	f.Failure = d.str()
	f.module = d.str()
	f.goScope = d.str()
	f.self = d.str()
	if n := d.count(); n > 0 {
		f.Symbols = make([]graph.Symbol, n)
		for i := range f.Symbols {
			s := &f.Symbols[i]
			s.ID = d.str()
			s.DisplayName = d.str()
			s.Kind = d.str()
			s.Language = d.str()
			s.Package = d.str()
			s.Signature = d.str()
			s.Doc = d.str()
			s.External = d.bool()
			s.Def.Path = d.str()
			s.Def.Range = d.rng()
			s.DefExtent = d.rng()
		}
	}
	if n := d.count(); n > 0 {
		f.Occurrences = make([]graph.Occurrence, n)
		for i := range f.Occurrences {
			o := &f.Occurrences[i]
			o.Path = d.str()
			o.Range = d.rng()
			o.Symbol = d.str()
			o.Roles = graph.Role(d.u32())
			o.Enclosing = d.str()
		}
	}
	if n := d.count(); n > 0 {
		f.Edges = make([]graph.Edge, n)
		for i := range f.Edges {
			x := &f.Edges[i]
			x.From = d.str()
			x.To = d.str()
			x.Kind = graph.EdgeKind(d.str())
			x.Confidence = math.Float64frombits(d.uint())
			x.Source = d.str()
			x.Reason = d.str()
			x.Count = int(d.u32())
			x.Path = d.str()
			x.Layer = graph.Layer(d.uint())
		}
	}
	if n := d.count(); n > 0 {
		f.Terms = make([]graph.Term, n)
		for i := range f.Terms {
			t := &f.Terms[i]
			t.Word = d.str()
			t.Field = graph.TermField(d.uint())
			t.Count = int(d.u32())
		}
	}
	if n := d.count(); n > 0 {
		f.Imports = make([]Import, n)
		for i := range f.Imports {
			m := &f.Imports[i]
			m.Local = d.str()
			m.Module = d.str()
			m.Name = d.str()
			m.Relative = d.bool()
			m.Require = d.bool()
			m.Range = d.rng()
		}
	}
	if n := d.count(); n > 0 {
		f.Uses = make([]Use, n)
		for i := range f.Uses {
			u := &f.Uses[i]
			u.Range = d.rng()
			u.Name = d.str()
			u.Qualifier = d.str()
			u.Enclosing = d.str()
			u.Kind = UseKind(d.uint())
			flags := d.uint()
			u.Call, u.Type, u.Import = flags&1 != 0, flags&2 != 0, flags&4 != 0
			u.Test, u.Implements = flags&8 != 0, flags&16 != 0
			if m := d.count(); m > 0 {
				u.Members = make([]string, m)
				for k := range u.Members {
					u.Members[k] = d.str()
				}
			}
		}
	}
	if n := d.count(); n > 0 {
		f.Container = make(map[string]string, n-1)
		for range n - 1 {
			k := d.str()
			f.Container[k] = d.str()
		}
	}
	if d.err == nil && d.off != len(d.data) {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, d.err
	}
	return f, nil
}
