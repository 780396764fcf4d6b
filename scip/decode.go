package scip

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Index field numbers (scip.proto).
const (
	fieldMetadata        = 1
	fieldDocuments       = 2
	fieldExternalSymbols = 3
)

// maxRecord bounds the declared length of one top-level record when the
// input's size is unknown. No real document comes close.
const maxRecord = 1 << 30

// ErrCorrupt marks input that is not a well-formed SCIP index: a truncated
// record, a corrupt varint, an impossible length, a message that does not
// decode. Errors wrapping it name the byte offset.
var ErrCorrupt = errors.New("scip: corrupt or truncated index")

// Record describes the top-level record being visited.
type Record struct {
	// Offset is the byte offset of the record's tag in the input.
	Offset int64
	// End is the byte offset just past the record.
	End int64
	// Digest is the digest (digestHash) of the record's payload (the
	// marshalled message); zero for a document read as a head, which has a digest of
	// its own (docHead).
	Digest [digestSize]byte
}

// Visitor receives the records of a dump in order. Functions may be nil.
type Visitor struct {
	Metadata       func(ctx context.Context, rec Record, m *scip.Metadata) error
	Document       func(ctx context.Context, rec Record, d *scip.Document) error
	ExternalSymbol func(ctx context.Context, rec Record, si *scip.SymbolInformation) error

	// documentHead, when set, is called instead of Document with the
	// document decoded as far as its head (see docHead): an import decodes
	// the rest only for a document that changed.
	documentHead func(ctx context.Context, rec Record, h docHead) error
	// buffer, when set, gives the buffer the next record is read into
	// after a documentHead took the last one (docHead.take); nil: a new
	// one.
	buffer func() *[]byte
}

// docHead is a Document record decoded as far as its head.
type docHead struct {
	// doc is the document's path, language, text and position encoding,
	// or the whole document when payload is nil.
	doc         *scip.Document
	occurrences int    // how many the record holds
	payload     []byte // the record's payload, valid during the call only unless taken
	// take, when payload is set, hands the buffer holding it to the
	// caller, who keeps payload valid past the call (the decoder reads
	// the next record into another buffer): no copy of the record.
	take func() *[]byte
	// digest is the record's digest in canonical order (docDigester):
	// what tells whether the document changed.
	digest [digestSize]byte
}

// DecodeStats counts what the framing reader saw.
type DecodeStats struct {
	Bytes         int64 // bytes consumed
	UnknownFields int   // top-level fields other than metadata, documents, external symbols: skipped
}

// Decode streams a SCIP index from r through v, one record at a time. It
// checks ctx before every record. size is the input's length when known (0
// otherwise); it bounds declared lengths. progress, when not nil, is called
// with the bytes consumed after each record.
//
// Documents are decoded from the wire by a decoder of our own (see
// docDecoder), metadata and external symbols by the bindings'
// proto.Unmarshal; either way the messages are the bindings' types, with
// what proto.Unmarshal gives for the same bytes.
func Decode(ctx context.Context, r io.Reader, size int64, v Visitor, progress func(int64)) (DecodeStats, error) {
	fr := &frameReader{br: bufio.NewReaderSize(r, readBufferSize(size)), size: size}
	var dec docDecoder
	buf := new([]byte)
	take := func() *[]byte {
		b := buf
		if v.buffer != nil {
			buf = v.buffer()
		} else {
			buf = new([]byte)
		}
		return b
	}
	stats := func() DecodeStats { return DecodeStats{Bytes: fr.off, UnknownFields: fr.unknown} }
	for {
		if err := ctx.Err(); err != nil {
			return stats(), fmt.Errorf("scip: stopped at byte %d: %w", fr.off, err)
		}
		payload, err := fr.readRecord(buf)
		if err == io.EOF {
			return stats(), nil
		}
		if err != nil {
			return stats(), err
		}
		rec := Record{Offset: fr.recStart, End: fr.off}
		if fr.recField != fieldDocuments || v.documentHead == nil {
			rec.Digest = digestOf(payload)
		}
		if err := visitRecord(ctx, &dec, fr.recField, payload, take, rec, v, progress); err != nil {
			return stats(), err
		}
	}
}

