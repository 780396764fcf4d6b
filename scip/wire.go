package scip

import (
	"encoding/binary"
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// docDecoder decodes Document records straight from the wire, the fields
// the converter reads, into the bindings' types: what proto.Unmarshal
// makes of the same bytes, without its per-message reflection and
// allocations. A document's occurrences and symbol informations are each
// allocated in one slab, its ranges in a shared arena, and symbol strings
// are interned (a document repeats the same few hundred symbols
// thousands of times). The strings are ordinary copies, never views of
// the record's buffer: the converter's caches and the graph's symbol
// table keep them.
//
// A message with anything the fast path does not expect (a field it does
// not decode, a field with another wire type, a singular message given
// twice) is handed to proto.Unmarshal whole, so the result is always the
// bindings' own. Malformed input fails as the bindings fail it: a
// truncated or corrupt varint or length, a string that is not UTF-8.
type docDecoder struct {
	syms   map[string]string   // interned symbol strings
	recent [recentSlots]string // the symbols met last (see symbol)
	ints   []int32             // arena for ranges
	slow   int                 // messages handed to proto.Unmarshal
	dig    docDigester         // for heads (see docHead)
	// reuse says that a document decoded is done with before the next
	// one is, which then takes its memory: the document, its
	// occurrences and symbol informations and the pointers to them, its
	// ranges.
	reuse bool
	slab  docSlab
}

// docSlab is the memory of a document a reusing decoder decoded last.
type docSlab struct {
	doc      scip.Document
	occs     []scip.Occurrence
	occPtrs  []*scip.Occurrence
	infos    []scip.SymbolInformation
	infoPtrs []*scip.SymbolInformation
}

// maxInterned bounds the interned symbols; the table is emptied when full.
const maxInterned = 1 << 16

// Field numbers of scip.proto.
const (
	docRelativePath     = 1
	docOccurrences      = 2
	docSymbols          = 3
	docLanguage         = 4
	docText             = 5
	docPositionEncoding = 6

	occRange                    = 1
	occSymbol                   = 2
	occSymbolRoles              = 3
	occEnclosingRange           = 7
	occSingleLineRange          = 8
	occMultiLineRange           = 9
	occSingleLineEnclosingRange = 10
	occMultiLineEnclosingRange  = 11

	infoSymbol                 = 1
	infoDocumentation          = 3
	infoRelationships          = 4
	infoKind                   = 5
	infoDisplayName            = 6
	infoSignatureDocumentation = 7
	infoEnclosingSymbol        = 8

	relSymbol           = 1
	relIsReference      = 2
	relIsImplementation = 3
	relIsTypeDefinition = 4
	relIsDefinition     = 5
)

// errSlowPath makes a message's decoder give it to proto.Unmarshal.
var errSlowPath = errors.New("scip: message needs the generic decoder")

// errInvalidUTF8 is a string field that is not UTF-8, which proto3 refuses.
var errInvalidUTF8 = errors.New("string field contains invalid UTF-8")

// document decodes one Document record.
func (d *docDecoder) document(b []byte) (*scip.Document, error) {
	doc := &scip.Document{}
	if d.reuse {
		d.slab.doc = scip.Document{}
		doc = &d.slab.doc
		// A range's every number takes a byte of the record at least.
		if n := len(b) / 8; cap(d.ints) < n {
			d.ints = make([]int32, 0, n)
		}
		d.ints = d.ints[:0]
	}
	err := d.fillDocument(doc, b)
	if err == errSlowPath {
		d.slow++
		doc = &scip.Document{}
		err = proto.Unmarshal(b, doc)
	}
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// wireField is one field of a message: its number and wire type, and its
// value, x for a varint, v for a length-delimited field.
type wireField struct {
	num protowire.Number
	typ protowire.Type
	x   uint64
	v   []byte
}

// nextField consumes the first field of b and returns it and the rest of
// b. A field of another wire type than varint or bytes is errSlowPath:
// no message the fast path decodes has one.
func nextField(b []byte) (wireField, []byte, error) {
	// Nearly every field of a document has a one-byte tag and a one-byte
	// varint or length: those are read here, the rest by protowire, whose
	// calls were a tenth of decoding a document.
	if len(b) >= 2 && b[0] < 0x80 && b[1] < 0x80 && b[0]>>3 != 0 {
		num, typ := protowire.Number(b[0]>>3), protowire.Type(b[0]&7)
		switch n := int(b[1]); {
		case typ == protowire.VarintType:
			return wireField{num: num, typ: typ, x: uint64(n)}, b[2:], nil
		case typ == protowire.BytesType && n <= len(b)-2:
			return wireField{num: num, typ: typ, v: b[2:][:n]}, b[2+n:], nil
		}
	}
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return wireField{}, nil, protowire.ParseError(n)
	}
	b = b[n:]
	f := wireField{num: num, typ: typ}
	switch typ {
	case protowire.VarintType:
		f.x, n = protowire.ConsumeVarint(b)
	case protowire.BytesType:
		f.v, n = protowire.ConsumeBytes(b)
	default:
		return f, nil, errSlowPath
	}
	if n < 0 {
		return f, nil, protowire.ParseError(n)
	}
	return f, b[n:], nil
}

// fillDocument decodes b into doc, which is empty.
func (d *docDecoder) fillDocument(doc *scip.Document, b []byte) error {
	nOcc, nSym, err := countDocFields(b)
	if err != nil {
		return err
	}
	var occs []scip.Occurrence
	var infos []scip.SymbolInformation
	switch {
	case d.reuse:
		sl := &d.slab
		sl.occs = slices.Grow(sl.occs[:0], nOcc)[:nOcc]
		sl.infos = slices.Grow(sl.infos[:0], nSym)[:nSym]
		clear(sl.occs)
		clear(sl.infos)
		occs, infos = sl.occs, sl.infos
		doc.Occurrences = slices.Grow(sl.occPtrs[:0], nOcc)
		doc.Symbols = slices.Grow(sl.infoPtrs[:0], nSym)
		defer func() { sl.occPtrs, sl.infoPtrs = doc.Occurrences[:0], doc.Symbols[:0] }()
	default:
		if nOcc > 0 {
			occs = make([]scip.Occurrence, nOcc)
			doc.Occurrences = make([]*scip.Occurrence, 0, nOcc)
		}
		if nSym > 0 {
			infos = make([]scip.SymbolInformation, nSym)
			doc.Symbols = make([]*scip.SymbolInformation, 0, nSym)
		}
	}
	for len(b) > 0 {
		var f wireField
		if f, b, err = nextField(b); err != nil {
			return err
		}
		if f.num == docPositionEncoding && f.typ == protowire.VarintType {
			doc.PositionEncoding = scip.PositionEncoding(int32(f.x))
			continue
		}
		if f.typ != protowire.BytesType {
			return errSlowPath
		}
		switch f.num {
		case docRelativePath:
			doc.RelativePath, err = plainString(f.v)
		case docOccurrences:
			o := &occs[len(doc.Occurrences)]
			if err = d.occurrence(o, f.v); err == nil {
				doc.Occurrences = append(doc.Occurrences, o)
			}
		case docSymbols:
			si := &infos[len(doc.Symbols)]
			if err = d.symbolInformation(si, f.v); err == nil {
				doc.Symbols = append(doc.Symbols, si)
			}
		case docLanguage:
			doc.Language, err = plainString(f.v)
		case docText:
			doc.Text, err = plainString(f.v)
		default:
			return errSlowPath
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// head decodes the fields of a Document record other than its
// occurrences and symbol informations (path, language, text, position
// encoding) and counts its occurrences: what tells whether the document
// changed since the last import, for a fraction of a whole decode. A
// message the fast path does not handle is errSlowPath.
func (d *docDecoder) head(b []byte) (*scip.Document, int, error) {
	doc := &scip.Document{}
	occs := 0
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return nil, 0, err
		}
		b = rest
		if f.num == docPositionEncoding && f.typ == protowire.VarintType {
			doc.PositionEncoding = scip.PositionEncoding(int32(f.x))
			continue
		}
		if f.typ != protowire.BytesType {
			return nil, 0, errSlowPath
		}
		switch f.num {
		case docRelativePath:
			doc.RelativePath, err = plainString(f.v)
		case docOccurrences:
			occs++
		case docSymbols:
		case docLanguage:
			doc.Language, err = plainString(f.v)
		case docText:
			doc.Text, err = plainString(f.v)
		default:
			return nil, 0, errSlowPath
		}
		if err != nil {
			return nil, 0, err
		}
	}
	return doc, occs, nil
}

// countDocFields counts a document's occurrences and symbol informations.
func countDocFields(b []byte) (occs, syms int, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, 0, protowire.ParseError(n)
		}
		b = b[n:]
		if typ == protowire.BytesType {
			switch num {
			case docOccurrences:
				occs++
			case docSymbols:
				syms++
			}
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return 0, 0, protowire.ParseError(n)
		}
		b = b[n:]
	}
	return occs, syms, nil
}

