package scip

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/cespare/xxhash/v2"
	"google.golang.org/protobuf/encoding/protowire"
)

// digestSize is the size of the digests an import tells records and
// documents apart by.
const digestSize = 16

// digestHash computes those digests: two XXH64 sums of the bytes written,
// the second started with a byte of its own, 128 bits in all. It tells a
// changed document from an unchanged one, which needs no resistance to
// an adversary (whoever writes the dump decides its facts anyway), and
// runs at memory speed: SHA-256 took 2.6% of an import's CPU time.
type digestHash struct {
	a, b xxhash.Digest
}

// digestSeed starts the second sum.
const digestSeed = 0x5c

func newDigestHash() *digestHash {
	h := new(digestHash)
	h.Reset()
	return h
}

func (h *digestHash) Write(p []byte) (int, error) {
	h.a.Write(p)
	h.b.Write(p)
	return len(p), nil
}

// Sum appends the digest to b.
func (h *digestHash) Sum(b []byte) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(b, h.a.Sum64()), h.b.Sum64())
}

// sum returns the digest.
func (h *digestHash) sum() (d [digestSize]byte) {
	h.Sum(d[:0])
	return d
}

func (h *digestHash) Reset() {
	h.a.Reset()
	h.b.Reset()
	h.b.Write([]byte{digestSeed})
}

// digestOf returns the digest of b.
func digestOf(b []byte) [digestSize]byte {
	h := newDigestHash()
	h.Write(b)
	return h.sum()
}

// docDigester computes a Document record's digest, the key by which an
// import tells whether a document changed since the last one: the digest
// (digestHash) of the record with its symbol informations (and each one's
// relationships) taken in a canonical order, not the order the indexer
// wrote them in. scip-go writes them in Go's map order, different at every
// run, so that a digest of the bytes as written found 48 of pebble's 815
// documents unchanged from one commit to the next where a single file
// changed; in canonical order, every one but that file's. What the
// converter makes of a document does not depend on that order either (see
// mergeInfos).
//
// It reads the record with the generic wire functions, so it fails only
// where the bindings fail too: on a malformed field.
type docDigester struct {
	h     *digestHash
	infos [][]byte // the symbol informations, canonical
	rels  [][]byte // scratch: one's relationship fields
}

// digest returns the document record b's digest: its fields in order but
// the symbol informations, then a count of those, then each one's length
// and canonical bytes (infoCanonical) in increasing order.
func (d *docDigester) digest(b []byte) ([digestSize]byte, error) {
	if d.h == nil {
		d.h = newDigestHash()
	}
	d.h.Reset()
	d.infos = d.infos[:0]
	// The fields other than symbol informations are hashed as runs of
	// the record's bytes, not one by one: a document's hundreds of small
	// occurrence fields, each a call of the hash, cost more than their
	// bytes.
	rest, run := b, b[:0]
	err := eachField(b, func(num protowire.Number, typ protowire.Type, field, value []byte) error {
		at := len(b) - len(rest)
		rest = rest[len(field):]
		if num != docSymbols || typ != protowire.BytesType {
			run = b[at-len(run) : at+len(field)]
			return nil
		}
		d.h.Write(run)
		run = b[:0]
		info, err := d.infoCanonical(value)
		d.infos = append(d.infos, info)
		return err
	})
	if err != nil {
		return [digestSize]byte{}, err
	}
	d.h.Write(run)
	slices.SortFunc(d.infos, bytes.Compare)
	var n [binaryMaxVarint]byte
	d.h.Write(protowire.AppendVarint(protowire.AppendTag(n[:0], docSymbols, protowire.VarintType), uint64(len(d.infos))))
	for _, info := range d.infos {
		d.h.Write(protowire.AppendVarint(n[:0], uint64(len(info))))
		d.h.Write(info)
	}
	return d.h.sum(), nil
}

// infoCanonical returns a SymbolInformation message with its
// relationships after its other fields, in increasing order: b itself when
// they are so already.
func (d *docDigester) infoCanonical(b []byte) ([]byte, error) {
	d.rels = d.rels[:0]
	canonical := true
	err := eachField(b, func(num protowire.Number, typ protowire.Type, field, _ []byte) error {
		if num == infoRelationships && typ == protowire.BytesType {
			if n := len(d.rels); n > 0 && bytes.Compare(d.rels[n-1], field) > 0 {
				canonical = false
			}
			d.rels = append(d.rels, field)
		} else if len(d.rels) > 0 {
			canonical = false
		}
		return nil
	})
	if err != nil || canonical {
		return b, err
	}
	out := make([]byte, 0, len(b))
	_ = eachField(b, func(num protowire.Number, typ protowire.Type, field, _ []byte) error {
		if num != infoRelationships || typ != protowire.BytesType {
			out = append(out, field...)
		}
		return nil
	})
	slices.SortFunc(d.rels, bytes.Compare)
	for _, r := range d.rels {
		out = append(out, r...)
	}
	return out, nil
}

// eachField calls fn with every field of the message b: its number and
// wire type, its bytes (tag included) and, for a length-delimited field,
// its value.
func eachField(b []byte, fn func(num protowire.Number, typ protowire.Type, field, value []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return protowire.ParseError(m)
		}
		var value []byte
		if typ == protowire.BytesType {
			value, _ = protowire.ConsumeBytes(b[n : n+m])
		}
		if err := fn(num, typ, b[:n+m], value); err != nil {
			return err
		}
		b = b[n+m:]
	}
	return nil
}