// visitRecord decodes one record's payload and hands it to v.
func visitRecord(ctx context.Context, dec *docDecoder, field protowire.Number, payload []byte, take func() *[]byte, rec Record, v Visitor, progress func(int64)) error {
	corrupt := func(err error) error { return corruptRecord(field, rec, err) }
	switch field {
	case fieldMetadata:
		m := &scip.Metadata{}
		if err := proto.Unmarshal(payload, m); err != nil {
			return corrupt(err)
		}
		if progress != nil {
			progress(rec.End)
		}
		if v.Metadata != nil {
			return v.Metadata(ctx, rec, m)
		}
	case fieldDocuments:
		if v.documentHead != nil {
			h := docHead{payload: payload, take: take}
			var err error
			if h.digest, err = dec.dig.digest(payload); err != nil {
				return corrupt(err)
			}
			h.doc, h.occurrences, err = dec.head(payload)
			if err == errSlowPath {
				h.doc, err = dec.document(payload)
				h.payload, h.take = nil, nil
				if h.doc != nil {
					h.occurrences = len(h.doc.Occurrences)
				}
			}
			if err != nil {
				return corrupt(err)
			}
			if progress != nil {
				progress(rec.End)
			}
			return v.documentHead(ctx, rec, h)
		}
		d, err := dec.document(payload)
		if err != nil {
			return corrupt(err)
		}
		if progress != nil {
			progress(rec.End)
		}
		if v.Document != nil {
			return v.Document(ctx, rec, d)
		}
	case fieldExternalSymbols:
		si := &scip.SymbolInformation{}
		if err := proto.Unmarshal(payload, si); err != nil {
			return corrupt(err)
		}
		if progress != nil {
			progress(rec.End)
		}
		if v.ExternalSymbol != nil {
			return v.ExternalSymbol(ctx, rec, si)
		}
	}
	return nil
}

// corruptRecord is the error for a record of the field whose payload does
// not decode.
func corruptRecord(field protowire.Number, rec Record, err error) error {
	return fmt.Errorf("%w: %s record at byte %d: %w", ErrCorrupt, fieldName(field), rec.Offset, err)
}

func fieldName(f protowire.Number) string {
	switch f {
	case fieldMetadata:
		return "metadata"
	case fieldDocuments:
		return "document"
	case fieldExternalSymbols:
		return "external symbol"
	}
	return fmt.Sprintf("field %d", f)
}

// frameReader follows the top-level framing (tag, length, payload) of the
// buffered input: it knows each record's offset, rejects lengths the input
// cannot hold before a buffer is allocated for them, and skips unknown
// fields.
type frameReader struct {
	br   *bufio.Reader
	size int64 // input length, 0 when unknown
	off  int64 // bytes consumed so far

	head     int64 // leading bytes of the current record (tag, length)
	total    int64 // bytes of the current record, head included
	recStart int64
	recField protowire.Number
	unknown  int
}

// readRecord reads the next known record into *buf (replaced by a larger
// one as needed) and returns its payload; io.EOF at a clean end of input.
func (f *frameReader) readRecord(buf *[]byte) ([]byte, error) {
	if err := f.nextRecord(); err != nil {
		return nil, err
	}
	if _, err := f.br.Discard(int(f.head)); err != nil {
		return nil, fmt.Errorf("scip: reading at byte %d: %w", f.off, err)
	}
	f.off += f.head
	n := int(f.total - f.head)
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	payload := (*buf)[:n]
	got, err := io.ReadFull(f.br, payload)
	f.off += int64(got)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("%w: %s record at byte %d is truncated: input ends at byte %d, %d bytes short",
			ErrCorrupt, fieldName(f.recField), f.recStart, f.off, n-got)
	}
	if err != nil {
		return nil, fmt.Errorf("scip: reading at byte %d: %w", f.off, err)
	}
	return payload, nil
}