// occurrence decodes b into o, which is empty; a message the fast path
// does not handle goes to proto.Unmarshal.
func (d *docDecoder) occurrence(o *scip.Occurrence, b []byte) error {
	err := d.fillOccurrence(o, b)
	if err == errSlowPath {
		d.slow++
		*o = scip.Occurrence{}
		return proto.Unmarshal(b, o)
	}
	return err
}

func (d *docDecoder) fillOccurrence(o *scip.Occurrence, b []byte) error {
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return err
		}
		b = rest
		isBytes := f.typ == protowire.BytesType
		switch {
		case f.num == occRange || f.num == occEnclosingRange:
			dst := &o.Range
			if f.num == occEnclosingRange {
				dst = &o.EnclosingRange
			}
			if !isBytes {
				*dst = append(*dst, int32(f.x))
				continue
			}
			err = d.packedInt32(dst, f.v)
		case f.num == occSymbol && isBytes:
			o.Symbol, err = d.symbol(f.v)
		case f.num == occSymbolRoles && !isBytes:
			o.SymbolRoles = int32(f.x)
		case f.num >= occSingleLineRange && f.num <= occMultiLineEnclosingRange && isBytes:
			err = typedRange(o, f.num, f.v)
		default:
			return errSlowPath
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// typedRange sets one of the typed ranges of o from its message v. A
// oneof set twice goes to the slow path (the bindings merge or replace).
func typedRange(o *scip.Occurrence, num protowire.Number, v []byte) error {
	var r [4]int32
	fields := 3
	if num == occMultiLineRange || num == occMultiLineEnclosingRange {
		fields = 4
	}
	for len(v) > 0 {
		f, rest, err := nextField(v)
		if err != nil {
			return err
		}
		v = rest
		if f.num < 1 || int(f.num) > fields || f.typ != protowire.VarintType {
			return errSlowPath
		}
		r[f.num-1] = int32(f.x)
	}
	switch num {
	case occSingleLineRange, occMultiLineRange:
		if o.TypedRange != nil {
			return errSlowPath
		}
		if num == occSingleLineRange {
			o.TypedRange = &scip.Occurrence_SingleLineRange{SingleLineRange: &scip.SingleLineRange{Line: r[0], StartCharacter: r[1], EndCharacter: r[2]}}
		} else {
			o.TypedRange = &scip.Occurrence_MultiLineRange{MultiLineRange: &scip.MultiLineRange{StartLine: r[0], StartCharacter: r[1], EndLine: r[2], EndCharacter: r[3]}}
		}
	default:
		if o.TypedEnclosingRange != nil {
			return errSlowPath
		}
		if num == occSingleLineEnclosingRange {
			o.TypedEnclosingRange = &scip.Occurrence_SingleLineEnclosingRange{SingleLineEnclosingRange: &scip.SingleLineRange{Line: r[0], StartCharacter: r[1], EndCharacter: r[2]}}
		} else {
			o.TypedEnclosingRange = &scip.Occurrence_MultiLineEnclosingRange{MultiLineEnclosingRange: &scip.MultiLineRange{StartLine: r[0], StartCharacter: r[1], EndLine: r[2], EndCharacter: r[3]}}
		}
	}
	return nil
}

// packedInt32 appends the packed varints of v to *dst, in the decoder's
// arena when *dst is empty.
func (d *docDecoder) packedInt32(dst *[]int32, v []byte) error {
	count := 0
	for _, c := range v {
		if c < 0x80 {
			count++
		}
	}
	if len(*dst) == 0 {
		if len(d.ints)+count > cap(d.ints) {
			d.ints = make([]int32, 0, max(count, 4096))
		}
		start := len(d.ints)
		*dst = d.ints[start:start:min(start+count, cap(d.ints))]
		d.ints = d.ints[:start+count]
	}
	for len(v) > 0 {
		x, n := protowire.ConsumeVarint(v)
		if n < 0 {
			return protowire.ParseError(n)
		}
		v = v[n:]
		*dst = append(*dst, int32(x))
	}
	return nil
}

// symbol returns the interned string of v, which must be UTF-8. The
// symbols met last are found first in recent, by the bytes they end with:
// a document names the same few hundred symbols over and over, and the
// table, tens of thousands of long strings, cost a hash of every mention
// and a miss of the processor's caches.
func (d *docDecoder) symbol(v []byte) (string, error) {
	slot := &d.recent[recentSlot(v)]
	if s := *slot; len(s) == len(v) && s == string(v) {
		return s, nil
	}
	if s, ok := d.syms[string(v)]; ok {
		*slot = s
		return s, nil
	}
	s, err := plainString(v)
	if err != nil || len(s) == 0 {
		return s, err
	}
	if d.syms == nil || len(d.syms) >= maxInterned {
		d.syms = make(map[string]string)
	}
	d.syms[s] = s
	*slot = s
	return s, nil
}

// recentSlots is the size of docDecoder.recent.
const recentSlots = 1 << 10

// recentSlot returns v's slot in docDecoder.recent: a hash of its length
// and its last 8 bytes, where symbols of one package differ.
func recentSlot(v []byte) int {
	var tail uint64
	if len(v) >= 8 {
		tail = binary.LittleEndian.Uint64(v[len(v)-8:])
	} else {
		for _, c := range v {
			tail = tail<<8 | uint64(c)
		}
	}
	return int(((tail ^ uint64(len(v))) * 0x9e3779b97f4a7c15) >> (64 - 10))
}

// plainString copies v into a string, which proto3 requires to be UTF-8.
func plainString(v []byte) (string, error) {
	if !utf8.Valid(v) {
		return "", errInvalidUTF8
	}
	return string(v), nil
}

// symbolInformation decodes b into si, which is empty.
func (d *docDecoder) symbolInformation(si *scip.SymbolInformation, b []byte) error {
	err := d.fillSymbolInformation(si, b)
	if err == errSlowPath {
		d.slow++
		*si = scip.SymbolInformation{}
		return proto.Unmarshal(b, si)
	}
	return err
}

func (d *docDecoder) fillSymbolInformation(si *scip.SymbolInformation, b []byte) error {
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return err
		}
		b = rest
		if f.num == infoKind && f.typ == protowire.VarintType {
			si.Kind = scip.SymbolInformation_Kind(int32(f.x))
			continue
		}
		if f.typ != protowire.BytesType {
			return errSlowPath
		}
		switch f.num {
		case infoSymbol:
			si.Symbol, err = d.symbol(f.v)
		case infoDocumentation:
			var s string
			if s, err = plainString(f.v); err == nil {
				si.Documentation = append(si.Documentation, s)
			}
		case infoRelationships:
			r := &scip.Relationship{}
			if err = d.relationship(r, f.v); err == nil {
				si.Relationships = append(si.Relationships, r)
			}
		case infoDisplayName:
			si.DisplayName, err = plainString(f.v)
		case infoSignatureDocumentation:
			if si.SignatureDocumentation != nil {
				return errSlowPath // given twice: the bindings merge
			}
			sig := &scip.Signature{}
			if err = d.fillSignature(sig, f.v); err == nil {
				si.SignatureDocumentation = sig
			}
		case infoEnclosingSymbol:
			si.EnclosingSymbol, err = d.symbol(f.v)
		default:
			return errSlowPath
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// fillSignature decodes b into sig, which is empty.
func (d *docDecoder) fillSignature(sig *scip.Signature, b []byte) error {
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return err
		}
		b = rest
		if f.typ != protowire.BytesType {
			return errSlowPath
		}
		switch f.num {
		case docOccurrences:
			o := &scip.Occurrence{}
			if err = d.occurrence(o, f.v); err == nil {
				sig.Occurrences = append(sig.Occurrences, o)
			}
		case docLanguage:
			sig.Language, err = plainString(f.v)
		case docText:
			sig.Text, err = plainString(f.v)
		default:
			return errSlowPath
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// relationship decodes b into r, which is empty.
func (d *docDecoder) relationship(r *scip.Relationship, b []byte) error {
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return err
		}
		b = rest
		switch {
		case f.num == relSymbol && f.typ == protowire.BytesType:
			if r.Symbol, err = d.symbol(f.v); err != nil {
				return err
			}
		case f.num >= relIsReference && f.num <= relIsDefinition && f.typ == protowire.VarintType:
			set := protowire.DecodeBool(f.x)
			switch f.num {
			case relIsReference:
				r.IsReference = set
			case relIsImplementation:
				r.IsImplementation = set
			case relIsTypeDefinition:
				r.IsTypeDefinition = set
			case relIsDefinition:
				r.IsDefinition = set
			}
		default:
			return errSlowPath
		}
	}
	return nil
}