// nextRecord reads the framing of the next record without consuming it,
// skipping unknown fields. It returns io.EOF at a clean end of input.
func (f *frameReader) nextRecord() error {
	for {
		head, err := f.peekHead()
		if err != nil {
			return err
		}
		num, typ, n := protowire.ConsumeTag(head)
		if n < 0 {
			if len(head) < binaryMaxVarint && protowire.ParseError(n) == io.ErrUnexpectedEOF {
				return fmt.Errorf("%w: tag at byte %d is truncated (input ends)", ErrCorrupt, f.off)
			}
			return fmt.Errorf("%w: invalid tag at byte %d: %v", ErrCorrupt, f.off, protowire.ParseError(n))
		}
		known := num == fieldMetadata || num == fieldDocuments || num == fieldExternalSymbols
		if known && typ != protowire.BytesType {
			return fmt.Errorf("%w: %s at byte %d has wire type %d, want length-delimited", ErrCorrupt, fieldName(num), f.off, typ)
		}
		var total int64 // tag + length + payload, or the whole unknown field
		switch typ {
		case protowire.BytesType:
			l, m := protowire.ConsumeVarint(head[n:])
			if m < 0 {
				if protowire.ParseError(m) == io.ErrUnexpectedEOF && len(head) < n+binaryMaxVarint {
					return fmt.Errorf("%w: %s record at byte %d is truncated inside its length", ErrCorrupt, fieldName(num), f.off)
				}
				return fmt.Errorf("%w: %s record at byte %d has a corrupt length varint: %v", ErrCorrupt, fieldName(num), f.off, protowire.ParseError(m))
			}
			limit := int64(maxRecord)
			if f.size > 0 {
				limit = f.size - f.off - int64(n+m)
			}
			if l > uint64(limit) {
				if f.size > 0 {
					return fmt.Errorf("%w: %s record at byte %d declares %d bytes but only %d remain (truncated or corrupt input)",
						ErrCorrupt, fieldName(num), f.off, l, max(limit, 0))
				}
				return fmt.Errorf("%w: %s record at byte %d declares %d bytes, more than the %d a record may hold",
					ErrCorrupt, fieldName(num), f.off, l, limit)
			}
			total = int64(n+m) + int64(l)
			if known {
				f.total = total
				f.head = int64(n + m)
				f.recStart = f.off
				f.recField = num
				return nil
			}
		case protowire.VarintType:
			_, m := protowire.ConsumeVarint(head[n:])
			if m < 0 {
				return fmt.Errorf("%w: field %d at byte %d has a corrupt or truncated varint", ErrCorrupt, num, f.off)
			}
			total = int64(n + m)
		case protowire.Fixed32Type:
			total = int64(n + 4)
		case protowire.Fixed64Type:
			total = int64(n + 8)
		default:
			return fmt.Errorf("%w: field %d at byte %d has unsupported wire type %d", ErrCorrupt, num, f.off, typ)
		}
		// Unknown top-level field: skip it whole.
		start := f.off
		d, err := f.br.Discard(int(min(total, int64(maxRecord))))
		f.off += int64(d)
		if err != nil {
			if err == io.EOF {
				return fmt.Errorf("%w: unknown field %d at byte %d is truncated", ErrCorrupt, num, start)
			}
			return fmt.Errorf("scip: reading at byte %d: %w", f.off, err)
		}
		f.unknown++
	}
}

const binaryMaxVarint = 10

// readBufferSize is the input buffer's size: 1 MB, or less for an input
// known to be smaller, so that decoding a small dump does not allocate
// (and clear) a megabyte.
func readBufferSize(size int64) int {
	const most, least = 1 << 20, 4 << 10 // least holds a record's head (peekHead)
	if size <= 0 || size >= most {
		return most
	}
	return int(max(size, least))
}

// peekHead returns up to 20 bytes (a tag and a length) at the read
// position without consuming them; io.EOF when the input is exhausted.
func (f *frameReader) peekHead() ([]byte, error) {
	head, err := f.br.Peek(2 * binaryMaxVarint)
	if len(head) == 0 {
		if err == nil || err == io.EOF {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("scip: reading at byte %d: %w", f.off, err)
	}
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("scip: reading at byte %d: %w", f.off, err)
	}
	return head, nil
}
